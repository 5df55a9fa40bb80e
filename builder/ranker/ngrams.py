"""Character and token n-grams as two dense cues: how gold-like an option's character and token n-grams are.

A sparse n-gram block in the ranker would cost a weight per n-gram per fit, and the audit
fits dozens of models; instead each n-gram gets a smoothed log ratio of how often it occurs in
training golds versus training distractors (each item's distractors weigh as one option), and an
option scores the mean ratio of its n-grams (a naive-Bayes prior). The ratios read only training
items; training rows get theirs from the OTHER folds of the training items (cross-fitted), so the
ranker never learns to trust a prior that has seen its own label.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from builder.ranker.sparse import sp

SMOOTHING = 1.0


@dataclass(frozen=True)
class GramSets:
    """One n-gram matrix as 0/1 sets (for counting) and as row means (for scoring)."""

    binary: sp.csr_matrix
    mean: sp.csr_matrix

    @classmethod
    def of(cls, grams: sp.csr_matrix) -> "GramSets":
        """The columns no option holds are dropped (kept in order): the n-grams are hashed into
        about a million buckets, of which a benchmark fills a few percent, and every prior read a
        vector that long per fold. A column none holds adds nothing to any count or mean, so every
        value is the same."""
        binary = (grams != 0).astype(np.float64).tocsr()
        held = np.zeros(binary.shape[1], dtype=bool)
        held[binary.indices] = True
        column = (np.cumsum(held) - 1).astype(binary.indices.dtype)  # a held column's new number
        binary = sp.csr_matrix((binary.data, column[binary.indices], binary.indptr),
                               shape=(binary.shape[0], int(held.sum())))
        sizes = np.asarray(binary.sum(axis=1)).ravel()
        return cls(binary, (sp.diags(1.0 / np.maximum(sizes, 1.0)) @ binary).tocsr())


def _ratios(sets: GramSets, mask: np.ndarray, gold: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Smoothed log(gold occurrences / distractor occurrences) per n-gram over `items`."""
    golds = np.zeros(mask.shape)
    golds[items, gold[items]] = 1.0
    k = mask.sum(axis=1, keepdims=True)
    others = np.zeros(mask.shape)
    others[items] = np.where(mask[items], 1.0 / np.maximum(k[items] - 1, 1), 0.0)
    others[items, gold[items]] = 0.0
    gold_counts = sets.binary.T @ golds.reshape(-1)
    other_counts = sets.binary.T @ others.reshape(-1)
    # log((gold + s) / (other + s)) in place: the same operations in the same order, without three
    # temporaries as long as the vocabulary (the expression was 883 of _ratios' 1,246 samples in a
    # py-spy profile of the suite; in place it ran 2.4x faster on 200,000 n-grams)
    gold_counts += SMOOTHING
    other_counts += SMOOTHING
    np.divide(gold_counts, other_counts, out=gold_counts)
    return np.log(gold_counts, out=gold_counts)


def priors(sets: GramSets, mask: np.ndarray, gold: np.ndarray, train: np.ndarray,
           folds: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(n * K,) prior per slot: items outside `train` from ratios over all of `train`; each
    training item from ratios over the other folds of `train` (`folds` index into `train`)."""
    width = mask.shape[1]
    out = sets.mean @ _ratios(sets, mask, gold, train)
    for rest, held in folds:
        rows = (width * train[held][:, None] + np.arange(width)).reshape(-1)
        out[rows] = sets.mean[rows] @ _ratios(sets, mask, gold, train[rest])
    return out
