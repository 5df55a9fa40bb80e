"""A model run split by a choices-only probe: strict accuracy on the items whose options alone
give the answer ("option-solvable") and on the rest, their gap with an interval stratified by a
grouping of the items, and across runs Kendall's tau between the ranking on all items and on the
rest.

One computation for every benchmark that has per-item leak scores and model runs (the spec'd
benchmarks' runs, CIBuzzBench's own), so two pages that show a split mean the same by it. It
names no benchmark: the caller passes the arrays and the fact patterns its keys come from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from builder.core.factkeys import FactPattern
from builder.core.facts import FactTable
from builder.stats.rank_correlation import kendall_tau_b
from builder.stats.split_gap import stratified_gap

SPLIT_VALUES = ("solvable_items", "accuracy_solvable", "accuracy_rest")  # the value part of a split fact
MIN_RANKED = 3  # runs a Kendall's tau across them needs before it says anything
# The columns of a split table and its CSV download, one spelling for every benchmark's page.
TABLE_COLUMNS = ("model", "items", "coverage", "accuracy_strict", "accuracy_official", "solvable_items",
                 "accuracy_solvable", "accuracy_rest", "gap", "gap_low", "gap_high")


@dataclass(frozen=True)
class SolvableSplit:
    solvable_items: int
    accuracy_solvable: float  # 0-100, strict
    accuracy_rest: float
    gap: float  # points: accuracy_solvable - accuracy_rest
    low: float  # 95% bootstrap interval of the gap, resampled within each stratum
    high: float


def solvable_split(right: Sequence[bool] | np.ndarray, solvable: Sequence[bool] | np.ndarray,
                   strata: Sequence[object] | np.ndarray) -> SolvableSplit | None:
    """The split of one run's items (same order in all three arrays; the interval's draws follow
    that order, so callers sort by item id). None when every item is of one kind: no gap."""
    right, solvable = np.asarray(right, dtype=bool), np.asarray(solvable, dtype=bool)
    if not solvable.any() or solvable.all():
        return None
    gap, low, high = stratified_gap(right, solvable, np.asarray(strata))
    return SolvableSplit(int(solvable.sum()), 100.0 * float(right[solvable].mean()),
                         100.0 * float(right[~solvable].mean()), gap, low, high)


def add_split_facts(facts: FactTable, split: SolvableSplit, value: FactPattern, gap: FactPattern,
                    on: Mapping[str, str], runs: tuple[str, ...], strata: str = "category") -> None:
    """The six facts of a split: `value` has a `value` part (SPLIT_VALUES), `gap` an interval;
    `on` fills their other parts."""
    facts.add(value.key(value="solvable_items", **on), split.solvable_items,
              "answered items the cross-fitted probe solves from the options alone", runs)
    facts.add(value.key(value="accuracy_solvable", **on), split.accuracy_solvable,
              "strict accuracy on the option-solvable items", runs)
    facts.add(value.key(value="accuracy_rest", **on), split.accuracy_rest, "strict accuracy on the other items", runs)
    what = f"accuracy on option-solvable minus on the rest; 95% bootstrap over items stratified by {strata}"
    facts.add(gap.key(**on), split.gap, what, runs)
    facts.add(gap.low(**on), split.low, what, runs)
    facts.add(gap.high(**on), split.high, what, runs)


def split_ranking(every: Sequence[float], rest: Sequence[float],
                  lows: Sequence[float]) -> tuple[float | None, int] | None:
    """(Kendall's tau-b between the runs' accuracy on all items and on the rest, how many gap
    intervals lie above zero), or None under MIN_RANKED runs; tau is None where it is undefined
    (one of the rankings all ties), so no caller publishes a NaN."""
    if len(every) < MIN_RANKED:
        return None
    tau = kendall_tau_b(every, rest)
    return (tau if math.isfinite(tau) else None), sum(1 for low in lows if low > 0)
