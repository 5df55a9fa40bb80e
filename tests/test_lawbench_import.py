"""LawBench's published predictions read as the upstream lays them out and scored as its
`multi_choice_judge` scores them (builder/benchmarks/mcq/results/lawbench.py)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from builder.benchmarks.mcq.results import lawbench as L
from builder.core.errors import InputError
from tests.test_shelf import shared_copy

# The upstream README's zero-shot table (top five models), tasks 1-2 and 3-6, in percent; the
# column names there, the prediction folders here.
README = {"GPT4": (55.20, 48.60), "GPT-3.5-turbo-0613": (36.00, 27.40), "freewilly2_70b-hf": (34.60, 34.40),
          "qwen-7b-chat-hf": (34.00, 26.80), "internlm-chat-7b-8k-hf": (40.40, 34.20)}


@pytest.mark.parametrize("text, letter", [
    ("[正确答案]C<eoa>", "C"),
    ("C", "C"),
    ("答案是A和B", ""),  # two letters: the upstream counts it wrong
    ("我不知道", ""),  # none: an abstention
    ("[正确答案]c<eoa>", ""),  # the upstream counts upper-case letters only
])
def test_the_upstream_reads_one_letter_or_none(text, letter):
    assert L.upstream_letter(text) == letter


def _record(prediction: str, gold: str = "B") -> dict:
    return {"origin_prompt": [{"role": "HUMAN", "prompt": "q"}], "prediction": prediction, "refr": f"正确答案：{gold}。"}


def _write(folder: Path, model: str, task: str, records: list[dict]) -> None:
    (folder / model).mkdir(parents=True, exist_ok=True)
    (folder / model / f"{task}.json").write_text(json.dumps({str(i): r for i, r in enumerate(records)}),
                                                 encoding="utf-8")


def test_a_clone_and_the_zip_read_the_same(tmp_path):
    clone = tmp_path / "LawBench" / "predictions" / "zero_shot"
    _write(clone, "m", "1-2", [_record("B"), _record("AB"), _record("无")])
    _write(clone, "m", "3-6", [_record("[正确答案]D<eoa>", "D")])
    archive = tmp_path / "predictions-zero_shot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(clone.rglob("*.json")):
            z.write(f, f"predictions/zero_shot/{f.relative_to(clone)}")
    from_clone = L.read_predictions(tmp_path / "LawBench", "m")
    from_zip = L.read_predictions(archive, "m")
    assert [(p.id, p.prediction, p.gold) for p in from_clone] == [(p.id, p.prediction, p.gold) for p in from_zip]
    assert [p.id for p in from_zip] == ["1-2-0", "1-2-1", "1-2-2", "3-6-0"]
    assert L.scores_by_task(from_zip) == {"1-2": (1 / 3, 1 / 3), "3-6": (1.0, 0.0)}
    assert L.models_in(archive) == ["m"]


def test_a_bad_record_is_located(tmp_path):
    _write(tmp_path, "m", "1-2", [_record("B"), {"prediction": "B", "refr": "答案B"}])
    with pytest.raises(InputError) as caught:
        L.read_predictions(tmp_path, "m")
    text = str(caught.value)
    assert "1-2.json" in text and "key 1" in text and "refr" in text


def test_a_missing_model_says_where_it_looked(tmp_path):
    with pytest.raises(InputError, match="no prediction files of model 'nobody'"):
        L.read_predictions(tmp_path, "nobody")


def test_the_published_predictions_reproduce_the_upstream_table():
    """All 51 models read from the zip as shipped; the README's zero-shot rows are reproduced
    to its two decimals (the upstream's results.csv, which they round, agrees on every model)."""
    archive = shared_copy("lawbench", "BUZZPROBE_DATA_LAWBENCH") / "predictions-zero_shot.zip"
    models = L.models_in(archive)
    assert len(models) == 51
    for model, published in README.items():
        scores = L.scores_by_task(L.read_predictions(archive, model))
        assert [round(100 * scores[t][0], 2) for t in L.TASKS] == list(published), model
    assert len(L.read_predictions(archive, "llama-7b")) == 1000


def _lawbench(monkeypatch):
    from tests.test_shelf import shipped
    return shipped("lawbench", monkeypatch)


def test_the_spec_reads_both_tasks_with_the_options_from_the_question_text(monkeypatch):
    bench = _lawbench(monkeypatch)
    assert len(bench.items) == 1000
    assert [i.id for i in bench.items[:1] + bench.items[500:501]] == ["1-2-0", "3-6-0"]
    assert all(len(i.choices) == 4 and i.option_letters == tuple("ABCD") for i in bench.items)
    assert {i.strata for i in bench.items} == {("1-2",), ("3-6",)}


def test_import_results_makes_a_run_scored_as_the_upstream(monkeypatch, tmp_path, capsys):
    """`buzzprobe import results --format lawbench` on the zip as shipped: one run of both tasks,
    each item's letter the one the upstream reads; the item the audit leaves out (1-2-188: its gold
    text repeats a distractor) is reported, not imported."""
    from builder.cli import main
    from builder.runs.reader import read_run
    _lawbench(monkeypatch)
    archive = shared_copy("lawbench", "BUZZPROBE_DATA_LAWBENCH") / "predictions-zero_shot.zip"
    assert main(["import", "results", str(archive), "--benchmark", "lawbench", "--format", "lawbench",
                 "--model", "GPT4", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "999 of 999 items" in out.out and "1 item(s) the audit leaves out were not imported: 1-2-188" in out.err
    run = read_run(tmp_path / "gpt4-lawbench-pub.jsonl.gz")
    assert run.header.source["scoring"] == "upstream-lawbench" and run.footer is not None
    upstream = {p.id: L.upstream_letter(p.prediction) for p in L.read_predictions(archive, "GPT4")}
    assert all(item.prediction == upstream[item.id] for item in run.items)
    parts = run.header.source["upstream_parts"]  # over all 500 records of each task: the README's figures
    assert [round(100 * parts[t]["correct"] / parts[t]["questions"], 2) for t in L.TASKS] == list(README["GPT4"])


def test_the_reconciliation_names_the_readme_rows_and_the_runs():
    """content/reconciliation/lawbench.yaml: one statement per README cell, each on a run's task accuracy."""
    from builder.benchmarks.mcq.analyses.reconcile import load_reconciliation
    from tests.test_shelf import REPO
    found = load_reconciliation(REPO / "content", "lawbench")
    assert found is not None and len(found.statements) == 2 * len(README)
    runs = {p.name.removesuffix("-lawbench-pub.jsonl.gz") for p in (REPO / "runs" / "lawbench").glob("*.jsonl.gz")}
    for statement in found.statements:
        run = statement.fact.split(".")[3].removesuffix("-lawbench-pub")
        assert run in runs and statement.fact.endswith(("upstream.1-2.accuracy", "upstream.3-6.accuracy"))
