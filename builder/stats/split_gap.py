"""The difference in accuracy between two kinds of items (e.g. those a probe solves from the
options alone and the rest), crude and adjusted for a grouping of the items, with bootstrap
intervals resampled within each stratum of that grouping.

Resampling within each stratum (a benchmark's categories) keeps the strata's mix fixed, so the
interval measures the split itself and not how the kinds happen to spread over the strata. The
crude gap still compares the kinds over different mixes of strata: where solvable items crowd
into easy strata, part of the crude gap is which strata they come from. The adjusted gap compares
the kinds within each stratum and pools those differences with Mantel–Haenszel weights
n₁n₀/(n₁+n₀) (the risk difference estimator of Greenland & Robins 1985), so a stratum holding one
kind only weighs nothing and the mix of strata drops out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RESAMPLES = 1000
SEED = 20261201  # fixed: the interval is part of the deterministic site


@dataclass(frozen=True)
class Gap:
    """A gap in points with its 95% percentile interval."""

    gap: float
    low: float
    high: float


@dataclass(frozen=True)
class SplitGaps:
    crude: Gap
    adjusted: Gap | None  # None when no stratum holds both kinds
    strata_both: int  # strata holding both kinds: those the adjusted gap is pooled over


def stratified_gap(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int = RESAMPLES,
                   seed: int = SEED, level: float = 0.95) -> tuple[float, float, float]:
    """(gap, low, high) of the crude gap (split_gaps)."""
    crude = split_gaps(right, kind, strata, resamples, seed, level).crude
    return crude.gap, crude.low, crude.high


def mantel_haenszel_gap(right: np.ndarray, kind: np.ndarray, strata: np.ndarray) -> float | None:
    """The Mantel–Haenszel risk difference in points: sum over strata of w (p1 - p0) / sum of w,
    w = n1 n0 / (n1 + n0); None when no stratum holds both kinds."""
    right, kind = np.asarray(right, dtype=bool), np.asarray(kind, dtype=bool)
    num = den = 0.0
    for stratum in np.unique(strata):
        members = np.asarray(strata) == stratum
        n1, n0 = int((kind & members).sum()), int((~kind & members).sum())
        if n1 and n0:
            w = n1 * n0 / (n1 + n0)
            num += w * (right[kind & members].mean() - right[~kind & members].mean())
            den += w
    return 100.0 * num / den if den else None


def split_gaps(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int = RESAMPLES,
               seed: int = SEED, level: float = 0.95) -> SplitGaps:
    """The crude gap (accuracy where `kind` minus where not) and the Mantel–Haenszel adjusted gap,
    both with percentile intervals from the same draws: items resampled with replacement within
    each stratum (one block of draws per stratum, in stratum order). A draw that loses one kind
    entirely is dropped from the crude interval, one with no stratum holding both from the adjusted."""
    right, kind, strata = np.asarray(right, dtype=bool), np.asarray(kind, dtype=bool), np.asarray(strata)
    gap = 100.0 * (right[kind].mean() - right[~kind].mean())
    rng = np.random.default_rng(seed)
    hits, counts = np.zeros((2, resamples)), np.zeros((2, resamples))  # rows: kind, the rest
    num, den = np.zeros(resamples), np.zeros(resamples)  # Mantel–Haenszel sums per draw
    both = 0
    for stratum in np.unique(strata):
        members = np.flatnonzero(strata == stratum)
        pick = members[rng.integers(0, len(members), (resamples, len(members)))]
        chosen, hit = kind[pick], right[pick]
        n1, n0 = chosen.sum(axis=1), (~chosen).sum(axis=1)
        h1, h0 = (hit & chosen).sum(axis=1), (hit & ~chosen).sum(axis=1)
        counts += (n1, n0)
        hits += (h1, h0)
        both += bool(kind[members].any() and (~kind[members]).any())
        mixed = (n1 > 0) & (n0 > 0)
        w = np.where(mixed, n1 * n0 / np.maximum(n1 + n0, 1), 0.0)
        num += np.where(mixed, w * (h1 / np.maximum(n1, 1) - h0 / np.maximum(n0, 1)), 0.0)
        den += w
    kept = (counts > 0).all(axis=0)
    draws = 100.0 * (hits[0, kept] / counts[0, kept] - hits[1, kept] / counts[1, kept])
    crude = Gap(float(gap), *_interval(draws, level))
    adjusted_gap = mantel_haenszel_gap(right, kind, strata)
    adjusted = None
    if adjusted_gap is not None:
        adjusted = Gap(float(adjusted_gap), *_interval(100.0 * num[den > 0] / den[den > 0], level))
    return SplitGaps(crude, adjusted, both)


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    return float(low), float(high)
