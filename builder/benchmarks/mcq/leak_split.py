"""How much of each model's score sits on items whose options alone give the answer.

"Option-solvable" items are those whose gold the ranker's cross-fitted probe ranks strictly
first (builder.ranker.leak, kept in the audit). Per sighted model run (run_summary.py): strict
accuracy on the solvable items and on the rest, their gap, and a 95% bootstrap interval of the
gap that resamples items within each category (builder.stats.split_gap: solvable items are not
spread evenly across subjects, so an unstratified resample would mix the subject mix into the
gap). Across those runs, here: Kendall's tau between the ranking on all items and on the rest,
and how many gaps lie above zero.
"""

from __future__ import annotations

from collections.abc import Sequence

from builder.benchmarks.mcq import fact_keys as K
from builder.core.facts import FactTable
from builder.stats.rank_correlation import kendall_tau_b


def add_split_summary(split_ids: Sequence[str], facts: FactTable, bench: str) -> None:
    """Kendall's tau and the count of intervals above zero, over the runs given a split."""
    if len(split_ids) < 3:
        return
    ids = tuple(split_ids)
    every = [facts[K.RUN_SCORE.key(bench=bench, run_id=i, metric="accuracy")] for i in ids]
    rest = [facts[K.LEAK_SPLIT.key(bench=bench, run_id=i, value="accuracy_rest")] for i in ids]
    facts.add(K.LEAK_TAU.key(bench=bench), kendall_tau_b(every, rest),
              "Kendall's tau (tau-b) between the models' strict accuracy on all items and on the items the probe "
              "does not solve", ids)
    facts.add(K.LEAK_WIDER.key(bench=bench), sum(facts[K.LEAK_GAP.low(bench=bench, run_id=i)] > 0 for i in ids),
              "models whose gap interval lies above zero", ids)
