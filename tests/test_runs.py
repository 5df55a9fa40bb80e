"""Run files: round trip, strict reading, validation against the dataset, loading a
folder of runs, and resuming an interrupted run (including a real SIGKILL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.errors import InputError, Problem
from builder.runs.selection import Selection
from tests.synthetic import load_runs
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import SCHEMA, Footer, Header
from builder.benchmarks.cibuzzbench.run_checks import validate_run
from builder.runs.writer import RunWriter, write_run

REPO = Path(__file__).resolve().parents[1]
SEED = 1111
T2 = "equivalent_selection"
T3 = "harmfulness_detection"
TRICKY = "Réponse « B » — 答案是 B 🙂 <script>alert('x')</script> \"quoted\" \\ tab\t\u2028end"


# ---------------------------------------------------------------- helpers


def make_header(dataset: Dataset, *, task: str = T2, run_id: str = "model-demo-t2-s1111-all",
                seed: int | None = SEED, selection: dict[str, Any] | None = None,
                created: str = "2026-12-01T00:00:00Z", temperature: float = 0.0,
                sha: str | None = None) -> Header:
    if task == T3 and seed == SEED:
        seed = None
    return Header(
        run_id=run_id, benchmark="cibuzzbench", task=task, condition="sighted",
        subject={"kind": "model", "name": "demo-model",
                 "parameters": {"temperature": temperature, "max_tokens": 8}},
        option_seed=seed, items=selection or {"selection": "all", "n": dataset.rows},
        dataset={"name": "CIBuzzBench", "variant": "original",
                 "content_sha256": sha if sha is not None else dataset.content_sha256},
        created=created, tool={"name": "buzzprobe", "version": "0.1.0"},
    )


def sample_of(dataset: Dataset, n: int, seed: int = 5) -> tuple[dict[str, Any], list[int]]:
    """A seeded-sample selection and the row_ids it declares (a finished run holds exactly these)."""
    selection = {"selection": "sample", "n": n, "sample_seed": seed}
    return selection, Selection.from_header(selection).row_ids(dataset)


def t2_item(dataset: Dataset, row_id: int, prediction: str = "A", **kw: Any) -> Item:
    return Item(row_id=row_id, prediction=prediction,
                letter_map=dict(option_sets(dataset, SEED)[row_id].letter_map), **kw)


def rich_header(dataset: Dataset) -> Header:
    return make_header(dataset, selection=sample_of(dataset, 5)[0])


def rich_items(dataset: Dataset) -> list[Item]:
    """Five items, exactly the sample `rich_header` declares."""
    a, b, c, d, e = sample_of(dataset, 5)[1]
    return [
        t2_item(dataset, a, "B", response=" B.", latency_ms=412.5,
                usage={"prompt_tokens": 88, "completion_tokens": 2}),
        t2_item(dataset, b, "", response=TRICKY, error=None),
        t2_item(dataset, c, "", error="timeout after 30 s"),
        t2_item(dataset, d, "D", response="<script>document.write('D')</script>", latency_ms=7),
        t2_item(dataset, e, "C"),
    ]


def line_of(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_text(path: Path, lines: list[str | dict[str, Any]], *, final_newline: bool = True) -> Path:
    text = "\n".join(line if isinstance(line, str) else line_of(line) for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((text + ("\n" if final_newline else "")).encode("utf-8"))
    return path


def item_rec(row_id: Any = 1, prediction: Any = "harmful", **extra: Any) -> dict[str, Any]:
    return {"type": "item", "row_id": row_id, "prediction": prediction, **extra}


def t3_header_rec(dataset: Dataset, **changes: Any) -> dict[str, Any]:
    record = make_header(dataset, task=T3, run_id="model-demo-t3-all").to_json()
    record.update(changes)
    return record


def expect_problem(exc: InputError, path: Path, *, line: int | None, field: str | None = None,
                   contains: str = "") -> Problem:
    """The error holds a problem at (path, line, field) and the rendered message shows it."""
    for p in exc.problems:
        if p.path == str(path) and p.line == line and p.field == field and contains in p.message:
            rendered = str(exc)
            where = str(path) + (f":{line}" if line is not None else "")
            assert where in rendered
            if field is not None:
                assert f"[{field}]" in rendered
            if contains:
                assert contains in rendered
            return p
    raise AssertionError(f"no problem at line={line} field={field} containing {contains!r}; got:\n{exc}")


def read_error(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_run(path)
    return info.value


# ---------------------------------------------------------------- round trip


def test_write_run_round_trip(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header = rich_header(synthetic_dataset)
    items = rich_items(synthetic_dataset)
    footer = Footer(len(items), "2026-12-01T00:05:00Z", {"completion_tokens": 2, "prompt_tokens": 88})
    path = tmp_path / "nested" / "run.jsonl"
    write_run(path, header, items, footer)

    run = read_run(path)
    assert run.header == header
    assert list(run.items) == items
    assert run.footer == footer
    assert run.path == str(path)
    assert run.item_lines == {item.row_id: line for line, item in enumerate(items, start=2)}
    validate_run(run, synthetic_dataset)

    raw = path.read_bytes()
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")
    assert "Réponse « B » — 答案是 B 🙂".encode("utf-8") in raw  # UTF-8, not \\u escapes
    assert b"\\u7b54" not in raw and b"\\ud83d" not in raw
    assert b"<script>alert('x')</script>" in raw
    assert [p.name for p in path.parent.iterdir()] == ["run.jsonl"]  # no temp file left behind


def test_run_writer_round_trip(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header = rich_header(synthetic_dataset)
    items = rich_items(synthetic_dataset)
    path = tmp_path / "live.jsonl"
    with RunWriter.open(path, header, fsync=False) as writer:
        assert writer.done == set()
        for item in items:
            writer.write(item)
        writer.close(Footer(len(items), None, {"completion_tokens": 2, "prompt_tokens": 88}))
    run = read_run(path)
    assert run.header == header
    assert list(run.items) == items
    assert run.footer == Footer(len(items), None, {"completion_tokens": 2, "prompt_tokens": 88})
    validate_run(run, synthetic_dataset)
    assert path.read_bytes().endswith(b"\n")

    # same content as the atomic writer produces
    other = tmp_path / "whole.jsonl"
    write_run(other, header, items, run.footer)
    assert other.read_bytes() == path.read_bytes()


def test_run_writer_without_footer_is_readable(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = tmp_path / "open.jsonl"
    with RunWriter.open(path, make_header(synthetic_dataset), fsync=False) as writer:
        writer.write(t2_item(synthetic_dataset, 4, "A"))
    run = read_run(path)
    assert run.footer is None and run.row_ids == [4]


def test_line_format_matches_documentation(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header = make_header(synthetic_dataset)
    items = rich_items(synthetic_dataset)
    path = tmp_path / "run.jsonl"
    write_run(path, header, items, Footer(len(items), "2026-12-01T00:05:00Z", {"prompt_tokens": 1}))
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert len(lines) == 1 + len(items) + 1
    records = [json.loads(line) for line in lines]
    # compact, key order as documented, no ASCII escaping
    for line, record in zip(lines, records):
        assert line == json.dumps(record, ensure_ascii=False, separators=(",", ":"))

    head = records[0]
    assert list(head) == ["type", "schema", "run_id", "benchmark", "task", "condition", "subject",
                          "option_seed", "items", "dataset", "created", "tool"]
    assert head["type"] == "header" and head["schema"] == SCHEMA == "buzzprobe.run/1"

    full, unicode_item, error_item, _, minimal = records[1:6]
    assert list(full) == ["type", "row_id", "letter_map", "response", "prediction", "latency_ms", "usage"]
    assert full["letter_map"] == option_sets(synthetic_dataset, SEED)[items[0].row_id].letter_map
    assert sorted(full["letter_map"]) == ["A", "B", "C", "D"]
    assert sorted(full["letter_map"].values()) == ["correct", "cultural", "literal", "pragmatic"]
    assert unicode_item["response"] == TRICKY and unicode_item["prediction"] == ""
    assert "error" not in unicode_item  # None is omitted, not written as null
    assert list(error_item) == ["type", "row_id", "letter_map", "prediction", "error"]
    assert list(minimal) == ["type", "row_id", "letter_map", "prediction"]

    foot = records[-1]
    assert foot == {"type": "footer", "items": 5, "finished": "2026-12-01T00:05:00Z",
                    "usage_totals": {"prompt_tokens": 1}}


def test_task3_items_have_no_letter_map(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header = make_header(synthetic_dataset, task=T3, run_id="model-demo-t3-all")
    path = tmp_path / "t3.jsonl"
    write_run(path, header, [Item(7, "harmful"), Item(8, "non-harmful"), Item(9, "")], None)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["option_seed"] is None
    assert lines[1] == '{"type":"item","row_id":7,"prediction":"harmful"}'
    run = read_run(path)
    assert run.footer is None
    validate_run(run, synthetic_dataset)


# ---------------------------------------------------------------- strict reader


def test_truncated_last_line(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    full = line_of(item_rec(3))
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), item_rec(2),
                                              full[: len(full) // 2]], final_newline=False)
    exc = read_error(path)
    p = expect_problem(exc, path, line=4, contains="truncated")
    assert "not valid JSON" in p.message
    assert len(exc.problems) == 1


def test_middle_line_not_json(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              '{"type":"item","row_id":2,,}', item_rec(3)])
    exc = read_error(path)
    p = expect_problem(exc, path, line=3, contains="not valid JSON")
    assert "truncated" not in p.message  # the hint is for the last line only


def test_line_is_json_array(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              '["item", 2, "harmful"]', item_rec(3)])
    expect_problem(read_error(path), path, line=3, contains="expected a JSON object")


def test_line_only_valid_when_joined_with_next_is_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [
        t3_header_rec(synthetic_dataset),
        '{"type":"item","row_id":1,"prediction":"',          # not JSON on its own
        '"},{"type":"item","row_id":2,"prediction":"harmful"}',  # nor this one
    ])
    exc = read_error(path)
    expect_problem(exc, path, line=2, contains="not valid JSON")


@pytest.mark.parametrize("first", ["item", "footer"])
def test_first_line_not_header(tmp_path: Path, synthetic_dataset: Dataset, first: str) -> None:
    record = item_rec(0) if first == "item" else {"type": "footer", "items": 0}
    path = write_text(tmp_path / "r.jsonl", [record, item_rec(1)])
    expect_problem(read_error(path), path, line=1, field="type", contains="header")


def test_header_missing_entirely_only_items(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.jsonl", [item_rec(1), item_rec(2), item_rec(3)])
    expect_problem(read_error(path), path, line=1, field="type", contains="first line must be the header")


@pytest.mark.parametrize("missing", ["created", "option_seed", "dataset", "run_id"])
def test_header_missing_field(tmp_path: Path, synthetic_dataset: Dataset, missing: str) -> None:
    record = t3_header_rec(synthetic_dataset)
    del record[missing]
    path = write_text(tmp_path / "r.jsonl", [record, item_rec(1)])
    expect_problem(read_error(path), path, line=1, field=missing, contains="required field is missing")


@pytest.mark.parametrize("field,value,kind", [
    ("option_seed", "1111", "str"), ("option_seed", True, "bool"), ("subject", "gpt", "str"),
    ("items", ["all"], "list"), ("run_id", 17, "int"),
])
def test_header_wrong_type(tmp_path: Path, synthetic_dataset: Dataset, field: str, value: Any, kind: str) -> None:
    record = make_header(synthetic_dataset).to_json()
    record[field] = value
    path = write_text(tmp_path / "r.jsonl", [record])
    expect_problem(read_error(path), path, line=1, field=field, contains=f"wrong type {kind}")


@pytest.mark.parametrize("field,value", [
    ("task", "translation"), ("condition", "half-blind"), ("schema", "buzzprobe.run/2"),
    ("benchmark", "otherbench"),
])
def test_header_unknown_values(tmp_path: Path, synthetic_dataset: Dataset, field: str, value: str) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset, **{field: value}), item_rec(1)])
    expect_problem(read_error(path), path, line=1, field=field, contains=repr(value))


def test_header_nested_field_problems(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    record = t3_header_rec(synthetic_dataset)
    record["subject"] = {"kind": "human", "name": "x"}
    record["items"] = {"selection": "most"}
    record["dataset"] = {"name": "CIBuzzBench", "variant": "original"}
    path = write_text(tmp_path / "r.jsonl", [record, item_rec(1)])
    exc = read_error(path)
    for field in ("subject.kind", "items.selection", "dataset.content_sha256"):
        expect_problem(exc, path, line=1, field=field)


def test_task2_header_needs_option_seed(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    record = make_header(synthetic_dataset).to_json()
    record["option_seed"] = None
    path = write_text(tmp_path / "r.jsonl", [record])
    expect_problem(read_error(path), path, line=1, field="option_seed", contains="option seed")


@pytest.mark.parametrize("missing", ["row_id", "prediction"])
def test_item_missing_required_field(tmp_path: Path, synthetic_dataset: Dataset, missing: str) -> None:
    bad = item_rec(2)
    del bad[missing]
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), bad, item_rec(3)])
    expect_problem(read_error(path), path, line=3, field=missing, contains="required field is missing")


@pytest.mark.parametrize("row_id,kind", [(True, "bool"), (False, "bool"), ("2", "str"), (2.0, "float"),
                                         (None, "NoneType")])
def test_item_row_id_wrong_type(tmp_path: Path, synthetic_dataset: Dataset, row_id: Any, kind: str) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), item_rec(row_id)])
    expect_problem(read_error(path), path, line=3, field="row_id", contains=f"wrong type {kind}")


@pytest.mark.parametrize("field,value", [("prediction", 1), ("prediction", None), ("latency_ms", "fast"),
                                         ("latency_ms", True), ("usage", [1, 2]), ("letter_map", "ABCD"),
                                         ("response", 5)])
def test_item_other_wrong_types(tmp_path: Path, synthetic_dataset: Dataset, field: str, value: Any) -> None:
    bad = item_rec(2)
    bad[field] = value
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), bad])
    expect_problem(read_error(path), path, line=3, field=field, contains="wrong type")


def test_item_unknown_field(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              item_rec(2, confidence=0.9)])
    exc = read_error(path)
    expect_problem(exc, path, line=3, field="confidence", contains="unknown field")
    assert len(exc.problems) == 1


def test_unknown_line_type(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              {"type": "comment", "text": "hi"}])
    expect_problem(read_error(path), path, line=3, field="type", contains="unknown line type")


def test_duplicate_row_id_names_first_line(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(4), item_rec(5),
                                              item_rec(6), item_rec(5, "non-harmful")])
    p = expect_problem(read_error(path), path, line=5, field="row_id", contains="duplicate row_id 5")
    assert "line 3" in p.message


def test_footer_not_last(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              {"type": "footer", "items": 1}, item_rec(2)])
    expect_problem(read_error(path), path, line=3, field="type", contains="footer must be the last line")


def test_footer_items_must_be_integer(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1),
                                              {"type": "footer", "items": "1"}])
    expect_problem(read_error(path), path, line=3, field="items")


@pytest.mark.parametrize("content", [b"", b"\n", b"\n  \n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    expect_problem(read_error(path), path, line=1, contains="empty")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    exc = read_error(path)
    assert str(path) in str(exc) and "cannot read" in str(exc)


def test_non_utf8_bytes(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), item_rec(2)])
    path.write_bytes(path.read_bytes() + b'{"type":"item","row_id":3,"response":"\xff\xfe","prediction":""}\n')
    expect_problem(read_error(path), path, line=4, contains="UTF-8")


def test_several_problems_reported_together(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [
        t3_header_rec(synthetic_dataset, condition="unknown-condition"),  # 1
        item_rec(1),                                                      # 2
        "not json at all",                                                # 3
        item_rec(2, shoe_size=44),                                        # 4
        item_rec(True),                                                   # 5
        item_rec(1),                                                      # 6 duplicate
        {"type": "footer", "items": 9},                                   # 7 not last
        item_rec(3),                                                      # 8
    ])
    exc = read_error(path)
    expect_problem(exc, path, line=1, field="condition")
    expect_problem(exc, path, line=3, contains="not valid JSON")
    expect_problem(exc, path, line=4, field="shoe_size")
    expect_problem(exc, path, line=5, field="row_id")
    expect_problem(exc, path, line=6, field="row_id", contains="duplicate")
    expect_problem(exc, path, line=7, field="type", contains="footer")
    assert len(exc.problems) == 6
    assert str(exc).startswith("6 problem(s) in input:")


def test_blank_lines_are_ignored_and_line_numbers_kept(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), "", item_rec(1), "   ",
                                              item_rec(2)])
    run = read_run(path)
    assert run.item_lines == {1: 3, 2: 5}


# ---------------------------------------------------------------- validation against the dataset


def validate_error(run_path: Path, dataset: Dataset) -> InputError:
    run = read_run(run_path)
    with pytest.raises(InputError) as info:
        validate_run(run, dataset)
    return info.value


def test_validate_content_sha_mismatch(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = tmp_path / "r.jsonl"
    write_run(path, make_header(synthetic_dataset, sha="0" * 64), [t2_item(synthetic_dataset, 0)], None)
    exc = validate_error(path, synthetic_dataset)
    p = expect_problem(exc, path, line=1, field="dataset.content_sha256")
    assert "0" * 64 in p.message and synthetic_dataset.content_sha256 in p.message
    assert len(exc.problems) == 1


@pytest.mark.parametrize("row_id", [99999, 3001, -1])
def test_validate_unknown_row_id(tmp_path: Path, synthetic_dataset: Dataset, row_id: int) -> None:
    path = tmp_path / "r.jsonl"
    header = make_header(synthetic_dataset, task=T3, run_id="r3")
    write_run(path, header, [Item(0, "harmful"), Item(row_id, "harmful"), Item(1, "harmful")], None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=3, field="row_id", contains=f"unknown row_id {row_id}")
    assert len(exc.problems) == 1


def test_validate_row_outside_split_selection(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    test_ids = synthetic_dataset.row_ids("test")
    train_id = synthetic_dataset.row_ids("train")[0]
    selection = {"selection": "split", "split": "test", "n": 600}
    header = make_header(synthetic_dataset, task=T3, run_id="r3-test", selection=selection)
    path = tmp_path / "r.jsonl"
    good = [Item(i, "non-harmful") for i in test_ids[:3]]
    write_run(path, header, good, None)
    validate_run(read_run(path), synthetic_dataset)  # test rows are fine

    write_run(path, header, good + [Item(train_id, "harmful")], None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=5, field="row_id", contains="outside the run's item selection")


def test_validate_sample_is_recomputed_from_its_seed(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    selection, ids = sample_of(synthetic_dataset, 2, seed=1)
    header = make_header(synthetic_dataset, task=T3, run_id="r3-sample", selection=selection)
    path = tmp_path / "r.jsonl"
    write_run(path, header, [Item(i, "harmful") for i in ids], Footer(2))
    validate_run(read_run(path), synthetic_dataset)
    other = next(i for i in range(synthetic_dataset.rows) if i not in ids)  # a real row, not sampled
    write_run(path, header, [Item(ids[0], "harmful"), Item(other, "harmful")], None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=3, field="row_id", contains="outside the run's item selection")
    assert len(exc.problems) == 1


def test_validate_first_selection_allows_exactly_the_first_n(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    test_ids = sorted(synthetic_dataset.row_ids("test"))
    header = make_header(synthetic_dataset, task=T3, run_id="r3-test-first3",
                         selection={"selection": "first", "n": 3, "split": "test"})
    path = tmp_path / "r.jsonl"
    write_run(path, header, [Item(i, "harmful") for i in test_ids[:3]], Footer(3))
    validate_run(read_run(path), synthetic_dataset)

    write_run(path, header, [Item(i, "harmful") for i in test_ids[:2]] + [Item(test_ids[3], "harmful")], Footer(3))
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=4, field="row_id", contains="outside the run's item selection")


@pytest.mark.parametrize("items, field", [({"selection": "first"}, "items.n"),
                                          ({"selection": "first", "n": 0}, "items.n"),
                                          ({"selection": "first", "n": 5, "split": "dev"}, "items.split")])
def test_header_first_selection_needs_n_and_a_known_split(tmp_path: Path, synthetic_dataset: Dataset,
                                                           items: dict[str, Any], field: str) -> None:
    record = t3_header_rec(synthetic_dataset)
    record["items"] = items
    path = write_text(tmp_path / "r.jsonl", [record, item_rec(1)])
    expect_problem(read_error(path), path, line=1, field=field)


def test_validate_task2_prediction_labels(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = tmp_path / "r.jsonl"
    items = [t2_item(synthetic_dataset, i, p) for i, p in enumerate(["A", "B", "C", "D", ""])]
    write_run(path, make_header(synthetic_dataset), items, None)
    validate_run(read_run(path), synthetic_dataset)  # every letter and '' are fine

    bad = items + [t2_item(synthetic_dataset, 5, "E"), t2_item(synthetic_dataset, 6, "a"),
                   t2_item(synthetic_dataset, 7, "harmful")]
    write_run(path, make_header(synthetic_dataset), bad, None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=7, field="prediction", contains="'E'")
    expect_problem(exc, path, line=8, field="prediction", contains="'a'")
    expect_problem(exc, path, line=9, field="prediction", contains="'harmful'")
    assert len(exc.problems) == 3


def test_validate_task3_prediction_labels(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = tmp_path / "r.jsonl"
    header = make_header(synthetic_dataset, task=T3, run_id="r3")
    write_run(path, header, [Item(0, "harmful"), Item(1, "non-harmful"), Item(2, ""),
                             Item(3, "maybe"), Item(4, "A")], None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=5, field="prediction", contains="'maybe'")
    expect_problem(exc, path, line=6, field="prediction", contains="'A'")
    assert len(exc.problems) == 2


def test_validate_letter_map_must_be_official(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    official = option_sets(synthetic_dataset, SEED)[10].letter_map
    swapped = dict(official)
    swapped["A"], swapped["B"] = official["B"], official["A"]
    items = [t2_item(synthetic_dataset, 9), Item(10, "A", letter_map=swapped), t2_item(synthetic_dataset, 11),
             Item(12, "A")]  # no letter map at all
    path = tmp_path / "r.jsonl"
    write_run(path, make_header(synthetic_dataset), items, None)
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=3, field="letter_map", contains=f"seed {SEED}")
    expect_problem(exc, path, line=5, field="letter_map")
    assert len(exc.problems) == 2


def test_validate_letter_map_depends_on_header_seed(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    """A map that is official for seed 1111 is wrong under a 2222 header (for most rows)."""
    ids = range(20)
    items = [t2_item(synthetic_dataset, i) for i in ids]
    differing = [i for i in ids if option_sets(synthetic_dataset, 2222)[i].letter_map
                 != option_sets(synthetic_dataset, SEED)[i].letter_map]
    assert len(differing) >= 10
    path = tmp_path / "r.jsonl"
    write_run(path, make_header(synthetic_dataset, seed=2222, run_id="r2222"), items, None)
    exc = validate_error(path, synthetic_dataset)
    assert sorted(p.line for p in exc.problems if p.field == "letter_map") == [i + 2 for i in differing]


def test_validate_footer_count(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = tmp_path / "r.jsonl"
    selection, ids = sample_of(synthetic_dataset, 3)
    header = make_header(synthetic_dataset, task=T3, run_id="r3", selection=selection)
    items = [Item(i, "harmful") for i in ids]
    write_run(path, header, items, Footer(3))
    validate_run(read_run(path), synthetic_dataset)
    write_run(path, header, items, Footer(4))
    exc = validate_error(path, synthetic_dataset)
    p = expect_problem(exc, path, line=5, field="items")
    assert "4" in p.message and "3" in p.message


def test_validate_footer_count_names_the_footer_line(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    path = write_text(tmp_path / "r.jsonl", [t3_header_rec(synthetic_dataset), item_rec(1), "",
                                              {"type": "footer", "items": 5}])
    exc = validate_error(path, synthetic_dataset)
    expect_problem(exc, path, line=4, field="items")


# ---------------------------------------------------------------- load_runs


def _good_t3_run(dataset: Dataset, path: Path, run_id: str) -> Path:
    selection, (a, b) = sample_of(dataset, 2)
    write_run(path, make_header(dataset, task=T3, run_id=run_id, selection=selection),
              [Item(a, "harmful"), Item(b, "")], Footer(2))
    return path


def test_load_runs_reads_subfolders(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    _good_t3_run(synthetic_dataset, tmp_path / "a.jsonl", "run-a")
    _good_t3_run(synthetic_dataset, tmp_path / "deep" / "er" / "b.jsonl", "run-b")
    write_run(tmp_path / "models" / "c.jsonl", make_header(synthetic_dataset, run_id="run-c"),
              [t2_item(synthetic_dataset, 3)], None)
    (tmp_path / "notes.txt").write_text("not a run")
    runs = load_runs(tmp_path, synthetic_dataset)
    assert sorted(r.header.run_id for r in runs) == ["run-a", "run-b", "run-c"]


def test_load_runs_missing_folder_is_empty(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    assert load_runs(tmp_path / "nothing-here", synthetic_dataset) == []


def test_load_runs_collects_problems_from_several_files(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    _good_t3_run(synthetic_dataset, tmp_path / "good.jsonl", "good")
    bad_read = write_text(tmp_path / "sub" / "bad_read.jsonl",
                          [t3_header_rec(synthetic_dataset, run_id="bad-read"), item_rec("7")])
    bad_valid = tmp_path / "bad_valid.jsonl"
    write_run(bad_valid, make_header(synthetic_dataset, task=T3, run_id="bad-valid"), [Item(99999, "harmful")], None)
    bad_sha = tmp_path / "z" / "bad_sha.jsonl"
    write_run(bad_sha, make_header(synthetic_dataset, task=T3, run_id="bad-sha", sha="f" * 64),
              [Item(0, "harmful")], None)
    with pytest.raises(InputError) as info:
        load_runs(tmp_path, synthetic_dataset)
    exc = info.value
    expect_problem(exc, bad_read, line=2, field="row_id")
    expect_problem(exc, bad_valid, line=2, field="row_id", contains="99999")
    expect_problem(exc, bad_sha, line=1, field="dataset.content_sha256")
    assert {p.path for p in exc.problems} == {str(bad_read), str(bad_valid), str(bad_sha)}


def test_load_runs_duplicate_run_id(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    first = _good_t3_run(synthetic_dataset, tmp_path / "a" / "one.jsonl", "same-id")
    second = _good_t3_run(synthetic_dataset, tmp_path / "b" / "two.jsonl", "same-id")
    _good_t3_run(synthetic_dataset, tmp_path / "c.jsonl", "other-id")
    with pytest.raises(InputError) as info:
        load_runs(tmp_path, synthetic_dataset)
    exc = info.value
    assert len(exc.problems) == 1
    p = expect_problem(exc, second, line=1, field="run_id", contains="'same-id'")
    assert str(first) in p.message


# ---------------------------------------------------------------- resume


def _t2_header_and_items(dataset: Dataset, n: int = 8, **header_kw: Any) -> tuple[Header, list[Item]]:
    """A header declaring a sample of n items, and those n items in row_id order."""
    selection, ids = sample_of(dataset, n)
    header = make_header(dataset, selection=selection, **header_kw)
    responses = [TRICKY, "B", "<script>x</script>", "\r\n", "\u0085\u2028", "D", "", None]
    items = [t2_item(dataset, row_id, "ABCD"[i % 4], response=responses[i % len(responses)])
             for i, row_id in enumerate(ids)]
    return header, items


def test_resume_after_torn_last_line(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset)
    path = tmp_path / "run.jsonl"
    with RunWriter.open(path, header, fsync=False) as writer:
        for item in items[:5]:
            writer.write(item)
    intact = path.read_bytes()
    torn = line_of(items[5].to_json())
    with open(path, "ab") as handle:  # a crash mid-line
        handle.write(torn[: len(torn) // 2].encode("utf-8"))
    with pytest.raises(InputError, match="truncated"):
        read_run(path)

    writer = RunWriter.open(path, make_header(synthetic_dataset, selection=header.items, created="2027-01-01T00:00:00Z"),
                            fsync=False)
    assert writer.done == {i.row_id for i in items[:5]}
    assert path.read_bytes() == intact  # torn tail cut, nothing else touched
    with pytest.raises(ValueError, match="already"):
        writer.write(items[2])
    for item in items[5:]:
        writer.write(item)
    writer.close(Footer(len(items)))

    run = read_run(path)
    assert list(run.items) == items
    assert run.header == header  # the original header (and its `created`) is kept
    validate_run(run, synthetic_dataset)
    assert path.read_bytes().endswith(b"\n")


def test_resume_without_damage_and_empty_file(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 3)
    path = tmp_path / "run.jsonl"
    write_run(path, header, items, None)
    writer = RunWriter.open(path, header, fsync=False)
    assert writer.done == {i.row_id for i in items}
    writer.close()
    assert read_run(path).row_ids == [i.row_id for i in items]

    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with RunWriter.open(empty, header, fsync=False) as fresh:
        assert fresh.done == set()
        fresh.write(items[0])
    assert read_run(empty).row_ids == [items[0].row_id]


def test_write_duplicate_row_in_one_session_raises(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 2)
    path = tmp_path / "run.jsonl"
    with RunWriter.open(path, header, fsync=False) as writer:
        writer.write(items[0])
        with pytest.raises(ValueError):
            writer.write(items[0])
    assert read_run(path).row_ids == [items[0].row_id]


@pytest.mark.parametrize("change,field", [
    ({"task": T3, "seed": None, "run_id": "model-demo-t2-s1111-all"}, "task"),
    ({"temperature": 0.7}, "subject"),
    ({"seed": 2222}, "option_seed"),
    ({"run_id": "another"}, "run_id"),
    ({"selection": {"selection": "split", "split": "test", "n": 600}}, "items"),
    ({"sha": "e" * 64}, "dataset"),
])
def test_resume_refuses_different_header(tmp_path: Path, synthetic_dataset: Dataset,
                                         change: dict[str, Any], field: str) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 3)
    path = tmp_path / "run.jsonl"
    with RunWriter.open(path, header, fsync=False) as writer:
        for item in items:
            writer.write(item)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"item","row_')  # torn tail must survive a refused resume too
    before = path.read_bytes()
    with pytest.raises(InputError) as info:
        RunWriter.open(path, make_header(synthetic_dataset, **{"selection": header.items, **change}), fsync=False)
    expect_problem(info.value, path, line=1, field=field, contains="cannot resume")
    assert path.read_bytes() == before


def test_resume_accepts_different_created_and_tool(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 2)
    path = tmp_path / "run.jsonl"
    write_run(path, header, items, None)
    later = Header(**{**header.__dict__, "created": "2030-05-05T05:05:05Z",
                      "tool": {"name": "buzzprobe", "version": "9.9.9"}})
    with RunWriter.open(path, later, fsync=False) as writer:
        assert writer.done == {i.row_id for i in items}
    assert read_run(path).header == header


def test_resume_removes_footer(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 6)
    path = tmp_path / "run.jsonl"
    with RunWriter.open(path, header, fsync=False) as writer:
        for item in items[:4]:
            writer.write(item)
        writer.close(Footer(4, "2026-12-01T00:01:00Z"))
    assert read_run(path).footer == Footer(4, "2026-12-01T00:01:00Z")

    writer = RunWriter.open(path, header, fsync=False)
    assert writer.done == {i.row_id for i in items[:4]}
    assert b'"footer"' not in path.read_bytes()
    for item in items[4:]:
        writer.write(item)
    writer.close(Footer(6, "2026-12-01T00:02:00Z"))

    lines = path.read_text(encoding="utf-8").splitlines()
    assert sum('"type":"footer"' in line for line in lines) == 1
    assert json.loads(lines[-1])["type"] == "footer"
    run = read_run(path)
    assert run.footer == Footer(6, "2026-12-01T00:02:00Z")
    assert list(run.items) == items
    validate_run(run, synthetic_dataset)


@pytest.mark.parametrize("damage", [
    "not json",
    '{"type":"item","row_id":101,',
    '["item", 101]',
    '{"type":"footer","items":1,"finished":null,"usage_totals":{}}',
])
def test_resume_refuses_damaged_middle_line(tmp_path: Path, synthetic_dataset: Dataset, damage: str) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 4)
    path = tmp_path / "run.jsonl"
    write_run(path, header, items, None)
    lines = path.read_bytes().split(b"\n")
    lines[2] = damage.encode("utf-8")  # line 3 of the file
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    with pytest.raises(InputError) as info:
        RunWriter.open(path, header, fsync=False)
    expect_problem(info.value, path, line=3, contains="cannot resume")
    assert path.read_bytes() == before


@pytest.mark.parametrize("bad_item", [
    pytest.param('{"type":"item","prediction":"A"}', id="missing-row_id"),
    pytest.param('{"type":"item","row_id":true,"prediction":"A"}', id="bool-row_id"),
    pytest.param('{"type":"item","row_id":"101","prediction":"A"}', id="string-row_id"),
])
def test_resume_refuses_malformed_middle_item(tmp_path: Path, synthetic_dataset: Dataset, bad_item: str) -> None:
    """Damage anywhere but the last line is refused (docs/run-format.md), with an InputError."""
    header, items = _t2_header_and_items(synthetic_dataset, 4)
    path = tmp_path / "run.jsonl"
    write_run(path, header, items, None)
    lines = path.read_bytes().split(b"\n")
    lines[2] = bad_item.encode("utf-8")
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    with pytest.raises(InputError) as info:
        RunWriter.open(path, header, fsync=False)
    expect_problem(info.value, path, line=3, field="row_id")
    assert path.read_bytes() == before


def test_resume_refuses_file_without_header(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 2)
    path = write_text(tmp_path / "run.jsonl", [items[0].to_json(), items[1].to_json()])
    before = path.read_bytes()
    with pytest.raises(InputError, match="no readable header"):
        RunWriter.open(path, header, fsync=False)
    assert path.read_bytes() == before


_CHILD = textwrap.dedent("""
    import json, os, signal, sys
    from builder.benchmarks.cibuzzbench.run_format import Item
    from builder.runs.schema import Header
    from builder.runs.writer import RunWriter
    path, header_json, items_json, n, tear = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    header = Header(**{k: v for k, v in json.loads(header_json).items() if k != "type"})
    items = [Item(**{k: v for k, v in d.items() if k != "type"}) for d in json.loads(items_json)]
    writer = RunWriter.open(path, header)
    for item in items[:n]:
        writer.write(item)
    if tear == "1":
        os.write(writer._handle.fileno(), b'{"type":"item","row_id":9')
    os.kill(os.getpid(), signal.SIGKILL)
    print("unreachable")
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("tear", ["0", "1"])
def test_real_crash_then_resume(tmp_path: Path, synthetic_dataset: Dataset, tear: str) -> None:
    header, items = _t2_header_and_items(synthetic_dataset, 12)
    path = tmp_path / "crash.jsonl"
    killed_after = 7
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), json.dumps(header.to_json()),
         json.dumps([i.to_json() for i in items]), str(killed_after), tear],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert "unreachable" not in result.stdout
    if tear == "1":
        assert not path.read_bytes().endswith(b"\n")

    writer = RunWriter.open(path, header)
    assert writer.done == {i.row_id for i in items[:killed_after]}
    for item in items:
        if item.row_id not in writer.done:
            writer.write(item)
    writer.close(Footer(len(items)))

    run = read_run(path)
    validate_run(run, synthetic_dataset)
    assert sorted(run.row_ids) == sorted(i.row_id for i in items)
    assert len(run.row_ids) == len(set(run.row_ids)) == 12
    assert list(run.items) == items


def test_a_local_model_is_labelled_with_its_size_wherever_pages_name_it() -> None:
    from builder.runs.schema import Header
    base = dict(run_id="r", benchmark="cibuzzbench", task="equivalent_selection", condition="blind",
                option_seed=1111, items={"selection": "all", "n": 3001}, dataset={}, created="", tool={})
    local = Header(subject={"kind": "model", "name": "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M", "runtime": {
        "local": True, "parameters": "1.5B", "quantisation": "Q4_K_M"}}, **base)
    assert local.subject_label == "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M (local 1.5B model, Q4_K_M)"
    assert local.subject_name == "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"  # keys and matching stay on the name
    hosted = Header(subject={"kind": "model", "name": "gpt-5.5", "runtime": {"local": "yes"}}, **base)
    assert hosted.subject_label == "gpt-5.5"


def test_committed_model_runs_follow_the_one_run_id_rule() -> None:
    """Every run buzzprobe probe wrote is named by cibuzzbench.probes.plan.probe_run_id (the model's
    slug, task, condition, language, seed, items, then protocol and option set), and its file by
    its id: one spelling of a model per site, never `qwen2-5-…` beside `qwen2_5-…`."""
    from builder.benchmarks.cibuzzbench.probes.plan import probe_run_id
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    protocols = load_protocols()
    runs = [p for p in (Path(__file__).resolve().parents[1] / "runs").rglob("*.jsonl") if "probes" not in p.parts]
    checked = 0
    for path in runs:
        header = read_run(path).header
        parameters = header.subject.get("parameters") or {}
        assert header.run_id == path.stem, path
        if header.tool.get("name") != "buzzprobe" or "protocol" not in parameters:
            continue
        expected = probe_run_id(header.subject_name, protocols[parameters["protocol"]], header.option_seed,
                                Selection.from_header(header.items), header.variant)
        assert header.run_id == expected, path
        checked += 1
    assert checked >= 4


def test_no_committed_run_is_dated_after_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build date is the last commit's (builder.core.build_date); a run created later than
    that would be listed on "What's new" as added after the site was built."""
    from builder.core.build_date import build_date
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)  # the tests pin one; the site takes git's
    repo = Path(__file__).resolve().parents[1]
    built = build_date(repo).isoformat()
    late = [(p.name, created) for p in sorted((repo / "runs").rglob("*.jsonl"))
            if (created := read_run(p).header.created[:10]) > built]
    assert not late, f"runs dated after the build date {built}: {late[:5]}"


@pytest.mark.parametrize(("line", "plain"), [
    ({"type": "item", "row_id": 1, "prediction": "A"}, True),  # optional fields may be missing
    ({"type": "item", "row_id": 1, "prediction": "A", "response": None, "latency_ms": 3, "usage": {"x": 1},
      "letter_map": {"A": "correct"}, "response_truncated": False, "error": None}, True),
    ({"type": "item", "row_id": True, "prediction": "A"}, False),  # true is not a row id
    ({"type": "item", "row_id": 1}, False),  # prediction is required
    ({"type": "item", "row_id": 1, "prediction": "A", "confidence": 0.9}, False),  # an unknown field
    ({"type": "item", "row_id": 1, "prediction": "A", "latency_ms": False}, False),
    ({"type": "item", "row_id": 1, "prediction": "A", "response_truncated": 0}, False),
])
def test_only_a_plainly_valid_item_line_skips_the_diagnosis(line, plain):
    """CIBuzzBench's item fields through the shared shortcut (builder.runs.reader.ItemFields): a line
    it takes is one the full check passes, and whatever it leaves goes to the diagnosis."""
    from builder.benchmarks.cibuzzbench import run_format
    from builder.runs.reader import Collector
    assert run_format._ITEM.plainly_valid(dict(line)) is plain
    c = Collector("runs/x.jsonl")
    diagnosed = c.check_fields(2, line, run_format._ITEM_FIELDS, run_format._REQUIRED_ITEM)
    unknown = set(line) - set(run_format._ITEM_FIELDS) - {"type"}
    assert plain == (diagnosed and not unknown)
