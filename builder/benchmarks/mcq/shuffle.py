"""The seeded per-item option shuffle of the audit (and, later, of probe runs).

Rule (docs/audit.md): for option seed `s` and an item with key `i` and k choices, the list
[0, 1, ..., k-1] is shuffled in place by Python's `random.Random(f"{s}:{i}").shuffle`; the
result lists, position by position, which published choice is shown there (lettered A, B, ...).
The key is the item's id unless the spec's `shuffle_key` names another (a field or a template),
so an item's order depends only on the seed and its key: not on the file's order, on other
items or on the platform. CIBuzzBench's official recipe is `Random(f"{seed}:{row_id}:{term_zh}")`
over its options in the order (literal, cultural, pragmatic, correct): the audit reproduces it
only with that key and that choice order (its spec sets both); with the id as the key it is the
audit's own recipe, and `recipe` names which one a figure used. The seeds are the five official
CIBuzzBench option seeds; `published` is the file's own order.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

# The five official CIBuzzBench option seeds, as values: the spec'd benchmarks shuffle with the
# same seeds so their pages read alike, without this plug-in importing another.
SEEDS: tuple[int, ...] = (1111, 2222, 3333, 4444, 5555)


def order(seed: int, key: str, k: int) -> list[int]:
    """Published indices in shown order for one item (`key`: its shuffle key, by default its id)."""
    indices = list(range(k))
    random.Random(f"{seed}:{key}").shuffle(indices)
    return indices


def recipe(shuffle_key: Any = None) -> str:
    """The shuffle as code, for captions: the spec's `shuffle_key` rule (a fields.Rule; None: the id)
    written into the f-string, a template's `{{ name }}` as `{name}`."""
    if shuffle_key is None:
        key = "{id}"
    elif shuffle_key.kind == "template":
        key = re.sub(r"\{\{-?\s*(.*?)\s*-?\}\}", r"{\1}", shuffle_key.source)
    else:
        key = "{" + shuffle_key.fields[0] + "}"
    return f'random.Random(f"{{seed}}:{key}")'


def permutations(ids: Sequence[str], k: int | Sequence[int], seed: int) -> np.ndarray:
    """(len(ids), max k), `ids` the items' shuffle keys: row r, column j = the published index shown at position j of item r.
    With varying k (a sequence, one per item) a row's positions past its own k hold the
    indices k, k+1, ... unchanged: padding the probes score -inf and never pick."""
    counts = [k] * len(ids) if isinstance(k, int) else list(k)
    width = max(counts, default=0)
    return np.array([order(seed, item_id, n) + list(range(n, width)) for item_id, n in zip(ids, counts)],
                    dtype=np.intp).reshape(len(ids), width)


def published(n: int, k: int) -> np.ndarray:
    """The identity order: the choices as the file lists them (k: the widest item's count)."""
    return np.broadcast_to(np.arange(k, dtype=np.intp), (n, k))
