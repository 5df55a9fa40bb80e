"""The `buzzprobe export` command and the `import lm-eval|inspect|eee` words (docs/lm-eval.md,
docs/inspect.md, docs/every-eval-ever.md): their options here, the work in the shared
builder/interop/command.py (which asks every plug-in through the contract) and
builder/runs/eee*.py. Only argparse at module level: the CLI stays fast for other commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


HARNESSES = ("lm-eval", "inspect")
EEE = "eee"  # Every Eval Ever: a run of any benchmark with a mapping out, not tasks (builder/runs/eee.py)
IMPORTS = (*HARNESSES, EEE)  # `buzzprobe import WORD PATH`: eee reads back what `export eee` wrote


def add_export_parser(sub: Any) -> None:
    from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
    from builder.probing.command import positive_int
    p = sub.add_parser("export", help="write CIBuzzBench tasks for lm-evaluation-harness or Inspect, or a run "
                                      "as Every Eval Ever files",
                       description="Write buzzprobe's Task 2 sighted/blind and Task 3 protocol as another harness's "
                                   "tasks, or (eee) one run as Every Eval Ever's aggregate log and instance sidecar. "
                                   "Both carry the dataset's text: --out must be outside the repository.")
    p.add_argument("harness", choices=(*HARNESSES, EEE), help="lm-eval, inspect (tasks) or eee (one run)")
    p.add_argument("--run", type=Path, help="eee: the run file to export (CIBuzzBench's or a spec'd benchmark's)")
    p.add_argument("--developer", help="eee: the model's developer, a folder of the datastore path "
                                         "(default: buzzprobe for a model-free probe, else unknown)")
    p.add_argument("--out", type=Path, required=True, help="folder to write into (your own, never the repository)")
    p.add_argument("--arms", nargs="+", choices=("t2-sighted", "t2-blind", "t3"),
                   default=["t2-sighted", "t2-blind", "t3"], help="which tasks (default: all three)")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="prompt language (default %(default)s)")
    p.add_argument("--seeds", type=int, nargs="+", default=[DEFAULT_SEED], metavar="SEED",
                   help="Task 2 option-shuffle seeds, one task each (default %(default)s)")
    p.add_argument("--variant", choices=("original", "gold_pool"), default="original",
                   help="option set: the official distractors or the gold pool (default %(default)s)")
    p.add_argument("--split", choices=("train", "test"), help="only this split (or sample within it)")
    p.add_argument("--sample", type=positive_int, metavar="N", help="a seeded sample of N items")
    p.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default %(default)s)")
    p.add_argument("--protocol", action="append", default=[], metavar="ID",
                   help="a named alternative prompt replacing its arm's default (repeatable)")
    p.add_argument("--protocols", type=Path, default=None, help="protocol file (default: content/protocols/cibuzzbench.yaml)")
    p.add_argument("--benchmark", metavar="NAME", help="lm-eval, inspect: a spec'd benchmark's tasks "
                   "(content/benchmarks/NAME.yaml) instead of CIBuzzBench's")
    p.add_argument("--condition", choices=("sighted", "blind"), nargs="+", metavar="ARM",
                   help="with --benchmark: which arms, sighted and/or blind (default: both)")
    p.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    if args.harness == EEE:
        from builder.runs.eee import export_run, export_warnings, validator_command
        written = export_run(args.run, args.out, args.developer)
        for path in written:
            print(f"wrote {path}")
        for warning in export_warnings(written[0], args.out):
            print(f"warning: {warning}", file=sys.stderr)
        print(f"validate: {validator_command(args.out, written)}", file=sys.stderr)
        return 0
    from builder.interop.command import run_harness_export
    print("\n".join(run_harness_export(args)))
    return 0


def run_harness_import(harness: str, path: Path, model: str | None, out: str | None, created: str,
                       force: bool = False, benchmark: str | None = None) -> int:
    """`import lm-eval|inspect PATH` (builder/interop/command.py), or `import eee PATH`."""
    if harness == EEE:
        from builder.runs.eee_import import run_eee_import
        print("\n".join(run_eee_import(path, out, force)))
        return 0
    from builder.interop import command
    return command.run_harness_import(harness, path, model, out, created, force, benchmark)
