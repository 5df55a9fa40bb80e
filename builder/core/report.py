"""What a command reports: lines for a person, or one JSON document with `--json`.

A command opens a `Report` (`reporting(as_json)`) and the code it runs adds to the current one
(`current().add(text, **record)`): in text mode each line is printed as it comes, as before; with
`--json` the records are kept and printed once, as one object, when the command ends. The
importers of every plug-in report through it, so `buzzprobe import … --json` needs no
per-plug-in flag, and code run outside a command (a test, a library call) prints its lines.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Report:
    """The records of one command; printed as lines (text) or kept for one JSON object."""

    as_json: bool = False
    records: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0  # things reported, in either mode (a closing progress line says how many)

    def add(self, text: str, **record: Any) -> None:
        """One thing done: `text` is its line for a person, `record` its fields for --json."""
        self.count += 1
        if self.as_json:
            self.records.append(record)
        else:
            print(text, flush=True)

    def warn(self, text: str) -> None:
        """A warning goes to stderr in both modes (stdout keeps the JSON clean)."""
        print(text, file=sys.stderr, flush=True)


_CURRENT: ContextVar[Report | None] = ContextVar("report", default=None)


def current() -> Report:
    """The running command's report; outside a command, one that prints its lines."""
    return _CURRENT.get() or Report()


@contextmanager
def reporting(as_json: bool, **summary: Any) -> Iterator[Report]:
    """A report for the `with` block; with `as_json`, its records are printed at the end as
    `{**summary, "records": [...]}` (only when the block succeeds: an error prints nothing)."""
    report = Report(as_json)
    token = _CURRENT.set(report)
    try:
        yield report
    finally:
        _CURRENT.reset(token)
    if as_json:
        print(json.dumps({**summary, "records": report.records}, indent=2, ensure_ascii=False, default=str))
