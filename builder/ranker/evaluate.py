"""Held-out scores of the ranker: train -> test, or K-fold cross-fitting over whole groups of items
(builder.ranker.groups: items sharing an option set, or a tie the spec names, never straddle a
fold), with the L2 penalty chosen by inner cross-validation on the training items only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

from builder.ranker import model
from builder.ranker.cues import GROUPS, NGRAMS, Dense, Texts, dense_features, read_texts
from builder.ranker.grid import OptionGrid, option_grid
from builder.ranker.groups import group_folds, item_groups
from builder.ranker.ngrams import GramSets, priors

FOLDS = 5
INNER_FOLDS = 3
FOLD_SEED = 0
INNER_ITEMS = 2000
ALPHAS: tuple[float, ...] = (1.0, 1e-1, 1e-2, 1e-3, 1e-4)  # strongest first: each fit warm-starts the next
TRAIN_TEST = "train→test"


def cross_validation(folds: int) -> str:
    """A cross-fitted evaluation's label, naming the folds it actually used: group_folds returns
    fewer than FOLDS when a group holds more than a FOLDS-th of the items, and a label must never
    claim folds that were not there."""
    return f"{folds}-fold CV"


CROSS_VALIDATION = cross_validation(FOLDS)  # the label when every fold came back


def folds_label(counts: Sequence[int], target: int = INNER_FOLDS) -> str:
    """`3-fold`, or the range when fits differ (`2- to 3-fold`): the folds the fits used, never
    the target (`target` only when no fit recorded a count)."""
    low, high = (min(counts), max(counts)) if len(counts) else (target, target)
    return f"{high}-fold" if low == high else f"{low}- to {high}-fold"


@dataclass(frozen=True)
class Options:
    """Everything computed from the option texts once: the grid, every dense cue family, and the
    character and token n-gram sets the n-gram priors count, and the groups every fold keeps whole."""

    grid: OptionGrid
    dense: Dense
    char: GramSets
    word: GramSets
    groups: np.ndarray | None = None  # (n,) fold groups; None: the items' option-set groups

    @classmethod
    def build(cls, texts: Sequence[Sequence[str]], gold: Sequence[int] | np.ndarray,
              ties: Sequence[str | None] | None = None) -> "Options":
        """`ties`: per item, a value the spec's `group` gives (None: no tie beyond its option set)."""
        grid = option_grid(texts, gold)
        t: Texts = read_texts(grid)
        return cls(grid, dense_features(t), GramSets.of(t.char), GramSets.of(t.word), item_groups(grid.texts, ties))

    def item_groups(self) -> np.ndarray:
        """(n,) group per item: what build found, else the option-set groups of the grid."""
        return item_groups(self.grid.texts) if self.groups is None else self.groups

    def feature(self, name: str) -> np.ndarray:
        """(n, K) one dense cue (a rule's score: `chars`, `centroid`, ...); 0 in padded slots."""
        return self.dense.values[:, self.dense.names.index(name)].reshape(self.grid.mask.shape)

    def design(self, train: np.ndarray, groups: Sequence[str] = GROUPS) -> model.Design:
        """Dense cues of `groups`, plus (with NGRAMS) the two n-gram priors learnt from `train`."""
        x = self.dense.values[:, self.dense.columns(tuple(groups))]
        if NGRAMS in groups:
            g = self.grid
            inner = folds(self.item_groups()[train], INNER_FOLDS, FOLD_SEED + 1)
            x = np.column_stack([x] + [priors(s, g.mask, g.gold, train, inner) for s in (self.char, self.word)])
        return model.Design(x, self.grid.mask, self.grid.gold)


PRIOR_NAMES: tuple[str, ...] = ("char_ngram_prior", "token_ngram_prior")


def feature_names(options: Options, groups: Sequence[str] = GROUPS) -> tuple[str, ...]:
    """The design's columns, in order: the dense cues of `groups`, then the n-gram priors."""
    dense = tuple(options.dense.names[j] for j in options.dense.columns(tuple(groups)))
    return dense + (PRIOR_NAMES if NGRAMS in groups else ())


@dataclass(frozen=True)
class Evaluation:
    evaluation: str  # TRAIN_TEST or cross_validation(folds)
    items: np.ndarray  # scored items, ascending
    scores: np.ndarray  # (len(items), K) published order, -inf in padded slots
    probabilities: np.ndarray  # softmax of scores
    alphas: tuple[float, ...]  # the penalty inner CV chose, per fit
    folds: int = 0  # outer folds used (0: train -> test); can be under FOLDS (group_folds)
    inner_folds: tuple[int, ...] = ()  # per fit, the folds the penalty's inner CV used (can be under INNER_FOLDS)

    def predictions(self) -> np.ndarray:
        """The top option per scored item; ties go to the earliest published position."""
        return self.scores.argmax(axis=1)


def folds(groups: np.ndarray | int, k: int = FOLDS, seed: int = FOLD_SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    """Whole-group folds (train, held out) over the items `groups` labels (an int n: n items, each
    its own group), seeded; every item is held out exactly once."""
    return group_folds(np.arange(groups) if isinstance(groups, int) else groups, k, seed)


def inner_splits(groups: np.ndarray) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The items the penalty's inner CV uses (at most INNER_ITEMS, a seeded sample: past a few
    thousand items the choice is stable and the audit of a 12,000-item benchmark must stay within
    a minute) and their whole-group folds: INNER_FOLDS, or fewer when a group is large."""
    items = np.arange(len(groups))
    if len(items) > INNER_ITEMS:
        items = np.sort(np.random.default_rng(FOLD_SEED + 2).choice(items, INNER_ITEMS, replace=False))
    return items, folds(np.asarray(groups)[items], INNER_FOLDS, FOLD_SEED + 1)


def select(d: model.Design, groups: np.ndarray) -> float:
    """The penalty with the lowest mean held-out log loss over the inner folds of `d`'s items
    (inner_splits); ties: the stronger. `groups` labels `d`'s items: the inner folds keep them
    whole too."""
    items, splits = inner_splits(groups)
    sample = d.subset(items)
    losses = dict.fromkeys(ALPHAS, 0.0)
    for train, held in splits:
        out = sample.subset(held)
        for alpha, scores in model.path_scores(sample.subset(train), out, ALPHAS):
            losses[alpha] += model.log_loss(model.softmax(scores), out.gold)
    return min(ALPHAS, key=lambda a: (round(losses[a], 9), -a))


def fit_ranker(options: Options, train: np.ndarray, groups: Sequence[str],
         alpha: float | None) -> tuple[model.Ranker, model.Design]:
    """Fit on `train` only (features, priors, standardisation, penalty); return the design too."""
    d = options.design(train, groups)
    sub = d.subset(train)
    return model.fit(sub, select(sub, options.item_groups()[train]) if alpha is None else alpha), d


P = ParamSpec("P")
R = TypeVar("R")


def single_threaded(fn: Callable[P, R]) -> Callable[P, R]:
    """Run `fn` with one BLAS thread: threads on matrices this small cost up to 20x on a shared
    2-core machine, and one thread keeps floating-point sums in one order (deterministic)."""
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with threadpool_limits(limits=1):
            return fn(*args, **kwargs)
    return wrapper


def fit_evaluate(options: Options, train: np.ndarray | None = None, test: np.ndarray | None = None,
                 groups: Sequence[str] = GROUPS, alpha: float | None = None) -> Evaluation:
    """Scores for held-out items: `test` from a model fitted on `train`, else every item once
    under FOLDS-fold cross-fitting by group. `alpha` fixes the penalty (else inner CV chooses it)."""
    return single_threaded(_evaluate)(options, train, test, groups, alpha)


def _evaluate(options: Options, train: np.ndarray | None, test: np.ndarray | None,
              groups: Sequence[str], alpha: float | None) -> Evaluation:
    n, width = options.grid.mask.shape
    if train is not None and test is not None:
        test = np.sort(np.asarray(test, dtype=np.intp))
        r, d = fit_ranker(options, np.sort(np.asarray(train, dtype=np.intp)), groups, alpha)
        s = r.scores(d.subset(test))
        return Evaluation(TRAIN_TEST, test, s, model.softmax(s), (r.alpha,),
                          inner_folds=_inner_counts(options, [np.sort(np.asarray(train, dtype=np.intp))], alpha))
    scores, chosen = np.full((n, width), -np.inf), []
    splits = folds(options.item_groups())
    for tr, held in splits:
        r, d = fit_ranker(options, tr, groups, alpha)
        scores[held] = r.scores(d.subset(held))
        chosen.append(r.alpha)
    return Evaluation(cross_validation(len(splits)), np.arange(n), scores, model.softmax(scores), tuple(chosen),
                      len(splits), _inner_counts(options, [tr for tr, _ in splits], alpha))


def _inner_counts(options: Options, trains: Sequence[np.ndarray], alpha: float | None) -> tuple[int, ...]:
    """Per fit, the folds `select` used on its training items (none when `alpha` was given)."""
    return () if alpha is not None else tuple(len(inner_splits(options.item_groups()[tr])[1]) for tr in trains)
