"""Seeded percentile bootstrap over items for accuracy and macro F1.

Vectorised in numpy because the report bootstraps many runs x 2000 resamples;
a per-resample sklearn call would take minutes. A resample's per-class counts come
from its item multiplicities (kept per item count and seed: runs over the same
items share them) in one matrix product, or, in metric_on_resamples, from a K x (K+1)
confusion matrix built with one `bincount`; F1_k = 2tp / (pred_k + true_k)
(0 when the denominator is 0), which is exactly sklearn's macro F1 with explicit
labels and zero_division=0.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
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
    return _metrics(row_counts((g * (k + 1) + p)[idx], k * (k + 1)).reshape(rows, k, k + 1), n, k)


def row_counts(idx: np.ndarray, values: int) -> np.ndarray:
    """How often each of 0..values-1 stands in each row of `idx` (rows x values, int64): one
    bincount over the rows' entries shifted apart. A resample's confusion cells or item
    multiplicities, here and in split_gap's stratified draws."""
    rows = idx.shape[0]
    shifted = idx + (np.arange(rows, dtype=np.int64) * values)[:, None]
    return np.bincount(shifted.ravel(), minlength=rows * values).reshape(rows, values)


def _metrics(conf: np.ndarray, n: int, k: int) -> dict[str, np.ndarray]:
    """Accuracy and macro F1 (0-100) of each (k, k + 1) confusion matrix in `conf`."""
    return _scores(np.diagonal(conf, axis1=1, axis2=2), conf[:, :, :k].sum(axis=1) + conf.sum(axis=2), n)


def _scores(tp: np.ndarray, denom: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Accuracy and macro F1 (0-100) per resample from its per-class true positives and
    predictions + golds (the F1 denominator), integer counts."""
    f1 = np.divide(2.0 * tp, denom, out=np.zeros(tp.shape), where=denom > 0)
    return {"accuracy": 100.0 * tp.sum(axis=1) / n, "macro_f1": 100.0 * f1.mean(axis=1)}


def _counted(counts: np.ndarray, g: np.ndarray, p: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """metric_on_resamples from each resample's item multiplicities (`counts`, resamples x n):
    the per-class true positives, predictions and golds are one matrix product with 0/1 item
    columns, so a run costs a product instead of gathering resamples x n codes. The counts are
    the confusion matrices' own, exactly: float32 holds every sum (at most CELL_DRAWS_FROM items,
    under 2**24), so the figures are the same bits in any summation order."""
    n = len(g)
    items, columns = np.arange(n), np.zeros((n, 3 * k), dtype=np.float32)
    hit, named = g == p, p < k
    columns[items[hit], g[hit]] = 1.0
    columns[items[named], k + p[named]] = 1.0
    columns[items, 2 * k + g] = 1.0
    totals = (counts @ columns).astype(np.int64)
    return _scores(totals[:, :k], totals[:, k:2 * k] + totals[:, 2 * k:], n)


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
    counts = _index_chunks.multiplicities(len(g), resamples, seed)
    return [_counted(counts, g, p, k) for p in preds]


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


class KeptDraws:
    """Resampling draws, drawn once and shared (read-only): the bootstrap's index matrices for
    (n, resamples, seed, chunk_cells) and their multiplicities, or any scheme's arrays by key
    (`get`; split_gap's stratified draws). Drawing dominates a bootstrap's cost, and a site scores
    many runs over the same item set. Kept least-recently-used within KEPT_BYTES, not a count: at 2,000 x 12,022
    int64 one set was 192 MB (96 MB as the int32 kept now), and sixteen kept sets (an lru_cache
    of 16: a run's categories, the spec's other item counts) were most of a cold build's 2 GB."""

    def __init__(self, limit: int):
        self.limit, self.hits, self.misses = limit, 0, 0
        self.kept: OrderedDict[Hashable, tuple[np.ndarray, ...]] = OrderedDict()

    def __call__(self, n: int, resamples: int, seed: int, chunk_cells: int) -> tuple[np.ndarray, ...]:
        return self.get((n, resamples, seed, chunk_cells), lambda: _draw(n, resamples, seed, chunk_cells))

    def multiplicities(self, n: int, resamples: int, seed: int) -> np.ndarray:
        """How often each resample (row) drew each item (column), as float32 for the product in
        _counted: the index draws of (n, resamples, seed, _CHUNK_CELLS), counted. Kept in the same
        budget, keyed by the negated chunk size (an index set's is positive)."""
        chunk_cells = _CHUNK_CELLS
        return self.get((n, resamples, seed, -chunk_cells),
                          lambda: (_multiplicities(n, resamples, seed, chunk_cells),))[0]

    def get(self, key: Hashable, draw: Callable[[], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        """The arrays kept under `key`, else draw()'s, kept (any resampling scheme's draws)."""
        if key in self.kept:
            self.hits += 1
            self.kept.move_to_end(key)
            return self.kept[key]
        self.misses += 1
        chunks = draw()
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
    return tuple(_index_draws(n, resamples, seed, chunk_cells))


def _index_draws(n: int, resamples: int, seed: int, chunk_cells: int) -> Iterator[np.ndarray]:
    """_draw's matrices one at a time (a caller that counts them never holds them all)."""
    rng = np.random.default_rng(seed)
    step = max(1, chunk_cells // n)
    for start in range(0, resamples, step):
        idx = rng.integers(0, n, size=(min(step, resamples - start), n))
        if n <= _INT32_MAX:  # the same indices in half the memory (drawn as int64: the same numbers)
            idx = idx.astype(np.int32)
        idx.flags.writeable = False
        yield idx


def _multiplicities(n: int, resamples: int, seed: int, chunk_cells: int) -> np.ndarray:
    """Per resample, how often each item was drawn, counted from the index draws of the chunked
    bootstrap (so every resample holds the same items as the index form, as counts)."""
    out = np.empty((resamples, n), dtype=np.float32)
    start = 0
    for idx in _index_draws(n, resamples, seed, chunk_cells):
        out[start:start + len(idx)] = row_counts(idx, n)
        start += len(idx)
    out.flags.writeable = False
    return out


# The largest set drawn as indices (CELL_DRAWS_FROM items, 2,000 resamples, kept as int32: 160 MB)
# fits alone.
_INT32_MAX = 2**31 - 1
KEPT_BYTES = CELL_DRAWS_FROM * DEFAULT_RESAMPLES * 4
_index_chunks = KeptDraws(KEPT_BYTES)


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
