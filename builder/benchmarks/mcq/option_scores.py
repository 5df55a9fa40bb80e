"""Per-option scores the model-free probes rank by: lengths and resemblance to sibling options.

A score belongs to an option's text and its siblings, never to its position, so one (n, k)
matrix serves every option order: the probes permute it and take the first maximum (ties go
to the earliest shown position). Everything is vectorised: a 10,000-item audit must take
seconds (issue 13).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp


def flat(texts: Sequence[Sequence[str]]) -> list[str]:
    return [t for row in texts for t in row]


def padded(values: Sequence[float], counts: np.ndarray, fill: float = np.nan) -> np.ndarray:
    """(n, max k) from the item-major flat `values` of items with `counts` options each; the
    positions an item does not have hold `fill` (varying k: MMLU-Pro has 3-10 options)."""
    width = int(counts.max())
    out = np.full((len(counts), width), fill, dtype=float)
    out[np.arange(width)[None, :] < counts[:, None]] = values
    return out


def char_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Characters (code points) per option, (n, max k); NaN where an item has fewer options."""
    return padded([len(t) for t in flat(texts)], np.array([len(row) for row in texts]))


def word_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Whitespace-separated words per option, (n, max k); NaN where an item has fewer options."""
    return padded([len(t.split()) for t in flat(texts)], np.array([len(row) for row in texts]))


def _jaccard(grams: sp.csr_matrix, n: int, k: int) -> np.ndarray:
    """(n, k, k) Jaccard similarity of each pair of an item's options' gram SETS (counts and
    weights ignored; diagonal 0; two empty sets count as 0, not 1: sharing nothing is not
    resemblance). `grams` has one row per option, item-major."""
    sets = (grams != 0).astype(np.float64).tocsr()
    rows = [sets[j::k] for j in range(k)]
    sizes = [np.asarray(r.sum(axis=1)).ravel() for r in rows]
    out = np.zeros((n, k, k))
    for a in range(k):
        for b in range(a + 1, k):
            shared = np.asarray(rows[a].multiply(rows[b]).sum(axis=1)).ravel()
            union = sizes[a] + sizes[b] - shared
            out[:, a, b] = out[:, b, a] = np.divide(shared, union, out=np.zeros(n), where=union > 0)
    return out


def sibling_similarity(char_grams: sp.csr_matrix, word_grams: sp.csr_matrix,
                       n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Character-gram and word-gram Jaccard similarity between an item's options, (n, k, k) each,
    from the hashed n-gram matrices the learned probe already built (one pass over the text)."""
    return _jaccard(char_grams, n, k), _jaccard(word_grams, n, k)


def centroid(char_sim: np.ndarray, word_sim: np.ndarray) -> np.ndarray:
    """How much an option shares with its siblings: the mean over siblings of the average of
    character and word Jaccard similarity. Distractors made by editing the gold each resemble
    the gold more than one another, so the gold scores highest."""
    k = char_sim.shape[1]
    return (char_sim + word_sim).sum(axis=2) / (2.0 * max(k - 1, 1))
