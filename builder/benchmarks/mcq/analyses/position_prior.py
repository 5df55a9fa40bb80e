"""The position prior, a rule baseline: answer every item with the most common gold position.

Fitted and scored on the same items it only measures in-sample fit: on gold positions drawn
uniformly at random (the audit's seeded shuffles) the most common one still beats 1/k by chance,
so the prior could read as "the strongest rule" and as a cue the learned probe fails to find.
So the audit cross-fits it like the learned probe: each held-out fold gets the position most
common among the training folds' golds, with the learned probe's own grouped folds
(builder.ranker.evaluate.folds: seeded, whole groups of items sharing an option set or a tie).
"""

from __future__ import annotations

import numpy as np

from builder.ranker.evaluate import folds


def most_common(gold: np.ndarray, k: int) -> int:
    """The most common of the positions `gold` (0 .. k-1); ties: the earliest position."""
    return int(np.argmax(np.bincount(gold, minlength=k)))


def in_sample_prior(gold: np.ndarray, k: int) -> np.ndarray:
    """(n,) the prior fitted on every item and predicted for the same items (no longer published;
    kept to measure how much the in-sample fit flattered it)."""
    return np.full(len(gold), most_common(gold, k), dtype=np.intp)


def cross_fitted_prior(gold: np.ndarray, groups: np.ndarray, k: int) -> np.ndarray:
    """(n,) per item, the most common gold position of the training folds that did not hold it
    (the grouped folds of `groups`, as the learned probe's cross-fitting)."""
    gold = np.asarray(gold, dtype=np.intp)
    pred = np.empty(len(gold), dtype=np.intp)
    for train, held in folds(np.asarray(groups)):
        pred[held] = most_common(gold[train], k)
    return pred
