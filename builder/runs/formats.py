"""Which benchmark reads a run's items: one envelope for every run, one item schema per benchmark.

Every run file has the same envelope (header, item lines keyed by `row_id`, footer; see
builder.runs.reader). The header names its `benchmark`; that benchmark's `RunFormat` checks
its own header values (tasks, conditions, option seeds, selections) and reads each item line.
A plug-in declares its format (`Benchmark.run_format_module`, imported only when a run of it is
read), and the reader is given a `FormatLookup` that says which plug-in owns a run: the one
registry (builder.benchmarks), which installs itself as the default as it loads, so a
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


class FormatLookup(Protocol):
    """What the reader is given to find a run's format: the registry (builder.benchmarks.FORMATS)
    in the tool, a stand-in in a test. The reader names no plug-in and imports no registry."""

    def format_for(self, benchmark: str, task: str | None) -> RunFormat | None:
        """The format of the plug-in that owns runs named `benchmark` with this `task`; None: none does."""
        ...

    def names(self) -> tuple[str, ...]:
        """Benchmarks with a run format, sorted (what a header's `benchmark` may say)."""
        ...


_installed: list[FormatLookup] = []


def install(lookup: FormatLookup) -> None:
    """The lookup a reader uses when its caller names none: the registry installs itself here
    as it loads, so every run read in the tool goes by the one ownership rule."""
    _installed[:] = [lookup]


def installed() -> FormatLookup:
    """The installed lookup; reading runs before the registry is loaded is a programming error."""
    if not _installed:
        raise RuntimeError("no run formats installed: import builder.benchmarks (the registry) first")
    return _installed[0]
