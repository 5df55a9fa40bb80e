"""Seeded percentile bootstrap over items for accuracy and macro F1.

Vectorised in numpy because the report bootstraps many runs x 2000 resamples;
a per-resample sklearn call would take minutes. Each resample's K x (K+1)
confusion matrix is built with one `bincount`, and F1_k = 2tp / (pred_k + true_k)
(0 when the denominator is 0), which is exactly sklearn's macro F1 with explicit
labels and zero_division=0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from .classification import encode

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20260922
DEFAULT_LEVEL = 0.95
METRICS = ("accuracy", "macro_f1")
# Bound the (rows, n) index matrix to 512K cells (4 MB) per chunk: cache-sized
# chunks were measurably faster than one big matrix, and memory stays flat.
_CHUNK_CELLS = 1 << 19
# Above this many items a resample is drawn as confusion-matrix counts instead of item indices:
# the metrics read only the counts, and a resample of n items with replacement puts a
# Multinomial(n, cell shares) count in each cell, so the distribution is the same while an
# index matrix (resamples x n: 3.2 GB at 200,000 items) is never made. Every shipped benchmark
# and run has fewer items, so its figures are drawn as before.
CELL_DRAWS_FROM = 20_000


@dataclass(frozen=True)
class Interval:
    """Percentile confidence interval on the 0-100 scale."""

    low: float
    high: float
    level: float


def metric_on_resamples(g: np.ndarray, p: np.ndarray, idx: np.ndarray,
                        k: int) -> dict[str, np.ndarray]:
    """Accuracy and macro F1 (0-100) for every row of the index matrix `idx`.

    `g` holds gold codes 0..k-1, `p` prediction codes 0..k (k = unparsed/other).
    Exposed so tests can check it against sklearn on arbitrary resamples.
    """
    rows, n = idx.shape
    cells = k * (k + 1)
    codes = (g * (k + 1) + p)[idx]
    codes += (np.arange(rows, dtype=codes.dtype) * cells)[:, None]
    return _metrics(np.bincount(codes.ravel(), minlength=rows * cells).reshape(rows, k, k + 1), n, k)


def _metrics(conf: np.ndarray, n: int, k: int) -> dict[str, np.ndarray]:
    """Accuracy and macro F1 (0-100) of each (k, k + 1) confusion matrix in `conf`."""
    tp = np.diagonal(conf, axis1=1, axis2=2)
    denom = conf[:, :, :k].sum(axis=1) + conf.sum(axis=2)
    f1 = np.divide(2.0 * tp, denom, out=np.zeros(tp.shape), where=denom > 0)
    return {"accuracy": 100.0 * tp.sum(axis=1) / n, "macro_f1": 100.0 * f1.mean(axis=1)}


def _check_options(resamples: int, level: float) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)):
        raise ValueError(f"resamples must be an int, got {resamples!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def _resampled(g: np.ndarray, preds: Sequence[np.ndarray], k: int, resamples: int,
               seed: int) -> list[dict[str, np.ndarray]]:
    """Metric arrays per predictor, all on the SAME resampled indices (pairing)."""
    if len(g) > CELL_DRAWS_FROM:
        return _resampled_cells(g, preds, k, resamples, seed)
    parts: list[list[dict[str, np.ndarray]]] = [[] for _ in preds]
    for idx in _index_chunks(len(g), resamples, seed, _CHUNK_CELLS):
        for part, p in zip(parts, preds):
            part.append(metric_on_resamples(g, p, idx, k))
    return [{m: np.concatenate([c[m] for c in part]) for m in METRICS} for part in parts]


def _resampled_cells(g: np.ndarray, preds: Sequence[np.ndarray], k: int, resamples: int,
                     seed: int) -> list[dict[str, np.ndarray]]:
    """As _resampled, each resample drawn as counts of the joint cells (gold, each prediction),
    so the predictors stay paired; memory and time do not grow with the number of items."""
    joint = g.astype(np.int64)
    for p in preds:
        joint = joint * (k + 1) + p
    cells, counts = np.unique(joint, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(len(g), counts / len(g), size=resamples)
    out = []
    for i in range(len(preds)):
        rest = cells // (k + 1) ** (len(preds) - 1 - i)  # drop the later predictions' digits
        own = (rest % (k + 1)) + (cells // (k + 1) ** len(preds)) * (k + 1)  # gold * (k + 1) + this prediction
        conf = np.zeros((resamples, k * (k + 1)), dtype=np.int64)
        for j, cell in enumerate(own):
            conf[:, cell] += draws[:, j]
        out.append(_metrics(conf.reshape(resamples, k, k + 1), len(g), k))
    return out


class DrawsInfo(NamedTuple):
    """What functools' caches report (hits, misses, maxsize, currsize): the tests count draws."""

    hits: int
    misses: int
    maxsize: int | None
    currsize: int


class _KeptDraws:
    """The resample index matrices for (n, resamples, seed, chunk_cells), drawn once and shared
    (read-only): drawing them dominates a bootstrap's cost, and a site scores many runs over the
    same item set. Kept least-recently-used within KEPT_BYTES, not a count: at 2,000 x 12,022
    int64 one set was 192 MB (96 MB as the int32 kept now), and sixteen kept sets (an lru_cache
    of 16: a run's categories, the spec's other item counts) were most of a cold build's 2 GB."""

    def __init__(self, limit: int):
        self.limit, self.hits, self.misses = limit, 0, 0
        self.kept: OrderedDict[tuple[int, int, int, int], tuple[np.ndarray, ...]] = OrderedDict()

    def __call__(self, n: int, resamples: int, seed: int, chunk_cells: int) -> tuple[np.ndarray, ...]:
        key = (n, resamples, seed, chunk_cells)
        if key in self.kept:
            self.hits += 1
            self.kept.move_to_end(key)
            return self.kept[key]
        self.misses += 1
        chunks = _draw(n, resamples, seed, chunk_cells)
        self.kept[key] = chunks
        while len(self.kept) > 1 and sum(c.nbytes for v in self.kept.values() for c in v) > self.limit:
            self.kept.popitem(last=False)
        return chunks

    def cache_info(self) -> DrawsInfo:
        return DrawsInfo(self.hits, self.misses, None, len(self.kept))

    def cache_clear(self) -> None:
        self.kept.clear()
        self.hits = self.misses = 0


def _draw(n: int, resamples: int, seed: int, chunk_cells: int) -> tuple[np.ndarray, ...]:
    """The index matrices, chunk_cells per matrix, from one seeded generator."""
    rng = np.random.default_rng(seed)
    step = max(1, chunk_cells // n)
    chunks = []
    for start in range(0, resamples, step):
        idx = rng.integers(0, n, size=(min(step, resamples - start), n))
        if n <= _INT32_MAX:  # the same indices in half the memory (drawn as int64: the same numbers)
            idx = idx.astype(np.int32)
        idx.flags.writeable = False
        chunks.append(idx)
    return tuple(chunks)


# The largest set drawn as indices (CELL_DRAWS_FROM items, 2,000 resamples, kept as int32: 160 MB)
# fits alone.
_INT32_MAX = 2**31 - 1
KEPT_BYTES = CELL_DRAWS_FROM * DEFAULT_RESAMPLES * 4
_index_chunks = _KeptDraws(KEPT_BYTES)


def percentile_interval(values: np.ndarray, level: float) -> Interval:
    """The central `level` percentile interval of bootstrap draws (numpy's linear quantile): the
    one interval rule of every bootstrap in the project (split_gap.py's too)."""
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return Interval(float(low), float(high), float(level))


def bootstrap_intervals(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str], *,
                        resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                        level: float = DEFAULT_LEVEL) -> dict[str, Interval]:
    """Percentile intervals for accuracy and macro F1, reproducible via `seed`."""
    _check_options(resamples, level)
    g, p = encode(gold, pred, labels)
    (stats,) = _resampled(g, [p], len(labels), resamples, seed)
    return {m: percentile_interval(stats[m], level) for m in METRICS}


def paired_bootstrap_difference(gold: Sequence[str], pred_a: Sequence[str],
                                pred_b: Sequence[str], labels: Sequence[str], *,
                                resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                                level: float = DEFAULT_LEVEL) -> dict[str, Interval]:
    """Interval for metric(a) - metric(b); pairing on items cancels item difficulty."""
    _check_options(resamples, level)
    g, a = encode(gold, pred_a, labels)
    _, b = encode(gold, pred_b, labels)
    stats_a, stats_b = _resampled(g, [a, b], len(labels), resamples, seed)
    return {m: percentile_interval(stats_a[m] - stats_b[m], level) for m in METRICS}
