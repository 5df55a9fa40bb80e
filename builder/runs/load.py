"""Load every run under a folder, reporting all bad runs at once."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.core.errors import InputError, Problem
from builder.runs.cache import RunCache
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.runs.validate import validate_run


def load_runs(runs_dir: Path, datasets: Dataset | Mapping[str, Dataset], cache: RunCache | None = None) -> list[Run]:
    """Read and validate every run against the dataset variant it names (a run the cache
    already knows, by its bytes, is taken from it)."""
    by_variant = {"original": datasets} if isinstance(datasets, Dataset) else dict(datasets)
    runs: list[Run] = []
    problems: list[Problem] = []
    for path in run_files(runs_dir):
        def read_valid(raw: bytes | None, path: Path = path) -> Run:
            run = read_run(path, raw)
            validate_run(run, _dataset_for(run, by_variant))
            return run
        try:
            run = cache.run(path, read_valid) if cache is not None else read_valid(None)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        runs.append(run)
    problems.extend(_duplicate_ids(runs))
    if problems:
        raise InputError(problems)
    return runs


def _dataset_for(run: Run, datasets: dict[str, Dataset]) -> Dataset:
    variant = run.header.variant
    if variant not in datasets:
        raise InputError.single(run.path, f"dataset variant {variant!r} is not available in this build "
                                f"(available: {', '.join(sorted(datasets))})", line=1, field="dataset.variant")
    return datasets[variant]


def _duplicate_ids(runs: list[Run]) -> list[Problem]:
    first: dict[str, str] = {}
    problems = []
    for run in runs:
        rid = run.header.run_id
        if rid in first:
            problems.append(Problem(run.path, f"run_id {rid!r} is already used by {first[rid]}", 1, "run_id"))
        else:
            first[rid] = run.path
    return problems
