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

from builder.stats.bootstrap import KeptDraws, percentile_interval, row_counts

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
    strata: tuple[StratumCounts, ...] = ()  # each stratum's counts, the adjusted gap's inputs


def stratified_gap(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int = RESAMPLES,
                   seed: int = SEED, level: float = 0.95) -> tuple[float, float, float]:
    """(gap, low, high) of the crude gap (split_gaps)."""
    crude = split_gaps(right, kind, strata, resamples, seed, level).crude
    return crude.gap, crude.low, crude.high


@dataclass(frozen=True)
class StratumCounts:
    """One stratum's items of each kind and how many of them are right: what the Mantel–Haenszel
    estimate and the per-stratum table (solvable_split.StratumRow) both read, counted once."""

    label: object
    n1: int
    right1: int
    n0: int
    right0: int

    @property
    def weight(self) -> float:
        """The Mantel–Haenszel weight n1 n0 / (n1 + n0): 0 where one kind is missing."""
        return self.n1 * self.n0 / (self.n1 + self.n0)


def stratum_counts(right: np.ndarray, kind: np.ndarray, strata: np.ndarray) -> tuple[StratumCounts, ...]:
    """Per stratum (in np.unique order: the order the estimate sums in), each kind's counts."""
    right, kind, strata = np.asarray(right, dtype=bool), np.asarray(kind, dtype=bool), np.asarray(strata)
    rows = []
    for stratum in np.unique(strata):
        members = strata == stratum
        one, other = kind & members, ~kind & members
        rows.append(StratumCounts(stratum, int(one.sum()), int(right[one].sum()), int(other.sum()),
                                  int(right[other].sum())))
    return tuple(rows)


def mantel_haenszel(counts: tuple[StratumCounts, ...]) -> float | None:
    """The Mantel–Haenszel risk difference in points: sum over strata of w (p1 - p0) / sum of w,
    w = n1 n0 / (n1 + n0); None when no stratum holds both kinds. The one place it is computed."""
    num = den = 0.0
    for c in counts:
        if c.n1 and c.n0:
            num += c.weight * (c.right1 / c.n1 - c.right0 / c.n0)
            den += c.weight
    return 100.0 * num / den if den else None


def mantel_haenszel_gap(right: np.ndarray, kind: np.ndarray, strata: np.ndarray) -> float | None:
    """The Mantel–Haenszel risk difference in points of items labelled by `strata` (mantel_haenszel)."""
    return mantel_haenszel(stratum_counts(right, kind, strata))


def split_gaps(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int = RESAMPLES,
               seed: int = SEED, level: float = 0.95) -> SplitGaps:
    """The crude gap (accuracy where `kind` minus where not) and the Mantel–Haenszel adjusted gap,
    both with percentile intervals from the same draws: items resampled with replacement within
    each stratum (one block of draws per stratum, in stratum order). A draw that loses one kind
    entirely is dropped from the crude interval, one with no stratum holding both from the adjusted."""
    right, kind, strata = np.asarray(right, dtype=bool), np.asarray(kind, dtype=bool), np.asarray(strata)
    gap = 100.0 * (right[kind].mean() - right[~kind].mean())
    hits, counts = np.zeros((2, resamples)), np.zeros((2, resamples))  # rows: kind, the rest
    num, den = np.zeros(resamples), np.zeros(resamples)  # Mantel–Haenszel sums per draw
    counts_by_stratum = stratum_counts(right, kind, strata)
    for members, drawn in _stratified_draws(strata, resamples, seed):
        chosen, hit = kind[members], right[members]
        columns = np.stack([chosen, ~chosen, hit & chosen, hit & ~chosen], axis=1)
        weights = drawn.astype(_exact_float(len(members))) if drawn.dtype == np.uint8 else drawn
        n1, n0, h1, h0 = (weights @ columns.astype(weights.dtype)).astype(np.int64).T
        counts += (n1, n0)
        hits += (h1, h0)
        mixed = (n1 > 0) & (n0 > 0)
        w = np.where(mixed, n1 * n0 / np.maximum(n1 + n0, 1), 0.0)
        num += np.where(mixed, w * (h1 / np.maximum(n1, 1) - h0 / np.maximum(n0, 1)), 0.0)
        den += w
    kept = (counts > 0).all(axis=0)
    draws = 100.0 * (hits[0, kept] / counts[0, kept] - hits[1, kept] / counts[1, kept])
    crude = Gap(float(gap), *_bounds(draws, level))
    adjusted_gap = mantel_haenszel(counts_by_stratum)
    adjusted = None
    if adjusted_gap is not None:
        adjusted = Gap(float(adjusted_gap), *_bounds(100.0 * num[den > 0] / den[den > 0], level))
    both = sum(1 for c in counts_by_stratum if c.n1 and c.n0)
    return SplitGaps(crude, adjusted, both, counts_by_stratum)


def _stratified_draws(strata: np.ndarray, resamples: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per stratum (np.unique order), its members and how often each resample drew each of them
    (resamples x members, as bytes where every count fits): one generator draws every stratum's
    block of indices in turn. The draws depend only on which items share a stratum, so every run
    over the same items and strata shares them (kept, as the bootstrap's are): a run's split is
    then four products."""
    labels, codes = np.unique(strata, return_inverse=True)
    codes = codes.ravel()
    arrays = _kept.get((resamples, seed, len(labels), codes.astype(np.int64).tobytes()),
                       lambda: _draw_strata(codes, len(labels), resamples, seed))
    return list(zip(arrays[0::2], arrays[1::2]))


def _draw_strata(codes: np.ndarray, strata: int, resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    for stratum in range(strata):
        members = np.flatnonzero(codes == stratum)
        size = len(members)
        counted = row_counts(rng.integers(0, size, (resamples, size)), size)
        drawn = counted.astype(np.uint8 if counted.max() < 256 else _exact_float(size))
        members.flags.writeable = drawn.flags.writeable = False
        arrays += [members, drawn]
    return tuple(arrays)


def _exact_float(size: int) -> type[np.floating]:
    """A float type in which a resample's sums (at most `size`: it draws `size` items) are exact."""
    return np.float32 if size < 2**24 else np.float64


# Counts are kept as bytes (an item drawn 256 times in one resample is kept as floats instead):
# 1,000 resamples of 12,022 items (MMLU-Pro) are 12 MB, so a benchmark's full and modal item sets
# (every run asks for both, in turn) fit together, and a build's peak memory grows by at most this.
_kept = KeptDraws(64 * 1024 * 1024)


def _bounds(draws: np.ndarray, level: float) -> tuple[float, float]:
    """(low, high) of the project's one percentile interval (bootstrap.percentile_interval)."""
    interval = percentile_interval(draws, level)
    return interval.low, interval.high
