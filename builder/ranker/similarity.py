"""How each option resembles its siblings: set overlaps of characters, character n-grams and
tokens between every pair of an item's options (padded slots are empty and share nothing).

Distractors written by editing the gold each resemble the gold more than one another, so the
gold is the option most like its siblings (CONTEXT §4); a cloze set whose options are variants of
one phrase gives the gold away by the characters it shares.
"""

from __future__ import annotations

import numpy as np

from builder.ranker.sparse import sp


def pair_overlaps(grams: sp.csr_matrix, n: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(shared, jaccard), each (n, K, K): distinct grams two options share, and shared / union
    (two empty sets: 0, sharing nothing is not resemblance); diagonals 0. `grams` has one row per
    grid slot, row-major."""
    sets = (grams != 0).astype(np.float64).tocsr()
    rows = [sets[j::width] for j in range(width)]
    sizes = [np.asarray(r.sum(axis=1)).ravel() for r in rows]
    shared = np.zeros((n, width, width))
    jaccard = np.zeros((n, width, width))
    for a in range(width):
        for b in range(a + 1, width):
            both = np.asarray(rows[a].multiply(rows[b]).sum(axis=1)).ravel()
            union = sizes[a] + sizes[b] - both
            shared[:, a, b] = shared[:, b, a] = both
            jaccard[:, a, b] = jaccard[:, b, a] = np.divide(both, union, out=np.zeros(n), where=union > 0)
    return shared, jaccard


def sibling_stats(pairs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, max) over an option's real siblings of a pairwise statistic, (n, K) each."""
    valid = mask[:, None, :] & mask[:, :, None]
    vals = np.where(valid, pairs, 0.0)
    k = mask.sum(axis=1, keepdims=True)
    mean = vals.sum(axis=2) / np.maximum(k - 1, 1)
    return np.where(mask, mean, 0.0), np.where(mask, vals.max(axis=2), 0.0)


def centroid(char_jaccard: np.ndarray, word_jaccard: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The `centroid` rule's score: mean over siblings of the average of character-gram and
    token-gram Jaccard similarity."""
    mean_char, _ = sibling_stats(char_jaccard, mask)
    mean_word, _ = sibling_stats(word_jaccard, mask)
    return (mean_char + mean_word) / 2.0
