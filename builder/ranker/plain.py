"""A plain logistic regression on the options' n-grams and lengths: one of the models the
choice (builder.ranker.choice) weighs against the ranker and the rules.

Each real option is one row (label: is it the gold), its features the 0/1 character 3-grams and
token 1-2-grams the ranker already holds plus the length cue family standardised on the training
options; an item's option scores are the row logits. On a few hundred items this simple model,
strongly L2-penalised, can beat the ranker's sixty cues (issue 30); on large sets it rarely does.
liblinear with a fixed random_state and one thread: deterministic.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from builder.ranker.evaluate import Options
from builder.ranker.sparse import sp

LENGTH = "length"


@dataclass(frozen=True)
class NgramRegression:
    fitted: LogisticRegression
    mean: np.ndarray  # of the length cues over the training options
    scale: np.ndarray
    used: np.ndarray  # the feature columns the training options hold, ascending (the rest weigh 0)

    def scores(self, options: Options, items: np.ndarray) -> np.ndarray:
        """(len(items), K) logits; -inf in padded slots."""
        mask = options.grid.mask[items]
        x = _compact(_features(options, options.grid.rows(items), self.mean, self.scale), self.used)
        return np.where(mask, self.fitted.decision_function(x).reshape(mask.shape), -np.inf)


def _lengths(options: Options, rows: np.ndarray) -> np.ndarray:
    return options.dense.values[np.ix_(rows, options.dense.columns((LENGTH,)))]


def _features(options: Options, rows: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> sp.csr_matrix:
    dense = sp.csr_matrix((_lengths(options, rows) - mean) / scale)
    return sp.hstack([options.char.binary[rows], options.word.binary[rows], dense], format="csr")


def _compact(x: sp.csr_matrix, used: np.ndarray) -> sp.csr_matrix:
    """`x` on the columns `used` only: millions of hashed n-gram columns, of which a training fold
    holds a few thousand, made liblinear take seconds per fit."""
    return x[:, used].tocsr()


def _canonical_rows(options: Options, items: np.ndarray) -> np.ndarray:
    """Flat rows of the real options of `items`, each item's in the order of their texts: liblinear
    visits rows in order, so the published order of the options must not reach the fit."""
    grid = options.grid
    return np.array([grid.width * i + j for i in items for j in sorted(range(len(grid.texts[i])),
                                                                       key=lambda j: grid.texts[i][j])],
                    dtype=np.intp)


def _held_columns(x: sp.csr_matrix) -> np.ndarray:
    """The columns some row holds, ascending: np.unique(x.indices) without sorting the millions
    of stored entries (a mark per column instead: the same array, a tenth of the time)."""
    held = np.zeros(x.shape[1], dtype=bool)
    held[x.indices] = True
    return np.flatnonzero(held).astype(x.indices.dtype)


def fit_regression(options: Options, train: np.ndarray, c: float) -> NgramRegression:
    """Fit on the real options of the `train` items, penalty 1/c."""
    grid = options.grid
    rows = _canonical_rows(options, train)
    lengths = _lengths(options, rows)
    mean, scale = lengths.mean(axis=0), lengths.std(axis=0)
    scale[scale < 1e-12] = 1.0
    labels = np.zeros(grid.mask.shape, dtype=np.intp)
    labels[train, grid.gold[train]] = 1
    y = labels.reshape(-1)[rows]
    x = _features(options, rows, mean, scale)
    used = _held_columns(x)
    fitted = LogisticRegression(C=c, solver="liblinear", random_state=0, max_iter=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a few hundred iterations rank the options well enough
        fitted.fit(_compact(x, used), y)
    return NgramRegression(fitted, mean, scale, used)
