"""Strict reader for run files: every problem names file, line and field."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.names import name_problem
from builder.core.fileio import being_written
from builder.runs import schema as s
from builder.runs.lines import MAX_RESPONSE_CHARS, LineError, load_line

_HEADER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "schema": str, "run_id": str, "benchmark": str, "task": str, "condition": str,
    "subject": dict, "option_seed": (int, type(None)), "items": dict, "dataset": dict,
    "created": str, "tool": dict,
}
_CHOICES = {"benchmark": s.BENCHMARKS, "task": s.TASKS, "condition": s.CONDITIONS}
_ITEM_FIELDS: dict[str, type | tuple[type, ...]] = {
    "row_id": int, "prediction": str, "response": (str, type(None)), "error": (str, type(None)),
    "latency_ms": (int, float, type(None)), "usage": (dict, type(None)),
    "letter_map": (dict, type(None)), "response_truncated": (bool, type(None)),
}
_REQUIRED_ITEM = ("row_id", "prediction")


def read_run(path: str | Path, raw: bytes | None = None) -> s.Run:
    """Parse one run file (or `raw`, bytes meant for it); raises InputError with every problem found."""
    path = Path(path)
    lines = _split_lines(path, raw)
    collector = _Collector(str(path))
    records = _parse_all(collector, lines)
    header = _read_header(collector, records[0] if records else None)
    items, footer, item_lines, footer_line = _read_body(collector, records[1:])
    collector.raise_if_any()
    assert header is not None
    return s.Run(str(path), header, tuple(items), footer, item_lines, footer_line)


def _split_lines(path: Path, raw: bytes | None) -> list[tuple[int, str]]:
    try:
        raw = path.read_bytes() if raw is None else raw
    except OSError as exc:
        raise InputError.single(path, f"cannot read run: {exc.strerror or exc}") from exc
    if not raw.endswith(b"\n") and being_written(path):
        raw = raw[: raw.rfind(b"\n") + 1]  # a probe is appending this line now: read the run without it
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.single(path, "not valid UTF-8", line=line) from exc
    numbered = list(enumerate(text.split("\n"), start=1))
    if numbered and numbered[-1][1] == "":
        numbered.pop()  # the newline that ends the last line
    return [(n, t) for n, t in numbered if t.strip()]


def _parse_all(c: "_Collector", lines: list[tuple[int, str]]) -> list[tuple[int, dict[str, Any] | None]]:
    """Each line must be a JSON object on its own (no joined fast path: a torn line could
    otherwise combine with its neighbour into valid JSON)."""
    last = lines[-1][0] if lines else 0
    return [(n, c.parse_json(n, text, last=(n == last))) for n, text in lines]


class _Collector:
    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None:
        self.problems.append(Problem(self.path, message, line, field))

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
            if name in record and not _is_instance(record[name], kinds):
                self.add(f"wrong type {type(record[name]).__name__}", line, name)
                ok = False
        return ok


def _is_instance(value: Any, kinds: type | tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # JSON true/false must not pass as int
        return kinds is bool or (isinstance(kinds, tuple) and bool in kinds)
    return isinstance(value, kinds)


def _read_header(c: _Collector, record: tuple[int, dict[str, Any] | None] | None) -> s.Header | None:
    if record is None:
        c.add("run file is empty: expected a header line", 1)
        return None
    line, data = record
    if data is None:
        return None
    if data.get("type") != "header":
        c.add("first line must be the header (type 'header')", line, "type")
        return None
    if data.get("schema") == s.MOUSE_SCHEMA:
        c.add(f"this is a Mouse run ({s.MOUSE_SCHEMA}): Mouse runs belong in runs-mouse/, not in the "
              "CIBuzzBench runs folder; move it there (`buzzprobe mouse score` reads it)", line, "schema")
        return None
    if not c.check_fields(line, data, _HEADER_FIELDS, tuple(_HEADER_FIELDS)):
        return None
    for name in sorted(set(data) - set(_HEADER_FIELDS) - {"type"}):
        c.add("unknown header field", line, name)
    ok = _check_header_values(c, line, data)
    return s.Header(**{k: data[k] for k in _HEADER_FIELDS}) if ok else None


def _check_header_values(c: _Collector, line: int, data: dict[str, Any]) -> bool:
    before = len(c.problems)
    problem = name_problem(data["run_id"])
    if problem is not None:
        c.add(problem, line, "run_id")
    if data["schema"] != s.SCHEMA:
        c.add(f"unsupported schema {data['schema']!r} (this tool reads {s.SCHEMA!r})", line, "schema")
    for name, allowed in _CHOICES.items():
        if data[name] not in allowed:
            c.add(f"unknown value {data[name]!r} (expected one of: {', '.join(allowed)})", line, name)
    for key in ("kind", "name"):
        if not isinstance(data["subject"].get(key), str):
            c.add("missing or not a string", line, f"subject.{key}")
    if data["subject"].get("kind") not in s.SUBJECT_KINDS:
        c.add(f"expected one of: {', '.join(s.SUBJECT_KINDS)}", line, "subject.kind")
    if data["items"].get("selection") not in s.SELECTIONS:
        c.add(f"expected one of: {', '.join(s.SELECTIONS)}", line, "items.selection")
    if data["items"].get("selection") == "split" and data["items"].get("split") not in s.SPLITS:
        c.add(f"expected one of: {', '.join(s.SPLITS)}", line, "items.split")
    if data["items"].get("selection") in ("sample", "first") and data["items"].get("split") not in (None, *s.SPLITS):
        c.add(f"a {data['items']['selection']} selection is taken from all items or one of: {', '.join(s.SPLITS)}",
              line, "items.split")
    if data["items"].get("selection") == "first" and not (_is_instance(data["items"].get("n"), int) and data["items"]["n"] > 0):
        c.add("a first-N selection needs a positive integer n", line, "items.n")
    if data["items"].get("selection") == "sample" and not _is_instance(data["items"].get("sample_seed"), int):
        c.add("a sample needs an integer sample_seed", line, "items.sample_seed")
    if data["items"].get("selection") == "sample" and "n" not in data["items"]:
        c.add("a sample needs its size n", line, "items.n")
    if data["items"].get("selection") == "all" and "split" in data["items"]:
        c.add("selection 'all' takes no split (use selection 'split')", line, "items.split")
    if not isinstance(data["items"].get("n", 0), int) or isinstance(data["items"].get("n"), bool):
        c.add("not an integer", line, "items.n")
    if not isinstance(data["dataset"].get("content_sha256"), str):
        c.add("missing or not a string", line, "dataset.content_sha256")
    if data["dataset"].get("variant", "original") not in s.VARIANTS:
        c.add(f"expected one of: {', '.join(s.VARIANTS)}", line, "dataset.variant")
    if data["task"] == "equivalent_selection" and data["option_seed"] is None:
        c.add("equivalent_selection runs need an option seed", line, "option_seed")
    if data["task"] == "harmfulness_detection" and data["option_seed"] is not None:
        c.add("harmfulness_detection has no options: option_seed must be null", line, "option_seed")
    if data["task"] == "harmfulness_detection" and data["condition"] == "blind":
        c.add("harmfulness_detection has no blind condition (without the term there is nothing to judge)",
              line, "condition")
    if (data["condition"] == "probe") != (data["subject"].get("kind") == "probe"):
        c.add(f"condition {data['condition']!r} does not fit subject kind {data['subject'].get('kind')!r} "
              "(model-free probes, and only they, have condition 'probe')", line, "condition")
    return len(c.problems) == before


def _read_body(c: _Collector, records: list[tuple[int, dict[str, Any] | None]]
               ) -> tuple[list[s.Item], s.Footer | None, dict[int, int], int | None]:
    items: list[s.Item] = []
    seen: dict[int, int] = {}
    footer: s.Footer | None = None
    footer_line: int | None = None
    for index, (line, data) in enumerate(records):
        if data is None:
            continue
        kind = data.get("type")
        if kind == "footer":
            footer = _read_footer(c, line, data, is_last=index == len(records) - 1)
            footer_line = line
        elif kind == "item":
            item = _read_item(c, line, data)
            if item is not None and _first_time(c, line, item.row_id, seen):
                items.append(item)
        else:
            c.add(f"unknown line type {kind!r} (expected 'item' or 'footer')", line, "type")
    return items, footer, seen, footer_line


def _first_time(c: _Collector, line: int, row_id: int, seen: dict[int, int]) -> bool:
    if row_id in seen:
        c.add(f"duplicate row_id {row_id} (first seen on line {seen[row_id]})", line, "row_id")
        return False
    seen[row_id] = line
    return True


def _read_item(c: _Collector, line: int, data: dict[str, Any]) -> s.Item | None:
    if _well_formed_item(data):
        del data["type"]
        return _capped(s.Item(**data))
    if not c.check_fields(line, data, _ITEM_FIELDS, _REQUIRED_ITEM):
        return None
    unknown = sorted(set(data) - set(_ITEM_FIELDS) - {"type"})
    for name in unknown:
        c.add("unknown field", line, name)
    if unknown:
        return None
    return _capped(s.Item(**{k: data[k] for k in _ITEM_FIELDS if k in data}))


def _capped(item: s.Item) -> s.Item:
    """A response longer than any probe stores (a hand-made or imported file) is cut the same way."""
    if item.response is None or len(item.response) <= MAX_RESPONSE_CHARS:
        return item
    return replace(item, response=item.response[:MAX_RESPONSE_CHARS], response_truncated=True)


_ITEM_KEYS = frozenset(_ITEM_FIELDS) | {"type"}


def _well_formed_item(data: dict[str, Any]) -> bool:
    """Cheap check that lets the common, valid line skip the detailed diagnosis."""
    return (data.keys() <= _ITEM_KEYS and type(data.get("row_id")) is int
            and type(data.get("prediction")) is str
            and type(data.get("response")) in _STR_OR_NONE and type(data.get("error")) in _STR_OR_NONE
            and type(data.get("letter_map")) in _DICT_OR_NONE and type(data.get("usage")) in _DICT_OR_NONE
            and type(data.get("latency_ms")) in _NUMBER_OR_NONE
            and type(data.get("response_truncated")) in _BOOL_OR_NONE)


_STR_OR_NONE = (str, type(None))
_DICT_OR_NONE = (dict, type(None))
_NUMBER_OR_NONE = (int, float, type(None))
_BOOL_OR_NONE = (bool, type(None))


def _read_footer(c: _Collector, line: int, data: dict[str, Any], *, is_last: bool) -> s.Footer | None:
    if not is_last:
        c.add("footer must be the last line", line, "type")
        return None
    before = len(c.problems)
    if not _is_instance(data.get("items"), int):
        c.add("missing or not an integer", line, "items")
    if not _is_instance(data.get("finished"), (str, type(None))):
        c.add("not a string", line, "finished")
    usage = data.get("usage_totals") or {}
    if not isinstance(usage, dict) or not all(_is_instance(v, int) for v in usage.values()):
        c.add("expected an object of integer counts", line, "usage_totals")
    for name in sorted(set(data) - {"type", "items", "finished", "usage_totals"}):
        c.add("unknown footer field", line, name)
    if len(c.problems) > before:
        return None
    return s.Footer(data["items"], data.get("finished"), usage)
