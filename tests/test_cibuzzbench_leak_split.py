"""CIBuzzBench's own model runs split by the leak score (issue 24 item 4): the score is the index's
cibuzzbench-t2 audit's, and the committed runs' split facts are what the run files and that
score give when recomputed here by hand."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses import leak_split as L
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore, score_run
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.run_checks import validate_runs
from builder.benchmarks.facts_reference import fact_schema
from builder.core.facts import FactTable
from builder.ranker.leak import LeakScores
from builder.runs.reader import read_run
from builder.stats.solvable_split import MIN_RANKED
from builder.stats.split_gap import stratified_gap

REPO = Path(__file__).resolve().parents[1]
SUITE_CACHE = Path(os.environ["BUZZPROBE_CACHE"])
LOCAL = REPO / "runs" / "qwen2_5-coder-1_5b-instruct-q4_k_m"
SIGHTED = "qwen2_5-coder-1_5b-instruct-q4_k_m-t2-sighted-en-s1111-n400-r0"


@pytest.fixture(scope="module")
def leak(real_dataset: Dataset) -> LeakScores:
    """Kept in the suite's cache (conftest's BUZZPROBE_CACHE), as the real-data builds keep it: fitted
    here only when no build of this run has fitted it yet (the key holds the data and the code)."""
    return L.t2_leak_scores(real_dataset, SUITE_CACHE)


@pytest.mark.realdata
def test_the_leak_score_is_the_index_audits(real_csv: Path, leak: LeakScores,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Same items, option order, golds and ids as content/benchmarks/cibuzzbench-t2.yaml, so the
    scores are equal to the last bit (the index publishes them as leak/cibuzzbench-t2.csv)."""
    from builder.benchmarks.mcq.analyses.audit_cache import cached_audit, cached_benchmark
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(real_csv))
    # as the shipped build audits the spec (and keeps it in the same cache): the two paths meet here
    audit = cached_audit(cached_benchmark(REPO / "content" / "benchmarks" / "cibuzzbench-t2.yaml", SUITE_CACHE),
                         SUITE_CACHE)
    assert audit.leak == leak
    assert len(leak.ids) == 3001 and 0 < sum(leak.solvable) < 3001


def _committed(dataset: Dataset, variants: dict[str, Dataset]) -> dict[str, RunScore]:
    runs = validate_runs([read_run(p) for p in sorted(LOCAL.glob("*.jsonl"))], {"original": dataset, **variants})
    return {r.header.run_id: score_run(r, {"original": dataset, **variants}[r.header.variant]) for r in runs}


def _by_hand(path: Path, leak: LeakScores, csv_path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, solvable, category) from the run file, the leak score and the CSV, by row_id."""
    with open(csv_path, encoding="utf-8", newline="") as handle:
        category = {int(r["row_id"]): r["category_label"] for r in csv.DictReader(handle)}
    solvable = {int(i): s for i, s in zip(leak.ids, leak.solvable)}
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    items = sorted((i for i in items if i["type"] == "item"), key=lambda i: i["row_id"])
    gold = [next(k for k, v in i["letter_map"].items() if v == "correct") for i in items]
    right = np.array([i["prediction"] == g for i, g in zip(items, gold)])
    return (right, np.array([solvable[i["row_id"]] for i in items]),
            np.array([category[i["row_id"]] for i in items], dtype=object))


@pytest.mark.realdata
def test_the_committed_runs_split_as_recomputed_by_hand(real_csv: Path, real_dataset: Dataset,
                                                        leak: LeakScores) -> None:
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    scores = _committed(real_dataset, derive_variants(real_dataset))
    facts = FactTable()
    for s in scores.values():  # the run facts the split table reads beside its own
        facts.add(K.RUN_SCORE.key(run_id=s.run_id, metric="accuracy"), s.report.accuracy, "accuracy")
    found = L.add_leak_split(facts, scores, real_dataset, None)
    assert found.split == (SIGHTED,)
    assert found.set_aside == {L.TASK: ("qwen2_5-coder-1_5b-instruct-q4_k_m-t3-sighted-en-test",),
                               L.BLIND: (SIGHTED.replace("sighted", "blind"), SIGHTED.replace("sighted", "blind") + "-gold_pool"),
                               L.VARIANT: (SIGHTED + "-gold_pool",)}
    right, solvable, category = _by_hand(LOCAL / f"{SIGHTED}.jsonl", leak, real_csv)
    on = {"run_id": SIGHTED}
    assert facts[K.SPLIT_LEAK.key(value="solvable_items", **on)] == int(solvable.sum()) == 255
    assert facts[K.SPLIT_LEAK.key(value="accuracy_solvable", **on)] == pytest.approx(100 * right[solvable].mean())
    assert facts[K.SPLIT_LEAK.key(value="accuracy_rest", **on)] == pytest.approx(100 * right[~solvable].mean())
    assert facts[K.RUN_SCORE.key(metric="accuracy", **on)] == pytest.approx(100 * right.mean())  # strict = official
    gap = 100 * (right[solvable].mean() - right[~solvable].mean())
    assert facts[K.SPLIT_GAP.key(**on)] == pytest.approx(gap)
    low, high = facts[K.SPLIT_GAP.low(**on)], facts[K.SPLIT_GAP.high(**on)]
    assert (low, high) == stratified_gap(right, solvable, category)[1:] and low < gap < high
    assert facts[K.SPLIT_COVERAGE.key(**on)] == pytest.approx(100 * 400 / 3001)
    assert K.SPLIT_TAU.key() not in facts and len(found.split) < MIN_RANKED
    assert fact_schema().problems(facts.values) == []
