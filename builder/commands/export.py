"""`buzzprobe export WORD --out DIR`: runs and tasks in other tools' formats.

`export eee --run FILE` (Every Eval Ever) serves every benchmark that maps its runs out (the
contract's `eee_evaluation`), and `export lm-eval|inspect` every plug-in that writes harness tasks
(the contract's `harness_interop`: CIBuzzBench's without --benchmark, a spec'd benchmark's with
it), so all three are the command's own; a plug-in adds options (CIBuzzBench's task options) and
any words only it has through the contract (`add_export_options`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from builder.benchmarks.base import CommandHandler
from builder.core.report import current, reporting
from builder.probing.command import positive_int
from builder import benchmarks  # the module, so a test's stand-in registry applies

EEE = "eee"  # Every Eval Ever: a run of any benchmark with a mapping out (builder/runs/eee.py)
HARNESSES = ("lm-eval", "inspect")  # tasks for the harnesses, from whichever plug-in serves --benchmark


def add_export_parser(sub: Any) -> None:
    """Register `export`, with Every Eval Ever's options and every plug-in's words and options."""
    p = sub.add_parser("export", help="write a run as Every Eval Ever files, or a benchmark's tasks for "
                                      "lm-evaluation-harness or Inspect",
                       description="Write one run as Every Eval Ever's aggregate log and instance sidecar (eee), or "
                                   "a benchmark's prompts as another harness's tasks. Both carry the dataset's text: "
                                   "--out must be outside the repository.")
    p.add_argument("--out", type=Path, required=True, help="folder to write into (your own, never the repository)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the files written) instead of lines")
    eee = p.add_argument_group("export eee (one run of any benchmark with an Every Eval Ever mapping)")
    eee.add_argument("--run", type=Path, help="the run file to export")
    eee.add_argument("--developer", help="the model's developer, a folder of the datastore path "
                                         "(default: buzzprobe for a model-free probe, else unknown)")
    _add_task_options(p)
    words = export_words(p)
    p.add_argument("harness", choices=sorted(words), metavar="WORD",
                   help="what to write: " + ", ".join(f"{w} ({owner})" for w, (owner, _) in sorted(words.items())))
    p.set_defaults(handler=run_export, export_words=words)


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """What every benchmark's harness tasks read: which benchmark, arms, items and option seeds."""
    tasks = p.add_argument_group("export lm-eval|inspect (a benchmark's prompts as the harness's tasks)")
    tasks.add_argument("--benchmark", metavar="NAME", help="a spec'd benchmark's tasks (content/benchmarks/NAME.yaml); "
                       "without it, CIBuzzBench's")
    tasks.add_argument("--condition", choices=("sighted", "blind"), nargs="+", metavar="ARM",
                       help="with --benchmark: which arms, sighted and/or blind (default: both)")
    tasks.add_argument("--seeds", type=int, nargs="+", default=None, metavar="SEED",
                       help="option-shuffle seeds, one task each (default: the benchmark's first seed)")
    tasks.add_argument("--split", help="only this split (or sample within it)")
    tasks.add_argument("--sample", type=positive_int, metavar="N", help="a seeded sample of N items")
    tasks.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default %(default)s)")


def export_words(parser: argparse.ArgumentParser) -> dict[str, tuple[str, CommandHandler]]:
    """`eee`, `lm-eval` and `inspect`, then every plug-in's own words (each with its plug-in's
    name), their options added to `parser`."""
    words: dict[str, tuple[str, CommandHandler]] = {EEE: ("every benchmark", _export_eee)}
    if any(b.harness_tasks for b in benchmarks.registered()):  # the flag: no interop module loads
        words.update({h: ("every benchmark with harness tasks", _export_tasks) for h in HARNESSES})
    for benchmark in benchmarks.registered():
        for word, handler in benchmark.add_export_options(parser).items():
            if word in words:
                raise TypeError(f"two plug-ins claim `buzzprobe export {word}` ({words[word][0]} and {benchmark.name})")
            words[word] = (benchmark.name, handler)
    return words


def run_export(args: argparse.Namespace) -> int:
    with reporting(args.json, command="export", word=args.harness):
        return args.export_words[args.harness][1](args)


def _export_eee(args: argparse.Namespace) -> int:
    """The run's files, then (to stderr) what the Every Eval Ever validator will flag and its command."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.eee_export import export_run
    from builder.runs.eee import export_warnings, validator_command
    written = export_run(args.run, args.out, args.developer)
    for path in written:
        current().add(f"wrote {path}", path=str(path))
    for warning in export_warnings(written[0], args.out):
        print(f"warning: {warning}", file=sys.stderr)
    print(f"validate: {validator_command(args.out, written)}", file=sys.stderr)
    return 0


def _export_tasks(args: argparse.Namespace) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.interop.command import run_harness_export
    for line in run_harness_export(args):
        current().add(line, line=line)
    return 0
