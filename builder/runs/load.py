"""Load every run under a folder, reporting all bad runs at once.

One folder holds every benchmark's runs (runs/<model>/...). `read_runs` reads each file once
with the one reader and groups the runs by the benchmark their header names; each benchmark
then validates its own group against its data (CIBuzzBench: `load_runs` below). A run_id is
unique across the whole folder, whatever the benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.core.errors import InputError, Problem
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.runs.validate import validate_run

CIBUZZBENCH = "cibuzzbench"


def read_runs(runs_dir: Path) -> dict[str, list[Run]]:
    """benchmark -> its runs in file order; raises every reading problem of every file."""
    groups, problems = _read_all(runs_dir)
    if problems:
        raise InputError(problems)
    return groups


def _read_all(runs_dir: Path) -> tuple[dict[str, list[Run]], list[Problem]]:
    groups: dict[str, list[Run]] = {}
    problems: list[Problem] = []
    runs: list[Run] = []
    for path in run_files(runs_dir):
        try:
            run = read_run(path)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        runs.append(run)
        groups.setdefault(run.header.benchmark, []).append(run)
    return groups, problems + _duplicate_ids(runs)


def validated(runs: list[Run], validate: Callable[[Run], None]) -> list[Run]:
    """The runs if every one passes `validate`; else every problem of every run at once."""
    problems: list[Problem] = []
    for run in runs:
        try:
            validate(run)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return runs


def load_runs(runs_dir: Path, datasets: Dataset | Mapping[str, Dataset]) -> list[Run]:
    """Read every run and validate the CIBuzzBench ones against the dataset variant each names
    (other benchmarks' runs are read, so their problems are reported, and validated by them)."""
    by_variant = {"original": datasets} if isinstance(datasets, Dataset) else dict(datasets)
    groups, problems = _read_all(runs_dir)
    runs: list[Run] = []
    for run in groups.get(CIBUZZBENCH, []):
        try:
            validate_run(run, _dataset_for(run, by_variant))
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        runs.append(run)
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
