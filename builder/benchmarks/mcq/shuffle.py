"""The seeded per-item option shuffle of the audit (and, later, of probe runs).

Rule (docs/audit.md): for option seed `s` and an item with id `i` and k choices, the list
[0, 1, ..., k-1] is shuffled in place by Python's `random.Random(f"{s}:{i}").shuffle`; the
result lists, position by position, which published choice is shown there (lettered A, B, ...).
It is CIBuzzBench's official recipe with the item id as the key, so an item's order depends
only on the seed and its id: not on the file's order, on other items or on the platform.
The seeds are the five official CIBuzzBench option seeds; `published` is the file's own order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS

SEEDS: tuple[int, ...] = OFFICIAL_SEEDS


def order(seed: int, item_id: str, k: int) -> list[int]:
    """Published indices in shown order for one item."""
    indices = list(range(k))
    random.Random(f"{seed}:{item_id}").shuffle(indices)
    return indices


def permutations(ids: Sequence[str], k: int, seed: int) -> np.ndarray:
    """(len(ids), k): row r, column j = the published index shown at position j of item r."""
    return np.array([order(seed, item_id, k) for item_id in ids], dtype=np.intp).reshape(len(ids), k)


def published(n: int, k: int) -> np.ndarray:
    """The identity order: the choices as the file lists them."""
    return np.broadcast_to(np.arange(k, dtype=np.intp), (n, k))
