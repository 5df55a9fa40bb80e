"""Per-item leak scores and the drop-one-family ablation, both from cross-fitted predictions.

leak_score: the probability the chosen model (builder.ranker.choice: the ranker, a plain n-gram
regression or a rule, chosen per fold on its training items) gives the gold when it never saw the
item nor any item of its group (cross-fitting by group, FOLDS folds or fewer when a group is large:
builder.ranker.groups; LeakScores.folds records the count); solvable: the gold's
score is strictly the highest of the item's options (a tie is not solved: nothing in the options decides it, and the published order must not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from builder.ranker.cues import GROUPS
from builder.ranker import model
from builder.ranker.choice import choose_evaluate
from builder.ranker.evaluate import Evaluation, Options, feature_names, fit_ranker, folds, single_threaded
from builder.stats import paired_bootstrap_difference

CSV_COLUMNS = ("id", "leak_score", "solvable")
_CORRECT, _WRONG = "solved", "not solved"


def solved(evaluation: Evaluation, gold: np.ndarray) -> np.ndarray:
    """(len(items),) bool: the gold strictly outscores every other option of its item."""
    return _solved(evaluation.scores, np.asarray(gold)[evaluation.items])


def _solved(s: np.ndarray, g: np.ndarray) -> np.ndarray:
    gold_score = s[np.arange(len(g)), g]
    others = s.copy()
    others[np.arange(len(g)), g] = -np.inf
    return gold_score > others.max(axis=1)


@dataclass(frozen=True)
class LeakScores:
    ids: tuple[str, ...]
    leak_score: tuple[float, ...]  # per item, cross-fitted probability of the gold
    solvable: tuple[bool, ...]  # per item (tuples, so an Audit holding them compares by value)
    folds: int = 0  # outer folds of the cross-fitting that gave them (group_folds can give under FOLDS)

    def rows(self) -> list[tuple[str, float, bool]]:
        return [(i, float(p), bool(s)) for i, p, s in zip(self.ids, self.leak_score, self.solvable)]

    @property
    def solvable_share(self) -> float:
        return 100.0 * float(np.mean(self.solvable))


def leak_from(evaluation: Evaluation, options: Options, ids: Sequence[str]) -> LeakScores:
    """Leak scores from a cross-fitted evaluation that scored every item."""
    if len(evaluation.items) != options.grid.n:
        raise ValueError("leak scores need a cross-fitted evaluation of every item")
    g = options.grid.gold
    prob = evaluation.probabilities[np.arange(len(g)), g]
    top = solved(evaluation, g)
    return LeakScores(tuple(str(i) for i in ids), tuple(float(p) for p in prob), tuple(bool(t) for t in top),
                      evaluation.folds)


def leak_scores(texts: Sequence[Sequence[str]], gold: Sequence[int], ids: Sequence[str]) -> LeakScores:
    """The per-item leak score of a benchmark, from its option texts and golds only."""
    options = Options.build(texts, gold)
    return leak_from(choose_evaluate(options).evaluation, options, ids)


@dataclass(frozen=True)
class GroupAblation:
    group: str  # the cue family left out
    accuracy: float  # 0-100, share of held-out items solved without it
    drop: float  # full accuracy minus this, points
    ci95_low: float  # paired bootstrap over items of the drop
    ci95_high: float


@single_threaded
def ablation(options: Options, alpha: float, train: np.ndarray | None = None,
             test: np.ndarray | None = None) -> list[GroupAblation]:
    """What each cue family adds: refit without it on `train` (default: the first cross-fitting
    fold's training items) and score the same held-out items, the penalty fixed to `alpha` (the
    full model's inner-CV choice) and each refit started from the full model's weights, so a
    12,000-item audit affords it. Sorted by drop, largest first."""
    if train is None or test is None:
        train, test = folds(options.item_groups())[0]
    full, design = fit_ranker(options, train, GROUPS, alpha)
    names = feature_names(options, GROUPS)
    held = design.subset(test)
    base = _solved(full.scores(held), held.gold)
    gold = [_CORRECT] * len(base)
    out = []
    for group in GROUPS:
        rest = tuple(g for g in GROUPS if g != group)
        keep = [j for j, name in enumerate(names) if name in set(feature_names(options, rest))]
        sub = model.Design(design.x[:, keep], design.mask, design.gold)
        refit = model.fit(sub.subset(train), alpha, full.w[keep])
        without = _solved(refit.scores(sub.subset(test)), held.gold)
        diff = paired_bootstrap_difference(gold, _labels(base), _labels(without), (_CORRECT, _WRONG))["accuracy"]
        acc = 100.0 * float(without.mean())
        out.append(GroupAblation(group, acc, 100.0 * float(base.mean()) - acc, diff.low, diff.high))
    return sorted(out, key=lambda a: (-a.drop, a.group))


def _labels(correct: np.ndarray) -> list[str]:
    return [_CORRECT if c else _WRONG for c in correct]
