"""Mouse's part of the run format: its header values and its item schema (docs/mouse.md, *Runs*).

Mouse runs are ordinary `buzzprobe.run/1` files with `benchmark: "mouse"`, read by the same
reader (builder.runs.reader) and written by the same writer and engine as CIBuzzBench runs.
What differs is here: tasks `tr rc ir td ms cc`, conditions `sighted`/`blind` (blind: ms and cc),
no option seed, a header `source` (probe, judge or import) and the item fields. An item keeps
the raw answer (`raw`; RC: one per component) and its parsed label (`parsed`; null when
unparsed, counted wrong); a TR item also says whether it copies the source and, once judged,
the judge's answer and verdict, `parsed` being the final 0/1/2 score. Items never copy dataset
text or gold, so runs can be kept while the gated data is not.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from builder.benchmarks.mouse.labels import (BLIND, CC, IR, IR_LABELS, JUDGE_LABELS, MS, MS_LABELS, RC,
                                             RC_COMPONENTS, RC_LABELS, SIGHTED, TASKS, TD, TD_LABELS, TR)
from builder.runs.formats import Checker, RunFormat
from builder.runs.reader import is_instance

BENCHMARK = "mouse"
CONDITIONS = (SIGHTED, BLIND)
BLIND_TASKS = (MS, CC)  # the options alone can be shown; the other tasks have nothing without the input
PROBE, JUDGED, IMPORTED = "probe", "judge", "import"  # header source.kind
SOURCE_KINDS = (PROBE, JUDGED, IMPORTED)
DATA_FILES = {TR: "main_eval", RC: "main_eval", IR: "main_eval", TD: "main_eval", MS: "single_choice", CC: "icc"}
_LABELS: dict[str, tuple[Any, ...]] = {IR: IR_LABELS, TD: TD_LABELS, RC: RC_LABELS, MS: MS_LABELS}
_ENVELOPE = ("error", "latency_ms", "usage", "response_truncated")
_TR_FIELDS = ("judge_raw", "judge", "copied")
_ITEM_FIELDS = frozenset({"type", "row_id", "raw", "parsed", *_TR_FIELDS, *_ENVELOPE})


@dataclass(frozen=True)
class MouseItem:
    """One item line. `raw`/`parsed`: a value (None = failed call / unparsed), or per-component
    dicts for RC. For TR, `raw` is the translation, `parsed` the final score, `copied` whether
    it copies the source, `judge_raw`/`judge` the judge's answer and verdict (None until judged).
    `error`, `latency_ms`, `usage` and `response_truncated` are the envelope's, summed over the
    item's requests (RC: three)."""

    row_id: int
    raw: Any
    parsed: Any
    judge_raw: str | None = None
    judge: int | None = None
    copied: bool | None = None  # set on every TR item, never on others
    error: str | None = None
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    response_truncated: bool | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "item", "row_id": self.row_id, "raw": self.raw, "parsed": self.parsed}
        if self.copied is not None:
            out.update(judge_raw=self.judge_raw, judge=self.judge, copied=self.copied)
        for name in _ENVELOPE:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


def unparsed(task: str, items: Iterable[MouseItem]) -> int:
    """Answers that count as wrong for want of a label (TR: items without a verdict)."""
    if task == TR:
        return sum(1 for i in items if i.judge is None)
    if task == RC:
        return sum(1 for i in items for v in i.parsed.values() if v is None)
    return sum(1 for i in items if i.parsed is None)


# ---------------------------------------------------------------- header

def check_header(c: Checker, line: int, data: dict[str, Any]) -> None:
    """No option seed; a selection of all items or a seeded sample; the data file the task
    reads; a blind arm only where the options can be shown alone; where the answers came from."""
    task, items = data["task"], data["items"]
    if data["option_seed"] is not None:
        c.add("Mouse runs have no option seed: it must be null", line, "option_seed")
    if items.get("selection") not in ("all", "sample"):
        c.add("expected one of: all, sample", line, "items.selection")
    if not (is_instance(items.get("n"), int) and items["n"] >= 0):
        c.add("the run's item count must be an integer >= 0", line, "items.n")
    if items.get("selection") == "sample" and not is_instance(items.get("sample_seed"), int):
        c.add("a sample needs an integer sample_seed", line, "items.sample_seed")
    if task in DATA_FILES and data["dataset"].get("file") != DATA_FILES[task]:
        c.add(f"a {task} run is made on {DATA_FILES[task]!r}, not {data['dataset'].get('file')!r}",
              line, "dataset.file")
    if data["condition"] == BLIND and task not in BLIND_TASKS:
        c.add(f"the blind arm exists for {' and '.join(BLIND_TASKS)} only", line, "condition")
    source = data.get("source")
    if not isinstance(source, dict):
        c.add("required field is missing" if source is None else "expected an object", line, "source")
    elif source.get("kind") not in SOURCE_KINDS:
        c.add(f"expected one of: {', '.join(SOURCE_KINDS)}", line, "source.kind")
    elif source["kind"] == JUDGED and task != TR:
        c.add("only translation (tr) runs are judged", line, "source.kind")


# ---------------------------------------------------------------- items

def read_item(c: Checker, line: int, data: dict[str, Any], header: dict[str, Any]) -> MouseItem | None:
    """The item's fields by the header's task: every problem located (line, field)."""
    errors: list[tuple[str, str]] = []
    if type(data.get("row_id")) is not int or data["row_id"] < 0:
        errors.append(("row_id", "must be an integer >= 0"))
    for name in sorted(set(data) - _ITEM_FIELDS):
        errors.append((name, "unknown field"))
    errors += _envelope_problems(data)
    task = header.get("task")
    if task in TASKS:
        errors += _value_problems(data, task)
    for name, message in errors:
        c.add(message, line, name)
    return None if errors else _item(data)


def _item(data: dict[str, Any]) -> MouseItem:
    return MouseItem(**{k: data[k] for k in _ITEM_FIELDS - {"type"} if k in data})


def _envelope_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    kinds = {"error": (str, type(None)), "latency_ms": (int, float, type(None)), "usage": (dict, type(None)),
             "response_truncated": (bool, type(None))}
    return [(name, f"wrong type {type(data[name]).__name__}") for name, k in kinds.items()
            if name in data and not is_instance(data[name], k)]


def _value_problems(data: dict[str, Any], task: str) -> list[tuple[str, str]]:
    raw, parsed = data.get("raw"), data.get("parsed")
    if task == RC:
        shaped = [(what, f"must be an object with keys {', '.join(RC_COMPONENTS)}")
                  for part, what in ((raw, "raw"), (parsed, "parsed"))
                  if not isinstance(part, dict) or sorted(part) != sorted(RC_COMPONENTS)]
        if shaped or not isinstance(raw, dict) or not isinstance(parsed, dict):  # (shaped says which)
            return shaped
        return [p for comp in RC_COMPONENTS for p in (*_text(f"raw.{comp}", raw[comp]),
                                                    *_label(f"parsed.{comp}", parsed[comp], RC_LABELS))]
    problems = _text("raw", raw) + [(name, "only translation (tr) items have it") for name in _TR_FIELDS
                                    if task != TR and name in data]
    if task == TR:
        problems += _label("parsed", parsed, JUDGE_LABELS, nullable=False)
        problems += _text("judge_raw", data.get("judge_raw"))
        problems += _label("judge", data.get("judge"), JUDGE_LABELS)
        if not isinstance(data.get("copied"), bool):
            problems.append(("copied", "must be true or false"))
    elif task == CC:
        if parsed is not None and not (isinstance(parsed, str) and len(parsed) == 1 and "A" <= parsed <= "Z"):
            problems.append(("parsed", "must be one upper-case letter or null"))
    else:
        problems += _label("parsed", parsed, _LABELS[task])
    return problems


def _text(field: str, value: Any) -> list[tuple[str, str]]:
    return [] if value is None or isinstance(value, str) else [(field, "must be a string or null")]


def _label(field: str, value: Any, allowed: tuple[Any, ...], nullable: bool = True) -> list[tuple[str, str]]:
    if value is None:
        return [] if nullable else [(field, "must not be null")]
    if type(value) is bool or value not in allowed:
        return [(field, f"must be one of {', '.join(map(str, allowed))}" + (" or null" if nullable else ""))]
    return []


FORMAT = RunFormat(BENCHMARK, TASKS, CONDITIONS, check_header, read_item, header_extra={"source": dict})
