"""The learned option-only probe for any k-option benchmark: CIBuzzBench's ranker, more siblings.

It is `builder.benchmarks.cibuzzbench.probes.learned` (canonical option order, the same dense features and hashed
character and word n-grams, pairwise logistic regression by SGD with fixed seeds, ties to the
earliest position) with k options instead of four, plus four columns that say how an option
relates to its siblings by characters as well as words: mean and max Jaccard similarity of its
character-gram and word-gram sets with the item's other options. Evaluation: train split ->
test split when the spec names splits, else 5-fold cross-validation over whole items (the
folds of CIBuzzBench's probe).

Epochs: CIBuzzBench's 50 up to its size (2,401 training items x 3 pairs x 50 = 360,000 pair
updates), and for larger benchmarks as many as give about that many updates (at least 10):
fixed 50 epochs would make a 10,000-item audit spend most of its time refitting. SGD's step
size decays with the number of updates. The final iterate is noisy: on CIBuzzBench's test
split this probe scored 62.0, 59.0, 60.8, 62.2, 64.0 and 63.0 after 20, 30, 40, 50, 60 and
80 epochs, so differences of a few points between learned scores are within that noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from builder.benchmarks.mcq.option_scores import sibling_similarity
from builder.benchmarks.cibuzzbench.probes import learned as base

TRAIN_TEST = base.TRAIN_TEST
CROSS_VALIDATION = base.CROSS_VALIDATION
SIBLING_FEATURES: tuple[str, ...] = ("char_similarity_mean", "char_similarity_max",
                                     "word_similarity_mean", "word_similarity_max")
PAIR_UPDATES = 360_000  # CIBuzzBench: 2,401 train items x 3 pairs x 50 epochs
MIN_EPOCHS = 10


@dataclass(frozen=True)
class OptionFeatures:
    """Everything computed from the option texts once, in canonical (sorted) order."""

    canon: np.ndarray  # (n, k): published index of each canonical position
    gold: np.ndarray  # (n,): the gold's canonical position
    feats: base.Features  # CIBuzzBench's features + SIBLING_FEATURES
    char_sim: np.ndarray  # (n, k, k) canonical order
    word_sim: np.ndarray

    def published(self, scores: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """(m, k) canonical-order scores of `items` (default all) in the published order."""
        canon = self.canon if items is None else self.canon[items]
        out = np.empty_like(scores)
        np.put_along_axis(out, canon, scores, axis=1)
        return out


@dataclass(frozen=True)
class LearnedScores:
    evaluation: str  # TRAIN_TEST or CROSS_VALIDATION
    items: np.ndarray  # indices of the scored items, ascending
    scores: np.ndarray  # (len(items), k) option scores in the PUBLISHED order


def canonical_orders(texts: Sequence[tuple[str, ...]]) -> np.ndarray:
    """(n, k): the published indices sorted by text, so nothing the model sees depends on position."""
    return np.array([sorted(range(len(row)), key=lambda j: (row[j].casefold(), row[j], j)) for row in texts],
                    dtype=np.intp).reshape(len(texts), -1)


def option_features(texts: Sequence[tuple[str, ...]], gold: np.ndarray) -> OptionFeatures:
    canon = canonical_orders(texts)
    n, k = canon.shape
    canon_texts = tuple(tuple(row[j] for j in order) for row, order in zip(texts, canon))
    canon_gold = np.argmax(canon == np.asarray(gold)[:, None], axis=1)
    feats = base.features(base.OptionTable(tuple(range(n)), ("",) * n, canon_texts, ((),) * n, canon_gold))
    char_sim, word_sim = sibling_similarity(feats.char, feats.word, n, k)
    siblings = [s.sum(axis=2) / max(k - 1, 1) if stat == "mean" else s.max(axis=2)
                for s in (char_sim, word_sim) for stat in ("mean", "max")]
    dense = np.column_stack([feats.dense] + [s.reshape(-1) for s in siblings])
    return OptionFeatures(canon, canon_gold, base.Features(dense, feats.char, feats.word), char_sim, word_sim)


def epochs(train_items: int, k: int) -> int:
    pairs = max(train_items * (k - 1), 1)
    return max(MIN_EPOCHS, min(base.EPOCHS, math.ceil(PAIR_UPDATES / pairs)))


def learned_scores(options: OptionFeatures, splits: Sequence[str | None], train_split: str | None,
                   test_split: str | None) -> LearnedScores:
    """Scores for the held-out items: the test split, or every item once under 5-fold CV."""
    n, k = options.canon.shape
    feats, gold = options.feats, options.gold
    if train_split is not None and test_split is not None:
        split = np.array(splits, dtype=object)
        train, test = np.flatnonzero(split == train_split), np.flatnonzero(split == test_split)
        scorer = base.fit_scorer(feats, gold, train, k, epochs(len(train), k))
        return LearnedScores(TRAIN_TEST, test, options.published(scorer.scores(feats, test), test))
    scores = np.zeros((n, k))
    for train, held_out in base.cv_folds(n):
        scores[held_out] = base.fit_scorer(feats, gold, train, k, epochs(len(train), k)).scores(feats, held_out)
    return LearnedScores(CROSS_VALIDATION, np.arange(n), options.published(scores))
