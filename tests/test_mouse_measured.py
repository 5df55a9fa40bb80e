"""Mouse runs measured by buzzprobe (compute side), on the SYNTHETIC fixture runs
(tests/fixtures/mouse/runs/, made from the synthetic outputs; see its README): the data folder,
the checks against the data, the facts and intervals, and what an unjudged or unfinished run does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.benchmarks.mouse.analyses.measured_runs import (MAIN_FACTS, MCC_FACTS, add_measured_facts, check_runs,
                                                            data_folder, load_mouse_data)
from builder.benchmarks.mouse.analyses.metrics import BootstrapOptions
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


# ------------------------------------------------------------------ the site, built with synthetic runs

def _retitled(source: Path, dest: Path, run_id: str, name: str) -> None:
    """A copy of a SYNTHETIC fixture run under another run id and model name."""
    lines = source.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(run_id=run_id, subject={**header["subject"], "name": name})
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")


def _row_cells(html: str, table_id: str) -> list[list[str]]:
    """The body cells of one table, as the page shows them (text, tags removed, still escaped)."""
    import re
    table = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    return [[re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_measured_rows_appear_on_the_mouse_page_escaped_beside_the_reported_ones(tmp_path: Path, monkeypatch) -> None:
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.pipeline import BuildConfig, build
    from tests.test_build import SMALL_SPEC, write_synthetic_model_pair
    from tests.synthetic import synthetic_rows, write_synthetic_csv

    csv_path = write_synthetic_csv(tmp_path / "small.csv", synthetic_rows(n=60, test=12, seed=3))
    runs = tmp_path / "runs"
    write_synthetic_model_pair(load_dataset(csv_path, SMALL_SPEC), runs / "synthetic")
    shutil.copytree(RUNS, runs, dirs_exist_ok=True)
    ms = RUNS / "synthetic-model-0_6b" / "mouse-synthetic-model-0_6b-ms.jsonl"
    _retitled(ms, runs / "qwen3-8b" / "mouse-qwen3-8b-ms.jsonl", "mouse-qwen3-8b-ms", "Qwen3-8B")
    hostile = "Syn<script>alert(1)</script> & Co"
    _retitled(ms, runs / "hostile" / "mouse-hostile-ms.jsonl", "mouse-hostile-ms", hostile)
    monkeypatch.setenv("MOUSE_DATA", str(FIXTURES))
    out = tmp_path / "site"
    build(BuildConfig(runs, Path(__file__).resolve().parents[1] / "content", out, options=cibuzzbench_options(csv_path, SMALL_SPEC), charts=False, cache_dir=tmp_path / "cache"))

    html = (out / "mouse.html").read_text(encoding="utf-8")
    facts = json.loads((out / "facts.json").read_text(encoding="utf-8"))
    facts = facts.get("facts", facts)
    assert "Measured by buzzprobe" in html and "except the rows marked" in html
    assert html.index('id="mouse-table3"') < html.index('id="mouse-measured"')  # beside the reported leaderboard
    rows = _row_cells(html, "mouse-measured")
    assert {r[0] for r in rows} == {"Synthetic Model 0.6B", "Qwen3-8B", "Syn&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co"}
    assert "<script>alert(1)" not in html
    # every task of the synthetic model, each metric with its interval, as the facts say
    mine = [r for r in rows if r[0] == "Synthetic Model 0.6B"]
    assert len(mine) == 10 + 7  # Table 3's ten metrics and Table 4's seven MCCs
    base = "mouse.run.mouse-synthetic-model-0_6b-ms.accuracy"
    ms_row = next(r for r in mine if r[2] == "MS accuracy")
    assert ms_row[1:6] == ["sighted", "MS accuracy", f"{facts[base]:.3f}", f"{facts[base + '.ci95_low']:.3f}",
                           f"{facts[base + '.ci95_high']:.3f}"]
    assert facts[base + ".ci95_low"] < facts[base] < facts[base + ".ci95_high"]
    assert ms_row[6] == "–"  # the paper has no such model
    qwen = next(r for r in rows if r[0] == "Qwen3-8B" and r[2] == "MS accuracy")
    assert qwen[3] == ms_row[3] and qwen[6] == f"{facts['mouse.reported.main.qwen3-8b.ms_acc']:.3f}"
    assert facts["mouse.measured.runs"] == 8
    csv_text = (out / "tables" / "mouse-measured.csv").read_text(encoding="utf-8")
    assert hostile in csv_text and "Reported (paper)" in csv_text  # the download holds the same rows
    assert "Mouse single_choice" in (out / "index.html").read_text(encoding="utf-8")  # the footer names the data


def test_without_mouse_runs_the_page_shows_no_measured_section(tmp_path: Path) -> None:
    from builder.benchmarks.mouse.plugin import BENCHMARK
    from builder.benchmarks.base import BuildSettings
    content = Path(__file__).resolve().parents[1] / "content"
    settings = BuildSettings(content_dir=content, cache_dir=tmp_path, options=cibuzzbench_options(tmp_path / "none.csv"))
    facts = FactTable()
    state = BENCHMARK.compute(BENCHMARK.load(settings, []), facts, settings)
    parts = BENCHMARK.site(state, facts, None)
    assert "mouse-measured" not in parts.tables and parts.runs == [] and parts.sources == []
    assert not any(key.startswith(("mouse.run.", "mouse.measured.")) for key in facts.values)
