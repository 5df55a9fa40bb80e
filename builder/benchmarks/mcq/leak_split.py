"""How much of each model's score sits on items whose options alone give the answer.

"Option-solvable" items are those whose gold the ranker's cross-fitted probe ranks strictly
first (builder.ranker.leak, kept in the audit). Per model run: strict accuracy on the solvable
items and on the rest, their gap, and a 95% bootstrap interval of the gap that resamples items
within each category (solvable items are not spread evenly across subjects, so an unstratified
resample would mix the subject mix into the gap). Across models: Kendall's tau between the
ranking on all items and on the rest. Runs with a header `source` of kind import are the
models here; other model runs are included alike when sighted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.core.facts import FactTable
from builder.runs.schema import Run

RESAMPLES = 1000
SEED = 20261201  # fixed: the interval is part of the deterministic site


def model_runs(loaded: Any) -> list[Run]:
    return [r for r in loaded.runs if r.header.condition == "sighted" and r.items]


def split_arrays(run: Run, loaded: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(correct, solvable, category code) per answered item, in row_id order."""
    from builder.benchmarks.mcq.published import correct
    leak = loaded.audit.leak
    solvable = dict(zip(leak.ids, leak.solvable))
    right = correct(run, loaded)
    rows = sorted(right)
    items = [loaded.data.items[r] for r in rows]
    cats = {c: n for n, c in enumerate(sorted({str(i.category) for i in items}))}
    return (np.array([right[r] for r in rows], dtype=bool), np.array([solvable[i.id] for i in items], dtype=bool),
            np.array([cats[str(i.category)] for i in items]))


def stratified_gap(right: np.ndarray, solvable: np.ndarray, strata: np.ndarray,
                   resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float, float]:
    """(gap, low, high): accuracy on solvable minus on the rest (points), 95% percentile interval
    from resampling items with replacement within each stratum."""
    gap = 100.0 * (right[solvable].mean() - right[~solvable].mean())
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    draws = []
    for _ in range(resamples):
        pick = np.concatenate([g[rng.integers(0, len(g), len(g))] for g in groups])
        r, s = right[pick], solvable[pick]
        if s.any() and (~s).any():
            draws.append(100.0 * (r[s].mean() - r[~s].mean()))
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(gap), float(low), float(high)


def add_split_facts(loaded: Any, facts: FactTable, bench: str) -> list[Run]:
    """Per model run the split, and Kendall's tau of the two rankings; the runs it covered."""
    if getattr(loaded.audit, "leak", None) is None:
        return []
    done = []
    for run in model_runs(loaded):
        right, solvable, strata = split_arrays(run, loaded)
        if not solvable.any() or solvable.all():
            continue
        values, runs = {"bench": bench, "run_id": run.header.run_id}, (run.header.run_id,)
        gap, low, high = stratified_gap(right, solvable, strata)
        facts.add(K.LEAK_SPLIT.key(value="solvable_items", **values), int(solvable.sum()),
                  "answered items the cross-fitted probe solves from the options alone", runs)
        facts.add(K.LEAK_SPLIT.key(value="accuracy_solvable", **values), 100.0 * float(right[solvable].mean()),
                  "strict accuracy on the option-solvable items", runs)
        facts.add(K.LEAK_SPLIT.key(value="accuracy_rest", **values), 100.0 * float(right[~solvable].mean()),
                  "strict accuracy on the other items", runs)
        what = "accuracy on option-solvable minus on the rest; 95% bootstrap over items stratified by category"
        facts.add(K.LEAK_GAP.key(**values), gap, what, runs)
        facts.add(K.LEAK_GAP.low(**values), low, what, runs)
        facts.add(K.LEAK_GAP.high(**values), high, what, runs)
        done.append(run)
    _kendall(done, facts, bench)
    return done


def _kendall(runs: Sequence[Run], facts: FactTable, bench: str) -> None:
    if len(runs) < 3:
        return
    from scipy.stats import kendalltau
    ids = [r.header.run_id for r in runs]
    every = [facts[K.RUN_SCORE.key(bench=bench, run_id=i, metric="accuracy")] for i in ids]
    rest = [facts[K.LEAK_SPLIT.key(bench=bench, run_id=i, value="accuracy_rest")] for i in ids]
    facts.add(K.LEAK_TAU.key(bench=bench), float(kendalltau(every, rest).statistic),
              "Kendall's tau (tau-b) between the models' strict accuracy on all items and on the items the probe "
              "does not solve", tuple(ids))
    facts.add(K.LEAK_WIDER.key(bench=bench), sum(facts[K.LEAK_GAP.low(bench=bench, run_id=i)] > 0 for i in ids),
              "models whose gap interval lies above zero", tuple(ids))
