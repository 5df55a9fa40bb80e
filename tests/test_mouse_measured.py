"""Mouse runs measured by buzzprobe (compute side), on the SYNTHETIC fixture runs
(tests/fixtures/mouse/runs/, made from the synthetic outputs; see its README): the data folder,
the checks against the data, the facts and intervals, and what an unjudged or unfinished run does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.mouse.measured import (MAIN_FACTS, MCC_FACTS, add_measured_facts, check_runs,
                                               data_folder, load_mouse_data)
from builder.benchmarks.mouse.metrics import BootstrapOptions
from builder.benchmarks.mouse.runs import score_run
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.runs.load import read_store

FIXTURES = Path(__file__).parent / "fixtures" / "mouse"
RUNS = FIXTURES / "runs"
BOOT = BootstrapOptions(200, 1111, 0.95)


@pytest.fixture(scope="module")
def data():
    return load_mouse_data(FIXTURES)


@pytest.fixture(scope="module")
def runs():
    return read_store(RUNS).runs["mouse"]


def test_the_data_folder_comes_from_the_environment_and_loads_each_file_once(data) -> None:
    assert data_folder({"MOUSE_DATA": " /x/y "}) == Path("/x/y") and data_folder({}) is None
    assert [d.path.name for d in data] == ["main_eval.csv", "single_choice.csv", "icc.csv"]
    assert load_mouse_data(None) == []
    with pytest.raises(InputError, match="MOUSE_DATA is not a folder"):
        load_mouse_data(FIXTURES / "README.md")


def test_fixture_runs_are_checked_and_every_measured_cell_is_a_fact_with_an_interval(runs, data) -> None:
    assert sorted(r.header.task for r in check_runs(runs, data)) == ["cc", "ir", "ms", "rc", "td", "tr"]
    facts = FactTable()
    rows = add_measured_facts(facts, runs, data, BOOT)
    assert [r.task for r in rows] == ["tr", "rc", "ir", "td", "ms", "cc"]  # the paper's task order
    assert facts["mouse.measured.runs"] == 6 and facts["mouse.measured.in_progress"] == 0
    by_task = {r.task: r for r in rows}
    for task, metric in (*MAIN_FACTS.values(), *MCC_FACTS.values()):
        key = f"{by_task[task].base}.{metric}"
        assert facts[f"{key}.ci95_low"] <= facts[key] <= facts[f"{key}.ci95_high"], key
    ms = next(r for r in runs if r.header.task == "ms")
    assert facts["mouse.run.mouse-synthetic-model-0_6b-ms.accuracy"] == score_run(ms, data[1], None).accuracy
    assert facts.provenance["mouse.run.mouse-synthetic-model-0_6b-ms.accuracy"].runs == ("mouse-synthetic-model-0_6b-ms",)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    shutil.copytree(RUNS, folder)
    return folder / "synthetic-model-0_6b"


def test_a_run_without_its_data_or_on_other_data_is_located(tmp_path: Path, data) -> None:
    folder = _copy(tmp_path)
    runs = read_store(folder.parent).runs["mouse"]
    with pytest.raises(InputError) as caught:
        check_runs(runs, data[:1])  # only main_eval: ms and cc have no data file
    found = sorted((Path(p.path).name, p.line, p.field) for p in caught.value.problems)
    assert found == [("mouse-synthetic-model-0_6b-cc.jsonl", 1, "dataset.content_sha256"),
                     ("mouse-synthetic-model-0_6b-ms.jsonl", 1, "dataset.content_sha256")]
    assert "give the single_choice it was made on" in str(caught.value)
    # the translation run needs no data file: its scores are in the run
    assert [r.header.task for r in check_runs([r for r in runs if r.header.task == "tr"], [])] == ["tr"]


def test_an_unfinished_run_is_counted_not_scored(tmp_path: Path, data) -> None:
    folder = _copy(tmp_path)
    path = folder / "mouse-synthetic-model-0_6b-ir.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")  # no footer, two items short
    runs = check_runs(read_store(folder.parent).runs["mouse"], data)
    facts = FactTable()
    rows = add_measured_facts(facts, runs, data, None)
    assert "ir" not in [r.task for r in rows] and facts["mouse.measured.in_progress"] == 1
    assert not any(k.startswith("mouse.run.mouse-synthetic-model-0_6b-ir.") for k in facts.values)
    record = json.loads(lines[0])
    assert record["benchmark"] == "mouse" and record["source"]["kind"] == "import"
