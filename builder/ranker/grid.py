"""Items with a varying number of options as one padded (n, K) grid plus a mask.

Every feature and score of the ranker lives on this grid: row-major option slots, slot j of
item i is flat row K*i + j, padded slots hold an empty text and are masked out of every sibling
statistic, every softmax and every choice. Positions are the published order; no feature reads a
position, so the published order only decides ties (the earliest position wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OptionGrid:
    texts: tuple[tuple[str, ...], ...]  # per item, its options in the published order (k_i of them)
    mask: np.ndarray  # (n, K) bool: True where the slot holds an option
    gold: np.ndarray  # (n,) index of the gold in the published order

    @property
    def n(self) -> int:
        return self.mask.shape[0]

    @property
    def width(self) -> int:
        """K: the most options any item has."""
        return self.mask.shape[1]

    @property
    def k(self) -> np.ndarray:
        """(n,) options per item."""
        return self.mask.sum(axis=1)

    def flat(self) -> list[str]:
        """n * K texts, row-major; padded slots are empty strings."""
        pad = ("",) * self.width
        return [t for row in self.texts for t in (tuple(row) + pad)[: self.width]]

    def rows(self, items: np.ndarray) -> np.ndarray:
        """Flat row indices of every slot of `items`, item-major."""
        items = np.asarray(items, dtype=np.intp)
        return (self.width * items[:, None] + np.arange(self.width)).reshape(-1)


def option_grid(texts: Sequence[Sequence[str]], gold: Sequence[int] | np.ndarray) -> OptionGrid:
    """At least two options per item; `gold` indexes the item's own options."""
    rows = tuple(tuple(str(t) for t in row) for row in texts)
    k = np.array([len(r) for r in rows], dtype=np.intp)
    gold_arr = np.asarray(gold, dtype=np.intp).reshape(-1)
    if len(rows) == 0 or len(gold_arr) != len(rows):
        raise ValueError(f"{len(rows)} items but {len(gold_arr)} gold indices")
    if k.min() < 2 or np.any(gold_arr < 0) or np.any(gold_arr >= k):
        raise ValueError("every item needs two or more options and a gold index among them")
    mask = np.arange(k.max())[None, :] < k[:, None]
    return OptionGrid(rows, mask, gold_arr)


def masked_rank_desc(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Rank within the item scaled to [0, 1] (0 = largest, 1 = smallest); ties share the mean
    rank; padded slots neither rank nor are ranked (they get 0.5). Values are compared to 9
    decimals, so sums taken in another option order still tie."""
    v = np.where(mask, np.round(values, 9), -np.inf)
    valid = mask[:, None, :] & mask[:, :, None]
    greater = ((v[:, None, :] > v[:, :, None]) & valid).sum(axis=2)
    equal = ((v[:, None, :] == v[:, :, None]) & valid).sum(axis=2) - 1
    rank = greater + 0.5 * equal
    span = np.maximum(mask.sum(axis=1, keepdims=True) - 1, 1)
    return np.where(mask, rank / span, 0.5)


def masked_extreme(values: np.ndarray, mask: np.ndarray, largest: bool) -> np.ndarray:
    """1.0 where the option equals the item's maximum (or minimum) over real options (to 9 decimals)."""
    fill = -np.inf if largest else np.inf
    v = np.where(mask, np.round(values, 9), fill)
    best = v.max(axis=1, keepdims=True) if largest else v.min(axis=1, keepdims=True)
    return ((v == best) & mask).astype(float)


def sibling_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the other real options' values, per option (0 for padded slots)."""
    v = np.where(mask, values, 0.0)
    k = mask.sum(axis=1, keepdims=True)
    return np.where(mask, (v.sum(axis=1, keepdims=True) - v) / np.maximum(k - 1, 1), 0.0)
