"""The learned option-only probe of the generic audit: the shared ranker (builder.ranker) applied
to a spec's items, plus its per-item leak scores and the drop-one-family ablation.

Evaluation: train split -> test split when the spec names splits, else 5-fold cross-fitting over
whole groups. Each fit publishes the model its inner folds chose among the ranker, a plain n-gram
regression and the rules (builder.ranker.choice). Leak scores are always cross-fitted over every
item by the same choice (with splits, that is a second evaluation), so each item's score comes
from a model that never saw it. The ablation is the ranker's: it refits without each cue family on
the same held-out items (the test split, or the first CV fold), whichever model was chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from builder.ranker.choice import Chosen, choose_evaluate
from builder.ranker.evaluate import CROSS_VALIDATION, FOLDS, TRAIN_TEST, Options
from builder.ranker.leak import GroupAblation, LeakScores, ablation, leak_from

__all__ = ["CROSS_VALIDATION", "TRAIN_TEST", "LearnedScores", "learned_scores"]


@dataclass(frozen=True)
class LearnedScores:
    evaluation: str  # TRAIN_TEST or CROSS_VALIDATION
    items: np.ndarray  # indices of the scored items, ascending
    scores: np.ndarray  # (len(items), K) option scores in the PUBLISHED order
    alphas: tuple[float, ...]  # the ranker's L2 penalty inner CV chose, per fit (the ablation's)
    leak: LeakScores  # per item, cross-fitted
    ablation: tuple[GroupAblation, ...]
    chosen: tuple[str, ...] = ()  # per fit, the model inner CV chose (builder.ranker.choice.Candidate.label)
    chosen_majority: str = ""  # the one most fits chose
    folds: int = FOLDS  # folds of the cross-fitted evaluation (the leak scores'): under FOLDS when a group is large
    inner_folds: tuple[int, ...] = ()  # per fit, the folds its inner CV used (Evaluation.inner_folds)


def learned_scores(options: Options, ids: Sequence[str], splits: Sequence[str | None],
                   train_split: str | None, test_split: str | None) -> LearnedScores:
    """Scores for the held-out items: the test split, or every item once under cross-fitting."""
    train = test = None
    if train_split is not None and test_split is not None:
        split = np.array(splits, dtype=object)
        train, test = np.flatnonzero(split == train_split), np.flatnonzero(split == test_split)
    choice: Chosen = choose_evaluate(options, train, test)
    main = choice.evaluation
    crossed = main if main.evaluation != TRAIN_TEST else choose_evaluate(options).evaluation
    alpha = float(np.median(main.alphas))
    return LearnedScores(main.evaluation, main.items, main.scores, main.alphas, leak_from(crossed, options, ids),
                         tuple(ablation(options, alpha, train, test)), choice.chosen, choice.majority,
                         crossed.folds, main.inner_folds)
