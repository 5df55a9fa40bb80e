"""The shared leak split (builder.stats.solvable_split): no split without both kinds of item,
and the ranking across runs is Kendall's tau-b from three runs on."""

from __future__ import annotations

from builder.stats.rank_correlation import kendall_tau_b
from builder.stats.solvable_split import solvable_split, split_ranking


def test_a_split_needs_both_kinds_of_item() -> None:
    right, strata = [True, False, True, False], ["a", "a", "b", "b"]
    assert solvable_split(right, [True] * 4, strata) is None and solvable_split(right, [False] * 4, strata) is None
    split = solvable_split(right, [True, True, False, False], strata)
    assert split is not None and split.solvable_items == 2
    assert (split.accuracy_solvable, split.accuracy_rest, split.gap) == (50.0, 50.0, 0.0)


def test_the_ranking_needs_three_runs_and_is_kendalls_tau() -> None:
    assert split_ranking([50.0, 40.0], [30.0, 20.0], [1.0, -1.0]) is None
    every, rest, lows = [50.0, 40.0, 30.0, 20.0], [30.0, 35.0, 10.0, 5.0], [1.0, -2.0, 0.5, 0.0]
    assert split_ranking(every, rest, lows) == (kendall_tau_b(every, rest), 2)
    assert split_ranking(every, [10.0] * 4, lows) == (None, 2)  # one ranking all ties: tau undefined, not NaN
