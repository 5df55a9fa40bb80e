"""`buzzprobe export lm-eval|inspect` and `buzzprobe import lm-eval|inspect`, for every plug-in
that writes tasks for the harnesses: each is asked through the contract's `harness_interop`
(CIBuzzBench's tasks without --benchmark, a spec'd benchmark's with it), so no plug-in calls
another. docs/lm-eval.md, docs/inspect.md."""

from __future__ import annotations

import argparse
from pathlib import Path

from builder.core.errors import InputError, Problem
from builder.core.report import current
from builder.core.paths import refuse_checkout
from builder.interop.harness import DEFAULT_OUT, HarnessInterop, HarnessOutput, imported_path, unknown_task
from builder.runs.schema import Run
from builder import benchmarks  # the module, so a test's stand-in registry applies


def harness_plugins() -> list[HarnessInterop]:
    """Every plug-in's part, in the registry's (name) order: the first that claims an output reads it."""
    return [part for benchmark in benchmarks.registered()
            if benchmark.harness_tasks and (part := benchmark.harness_interop()) is not None]


def run_harness_export(args: argparse.Namespace) -> list[str]:
    """The tasks of the plug-in that serves `--benchmark` (or its absence); the lines to print."""
    if getattr(args, "condition", None) and args.benchmark is None:
        raise InputError.single("--condition", "chooses a spec'd benchmark's arms: give --benchmark NAME "
                                "(CIBuzzBench's are chosen with --arms)")
    refuse_checkout(args.out)
    for part in harness_plugins():
        if part.exports(args.benchmark):
            return part.export(args)
    raise InputError.single("--benchmark", f"no plug-in writes {args.harness} tasks for {args.benchmark!r}")


def run_harness_import(harness: str, path: Path, model: str | None, out: str | None, created: str,
                       force: bool = False, benchmark: str | None = None) -> int:
    """Each task's output in PATH -> one run, by the plug-in that claims it; nothing is written
    unless every output is clean."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.runs.overwrite import write_checked
    outputs = read_outputs(harness, path)
    parts = harness_plugins()
    claimed: dict[int, list[HarnessOutput]] = {}
    problems: list[Problem] = []
    for output in outputs:
        owner = next((n for n, part in enumerate(parts) if part.claims(output, benchmark)), None)
        if owner is None:
            problems.append(unknown_task(output))
        else:
            claimed.setdefault(owner, []).append(output)
    runs: list[Run] = []
    notes: dict[str, str] = {}
    for owner, mine in sorted(claimed.items()):
        found, more, said = parts[owner].runs(mine, benchmark, created, model)
        runs, problems, notes = runs + found, problems + more, {**notes, **said}
    problems += _repeated(runs)
    if problems:
        raise InputError(problems)
    results = write_checked([(imported_path(run, out or DEFAULT_OUT), run) for run in runs], force=force)
    report = current()
    for run, (written, changed) in zip(runs, results, strict=True):
        report.add(f"{'wrote' if changed else 'unchanged'} {written} ({len(run.items)} items{notes.get(run.path, '')})",
                   path=str(written), changed=changed, run_id=run.header.run_id, items=len(run.items))
        for warning in run.header.import_warnings:
            report.warn(f"  warning: {warning}")
    return 0


def _repeated(runs: list[Run]) -> list[Problem]:
    """Two outputs that give one run would overwrite each other."""
    first: dict[str, str] = {}
    problems = []
    for run in runs:
        if run.header.run_id in first:
            problems.append(Problem(run.path, f"gives run {run.header.run_id} again (also from "
                                    f"{first[run.header.run_id]}); import one of them"))
        first.setdefault(run.header.run_id, run.path)
    return problems


def read_outputs(harness: str, path: Path) -> list[HarnessOutput]:
    """Every task output PATH holds: lm-eval samples files, or Inspect logs."""
    if harness == "lm-eval":
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.interop.lm_eval_log import find_samples, read_lm_eval
        return [read_lm_eval(p) for p in find_samples(path)]
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.interop.inspect_log import find_logs, read_inspect
    return [read_inspect(p) for p in find_logs(path)]
