"""Which benchmark reads a run's items: one envelope for every run, one item schema per benchmark.

Every run file has the same envelope (header, item lines keyed by `row_id`, footer; see
builder.runs.reader). The header names its `benchmark`; that benchmark's `RunFormat` checks
its own header values (tasks, conditions, option seeds, selections) and reads each item line.
A format is found by convention in `builder/benchmarks/<name>/run_format.py` (module constant
`FORMAT`), so a new benchmark's runs become readable by adding that module to its folder, with
no change to the reader, the writer or the probing engine. A plug-in that serves many benchmark
names (the spec'd multiple-choice benchmarks: one name per spec file) marks its format
`any_name`: it then reads the runs of any benchmark name no folder claims whose `task` is one of
its tasks, and the pipeline routes each run by its name (`Benchmark.run_names`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

FORMAT_MODULE = "run_format"


class Checker(Protocol):
    """The reader's problem collector, as a format sees it (every problem: file, line, field)."""

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None: ...

    def check_fields(self, line: int, record: dict[str, Any],
                     fields: dict[str, type | tuple[type, ...]], required: tuple[str, ...]) -> bool: ...


@dataclass(frozen=True)
class RunFormat:
    """What a benchmark adds to the envelope: its task and condition names, checks of its own
    header values, and the reader of one item line (None when the line has a problem)."""

    benchmark: str
    tasks: tuple[str, ...]
    conditions: tuple[str, ...]
    check_header: Callable[[Checker, int, dict[str, Any]], None]
    read_item: Callable[[Checker, int, dict[str, Any], dict[str, Any]], Any | None]  # (c, line, item, header)
    header_extra: dict[str, type | tuple[type, ...]] = field(default_factory=dict)  # optional header fields
    any_name: bool = False  # reads runs of any benchmark name (not a folder's) with one of its tasks


def _benchmarks_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "benchmarks"


@cache
def known_benchmarks() -> tuple[str, ...]:
    """Benchmarks whose folder has a run format, sorted (what a header's `benchmark` may say)."""
    return tuple(sorted(p.parent.name for p in _benchmarks_dir().glob(f"*/{FORMAT_MODULE}.py")))


@cache
def _folder_format(folder: str) -> RunFormat:
    return importlib.import_module(f"builder.benchmarks.{folder}.{FORMAT_MODULE}").FORMAT


@cache
def format_for(benchmark: str, task: object = None) -> RunFormat | None:
    """The run format of a benchmark folder by that name; else an `any_name` format whose tasks
    include `task`; None when neither (the reader says so)."""
    if benchmark in known_benchmarks():
        return _folder_format(benchmark)
    found = [f for f in map(_folder_format, known_benchmarks()) if f.any_name and task in f.tasks]
    return found[0] if found else None
