"""How much of each model's score sits on items whose options alone give the answer.

"Option-solvable" items are those whose gold the ranker's cross-fitted probe ranks strictly
first (builder.ranker.leak, kept in the audit). Per sighted model run (run_summary.py): strict
accuracy on the solvable items and on the rest, their gap, and a 95% bootstrap interval of the
gap that resamples items within each category (builder.stats.split_gap: solvable items are not
spread evenly across subjects, so an unstratified resample would mix the subject mix into the
gap), and the gap adjusted for the strata (the spec's `strata`, else category: Mantel–Haenszel
over the within-stratum gaps), since solvable items crowd into some strata and the crude gap
then carries which strata they come from. Across those runs, here: each run's rank and paired
tie group on all items and on the rest alone, Kendall's tau-b between the two rankings, and the
counts the page's sentences are chosen by (adjusted gaps above, below and straddling zero, and
the runs whose crude and adjusted readings disagree).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.rankings import Place, accuracy, is_full, on_common, ranked
from builder.benchmarks.mcq.analyses.run_summary import RunSummary
from builder.core.facts import FactTable
from builder.stats.solvable_split import readings_disagree, split_ranking
from builder.stats.split_gap import Gap

if TYPE_CHECKING:
    from builder.benchmarks.mcq.loading import Loaded


@dataclass(frozen=True)
class SplitSummary:
    """What the page says about the split, chosen by the numbers."""

    run_ids: tuple[str, ...]  # split runs: the ranked by strict accuracy on their common items, then the rest
    above: str  # "all", "none" or "some": runs whose (adjusted, where defined) gap interval lies above zero
    largest: str  # run id with the largest (adjusted) gap
    smallest: str  # and the smallest
    moved: tuple[str, ...]  # runs whose rank on the rest differs from their rank on all items
    adjusted: bool = False  # every split run has an adjusted gap: the sentences read it
    disagree: tuple[str, ...] = ()  # runs whose crude and adjusted gaps differ in sign or significance


def solvable_rows(loaded: "Loaded") -> np.ndarray:
    """Row ids of the audited items the cross-fitted probe solves, ascending."""
    leak = loaded.audit.leak
    assert leak is not None  # every audit has one (audit.audit sets it; None is only the field's default)
    solved = {i for i, s in zip(leak.ids, leak.solvable) if s}
    return np.array(sorted(r for r, item in loaded.data.items.items() if item.id in solved), dtype=np.int64)


def on_rest(summary: RunSummary, solvable: np.ndarray) -> RunSummary:
    """The run restricted to the items the probe does not solve."""
    keep = ~np.isin(summary.row_ids, solvable)
    return replace(summary, row_ids=summary.row_ids[keep], right=summary.right[keep])


def add_split_summary(split_ids: Sequence[str], summaries: Mapping[str, RunSummary], solvable: np.ndarray,
                      facts: FactTable, bench: str, total: int) -> SplitSummary | None:
    """Ranks both ways and tau over the split runs that rankings.py's like-with-like rule ranks
    (on their common items; `total`: the benchmark's items), and the counts over every split run
    (None for fewer than 2)."""
    if len(split_ids) < 2:
        return None
    ids = tuple(split_ids)
    common = on_common(summaries, [i for i in ids if is_full(len(summaries[i].row_ids), total)])
    rests = {i: on_rest(s, solvable) for i, s in common.items()}
    every, rest = {i: accuracy(s) for i, s in common.items()}, {i: accuracy(s) for i, s in rests.items()}
    places = {"all": ranked(every, common), "rest": ranked(rest, rests)}
    for scope, order in places.items():
        _add_places(order, scope, facts, bench, len(next(iter(common.values())).row_ids) if common else 0)
    rank = {scope: {p.run_id: p.rank for p in order} for scope, order in places.items()}
    moved = tuple(p.run_id for p in places["all"] if rank["all"][p.run_id] != rank["rest"][p.run_id])
    headline = K.LEAK_ADJUSTED if all(K.LEAK_ADJUSTED.key(bench=bench, run_id=i) in facts for i in ids) else K.LEAK_GAP
    gap = {i: facts[headline.key(bench=bench, run_id=i)] for i in ids}
    lows = {i: facts[headline.low(bench=bench, run_id=i)] for i in ids}
    highs = {i: facts[headline.high(bench=bench, run_id=i)] for i in ids}
    crude_lows = [facts[K.LEAK_GAP.low(bench=bench, run_id=i)] for i in ids]
    above = sum(low > 0 for low in lows.values())
    disagree = tuple(i for i in ids if headline is K.LEAK_ADJUSTED and _disagree(facts, bench, i))
    counts: tuple[tuple[str, int, str], ...] = ((K.LEAK_MODELS.key(bench=bench), len(ids), "model runs given a leak split"),
              (K.LEAK_POSITIVE.key(bench=bench), sum(facts[K.LEAK_GAP.key(bench=bench, run_id=i)] > 0 for i in ids),
               "model runs more accurate on the option-solvable items than on the rest (crude point estimate)"),
              (K.LEAK_WIDER.key(bench=bench), sum(low > 0 for low in crude_lows),
               "models whose crude gap interval lies above zero"),
              (K.LEAK_BELOW.key(bench=bench), sum(facts[K.LEAK_GAP.high(bench=bench, run_id=i)] < 0 for i in ids),
               "models whose crude gap interval lies below zero"),
              (K.LEAK_MOVED.key(bench=bench), len(moved),
               "ranked model runs whose rank on the rest differs from their rank on all items (rankings.py ranks "
               "only runs answering at least 99% of the items, on the items all of them answered)"))
    if headline is K.LEAK_ADJUSTED:
        counts += tuple((K.LEAK_ADJUSTED_COUNT.key(bench=bench, count=name), value, what) for name, value, what in (
            ("positive", sum(g > 0 for g in gap.values()), "model runs whose adjusted gap is above zero"),
            ("above_zero", above, "model runs whose adjusted gap interval lies above zero"),
            ("below_zero", sum(h < 0 for h in highs.values()), "model runs whose adjusted gap interval lies below zero"),
            ("disagree", len(disagree), "model runs whose crude and adjusted gaps differ in sign or in whether "
             "their interval excludes zero")))
    for key, value, what in counts:
        facts.add(key, value, what, ids)
    _add_tau(facts, bench, common, every, rest)
    by_gap = sorted(ids, key=lambda i: (-gap[i], i))
    unranked = sorted((i for i in ids if i not in common),
                      key=lambda i: (-facts[K.RUN_SCORE.key(bench=bench, run_id=i, metric="accuracy")], i))
    return SplitSummary(tuple(p.run_id for p in places["all"]) + tuple(unranked),
                        "all" if above == len(ids) else "none" if above == 0 else "some", by_gap[0], by_gap[-1], moved,
                        headline is K.LEAK_ADJUSTED, disagree)


def _add_tau(facts: FactTable, bench: str, common: Mapping[str, RunSummary], every: Mapping[str, float],
             rest: Mapping[str, float]) -> None:
    """Kendall's tau between the ranked runs' accuracy on all their common items and on the rest,
    when there is one to state."""
    ranking = split_ranking([every[i] for i in common], [rest[i] for i in common],
                            [facts[K.LEAK_GAP.low(bench=bench, run_id=i)] for i in common])
    if ranking is not None and ranking[0] is not None:
        facts.add(K.LEAK_TAU.key(bench=bench), ranking[0], "Kendall's tau (tau-b) between the ranked models' strict "
                  "accuracy on the items all of them answered and on those the probe does not solve", tuple(common))


def _disagree(facts: FactTable, bench: str, run_id: str) -> bool:
    """Crude and adjusted gaps of one run read differently (stats.solvable_split.readings_disagree)."""
    def gap(pattern: Any) -> Gap:
        on = {"bench": bench, "run_id": run_id}
        return Gap(facts[pattern.key(**on)], facts[pattern.low(**on)], facts[pattern.high(**on)])
    return readings_disagree(gap(K.LEAK_GAP), gap(K.LEAK_ADJUSTED))


def _add_places(order: list[Place], scope: str, facts: FactTable, bench: str, items: int) -> None:
    on = (f"the {items:,} items every ranked run answered" if scope == "all" else
          f"those of the {items:,} items every ranked run answered that the probe does not solve")
    for place in order:
        values = {"bench": bench, "run_id": place.run_id, "scope": scope}
        runs = (place.run_id,)
        facts.add(K.LEAK_RANK.key(value="rank", **values), place.rank,
                  f"position by strict accuracy on {on} among the ranked split runs (1 = highest)", runs)
        facts.add(K.LEAK_RANK.key(value="tie_group", **values), place.group,
                  f"paired tie group by strict accuracy on {on} (a new group where exact McNemar against the run "
                  "above gives p < 0.05)", runs)
        if place.p is not None:
            facts.add(K.LEAK_RANK.key(value="tie_p", **values), place.p,
                      f"exact McNemar against the run ranked just above, on {on}", runs)
