"""Load every run under a folder, reporting all bad runs at once.

The build reads the store once (`read_store`): every run through the same reader, grouped
by the benchmark its header names; each benchmark then validates its own runs against its
data (`validate_runs` for CIBuzzBench's), so no run reaches a page unchecked. A run none of
whose items was answered (every request failed) is set aside, not scored: a 0.0 [0.0, 0.0]
would measure the endpoint, not the model; What's new lists it with the reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from builder.core.build_date import future_problem
from builder.core.errors import InputError, Problem, gather
from builder.core.workers import ordered_map
from builder.runs.cache import LazyItems, RunCache
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run


FAILED = "failed-items"  # the run cache's name for a run's count of failed items


@dataclass(frozen=True)
class SetAside:
    """A run read but not scored, and why, in the build's own words (never the run's text)."""

    run_id: str
    path: str
    reason: str


@dataclass
class RunStore:
    """The runs that could be read, by benchmark, the problems of those that could not, and
    the runs set aside (read, but with nothing to score)."""

    runs: dict[str, list[Run]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    set_aside: list[SetAside] = field(default_factory=list)


def read_store(runs_dir: Path, cache: RunCache | None = None, latest: dt.datetime | None = None) -> RunStore:
    """`cache` hands back runs it already parsed (known by their bytes); `latest`: the latest
    moment a run may be dated (build_date.latest_moment), None to leave dates unchecked."""
    store = RunStore()
    runs: list[Run] = []
    for found in _read_all(run_files(runs_dir), cache):
        if isinstance(found, Run):
            runs.append(found)
        else:
            store.problems.extend(found)
    store.problems.extend(duplicate_ids(runs))
    if latest is not None:
        store.problems.extend(p for run in runs for p in date_problems(run, latest))
    for run in runs:
        reason = unanswered_reason(run, cache)
        if reason is not None:
            store.set_aside.append(SetAside(run.header.run_id, run.path, reason))
        else:
            store.runs.setdefault(run.header.benchmark, []).append(run)
    return store


def _read_all(paths: list[Path], cache: RunCache | None) -> list[Run | list[Problem]]:
    """Each file's run or its problems, in file order. The files the cache does not know are
    parsed in worker processes (builder.core.workers: 424,000 imported items are about 20 s of
    one core's time) and kept in the cache here, with the count of failed items the workers
    made while the items were at hand."""
    if cache is None:
        return [_read_one((path, None, False))[0] for path in paths]
    peeked = [cache.peek(path) for path in paths]
    todo = [(path, raw, key is not None) for path, (run, raw, key) in zip(paths, peeked) if run is None]
    fresh = iter(ordered_map(_read_one, todo))
    out: list[Run | list[Problem]] = []
    for run, _, key in peeked:
        if run is not None:
            out.append(run)
            continue
        found, failed = next(fresh)
        out.append(cache.keep(key, found, {FAILED: failed}) if isinstance(found, Run) else found)
    return out


def _read_one(task: tuple[Path, bytes | None, bool]) -> tuple[Run | list[Problem], int]:
    """(the run, items packed when it is to be kept, and its failed items; or its problems)."""
    path, raw, pack = task
    try:
        run = read_run(path, raw)
    except InputError as exc:
        return list(exc.problems), 0
    failed = _failed(run)
    return (replace(run, items=LazyItems.of(run.items)) if pack else run), failed


def date_problems(run: Run, latest: dt.datetime) -> list[Problem]:
    """A run dated after the build (its header's `created`, its footer's `finished`) is refused:
    "What's new" lists runs by that date, and a false one would head it."""
    found: list[tuple[int | None, str, str | None]] = [(1, "created", future_problem(run.header.created, latest))]
    if run.footer is not None and run.footer.finished is not None:
        found.append((run.footer_line, "finished", future_problem(run.footer.finished, latest)))
    return [Problem(run.path, message, line, name) for line, name, message in found if message is not None]


def unanswered_reason(run: Run, cache: RunCache | None = None) -> str | None:
    """Why a run has no score: it holds items and every one failed (each has an `error`);
    None otherwise (a run with no items at all is its benchmark's validation's to refuse).
    Counted once per run file and kept in the run cache: counting unpacks every item."""
    failed = cache.derived(run, FAILED, lambda: _failed(run)) if cache else _failed(run)
    if not run.items or failed < len(run.items):
        return None
    return f"no answered item: all {failed:,} of its requests failed, so it has no score"


def _failed(run: Run) -> int:
    return sum(1 for item in run.items if getattr(item, "error", None) is not None)


def checked(runs: Sequence[Run], check: Callable[[Run], object]) -> list[Run]:
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
