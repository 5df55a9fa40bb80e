"""Strict reader for run files: every problem names file, line and field.

Reads the envelope every benchmark shares (header fields, line types, unique `row_id`s, the
footer) and hands the benchmark's own header values and each item line to its format
(builder.runs.formats), so one reader serves CIBuzzBench and Mouse runs alike. It is given the
lookup of formats (the registry's by default) and names no plug-in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.names import display_name_problem, name_problem
from builder.core.fileio import being_written
from builder.runs import schema as s
from builder.runs.files import is_compressed
from builder.runs.formats import FormatLookup, RunFormat, installed
from builder.runs.lines import LineError, load_line
from builder.core.archives import gunzip
from builder.core.textfiles import check_values, last_line, numbered_lines, read_input

MAX_PROBLEMS = 200  # problems listed for one run file before it is no longer read
# The envelope every run shares; a benchmark's RunFormat checks the rest (builder.runs.formats).
_HEADER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "schema": str, "run_id": str, "benchmark": str, "task": str, "condition": str,
    "subject": dict, "option_seed": (int, type(None)), "items": dict, "dataset": dict,
    "created": str, "tool": dict,
}


def read_run(path: str | Path, raw: bytes | None = None, formats: FormatLookup | None = None) -> s.Run:
    """Parse one run file (or `raw`, bytes meant for it) with the run formats of `formats` (None:
    the installed registry's); raises InputError with every problem found."""
    path = Path(path)
    formats = formats if formats is not None else installed()
    text = _text(path, raw)
    collector = Collector(str(path))
    lines = numbered_lines(path, text)  # refuses too many lines before anything is cut
    last = last_line(text)
    records = _parsed(collector, lines, last)
    first = next(records, None)
    header = _read_header(collector, first, formats)
    fmt = _item_format(first, formats)
    items, footer, item_lines, footer_line = _read_body(collector, records, fmt, first[1] if first else None, last)
    collector.raise_if_any()
    assert header is not None
    return s.Run(str(path), header, tuple(items), footer, item_lines, footer_line)


def _text(path: Path, raw: bytes | None) -> str:
    """The run's text, read and inflated within the input caps (builder.core.textfiles), so a
    bomb of newlines is refused before it is expanded."""
    try:
        raw = read_input(path) if raw is None else raw  # a FIFO or device named like a run is refused
    except OSError as exc:
        raise InputError.single(path, f"cannot read run: {exc.strerror or exc}") from exc
    if is_compressed(path):
        raw = gunzip(path, raw)  # written whole (never appended), so a damaged stream is an error
    elif not raw.endswith(b"\n") and being_written(path):
        raw = raw[: raw.rfind(b"\n") + 1]  # a probe is appending this line now: read the run without it
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.single(path, "not valid UTF-8", line=line) from exc
    return check_values(path, text)


def _item_format(first: tuple[int, dict[str, Any] | None] | None, formats: FormatLookup) -> RunFormat | None:
    """The format that reads the item lines: the header's benchmark, even when another header
    field has a problem (so item problems are reported in the same pass); None when unknown."""
    data = first[1] if first else None
    if data is None or data.get("type") != "header" or not isinstance(data.get("benchmark"), str):
        return None
    return formats.format_for(data["benchmark"], data.get("task") if isinstance(data.get("task"), str) else None)


def _parsed(c: "Collector", lines: Iterable[tuple[int, str]], last: int) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Each line must be a JSON object on its own (no joined fast path: a torn line could
    otherwise combine with its neighbour into valid JSON); parsed as it is read, so only the
    items are kept, never every line's object at once."""
    return ((n, c.parse_json(n, text, last=(n == last))) for n, text in lines)


class Collector:
    """Every problem of one file, each with its line and field; raised together."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None:
        """Record a problem; past MAX_PROBLEMS, stop reading the file (a run of millions of bad
        lines would otherwise cost a problem each, in memory and time)."""
        self.problems.append(Problem(self.path, message, line, field))
        if len(self.problems) >= MAX_PROBLEMS:
            self.problems.append(Problem(self.path, f"stopped reading after {MAX_PROBLEMS} problems", line))
            raise InputError(self.problems)

    def raise_if_any(self) -> None:
        if self.problems:
            raise InputError(self.problems)

    def parse_json(self, line: int, text: str, *, last: bool) -> dict[str, Any] | None:
        try:
            value = load_line(text)
        except LineError as exc:
            hint = " (truncated last line: the run was interrupted; resume it to repair)" if last else ""
            self.add(f"{exc}{hint}", line)
            return None
        if not isinstance(value, dict):
            self.add("expected a JSON object", line)
            return None
        return value

    def check_fields(self, line: int, record: dict[str, Any],
                     fields: dict[str, type | tuple[type, ...]], required: tuple[str, ...]) -> bool:
        ok = True
        for name in required:
            if name not in record:
                self.add("required field is missing", line, name)
                ok = False
        for name, kinds in fields.items():
            if name in record and not is_instance(record[name], kinds):
                self.add(f"wrong type {type(record[name]).__name__}", line, name)
                ok = False
        return ok


class ItemFields:
    """An item line's fields (name -> the types its value may have) and the required ones, with
    the cheap test a run's common line takes before any diagnosis."""

    def __init__(self, fields: dict[str, type | tuple[type, ...]], required: tuple[str, ...]):
        self.fields, self.required = fields, required
        self._keys = frozenset(fields) | {"type"}
        self._exact = {name: frozenset(kinds if isinstance(kinds, tuple) else (kinds,)) for name, kinds in fields.items()}

    def plainly_valid(self, data: dict[str, Any]) -> bool:
        """Whether `data` has every required field, no field beyond these and "type", and each value
        of exactly a type its field lists (so no true or false passes as a number): a line that
        Collector.check_fields and the unknown-field check would pass without a word. False says
        only "diagnose it": a value of a subclass is left to the diagnosis too."""
        return (data.keys() <= self._keys and all(name in data for name in self.required)
                and all(type(value) in self._exact[name] for name, value in data.items() if name != "type"))


def is_instance(value: Any, kinds: type | tuple[type, ...]) -> bool:
    """isinstance for JSON values: true and false are not integers."""
    if isinstance(value, bool):  # JSON true/false must not pass as int
        return kinds is bool or (isinstance(kinds, tuple) and bool in kinds)
    return isinstance(value, kinds)


def _read_header(c: Collector, record: tuple[int, dict[str, Any] | None] | None,
                 formats: FormatLookup) -> s.Header | None:
    if record is None:
        c.add("run file is empty: expected a header line", 1)
        return None
    line, data = record
    if data is None:
        return None
    if data.get("type") != "header":
        c.add("first line must be the header (type 'header')", line, "type")
        return None
    if not c.check_fields(line, data, _HEADER_FIELDS, tuple(_HEADER_FIELDS)):
        return None
    fmt = formats.format_for(data["benchmark"], data["task"])
    extra = fmt.header_extra if fmt else {}
    for name in sorted(set(data) - set(_HEADER_FIELDS) - set(extra) - {"type"}):
        c.add("unknown header field", line, name)
    ok = c.check_fields(line, data, extra, ()) and _check_header_values(c, line, data, fmt, formats)
    return s.Header(**{k: data[k] for k in (*_HEADER_FIELDS, *extra) if k in data}) if ok else None


def _check_header_values(c: Collector, line: int, data: dict[str, Any], fmt: RunFormat | None,
                         formats: FormatLookup) -> bool:
    """The envelope's values here; the benchmark's own (tasks, seeds, selections) in its format."""
    before = len(c.problems)
    problem = name_problem(data["run_id"])
    if problem is not None:
        c.add(problem, line, "run_id")
    if data["schema"] != s.SCHEMA:
        c.add(f"unsupported schema {data['schema']!r} (this tool reads {s.SCHEMA!r})", line, "schema")
    if fmt is None:
        c.add(f"unknown value {data['benchmark']!r} (expected one of: {', '.join(formats.names())})",
              line, "benchmark")
    for name, allowed in (("task", fmt.tasks), ("condition", fmt.conditions)) if fmt else ():
        if data[name] not in allowed:
            c.add(f"unknown value {data[name]!r} (expected one of: {', '.join(allowed)})", line, name)
    for key in ("kind", "name"):
        if not isinstance(data["subject"].get(key), str):
            c.add("missing or not a string", line, f"subject.{key}")
    if isinstance(data["subject"].get("name"), str) and (problem := display_name_problem(data["subject"]["name"])):
        c.add(problem, line, "subject.name")
    if data["subject"].get("kind") not in s.SUBJECT_KINDS:
        c.add(f"expected one of: {', '.join(s.SUBJECT_KINDS)}", line, "subject.kind")
    if fmt is not None:
        fmt.check_header(c, line, data)
    if not isinstance(data["items"].get("n", 0), int) or isinstance(data["items"].get("n"), bool):
        c.add("not an integer", line, "items.n")
    if not isinstance(data["dataset"].get("content_sha256"), str):
        c.add("missing or not a string", line, "dataset.content_sha256")
    if (data["condition"] == "probe") != (data["subject"].get("kind") == "probe"):
        c.add(f"condition {data['condition']!r} does not fit subject kind {data['subject'].get('kind')!r} "
              "(model-free probes, and only they, have condition 'probe')", line, "condition")
    return len(c.problems) == before


def _read_body(c: Collector, records: Iterable[tuple[int, dict[str, Any] | None]], fmt: RunFormat | None,
               header: dict[str, Any] | None, last: int) -> tuple[list[Any], s.Footer | None, dict[int, int], int | None]:
    """Items are read by the header's benchmark format (none when the benchmark is unknown:
    the header already says so); the envelope checks line types, row_id uniqueness, the footer."""
    items: list[Any] = []
    seen: dict[int, int] = {}
    footer: s.Footer | None = None
    footer_line: int | None = None
    for line, data in records:
        if data is None:
            continue
        kind = data.get("type")
        if kind == "footer":
            footer = _read_footer(c, line, data, is_last=line == last)
            footer_line = line
        elif kind == "item":
            if fmt is None or header is None:
                continue
            item = fmt.read_item(c, line, data, header)
            if item is not None and _first_time(c, line, item.row_id, seen):
                items.append(item)
        else:
            c.add(f"unknown line type {kind!r} (expected 'item' or 'footer')", line, "type")
    return items, footer, seen, footer_line


def _first_time(c: Collector, line: int, row_id: int, seen: dict[int, int]) -> bool:
    if row_id in seen:
        c.add(f"duplicate row_id {row_id} (first seen on line {seen[row_id]})", line, "row_id")
        return False
    seen[row_id] = line
    return True


def _read_footer(c: Collector, line: int, data: dict[str, Any], *, is_last: bool) -> s.Footer | None:
    if not is_last:
        c.add("footer must be the last line", line, "type")
        return None
    before = len(c.problems)
    if not is_instance(data.get("items"), int):
        c.add("missing or not an integer", line, "items")
    if not is_instance(data.get("finished"), (str, type(None))):
        c.add("not a string", line, "finished")
    usage = data.get("usage_totals") or {}
    if not isinstance(usage, dict) or not all(is_instance(v, int) for v in usage.values()):
        c.add("expected an object of integer counts", line, "usage_totals")
    for name in sorted(set(data) - {"type", "items", "finished", "usage_totals"}):
        c.add("unknown footer field", line, name)
    if len(c.problems) > before:
        return None
    return s.Footer(data["items"], data.get("finished"), usage)
