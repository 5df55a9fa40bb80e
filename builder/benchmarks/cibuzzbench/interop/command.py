"""`buzzprobe export lm-eval|inspect` and `buzzprobe import lm-eval|inspect` (docs/lm-eval.md,
docs/inspect.md). Only argparse at module level: the CLI stays fast for other commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.paths import refuse_checkout

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
    from builder.benchmarks.mcq.interop.export import check_condition_use, run_spec_export
    check_condition_use(args)
    if args.harness == EEE:
        from builder.runs.eee import export_run, export_warnings, validator_command
        written = export_run(args.run, args.out, args.developer)
        for path in written:
            print(f"wrote {path}")
        for warning in export_warnings(written[0], args.out):
            print(f"warning: {warning}", file=sys.stderr)
        print(f"validate: {validator_command(args.out, written)}", file=sys.stderr)
        return 0
    if args.benchmark is not None:
        refuse_checkout(args.out)
        print("\n".join(run_spec_export(args)))
        return 0
    from builder.benchmarks.cibuzzbench.interop.export import ExportRequest, export_inspect, export_lm_eval, plan_exports
    from builder.benchmarks.cibuzzbench.prompts import DEFAULT_PROTOCOLS, load_protocols
    from builder.runs.selection import make_selection
    from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
    from builder.probing.command import distinct_seeds
    refuse_checkout(args.out)
    seeds = distinct_seeds(args, DEFAULT_SEED)
    dataset = _variant(args.variant)
    request = ExportRequest(tuple(dict.fromkeys(args.arms)), args.lang, tuple(seeds), args.variant,
                            make_selection(args.split, args.sample, args.sample_seed), tuple(args.protocol))
    tasks = plan_exports(request, load_protocols(args.protocols or DEFAULT_PROTOCOLS), dataset)
    write = export_lm_eval if args.harness == "lm-eval" else export_inspect
    for path in write(tasks, dataset, args.out):
        print(f"wrote {path}")
    print(f"{len(tasks)} task(s): {', '.join(t.name for t in tasks)}")
    return 0


def _variant(name: str) -> Any:
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    dataset = load_dataset(dataset_path())
    if name == "original":
        return dataset
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    return derive_variants(dataset)[name]


def run_harness_import(harness: str, path: Path, model: str | None, out: str | None, created: str,
                       force: bool = False, benchmark: str | None = None) -> int:
    """Each task's output in PATH -> one run; nothing is written unless every output is clean.
    Tasks `export` wrote name their benchmark; another task's samples are mapped onto the spec
    `--benchmark NAME` names (builder/benchmarks/mcq/interop/)."""
    from builder.benchmarks.cibuzzbench.interop.importing import DEFAULT_OUT, imported_path
    from builder.benchmarks.mcq.interop.runs import spec_runs
    from builder.runs.overwrite import write_checked
    if harness == EEE:
        from builder.runs.eee_import import run_eee_import
        print("\n".join(run_eee_import(path, out, force)))
        return 0
    outputs = _outputs(harness, path)
    spec_outputs, others = spec_runs(outputs, benchmark)
    runs, problems = _cibuzzbench_runs(others, model, created) if others else ([], [])
    found, more, notes = spec_outputs.convert(created, model)
    runs += found
    problems += more
    first: dict[str, str] = {}
    for run in runs:
        if run.header.run_id in first:
            problems.append(Problem(run.path, f"gives run {run.header.run_id} again (also from {first[run.header.run_id]}); "
                                    "import one of them"))
        first.setdefault(run.header.run_id, run.path)
    if problems:
        raise InputError(problems)
    results = write_checked([(imported_path(run, out or DEFAULT_OUT), run) for run in runs], force=force)
    for run, (written, changed) in zip(runs, results, strict=True):
        print(f"{'wrote' if changed else 'unchanged'} {written} ({len(run.items)} items{notes.get(run.path, '')})")
        for warning in run.header.subject["parameters"].get("import_warnings", []):
            print(f"  warning: {warning}", file=sys.stderr)
    return 0


def _cibuzzbench_runs(outputs: list[Any], model: str | None, created: str) -> tuple[list[Any], list[Problem]]:
    """CIBuzzBench's exported tasks -> runs (and the problems of those that are not clean)."""
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    from builder.benchmarks.cibuzzbench.interop.importing import convert
    from builder.benchmarks.cibuzzbench.interop.spec import METADATA_SCHEMA
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    datasets = {}
    exported = [o.metadata for o in outputs if isinstance(o.metadata, dict) and o.metadata.get("schema") == METADATA_SCHEMA]
    if exported:  # a task with no export metadata is refused as unknown without the CSV
        datasets["original"] = load_dataset(dataset_path())
    if any(meta.get("variant", "original") != "original" for meta in exported):
        datasets.update(derive_variants(datasets["original"]))  # seconds of work: only when a task needs it
    protocols = load_protocols()
    runs, problems = [], []
    for output in outputs:
        try:
            runs.append(convert(output, datasets, protocols, created, model))
        except InputError as exc:
            problems.extend(exc.problems)
    return runs, problems


def _outputs(harness: str, path: Path) -> Any:
    if harness == "lm-eval":
        from builder.benchmarks.cibuzzbench.interop.lm_eval_log import find_samples, read_lm_eval
        return [read_lm_eval(p) for p in find_samples(path)]
    from builder.benchmarks.cibuzzbench.interop.inspect_log import find_logs, read_inspect
    return [read_inspect(p) for p in find_logs(path)]
