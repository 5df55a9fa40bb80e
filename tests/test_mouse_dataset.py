"""Mouse data files (builder.benchmarks.mouse.dataset, .table, .config): official layouts from CSV
and JSONL, and errors that name file, line and field. Fixtures are SYNTHETIC."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from builder.core.errors import InputError
from builder.benchmarks.mouse.config import DEFAULT_GOLD_COLUMNS, GoldColumns, load_gold_columns
from builder.benchmarks.mouse.dataset import load_icc, load_main, load_single_choice

FIXTURES = Path(__file__).parent / "fixtures" / "mouse"
MAIN_HEADER = "Source language,Reference,Toxicity,Intention,Homophonic,Semantic,Visual"


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def problems(exc: pytest.ExceptionInfo[InputError]) -> list[tuple[int | None, str | None, str]]:
    return [(p.line, p.field, p.message) for p in exc.value.problems]


# ------------------------------------------------------------------ loading

def test_fixture_main_loads():
    data = load_main(FIXTURES / "main_eval.csv")
    assert len(data) == 12
    first = data.instances[0]
    assert (first.index, first.line, first.toxicity, first.intention) == (0, 2, 0, 0)
    assert (first.homophonic, first.semantic, first.visual) == (1, 0, 0)
    assert first.source.startswith("【合成】")  # synthetic placeholder text
    assert sorted({i.intention for i in data}) == list(range(8))


def test_jsonl_equals_csv():
    csv_set, jsonl_set = load_main(FIXTURES / "main_eval.csv"), load_main(FIXTURES / "main_eval.jsonl")
    assert csv_set.content_sha256 == jsonl_set.content_sha256
    assert [dataclasses.replace(i, line=0) for i in csv_set] == [dataclasses.replace(i, line=0) for i in jsonl_set]
    assert csv_set.sha256 != jsonl_set.sha256  # file bytes differ, content does not


def test_instances_are_frozen():
    inst = load_main(FIXTURES / "main_eval.csv").instances[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        inst.toxicity = 1  # type: ignore[misc]


def test_single_choice_and_icc_load():
    ms = load_single_choice(FIXTURES / "single_choice.csv")
    assert [i.answer for i in ms] == list("ABCABC")
    assert ms.instances[1].lettered[1] == ("B", "B. 【合成】乙2")
    cc = load_icc(FIXTURES / "icc.csv")
    assert cc.instances[0].letters == ("A", "B", "C", "D")
    assert cc.instances[0].options[2] == ("C", "【合成】候选C1")
    # option cells span four lines, so records start on lines 2, 6, 10, ...
    assert [i.line for i in cc][:3] == [2, 6, 10]


def test_bom_and_crlf_are_accepted(tmp_path):
    path = write(tmp_path, "m.csv", "\ufeff" + MAIN_HEADER + "\r\n甲,乙,0,7,1,1,1\r\n\r\n")
    data = load_main(path)
    assert data.instances[0].intention == 7 and len(data) == 1


def test_extra_columns_are_ignored(tmp_path):
    path = write(tmp_path, "m.csv", MAIN_HEADER + ",note\n甲,乙,1,2,0,0,1,随便\n")
    assert load_main(path).instances[0].toxicity == 1


# ------------------------------------------------------------------ errors: file, line, field

def test_missing_column_names_it(tmp_path):
    path = write(tmp_path, "m.csv", "Source language,Toxicity,Intention,Homophonic,Semantic,Visual\n甲,0,1,0,0,0\n")
    with pytest.raises(InputError) as exc:
        load_main(path)
    assert [(line, field) for line, field, _ in problems(exc)] == [(1, "Reference")]
    assert str(path) in str(exc.value)


@pytest.mark.parametrize("row, field, message", [
    ("甲,乙,2,1,0,0,0", "Toxicity", "toxicity gold must be 0 or 1, got '2'"),
    ("甲,乙,0,8,0,0,0", "Intention", "intention gold must be a digit 0-7, got '8'"),
    ("甲,乙,0,1.0,0,0,0", "Intention", "got '1.0'"),
    ("甲,乙,0,１,0,0,0", "Intention", "got '１'"),  # full-width digit is not a gold label
    ("甲,乙,0,1,yes,0,0", "Homophonic", "homophonic component gold must be 0 or 1"),
    ("甲,乙,0,1,0,-1,0", "Semantic", "semantic component gold"),
    ("甲,乙,0,1,0,0,2", "Visual", "visual component gold"),
    (",乙,0,1,0,0,0", "Source language", "empty required cell"),
    ("甲, ,0,1,0,0,0", "Reference", "empty required cell"),
    ("甲,乙,,1,0,0,0", "Toxicity", "empty required cell"),
])
def test_bad_main_cells(tmp_path, row, field, message):
    path = write(tmp_path, "m.csv", f"{MAIN_HEADER}\n甲,乙,0,0,0,0,0\n{row}\n")
    with pytest.raises(InputError) as exc:
        load_main(path)
    [(line, got_field, got)] = problems(exc)
    assert (line, got_field) == (3, field)
    assert message in got


def test_all_problems_are_reported_at_once(tmp_path):
    path = write(tmp_path, "m.csv", f"{MAIN_HEADER}\n甲,乙,5,9,0,0,0\n甲,乙,0,0,0,0,0\n,乙,0,0,3,0,0\n")
    with pytest.raises(InputError) as exc:
        load_main(path)
    assert [(line, field) for line, field, _ in problems(exc)] == [
        (2, "Toxicity"), (2, "Intention"), (4, "Source language"), (4, "Homophonic")]


def test_non_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "m.csv", f"{MAIN_HEADER}\n甲,乙,0,0,0,0,0\n丙,丁,0,0,0,0,0\n", encoding="gbk")
    with pytest.raises(InputError) as exc:
        load_main(path)
    [(line, _, message)] = problems(exc)
    assert line == 2 and "not valid UTF-8" in message


def test_wrong_field_count(tmp_path):
    path = write(tmp_path, "m.csv", f"{MAIN_HEADER}\n甲,乙,0,0,0,0\n")
    with pytest.raises(InputError, match="expected 7 fields, found 6"):
        load_main(path)


def test_duplicate_header_and_empty_file(tmp_path):
    with pytest.raises(InputError, match="duplicate column"):
        load_main(write(tmp_path, "d.csv", MAIN_HEADER + ",Reference\n"))
    with pytest.raises(InputError, match="file is empty"):
        load_main(write(tmp_path, "e.csv", ""))
    with pytest.raises(InputError, match="no data rows"):
        load_main(write(tmp_path, "h.csv", MAIN_HEADER + "\n"))


def test_unsupported_file_type_hints_at_csv(tmp_path):
    with pytest.raises(InputError, match="export the judge workbook"):
        load_main(write(tmp_path, "judge.xlsx", "x"))


@pytest.mark.parametrize("row, field, message", [
    ("题,A.甲,B.乙,C.丙,D", "答案", "MS gold must be A, B or C, got 'D'"),
    ("题,A.甲,B.乙,C.丙,a", "答案", "got 'a'"),
    ("题,A.甲,,C.丙,A", "B选项", "empty required cell"),
])
def test_bad_single_choice(tmp_path, row, field, message):
    path = write(tmp_path, "s.csv", f"题目,A选项,B选项,C选项,答案\n{row}\n")
    with pytest.raises(InputError) as exc:
        load_single_choice(path)
    [(line, got_field, got)] = problems(exc)
    assert (line, got_field) == (2, field) and message in got


@pytest.mark.parametrize("options, answer, field, message", [
    ('"A. 甲\nB. 乙"', "C", "答案", "CC gold must be A or B, got 'C'"),
    ("甲 乙 丙", "A", "选项", "cannot read a lettered option list"),
    ("", "A", "选项", "empty required cell"),
])
def test_bad_icc(tmp_path, options, answer, field, message):
    path = write(tmp_path, "c.csv", f"题目,选项,答案\n对话,{options},{answer}\n")
    with pytest.raises(InputError) as exc:
        load_icc(path)
    [(line, got_field, got)] = problems(exc)
    assert (line, got_field) == (2, field) and message in got


# ------------------------------------------------------------------ JSONL errors

def jsonl(tmp_path: Path, *records: object) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return write(tmp_path, "m.jsonl", "\n".join(lines) + "\n")


GOOD = {"Source language": "甲", "Reference": "乙", "Toxicity": 1, "Intention": "3",
        "Homophonic": 0, "Semantic": 1, "Visual": 0}


def test_jsonl_accepts_numbers_and_strings(tmp_path):
    inst = load_main(jsonl(tmp_path, GOOD)).instances[0]
    assert (inst.toxicity, inst.intention) == (1, 3)


@pytest.mark.parametrize("record, line_field, message", [
    ("{not json", (2, None), "not valid JSON"),
    ("[1, 2]", (2, None), "expected a JSON object"),
    ({**GOOD, "Toxicity": 1.0}, (2, "Toxicity"), "expected a string or an integer, got 1.0"),
    ({**GOOD, "Toxicity": True}, (2, "Toxicity"), "got true"),
    ({**GOOD, "Intention": None}, (2, "Intention"), "empty required cell"),
    ({k: v for k, v in GOOD.items() if k != "Visual"}, (2, "Visual"), "missing field"),
])
def test_jsonl_errors(tmp_path, record, line_field, message):
    with pytest.raises(InputError) as exc:
        load_main(jsonl(tmp_path, GOOD, record))
    [(line, field, got)] = problems(exc)
    assert (line, field) == line_field and message in got


# ------------------------------------------------------------------ gold-column mapping

def test_shipped_mapping_equals_the_defaults():
    assert load_gold_columns() == DEFAULT_GOLD_COLUMNS


def test_custom_mapping(tmp_path):
    config = write(tmp_path, "g.yaml", "main_eval:\n  toxicity: 毒性\n  intention: 意图\nicc:\n  answer: 正确选项\n")
    gold = load_gold_columns(config)
    assert gold == dataclasses.replace(GoldColumns(), main_eval_toxicity="毒性", main_eval_intention="意图",
                                       icc_answer="正确选项")
    path = write(tmp_path, "m.csv", "Source language,Reference,毒性,意图,Homophonic,Semantic,Visual\n甲,乙,1,6,0,0,1\n")
    inst = load_main(path, gold).instances[0]
    assert (inst.toxicity, inst.intention) == (1, 6)
    with pytest.raises(InputError, match="missing column"):
        load_main(FIXTURES / "main_eval.csv", gold)


@pytest.mark.parametrize("text, line, field, message", [
    ("schema: other/1\n", 1, "schema", "schema must be"),
    ("main_eval:\n  toxicty: T\n", 2, "main_eval.toxicty", "unknown field"),
    ("mian_eval:\n  toxicity: T\n", 1, "mian_eval", "unknown section"),
    ("main_eval:\n  toxicity: 3\n", 2, "main_eval.toxicity", "non-empty string"),
    ("main_eval:\n  toxicity: ''\n", 2, "main_eval.toxicity", "non-empty string"),
    ("main_eval:\n  toxicity: Visual\n", 2, "main_eval.toxicity", "used for main_eval.toxicity and main_eval.visual"),
    ("icc:\n  answer: 选项\n", 2, "icc.answer", "official input or answer column"),
    ("main_eval:\n  intention: llm_intention\n", 2, "main_eval.intention", "official input or answer column"),
    ("main_eval: [a]\n", 1, "main_eval", "expected a mapping"),
])
def test_bad_mapping(tmp_path, text, line, field, message):
    with pytest.raises(InputError) as exc:
        load_gold_columns(write(tmp_path, "g.yaml", text))
    found = problems(exc)
    assert any(l == line and f == field and message in m for l, f, m in found), found


def test_mapping_yaml_syntax_error_names_line(tmp_path):
    with pytest.raises(InputError) as exc:
        load_gold_columns(write(tmp_path, "g.yaml", "main_eval:\n  toxicity: [unclosed\n"))
    assert exc.value.problems[0].line is not None
