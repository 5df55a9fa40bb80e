"""A model run split by a choices-only probe: strict accuracy on the items whose options alone
give the answer ("option-solvable") and on the rest, their gap with an interval stratified by a
grouping of the items, the same gap adjusted for that grouping (Mantel–Haenszel, split_gap.py) with
the per-stratum rows it pools, and across runs Kendall's tau between the ranking on all items and
on the rest.

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
from builder.stats.split_gap import Gap, StratumCounts, split_gaps

SPLIT_VALUES = ("solvable_items", "accuracy_solvable", "accuracy_rest")  # the value part of a split fact
MIN_RANKED = 3  # runs a Kendall's tau across them needs before it says anything
# The columns of a split table and its CSV download, one spelling for every benchmark's page.
TABLE_COLUMNS = ("model", "items", "coverage", "accuracy_strict", "accuracy_official", "solvable_items",
                 "accuracy_solvable", "accuracy_rest", "gap", "gap_low", "gap_high", "gap_adjusted",
                 "gap_adjusted_low", "gap_adjusted_high")
# One row per stratum of one run's split (the adjusted gap's inputs), for the CSV download.
STRATA_COLUMNS = ("run", "model", "stratum", "solvable_items", "accuracy_solvable", "rest_items", "accuracy_rest",
                  "gap", "weight")


@dataclass(frozen=True)
class StratumRow:
    """One stratum of a split: counts and strict accuracy of each kind (None where it has none),
    their gap, and its Mantel–Haenszel weight n1 n0 / (n1 + n0) (0 where one kind is missing)."""

    stratum: str
    solvable_items: int
    accuracy_solvable: float | None
    rest_items: int
    accuracy_rest: float | None
    gap: float | None
    weight: float


@dataclass(frozen=True)
class SolvableSplit:
    solvable_items: int
    accuracy_solvable: float  # 0-100, strict
    accuracy_rest: float
    gap: float  # points: accuracy_solvable - accuracy_rest (crude: over the strata as mixed)
    low: float  # 95% bootstrap interval of the gap, resampled within each stratum
    high: float
    adjusted: Gap | None = None  # Mantel–Haenszel over the strata; None when no stratum holds both kinds
    strata: tuple[StratumRow, ...] = ()

    @property
    def disagrees(self) -> bool:
        """Whether the crude and adjusted gaps differ in sign or in whether their interval excludes
        zero: the cases where the page must say that the strata change the reading."""
        return self.adjusted is not None and readings_disagree(Gap(self.gap, self.low, self.high), self.adjusted)


def readings_disagree(crude: Gap, adjusted: Gap) -> bool:
    """Two readings of one gap differ in sign, or in which side of zero their interval lies
    (above, below or across): the one rule for when a page must say the strata change it."""
    def side(g: Gap) -> int:
        return 1 if g.low > 0 else -1 if g.high < 0 else 0
    return (crude.gap > 0) != (adjusted.gap > 0) or side(crude) != side(adjusted)


def solvable_split(right: Sequence[bool] | np.ndarray, solvable: Sequence[bool] | np.ndarray,
                   strata: Sequence[object] | np.ndarray) -> SolvableSplit | None:
    """The split of one run's items (same order in all three arrays; the interval's draws follow
    that order, so callers sort by item id). `strata` are labels (text); None when every item is
    of one kind: no gap."""
    right, solvable = np.asarray(right, dtype=bool), np.asarray(solvable, dtype=bool)
    if not solvable.any() or solvable.all():
        return None
    strata = np.asarray(strata)  # its sorted values order the interval's blocks of draws
    gaps = split_gaps(right, solvable, strata)
    return SolvableSplit(int(solvable.sum()), 100.0 * float(right[solvable].mean()),
                         100.0 * float(right[~solvable].mean()), gaps.crude.gap, gaps.crude.low, gaps.crude.high,
                         gaps.adjusted, stratum_rows(gaps.strata))


def stratum_rows(counts: Sequence[StratumCounts]) -> tuple[StratumRow, ...]:
    """The split within each stratum, in label order, read off the counts the adjusted gap was
    computed from (split_gap.stratum_counts), so the table and the estimate cannot disagree."""
    rows = []
    for c in sorted(counts, key=lambda c: str(c.label)):
        a1 = 100.0 * (c.right1 / c.n1) if c.n1 else None
        a0 = 100.0 * (c.right0 / c.n0) if c.n0 else None
        rows.append(StratumRow(str(c.label), c.n1, a1, c.n0, a0,
                               None if a1 is None or a0 is None else a1 - a0, float(c.weight)))
    return tuple(rows)


def add_split_facts(facts: FactTable, split: SolvableSplit, value: FactPattern, gap: FactPattern,
                    on: Mapping[str, str], runs: tuple[str, ...], strata: str = "category",
                    adjusted: FactPattern | None = None) -> None:
    """The six facts of a split, and the adjusted gap's three where `adjusted` is given and the
    gap is defined: `value` has a `value` part (SPLIT_VALUES), `gap` and `adjusted` an interval;
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
    if adjusted is not None and split.adjusted is not None:
        what = (f"accuracy on option-solvable minus on the rest within each {strata}, pooled with Mantel–Haenszel "
                f"weights n1·n0/(n1+n0); 95% bootstrap over items stratified by {strata}")
        facts.add(adjusted.key(**on), split.adjusted.gap, what, runs)
        facts.add(adjusted.low(**on), split.adjusted.low, what, runs)
        facts.add(adjusted.high(**on), split.adjusted.high, what, runs)


def split_ranking(every: Sequence[float], rest: Sequence[float],
                  lows: Sequence[float]) -> tuple[float | None, int] | None:
    """(Kendall's tau-b between the runs' accuracy on all items and on the rest, how many gap
    intervals lie above zero), or None under MIN_RANKED runs; tau is None where it is undefined
    (one of the rankings all ties), so no caller publishes a NaN."""
    if len(every) < MIN_RANKED:
        return None
    tau = kendall_tau_b(every, rest)
    return (tau if math.isfinite(tau) else None), sum(1 for low in lows if low > 0)
