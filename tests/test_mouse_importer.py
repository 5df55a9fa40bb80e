"""Importing official Mouse outputs (SYNTHETIC fixtures) and the run files (`buzzprobe.run/1`,
benchmark "mouse") made from them, read back by the one run reader."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from builder.core.errors import InputError
from builder.benchmarks.mouse.dataset import load_icc, load_main, load_single_choice
from builder.benchmarks.mouse.importer import import_icc, import_judge, import_main, import_single_choice
from builder.benchmarks.mouse.analyses.metrics import ClassScores, RCScores, TranslationScores
from builder.benchmarks.mouse.runs import make_runs, score_run, validate_mouse_run
from builder.core.names import slug
from builder.runs.reader import read_run
from builder.runs.schema import SCHEMA
from builder.runs.writer import write_run

FIXTURES = Path(__file__).parent / "fixtures" / "mouse"
OUT = FIXTURES / "outputs"
SUBJECT = {"kind": "model", "name": "Synthetic Model 0.6B", "parameters": {"temperature": 0}}
CREATED = "2026-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def dataset():
    return load_main(FIXTURES / "main_eval.csv")


@pytest.fixture(scope="module")
def main(dataset):
    return import_main(OUT / "main_eval.csv", dataset=dataset)


@pytest.fixture(scope="module")
def judge(dataset):
    return import_judge(OUT / "judge.csv", dataset=dataset)


@pytest.fixture(scope="module")
def ms():
    return import_single_choice(OUT / "single_choice.csv", dataset=load_single_choice(FIXTURES / "single_choice.csv"))


@pytest.fixture(scope="module")
def cc():
    return import_icc(OUT / "icc.csv", dataset=load_icc(FIXTURES / "icc.csv"))


# ------------------------------------------------------------------ import

def test_main_answers_are_parsed(main):
    # see tests/fixtures/mouse/outputs/main_eval.csv: "1。", "毒性：1", "", "有毒", "1.0" ...
    assert main.td.predictions == (0, 1, 1, 1, None, None, 0, 1, 1, 1, 0, 0)
    assert main.ir.predictions == (0, 1, 2, 3, 4, None, 6, 7, 3, None, None, 4)
    assert main.rc["homophonic"].predictions[-1] is None  # "是"
    assert main.td.answers[4].raw is None  # empty cell: the official script stored None
    assert main.td.answers[5].raw == "有毒"
    assert (main.td.unparsed, main.ir.unparsed) == (2, 3)
    assert main.td.gold == tuple(i.toxicity for i in main.instances)
    assert main.translations[3].raw is None


def test_official_column_spelling_is_required(tmp_path):
    text = (OUT / "main_eval.csv").read_text(encoding="utf-8").replace("llm_homephone", "llm_homophone", 1)
    path = tmp_path / "out.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        import_main(path)
    assert [(p.line, p.field) for p in exc.value.problems] == [(1, "llm_homephone")]


def test_output_must_belong_to_the_dataset(tmp_path, dataset):
    rows = list(csv.reader((OUT / "main_eval.csv").open(encoding="utf-8", newline="")))
    rows[3][3] = "7"  # Intention gold of the third item
    path = tmp_path / "out.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    with pytest.raises(InputError) as exc:
        import_main(path, dataset=dataset)
    [problem] = exc.value.problems
    assert (problem.line, problem.field) == (4, "intention")
    assert import_main(path).ir.gold[2] == 7  # without a dataset, the file's own gold is used


def test_jsonl_output_equals_csv(tmp_path, main):
    rows = list(csv.DictReader((OUT / "main_eval.csv").open(encoding="utf-8", newline="")))
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    again = import_main(path)
    assert again.td.predictions == main.td.predictions
    assert again.instances.content_sha256 == main.instances.content_sha256


def test_judge_import(judge):
    items = judge.items
    assert [i.judge for i in items] == [2, 2, 2, 1, 1, 0, 2, 1, None, None, None, 0]
    assert [i.copied for i in items][:3] == [False, True, True]
    assert items[3].translation is None and items[3].score == 0  # missing translation
    assert items[1].score == 0  # copied source, although the judge gave 2
    assert items[7].judge_raw.endswith("分数：1")  # a full judge output parses
    assert [i.human for i in items][9] is None
    s = judge.score(boot=None)
    # final scores 2,0,0,0,1,0,2,1,0,0,0,0 -> sum 6 -> Semantic Accuracy 6/12/2 = 0.25, Perfect 2/12
    assert (s.semantic_accuracy, s.perfect_rate) == pytest.approx((0.25, 2 / 12))
    assert (s.missing, s.copied, s.judge_unparsed) == (1, 2, 3)
    assert judge.agreement(boot=None).n == 9


def test_judge_errors(tmp_path, dataset):
    path = tmp_path / "judge.csv"
    path.write_text("Source language,llm_translation,deepseek_similarity,human_score\n"
                    "【合成】源句01 synthetic source,x,分数：2,3\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        import_judge(path, dataset=dataset)
    messages = [(p.line, p.field, p.message) for p in exc.value.problems]
    assert (2, "human_score", "human score must be 0, 1 or 2 (or empty), got '3'") in messages
    assert any("has 1 rows but the dataset" in m for _, _, m in messages)
    path.write_text("Source language,llm_translation\n甲,乙\n", encoding="utf-8")
    with pytest.raises(InputError, match="deepseek_similarity"):
        import_judge(path)


def test_choice_imports(ms, cc):
    assert ms.result.predictions == ("A", "B", "C", "B", None, None)
    assert ms.result.unparsed == 2
    assert cc.result.predictions == ("A", "B", "C", "B", None, "B")
    assert cc.result.labels == ("A", "B", "C", "D")


# ------------------------------------------------------------------ run files

@pytest.fixture(scope="module")
def runs(main, judge, ms, cc, dataset):
    return make_runs(SUBJECT, CREATED, main=main, judge=judge, ms=ms, cc=cc, dataset_content=dataset.content_sha256)


def test_run_ids_and_slug(runs):
    assert slug("Qwen3-0.6B") == "qwen3-0_6b" and slug("GPT5.2") == "gpt5_2"
    assert [r.header.run_id for r in runs] == [f"mouse-synthetic-model-0_6b-{t}" for t in
                                               ("td", "ir", "rc", "tr", "ms", "cc")]


def test_runs_round_trip_and_score_like_the_import(tmp_path, runs, main, judge, ms, cc, dataset):
    datasets = {"td": dataset, "ir": dataset, "rc": dataset, "tr": None, "ms": ms.instances, "cc": cc.instances}
    direct = {"td": main.td.score(None), "ir": main.ir.score(None), "rc": main.score_rc(None),
              "tr": judge.score(None), "ms": ms.result.score(None), "cc": cc.result.score(None)}
    for run in runs:
        path = tmp_path / f"{run.header.run_id}.jsonl"
        write_mouse_run(path, run)
        back = read_run(path)
        assert back.header == run.header and back.items == run.items and back.footer == run.footer
        scored = score_run(back, datasets[run.header.task], boot=None)
        expected = direct[run.header.task]
        if isinstance(expected, TranslationScores):
            assert scored == expected
        else:
            assert isinstance(scored, (ClassScores, RCScores)) and scored == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{r.header.run_id}.jsonl" for r in runs)


def test_run_file_layout(tmp_path, runs):
    rc = next(r for r in runs if r.header.task == "rc")
    path = tmp_path / "rc.jsonl"
    write_mouse_run(path, rc)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert (lines[0]["schema"], lines[0]["benchmark"], lines[0]["option_seed"]) == (SCHEMA, "mouse", None)
    assert lines[0]["items"] == {"selection": "all", "n": 12} and lines[0]["source"]["kind"] == "import"
    assert lines[-1] == {"type": "footer", "items": 12, "finished": CREATED, "usage_totals": {}}
    assert lines[12]["parsed"] == {"homophonic": None, "semantic": 1, "visual": 1}
    assert lines[12]["raw"]["homophonic"] == "是"
    text = path.read_text(encoding="utf-8")
    assert "【合成】" not in text  # no dataset text or gold in runs
    tr = next(r for r in runs if r.header.task == "tr")
    write_mouse_run(path, tr)
    item = json.loads(path.read_text(encoding="utf-8").splitlines()[2])
    assert item == {"type": "item", "row_id": 1, "raw": "【合成】源句02 synthetic source", "parsed": 0,
                    "judge_raw": "分数：2", "judge": 2, "copied": True}


def write_mouse_run(path, run):
    write_run(path, run.header, run.items, run.footer)


def _damage(tmp_path, run, edit, data):
    """Problems of the damaged file: the reader's, else those of the check against its data."""
    path = tmp_path / "run.jsonl"
    write_mouse_run(path, run)
    lines = path.read_text(encoding="utf-8").splitlines()
    edit(lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        validate_mouse_run(read_run(path), data)
    return [(p.line, p.field, p.message) for p in exc.value.problems]


def _set(lines, number, **changes):
    record = json.loads(lines[number - 1])
    record.update(changes)
    lines[number - 1] = json.dumps(record, ensure_ascii=False)


@pytest.mark.parametrize("task, edit, expected", [
    ("ir", lambda ls: _set(ls, 1, schema="buzzprobe.mouse-run/1"), (1, "schema")),
    ("ir", lambda ls: _set(ls, 1, benchmark="mouse2"), (1, "benchmark")),
    ("ir", lambda ls: _set(ls, 1, condition="blind"), (1, "condition")),
    ("ir", lambda ls: _set(ls, 1, option_seed=1111), (1, "option_seed")),
    ("ir", lambda ls: _set(ls, 1, source=None), (1, "source")),
    ("ms", lambda ls: _set(ls, 1, dataset={"file": "icc", "content_sha256": "x"}), (1, "dataset.file")),
    ("ir", lambda ls: _set(ls, 1, task="translation"), (1, "task")),
    ("ir", lambda ls: _set(ls, 1, extra=1), (1, "extra")),
    ("ir", lambda ls: _set(ls, 3, parsed=8), (3, "parsed")),
    ("ir", lambda ls: _set(ls, 3, parsed="1"), (3, "parsed")),
    ("td", lambda ls: _set(ls, 3, parsed=True), (3, "parsed")),
    ("ms", lambda ls: _set(ls, 3, parsed="D"), (3, "parsed")),
    ("cc", lambda ls: _set(ls, 3, parsed="ab"), (3, "parsed")),
    ("ir", lambda ls: _set(ls, 3, row_id=0), (3, "row_id")),
    ("ir", lambda ls: _set(ls, 3, row_id=40), (3, "row_id")),  # outside the data file
    ("ir", lambda ls: _set(ls, 3, judge=1), (3, "judge")),
    ("ir", lambda ls: _set(ls, 3, usage={"prompt_tokens": -1}), (3, "usage.prompt_tokens")),
    ("cc", lambda ls: _set(ls, 3, parsed="Z"), (3, "parsed")),  # not a letter this item offers
    ("ir", lambda ls: _set(ls, 3, raw=1), (3, "raw")),
    ("rc", lambda ls: _set(ls, 3, parsed={"homophonic": 1}), (3, "parsed")),
    ("rc", lambda ls: _set(ls, 3, parsed={"homophonic": 2, "semantic": 0, "visual": 0}), (3, "parsed.homophonic")),
    ("tr", lambda ls: _set(ls, 3, parsed=None), (3, "parsed")),
    ("tr", lambda ls: _set(ls, 3, copied="no"), (3, "copied")),
    ("ir", lambda ls: ls.pop(2), (13, "items")),  # footer count
    ("ir", lambda ls: ls.append(ls[2]), (14, "type")),  # the footer is not the last line
    ("ir", lambda ls: ls.insert(3, "{torn"), (4, None)),
])
def test_run_reader_errors(tmp_path, runs, task, edit, expected, dataset, ms, cc):
    run = next(r for r in runs if r.header.task == task)
    data = {"ms": ms.instances, "cc": cc.instances}.get(task, dataset)
    found = _damage(tmp_path, run, edit, None if task == "tr" else data)
    assert expected in [(line, field) for line, field, _ in found], found


def test_score_run_refuses_another_dataset(tmp_path, runs, ms):
    run = next(r for r in runs if r.header.task == "ir")
    with pytest.raises(InputError, match="run was made on different data"):
        score_run(run, ms.instances, boot=None)
    with pytest.raises(ValueError, match="needs its dataset"):
        score_run(run, None, boot=None)
