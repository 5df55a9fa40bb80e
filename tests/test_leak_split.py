"""The frontier split's statistics and cross-run steps: Kendall's tau-b as scipy computes it,
the stratified gap, and the paired tie groups read from the per-run summaries."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import kendalltau

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.rankings import fixes_and_breaks, tie_groups
from builder.benchmarks.mcq.analyses.run_summary import RunSummary
from builder.core.facts import FactTable
from builder.stats.paired import mcnemar_exact
from builder.stats.rank_correlation import kendall_tau_b
from builder.stats.split_gap import stratified_gap


@pytest.mark.parametrize("n", [2, 3, 7, 29, 120])
def test_kendall_tau_b_is_scipys_with_and_without_ties(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        x = rng.integers(0, 6, n).astype(float)
        y = x + rng.integers(-2, 3, n)
        ours, theirs = kendall_tau_b(x, y), kendalltau(x, y).statistic
        assert (np.isnan(ours) and np.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12)


def test_kendall_tau_b_refuses_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="equal-length"):
        kendall_tau_b([1.0, 2.0], [1.0])


def test_the_stratified_gap_keeps_each_stratums_mix() -> None:
    """Solvable items crowd one stratum where everyone scores high: within strata there is no
    gap, and an unstratified reading would invent one. The point estimate is the plain split
    (as the page states it); the interval resamples within strata, so it is a pure function of
    the data and the seed."""
    strata = np.repeat([0, 1], 500)
    solvable = np.r_[np.ones(400, bool), np.zeros(100, bool), np.zeros(500, bool)]
    right = np.r_[np.ones(500, bool), np.zeros(500, bool)]
    gap, low, high = stratified_gap(right, solvable, strata, resamples=200)
    assert gap == pytest.approx(100.0 * (1.0 - 100 / 600))
    assert (gap, low, high) == stratified_gap(right, solvable, strata, resamples=200)
    assert low <= gap <= high


def _summary(row_ids: list[int], right: list[bool]) -> RunSummary:
    return RunSummary(FactTable(), np.array(row_ids), np.array(right, dtype=bool), False)


def test_fixes_and_breaks_count_only_the_items_both_answered() -> None:
    mine = _summary([1, 2, 3, 5, 8], [True, True, False, True, False])
    above = _summary([2, 3, 4, 5, 8], [False, True, True, True, True])
    assert fixes_and_breaks(mine, above) == (1, 2)  # 2: mine only; 3 and 8: above only; 1 and 4 unshared


def test_tie_groups_split_only_where_mcnemar_separates_neighbours() -> None:
    """a and b differ on 2 of 400 items (a tie); c misses 120 that b gets (a new group)."""
    n = 400
    right = {"a": [True] * n, "b": [True] * (n - 2) + [False] * 2, "c": [True] * 200 + [False] * 200}
    runs, summaries, facts = [], {}, FactTable()
    for rid, hits in right.items():
        runs.append(SimpleNamespace(header=SimpleNamespace(run_id=rid, source={"kind": "import"},
                                                           subject_label=rid), items=(1,)))
        summaries[rid] = _summary(list(range(n)), hits)
        facts.add(K.RUN_SCORE.key(bench="b", run_id=rid, metric="accuracy"), 100.0 * sum(hits) / n, "test")
    ordered = tie_groups(list(reversed(runs)), summaries, facts, "b", n)
    assert [p.run_id for p in ordered] == ["a", "b", "c"] and [p.rank for p in ordered] == [1, 2, 3]
    group = {rid: facts[K.RUN_TIE_GROUP.key(bench="b", run_id=rid)] for rid in right}
    assert group == {"a": 1, "b": 1, "c": 2}
    assert facts[K.RUN_TIE_P.key(bench="b", run_id="b")] == mcnemar_exact(0, 2)
    assert facts[K.RUN_TIE_P.key(bench="b", run_id="c")] == mcnemar_exact(0, 198)
    assert K.RUN_TIE_P.key(bench="b", run_id="a") not in facts
