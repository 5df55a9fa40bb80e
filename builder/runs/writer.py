"""Writing run files: append-and-flush for live runs, atomic replace for generated ones.

A live run may be killed at any moment; flushing every line means a restart loses
at most the lines in flight, and `RunWriter.open` repairs a torn last line and
reports which items are already done so nothing is asked or written twice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from builder.core.errors import InputError
from builder.core.names import check_display_name
from builder.runs.files import is_compressed
from builder.runs.lines import LineError, load_line
from builder.core.fileio import atomic_file
from builder.core.textfiles import lines_with_ends, read_input
from builder.runs.schema import Footer, Header, ItemLine
import gzip

# Header fields that may legitimately differ between the first start and a resume.
_VOLATILE_HEADER_FIELDS = ("created", "tool")


def dump_line(record: dict[str, Any]) -> str:
    """One JSON line, readable UTF-8; a line holding an unpaired surrogate (which UTF-8 cannot
    encode) is written with \\u escapes instead, so the raw text is kept and never crashes a write."""
    line = compact_json(record) + "\n"
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"
    return line


# json.dumps(value, ensure_ascii=False, separators=(",", ":")), without a new encoder per call
# (run lines here, a run's item files in site/catalogue_pages)
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def write_run(path: str | Path, header: Header, items: Iterable[ItemLine], footer: Footer | None) -> None:
    """Write a whole run at once, replacing any previous file atomically (user's umask mode);
    a `.jsonl.gz` path is gzip-compressed without a timestamp, so the same run is the same bytes."""
    check_display_name(header.subject_name, str(path), "subject.name")
    if is_compressed(Path(path)):
        with atomic_file(path) as handle:
            handle.write(run_bytes(header, items, footer, compress=True))
        return
    with atomic_file(path, text=True) as handle:
        handle.write(dump_line(header.to_json()))
        for item in items:
            handle.write(dump_line(item.to_json()))
        if footer is not None:
            handle.write(dump_line(footer.to_json()))


def run_bytes(header: Header, items: Iterable[Any], footer: Footer | None, *, compress: bool = False) -> bytes:
    """The run file's bytes (gzip with mtime 0 and no file name when `compress`)."""
    lines = [dump_line(header.to_json()), *(dump_line(i.to_json()) for i in items)]
    if footer is not None:
        lines.append(dump_line(footer.to_json()))
    raw = "".join(lines).encode("utf-8")
    if not compress:
        return raw
    return gzip.compress(raw, compresslevel=9, mtime=0)


class RunWriter:
    """Appends items to a run file one flushed line at a time."""

    def __init__(self, path: Path, handle: IO[str], done: set[int], fsync: bool):
        self.path = path
        self._handle = handle
        self.done = done
        self._fsync = fsync

    @classmethod
    def open(cls, path: str | Path, header: Header, *, fsync: bool = True) -> "RunWriter":
        """Start a run, or continue the one already at `path` if its header matches."""
        path = Path(path)
        check_display_name(header.subject_name, str(path), "subject.name")  # every probe and importer writes here
        path.parent.mkdir(parents=True, exist_ok=True)
        done: set[int] = set()
        if path.exists() and path.stat().st_size > 0:
            done = _recover(path, header)
            handle = open(path, "a", encoding="utf-8", newline="\n")
        else:
            handle = open(path, "w", encoding="utf-8", newline="\n")
            handle.write(dump_line(header.to_json()))
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        return cls(path, handle, done, fsync)

    def write(self, item: ItemLine) -> None:
        if item.row_id in self.done:
            raise ValueError(f"{self.path}: row_id {item.row_id} is already in the run")
        self._handle.write(dump_line(item.to_json()))
        self._handle.flush()
        if self._fsync:
            os.fsync(self._handle.fileno())
        self.done.add(item.row_id)

    def close(self, footer: Footer | None = None) -> None:
        if footer is not None:
            self._handle.write(dump_line(footer.to_json()))
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()

    def __enter__(self) -> "RunWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._handle.closed:
            self.close()


def _recover(path: Path, header: Header) -> set[int]:
    """Cut a torn last line or an old footer, check the header, return done row_ids.

    Only the last line can be torn by a crash; a bad line anywhere else is damage
    we refuse to paper over, since truncating there would lose finished items.
    """
    raw = read_input(path)
    lines = lines_with_ends(raw)
    keep, done, first = 0, set[int](), None
    for number, line in enumerate(lines, start=1):
        record = complete_record(line)
        if record is None and number < len(lines):
            raise InputError.single(path, "cannot resume: line is not valid JSON", line=number)
        if record is not None and record.get("type") == "footer" and number < len(lines):
            raise InputError.single(path, "cannot resume: footer is not the last line", line=number)
        if record is None or record.get("type") == "footer":
            break
        if first is None:
            first = record
        else:
            add_done(path, number, record, done)
        keep += len(line)
    check_same_header(path, first, header)
    if keep < len(raw):
        with open(path, "r+b") as handle:
            handle.truncate(keep)
    return done


def add_done(path: Path, number: int, record: dict[str, Any], done: set[int], key: str = "row_id") -> None:
    """Refuse to resume over items the strict reader would reject later (any run format
    whose items carry an integer `key`)."""
    item_id = record.get(key)
    if record.get("type") != "item" or type(item_id) is not int:
        raise InputError.single(path, "cannot resume: not a well-formed item line", line=number, field=key)
    if item_id in done:
        raise InputError.single(path, f"cannot resume: duplicate {key} {item_id}", line=number, field=key)
    done.add(item_id)


def complete_record(line: bytes) -> dict[str, Any] | None:
    if not line.endswith(b"\n"):
        return None
    try:
        value = load_line(line)
    except LineError:
        return None
    return value if isinstance(value, dict) else None


def check_same_header(path: Path, existing: dict[str, Any] | None, header: Header) -> None:
    if existing is None or existing.get("type") != "header":
        raise InputError.single(path, "cannot resume: the file has no readable header", line=1)
    wanted = json.loads(json.dumps(header.to_json()))  # compare as JSON (tuples become lists)
    for key in wanted:
        if key not in _VOLATILE_HEADER_FIELDS and existing.get(key) != wanted[key]:
            raise InputError.single(
                path, f"cannot resume: existing run has {key}={existing.get(key)!r}, "
                f"this command asks for {wanted[key]!r}; use another output file", line=1, field=key)
