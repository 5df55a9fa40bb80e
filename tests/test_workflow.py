"""The evaluator's workflow (issue 33): pairs that cannot mix, failures that fail, the CLI's
conventions and its feedback. Real behaviour throughout: the CLI through `main`, a loopback
model server for probes, real files and real (small) builds."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.benchmarks.cibuzzbench.dataset import cibuzzbench as cibuzzbench_dataset
from builder.benchmarks.cibuzzbench.interop.importing import convert, write_imported
from builder.benchmarks.cibuzzbench.interop.inspect_log import read_inspect
from builder.benchmarks.cibuzzbench.prompts import load_protocols
from builder.cli import main
from builder.pipeline import BuildConfig, build
from builder.runs.selection import Selection
from tests.loopback_server import LoopbackServer, reply
from tests.synthetic import synthetic_rows, write_synthetic_csv
from tests.test_build import SMALL_SPEC
from tests.test_interop import CREATED, _tasks, answer, fake_inspect_log, fake_lm_eval

REPO = Path(__file__).resolve().parents[1]
MODEL = "loopmodel"


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    return write_synthetic_csv(folder / "small.csv", synthetic_rows(n=SMALL_SPEC.rows, test=12, seed=3))


@pytest.fixture()
def small_env(small_csv: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`probe` and `import` read CIBUZZBENCH_CSV at the official shape; tests use the small one."""
    real = cibuzzbench_dataset.load_dataset
    monkeypatch.setattr(cibuzzbench_dataset, "load_dataset", lambda path, spec=None: real(path, SMALL_SPEC))
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(small_csv))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return small_csv


def _server() -> LoopbackServer:
    return LoopbackServer(lambda request: reply(answer(request.body["messages"])))


def _probe_pair(url: str, out: Path, sample: str = "50") -> None:
    for condition in ("sighted", "blind"):
        assert main(["probe", "--base-url", url, "--model", MODEL, "--sample", sample, "--quiet",
                     "--condition", condition, "--out", str(out / "{run_id}.jsonl")]) == 0


def _import_harness_pair(dataset_csv: Path, work: Path, runs: Path) -> None:
    """A 20-item sighted and blind pair from lm-eval and from Inspect, imported by the CLI."""
    dataset = cibuzzbench_dataset.load_dataset(dataset_csv)
    protocols = load_protocols()
    tasks = _tasks(dataset, protocols, selection=Selection("sample", None, 20, 0),
                   arms=("t2-sighted", "t2-blind"))
    for task in tasks:
        fake_lm_eval(task, task.records(dataset), work / "lm" / task.name)
        log = work / "inspect" / f"{task.name}.json"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps(fake_inspect_log(task, task.records(dataset))), encoding="utf-8")
    assert main(["import", "lm-eval", str(work / "lm"), "--model", MODEL, "--out", str(runs / "lm-eval")]) == 0
    # The CLI reads Inspect logs through inspect-ai when it is installed, which wants fields the
    # documented-format fixture leaves out; the import's own reader and writer are the CLI's.
    for log in sorted((work / "inspect").glob("*.json")):
        run = convert(read_inspect(log, use_library=False), {"original": dataset}, protocols, CREATED, MODEL)
        write_imported(run, str(runs / "inspect"))


def _site(csv_path: Path, runs: Path, out: Path) -> dict:
    build(BuildConfig(runs, REPO / "content", out, options=cibuzzbench_options(csv_path, SMALL_SPEC)))
    return json.loads((out / "facts.json").read_text(encoding="utf-8"))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_imported_runs_never_pair_or_pool_with_the_probe_pair(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with _server() as server:
        _probe_pair(server.url, runs / "probe")
    alone = _site(small_env, runs, tmp_path / "alone")
    _import_harness_pair(small_env, tmp_path / "work", runs)
    both = _site(small_env, runs, tmp_path / "both")
    capsys.readouterr()

    pairs = sorted({k.split(".")[1] for k in both if k.startswith("pair.")})
    assert len(pairs) == 3  # probe with probe, lm-eval with lm-eval, Inspect with Inspect
    for pid in pairs:
        blind, sighted = pid.split("__vs__")
        assert blind.split("-")[0] == sighted.split("-")[0], pid  # one tool per pair
        assert both[f"pair.{pid}.only_a"] == both[f"pair.{pid}.only_b"] == 0
    # Every figure the probe-only site published is unchanged beside the imports.
    moved = {k: (v, both.get(k)) for k, v in alone.items()
             if k.startswith(("pair.", "paired", "model.")) and both.get(k) != v}
    assert moved == {}
    assert both["paired_models.count"] == alone["paired_models.count"] == 1

    table = _rows(tmp_path / "both" / "tables" / "model-pair-summaries.csv")
    assert sorted((r["Model"], r["n"]) for r in table) == [
        (MODEL, "50"), (f"{MODEL} (inspect_ai import)", "20"), (f"{MODEL} (lm-eval import)", "20")]
    article = (tmp_path / "both" / "article.html").read_text(encoding="utf-8")
    assert "1 model was run sighted and blind on the same items of the original option set, in 3 separate" in article
