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


def add_export_options(p: Any) -> dict[str, Any]:
    """CIBuzzBench's part of the shared `buzzprobe export` (builder/commands/export.py): the
    task options of `export lm-eval|inspect`, in a group of their own, and the two words."""
    from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
    from builder.probing.command import positive_int
    p = p.add_argument_group("export lm-eval|inspect (CIBuzzBench's Task 2 sighted/blind and Task 3 as the "
                             "harness's tasks; they carry the dataset's text)")
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
    return {harness: run_export for harness in HARNESSES}


def run_export(args: argparse.Namespace) -> int:
    from builder.core.report import current
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
        current().add(f"wrote {path}", path=str(path))
    current().add(f"{len(tasks)} task(s): {', '.join(t.name for t in tasks)}", tasks=[t.name for t in tasks])
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
                       force: bool = False) -> int:
    """Each task's output in PATH -> one run; nothing is written unless every output is clean."""
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    from builder.benchmarks.cibuzzbench.interop.importing import DEFAULT_OUT, convert, imported_path
    from builder.runs.overwrite import write_checked
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    from builder.core.report import current
    outputs = _outputs(harness, path)
    dataset = load_dataset(dataset_path())
    datasets = {"original": dataset}
    if any(isinstance(o.metadata, dict) and o.metadata.get("variant", "original") != "original" for o in outputs):
        datasets.update(derive_variants(dataset))  # seconds of work: only when a task needs it
    protocols = load_protocols()
    runs, problems = [], []
    for output in outputs:
        try:
            runs.append(convert(output, datasets, protocols, created, model))
        except InputError as exc:
            problems.extend(exc.problems)
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
        current().add(f"{'wrote' if changed else 'unchanged'} {written} ({len(run.items)} items)",
                      path=str(written), changed=changed, run_id=run.header.run_id, items=len(run.items))
        for warning in run.header.subject["parameters"].get("import_warnings", []):
            print(f"  warning: {warning}", file=sys.stderr)
    return 0


def _outputs(harness: str, path: Path) -> Any:
    if harness == "lm-eval":
        from builder.benchmarks.cibuzzbench.interop.lm_eval_log import find_samples, read_lm_eval
        return [read_lm_eval(p) for p in find_samples(path)]
    from builder.benchmarks.cibuzzbench.interop.inspect_log import find_logs, read_inspect
    return [read_inspect(p) for p in find_logs(path)]
