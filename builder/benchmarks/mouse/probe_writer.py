"""Append-and-flush writing for live Mouse runs, so a killed probe resumes without duplicates.

`write_mouse_run` (runfile.py) writes a whole run atomically; a live probe instead appends
one fsynced line per answered item, so a crash loses at most the requests in flight. This
follows builder.runs.writer (same line format, same torn-line repair); it differs in the
key (`index`, not `row_id`) and the header type. Every appended line is a valid
`buzzprobe.mouse-run/1` item, so a partial run reads with `read_mouse_run`.

The run schema has no room for per-call latency, token usage or error messages, so they
go to a sidecar call log, `<run>.calls.ndjson` (not `*.jsonl`, so run globs skip it): one
line per request, appended before the item's run line. Usage totals are summed from it.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Self, TypeVar

from builder.core.errors import InputError
from builder.benchmarks.mouse.runfile import MouseRunHeader, MouseRunItem
# Shared with the CIBuzzBench writer: one line format, one rule for a complete line.
from builder.runs.writer import add_done, complete_record, dump_line

CALLS_SCHEMA = "buzzprobe.mouse-calls/1"
Records = list[tuple[int, dict[str, Any]]]  # (line number, JSON object)
T = TypeVar("T")
# Header parts that may differ between a start and a resume (or a finish).
_VOLATILE = ("created", "tool")
_OUTCOME = ("usage_totals", "calls", "failed_calls")  # written into `source` when the run finishes


def stable_header(record: dict[str, Any]) -> dict[str, Any]:
    """A header (JSON form) without what may change between start, resume and finish."""
    out = {k: v for k, v in record.items() if k not in _VOLATILE}
    if isinstance(out.get("source"), dict):
        out["source"] = {k: v for k, v in out["source"].items() if k not in _OUTCOME}
    return json.loads(json.dumps(out))  # tuples as lists, as read back


def calls_path(run_path: str | Path) -> Path:
    path = Path(run_path)
    return path.with_name(path.name.removesuffix(".jsonl") + ".calls.ndjson")


class _Appender:
    def __init__(self, path: Path, handle: IO[str], fsync: bool):
        self.path, self._handle, self._fsync = path, handle, fsync

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(dump_line(record))
        self._handle.flush()
        if self._fsync:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open(path: Path, first: dict[str, Any], fsync: bool, fresh: bool, check: Callable[[Records], T]
          ) -> tuple[IO[str], T | None, bool]:
    """Open for appending; returns (handle, check(records), created). A new, empty or `fresh`
    file starts with `first`. An existing one is checked first (its records, the first line
    included), then has a torn last line or a final footer cut. A file without a readable
    first line is refused, not overwritten: it may be something else entirely."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not fresh and path.exists() and path.stat().st_size > 0:
        records, keep = _scan(path)
        if not records:
            raise InputError.single(path, "cannot resume: the file has no readable header; "
                                    "use another output file", line=1)
        checked = check(records)
        if keep < path.stat().st_size:
            with open(path, "r+b") as handle:
                handle.truncate(keep)
        return open(path, "a", encoding="utf-8", newline="\n"), checked, False
    handle = open(path, "w", encoding="utf-8", newline="\n")
    handle.write(dump_line(first))
    handle.flush()
    if fsync:
        os.fsync(handle.fileno())
    return handle, None, True


def _scan(path: Path) -> tuple[Records, int]:
    """Complete records before a torn last line or a final footer, and their byte length.
    Only the last line can be torn by a crash; a bad line elsewhere is damage we refuse
    to paper over, since truncating there would lose finished items."""
    lines = path.read_bytes().splitlines(keepends=True)
    keep, records = 0, []
    for number, line in enumerate(lines, start=1):
        record = complete_record(line)
        last = number == len(lines)
        if record is None and not last:
            raise InputError.single(path, "cannot resume: line is not valid JSON", line=number)
        if record is not None and record.get("type") == "footer" and not last:
            raise InputError.single(path, "cannot resume: footer is not the last line", line=number)
        if record is None or record.get("type") == "footer":
            break
        records.append((number, record))
        keep += len(line)
    return records, keep


class MouseRunWriter(_Appender):
    """Appends `buzzprobe.mouse-run/1` items one flushed line at a time."""

    def __init__(self, path: Path, handle: IO[str], task: str, done: set[int], created: bool, fsync: bool):
        super().__init__(path, handle, fsync)
        self.task, self.done, self.created = task, done, created

    @classmethod
    def open(cls, path: str | Path, header: MouseRunHeader, *, fsync: bool = True) -> "MouseRunWriter":
        """Start a run, or continue the one at `path` if its header matches."""
        path = Path(path)
        handle, done, created = _open(path, header.to_json(), fsync, False, lambda r: _done(path, r, header))
        return cls(path, handle, header.task, done or set(), created, fsync)

    def write(self, item: MouseRunItem) -> None:
        if item.index in self.done:
            raise ValueError(f"{self.path}: index {item.index} is already in the run")
        self.append(item.to_json(self.task))
        self.done.add(item.index)


def _done(path: Path, records: Records, header: MouseRunHeader) -> set[int]:
    if records[0][1].get("type") != "header":
        raise InputError.single(path, "cannot resume: the file has no readable header", line=1)
    existing, wanted = stable_header(records[0][1]), stable_header(header.to_json())
    for key, value in wanted.items():
        if existing.get(key) != value:
            raise InputError.single(path, f"cannot resume: existing run has {key}={existing.get(key)!r}, this "
                                    f"command asks for {value!r}; use another output file", line=1, field=key)
    done: set[int] = set()
    for number, record in records[1:]:
        add_done(path, number, record, done, key="index")
    return done


class CallLog(_Appender):
    """The sidecar: one line per request (latency and usage, or the redacted error)."""

    @classmethod
    def open(cls, run_path: str | Path, run_id: str, *, fresh: bool, fsync: bool = True) -> "CallLog":
        path = calls_path(run_path)
        first = {"type": "header", "schema": CALLS_SCHEMA, "run_id": run_id}

        def check(records: Records) -> None:
            if records[0][1] != first:
                raise InputError.single(path, f"call log belongs to another run (expected run_id {run_id!r})", line=1)
        handle, _, _ = _open(path, first, fsync, fresh, check)
        return cls(path, handle, fsync)


def read_calls(run_path: str | Path) -> list[dict[str, Any]]:
    """The call records of a run's sidecar ([] when absent); a torn last line is skipped."""
    path = calls_path(run_path)
    if not path.is_file():
        return []
    records = [complete_record(line) for line in path.read_bytes().splitlines(keepends=True)]
    return [r for r in records if r is not None and r.get("type") == "call"]


def call_totals(calls: list[dict[str, Any]]) -> tuple[dict[str, int], int]:
    """Token usage summed over every answered call (re-asks after a crash included: that is
    what was spent), and the number of calls that failed after their retries."""
    totals: Counter[str] = Counter()
    for call in calls:
        usage = call.get("usage") or {}
        totals.update({k: v for k, v in usage.items() if type(v) is int})
    return dict(sorted(totals.items())), sum(1 for c in calls if c.get("error") is not None)
