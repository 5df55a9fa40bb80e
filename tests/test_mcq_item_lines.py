"""A spec'd benchmark's item line: the shortcut for a plainly valid line (run_format._well_formed)
accepts exactly what the full diagnosis accepts, and every bad line still gets its located problem."""

from __future__ import annotations

from typing import Any

import pytest

from builder.benchmarks.mcq import run_format
from builder.benchmarks.mcq.run_format import ChoiceItem, read_item
from builder.runs.reader import Collector

GOOD: dict[str, Any] = {"type": "item", "row_id": 3, "id": "q-3", "letter_map": {"A": 1, "B": 0},
                        "response": "The answer is A.", "prediction": "A", "latency_ms": 12.5}
REVISION = {"differs": ["gold"], "k": 4, "gold": 2, "sha256": "ab" * 32}


def read(data: dict[str, Any]) -> tuple[ChoiceItem | None, list[tuple[str, str | None]]]:
    c = Collector("runs/x.jsonl")
    item = read_item(c, 7, dict(data), {})
    assert all(p.line == 7 for p in c.problems)
    return item, [(p.message, p.field) for p in c.problems]


@pytest.mark.parametrize("extra", [{}, {"revision": REVISION}, {"response": None, "response_sha256": "cd" * 32,
                                                                  "response_chars": 40, "official": "B"},
                                   {"usage": {"prompt_tokens": 9}, "error": None, "response_truncated": False}])
def test_a_valid_line_reads_the_same_by_the_shortcut_and_by_the_diagnosis(extra: dict[str, Any]) -> None:
    data = {**GOOD, **extra}
    assert run_format._well_formed(dict(data)) is not None  # the shortcut takes it
    item, problems = read(data)
    assert problems == []
    assert item == ChoiceItem(**{k: v for k, v in data.items() if k != "type"})
    assert run_format._diagnosed(Collector("x"), 7, dict(data)) == {k: v for k, v in data.items() if k != "type"}


@pytest.mark.parametrize(("change", "message", "field"), [
    ({"letter_map": {"A": True}}, "must map letters to choice indices (integers)", "letter_map"),
    ({"letter_map": {}}, "must map letters to choice indices (integers)", "letter_map"),
    ({"letter_map": {"A": 1.0}}, "must map letters to choice indices (integers)", "letter_map"),
    ({"row_id": True}, "wrong type bool", "row_id"),
    ({"row_id": "3"}, "wrong type str", "row_id"),
    ({"latency_ms": False}, "wrong type bool", "latency_ms"),
    ({"response_truncated": 1}, "wrong type int", "response_truncated"),
    ({"confidence": 0.9}, "unknown field", "confidence"),
    ({"prediction": None}, "wrong type NoneType", "prediction"),
    ({"revision": {"differs": [], "k": True, "gold": 1, "sha256": "x"}},
     "expected an object with differs, k, gold, sha256", "revision"),
    ({"revision": {"k": 4}}, "expected an object with differs, k, gold, sha256", "revision"),
])
def test_a_bad_line_is_left_to_the_diagnosis_and_named(change: dict[str, Any], message: str, field: str) -> None:
    data = {**GOOD, **change}
    assert run_format._well_formed(dict(data)) is None
    item, problems = read(data)
    assert item is None and problems == [(message, field)]


def test_a_missing_field_is_named() -> None:
    data = {k: v for k, v in GOOD.items() if k != "id"}
    assert run_format._well_formed(dict(data)) is None
    assert read(data) == (None, [("required field is missing", "id")])
