"""Load every run under a folder, reporting all bad runs at once.

The build reads the store once (`read_store`): every run through the same reader, grouped
by the benchmark its header names; each benchmark then validates its own runs against its
data (`validate_runs` for CIBuzzBench's), so no run reaches a page unchecked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from builder.core.errors import InputError, Problem, gather
from builder.runs.cache import RunCache
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run


@dataclass
class RunStore:
    """The runs that could be read, by benchmark, and the problems of those that could not."""

    runs: dict[str, list[Run]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def read_store(runs_dir: Path, cache: RunCache | None = None) -> RunStore:
    """`cache` hands back runs it already parsed (known by their bytes)."""
    store = RunStore()
    runs: list[Run] = []
    for path in run_files(runs_dir):
        try:
            runs.append(cache.run(path, lambda raw, path=path: read_run(path, raw)) if cache else read_run(path))
        except InputError as exc:
            store.problems.extend(exc.problems)
    store.problems.extend(duplicate_ids(runs))
    for run in runs:
        store.runs.setdefault(run.header.benchmark, []).append(run)
    return store


def checked(runs: Sequence[Run], check: Callable[[Run], None]) -> list[Run]:
    """The runs, once `check` (a benchmark's validation) passes each; else every problem of
    every run at once, so one build names all the bad runs."""
    gather(runs, check)
    return list(runs)


def duplicate_ids(runs: list[Run]) -> list[Problem]:
    first: dict[str, str] = {}
    problems = []
    for run in runs:
        rid = run.header.run_id
        if rid in first:
            problems.append(Problem(run.path, f"run_id {rid!r} is already used by {first[rid]}", 1, "run_id"))
        else:
            first[rid] = run.path
    return problems
