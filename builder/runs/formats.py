"""Which benchmark reads a run's items: one envelope for every run, one item schema per benchmark.

Every run file has the same envelope (header, item lines keyed by `row_id`, footer; see
builder.runs.reader). The header names its `benchmark`; that benchmark's `RunFormat` checks
its own header values (tasks, conditions, option seeds, selections) and reads each item line.
A plug-in declares its format (`Benchmark.run_format_module`, imported only when a run of it is
read), and the reader asks the one registry (builder.benchmarks) which plug-in owns a run, so a
new benchmark's runs become readable with no change to the reader, the writer or the probing
engine. A plug-in that serves many benchmark names (the spec'd multiple-choice benchmarks: one
name per spec file) marks its format `any_name`: it then owns the runs of any benchmark name no
plug-in is called, whose `task` is one of its tasks; the pipeline routes each run by the same
rule, and the owner's `run_names` says whether this build has that name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


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


def known_benchmarks() -> tuple[str, ...]:
    """Benchmarks with a run format, sorted (what a header's `benchmark` may say)."""
    from builder.benchmarks import run_format_names
    return run_format_names()


def format_for(benchmark: str, task: object = None) -> RunFormat | None:
    """The run format of the plug-in that owns runs named `benchmark` with this `task` (the one
    ownership rule: builder.benchmarks.run_owner); None when no plug-in does."""
    from builder.benchmarks import run_owner
    owner = run_owner(benchmark, task)
    return owner.run_format() if owner is not None else None
