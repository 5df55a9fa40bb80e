"""Which items must stay on one side of every fold: items that share a set of options, and any
further ties a spec names (a passage, a source question).

Twins (WinoGrande: the same two options, opposite golds) split across folds let a choices-only
model read one twin's answer off the other, a leak that is not in the options. So every
cross-validated or cross-fitted step folds by group, never by item: a group is the transitive
closure of "same option set (order ignored, text normalised)" and "same named tie".
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np


def option_key(texts: Sequence[str]) -> tuple[str, ...]:
    """An item's options as a set: NFKC, casefolded, whitespace collapsed, sorted."""
    return tuple(sorted(" ".join(unicodedata.normalize("NFKC", t).casefold().split()) for t in texts))


def item_groups(texts: Sequence[Sequence[str]], ties: Sequence[str | None] | None = None) -> np.ndarray:
    """(n,) group ids numbered by first appearance (0, 1, ...): items sharing an option set, or a
    non-None tie value, are one group (transitively). All singletons give arange(n)."""
    n = len(texts)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for keys in ((option_key(t) for t in texts), ties or ()):
        first: dict[object, int] = {}
        for i, key in enumerate(keys):
            if key is None:
                continue
            j = first.setdefault(key, i)
            a, b = root(i), root(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return renumber(np.array([root(i) for i in range(n)], dtype=np.intp))


def renumber(labels: np.ndarray) -> np.ndarray:
    """Labels as 0, 1, ... in order of first appearance (a subset's groups, ready to fold)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def group_folds(groups: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, held out) index pairs, every item held out once, no group on both sides. The groups
    are put in a seeded random order and cut into k runs of about n/k items at group boundaries;
    with singleton groups this is exactly a seeded permutation of the items cut by
    numpy.array_split (the whole-item folds). A fold left empty (a group larger than n/k) is
    dropped, so fewer than k folds can come back: callers record len() of the result
    (evaluate.Evaluation.folds) and their labels name that count, never k."""
    ids = renumber(np.asarray(groups, dtype=np.intp))
    n, count = len(ids), int(ids.max()) + 1 if len(ids) else 0
    order = np.random.default_rng(seed).permutation(count)
    by_group = np.argsort(ids, kind="stable")
    sizes = np.bincount(ids, minlength=count)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sequence = np.concatenate([by_group[starts[g]:starts[g] + sizes[g]] for g in order]) if count else ids
    ends = np.cumsum(sizes[order])  # item count after each group, in the shuffled order
    boundaries = np.concatenate([[0], ends])
    targets = np.cumsum([len(p) for p in np.array_split(np.arange(n), k)])
    cuts = [0] + [int(boundaries[np.argmin(np.abs(boundaries - t))]) for t in targets[:-1]] + [n]
    parts = [np.sort(sequence[cuts[i]:cuts[i + 1]]) for i in range(k)]
    parts = [p for p in parts if len(p)]
    return [(np.sort(np.concatenate(parts[:i] + parts[i + 1:])), parts[i]) for i in range(len(parts))]
