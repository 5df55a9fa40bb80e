"""The difference in accuracy between two kinds of items (e.g. those a probe solves from the
options alone and the rest), with a bootstrap interval stratified by a grouping of the items.

Resampling within each stratum (a benchmark's categories) keeps the strata's mix fixed, so the
interval measures the split itself and not how the kinds happen to spread over the strata.
"""

from __future__ import annotations

import numpy as np

RESAMPLES = 1000
SEED = 20261201  # fixed: the interval is part of the deterministic site


def stratified_gap(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int = RESAMPLES,
                   seed: int = SEED, level: float = 0.95) -> tuple[float, float, float]:
    """(gap, low, high) in points: accuracy where `kind` minus where not, and the percentile
    interval from resampling items with replacement within each stratum (one block of draws per
    stratum, in stratum order; resamples that lose one kind entirely are dropped)."""
    right, kind = np.asarray(right, dtype=bool), np.asarray(kind, dtype=bool)
    gap = 100.0 * (right[kind].mean() - right[~kind].mean())
    rng = np.random.default_rng(seed)
    hits, counts = np.zeros((2, resamples)), np.zeros((2, resamples))  # rows: kind, the rest
    for stratum in np.unique(strata):
        members = np.flatnonzero(strata == stratum)
        pick = members[rng.integers(0, len(members), (resamples, len(members)))]
        chosen, hit = kind[pick], right[pick]
        counts += (chosen.sum(axis=1), (~chosen).sum(axis=1))
        hits += ((hit & chosen).sum(axis=1), (hit & ~chosen).sum(axis=1))
    both = (counts > 0).all(axis=0)
    draws = 100.0 * (hits[0, both] / counts[0, both] - hits[1, both] / counts[1, both])
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    return float(gap), float(low), float(high)
