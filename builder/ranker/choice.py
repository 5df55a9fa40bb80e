"""Which choices-only model to publish, chosen per outer fold by inner cross-validation on that
fold's training items only: the model-free rules, the ranker over a grid of penalties, or a plain
logistic regression on the options' n-grams and lengths.

Why: on a few hundred items the ranker's sixty-odd cues can overfit, and a length rule or a plain
n-gram regression then beats it; a learned figure below what the audit's own rules reach reads as
"the options give away less than they do". So every candidate is scored on the inner folds (whole
groups, the same seeded folds the ranker's penalty used; at most INNER_ITEMS training items); each
model's strength is the one with the lowest inner log loss; the ranker stands unless the
regression or a rule beats its inner expected accuracy by more than a standard error (see best);
only the winner is fitted on the whole training fold and scores the held-out fold, which no choice saw.

Probabilities (the leak scores): the ranker's softmax; the regression's softmax of its per-option
logits over the item's options; a rule's softmax of its score times one non-negative weight fitted
on the training items (a one-cue ranker, so its argmax is the rule's own), the rule's ties broken
by the ranker fitted on the same items (tie_broken), so no published position decides one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from builder.ranker import model
from builder.ranker.cues import GROUPS
from builder.ranker.grid import masked_rank_desc
from builder.ranker.evaluate import (ALPHAS, TRAIN_TEST, Evaluation, Options, cross_validation, folds,
                                     inner_splits, single_threaded)

RANKER, REGRESSION, RULE = "ranker", "ngram_lr", "rule"
# The ranker's penalties, strongest first (each fit warm-starts the next). A stronger one (10) won
# the inner log loss on 250-item CODAH slices and cost up to 6 points of accuracy out of the fold.
CHOICE_ALPHAS: tuple[float, ...] = ALPHAS
# The plain regression's inverse L2 strength: strong, for small sets (C=1 was never the one chosen
# on the shipped specs, CODAH or CommonsenseQA, and its fits were a third of MMLU-Pro's audit time).
REGRESSION_CS: tuple[float, ...] = (0.1,)
MARGIN_SE = 1.0  # a challenger must beat the ranker's inner accuracy by this many standard errors
RULES: tuple[str, ...] = ("longest_chars", "shortest_chars", "longest_words", "shortest_words", "centroid")


@dataclass(frozen=True)
class Candidate:
    kind: str  # RANKER, REGRESSION or RULE
    strength: float = 0.0  # the ranker's alpha, the regression's C; 0 for a rule
    rule: str = ""  # a rule's name (RULES)

    @property
    def label(self) -> str:
        """How a caption names it: `ranker α=0.01`, `ngram_lr C=0.1`, `rule longest_chars`."""
        if self.kind == RULE:
            return f"rule {self.rule}"
        return f"{self.kind} {'α' if self.kind == RANKER else 'C'}={self.strength:g}"


CANDIDATES: tuple[Candidate, ...] = (*(Candidate(RANKER, a) for a in CHOICE_ALPHAS),
                                     *(Candidate(REGRESSION, c) for c in REGRESSION_CS),
                                     *(Candidate(RULE, rule=r) for r in RULES))


def rule_scores(options: Options, rule: str) -> np.ndarray:
    """(n, K) a rule's option scores, higher = chosen, -inf in padded slots: characters and
    whitespace words exactly as the audit's length probes count them, the centroid cue as is."""
    if rule == "centroid":
        values = options.feature("centroid")
    else:
        count = len if rule.endswith("chars") else (lambda s: len(s.split()))
        flat = np.array([count(t) for t in options.grid.flat()], dtype=float).reshape(options.grid.mask.shape)
        values = flat if rule.startswith("longest") else -flat
    return np.where(options.grid.mask, values, -np.inf)


def item_accuracy(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per item 1/t when the gold is among the t top-scored options, else 0: what a random
    tie-break (a random shown order) gets on average."""
    top = scores == scores.max(axis=1, keepdims=True)
    return top[np.arange(len(gold)), gold] / top.sum(axis=1)


def expected_accuracy(scores: np.ndarray, gold: np.ndarray) -> float:
    """The mean of item_accuracy: the accuracy expected under random shown orders."""
    return float(item_accuracy(scores, gold).mean())


@dataclass(frozen=True)
class _Fitted:
    scores: np.ndarray  # (len(test), K), -inf in padded slots
    probabilities: np.ndarray


def _rule_fit(options: Options, raw: np.ndarray, train: np.ndarray, test: np.ndarray) -> _Fitted:
    """A rule's scores `raw` (rule_scores), with probabilities from one non-negative weight fitted on `train`."""
    mask, gold = options.grid.mask, options.grid.gold
    x = np.where(mask, raw, 0.0).reshape(-1, 1)
    design = model.Design(x, mask, gold)
    r = model.fit(design.subset(train), ALPHAS[-1])
    calibrated = model.Ranker(r.mean, r.scale, np.maximum(r.w, 0.0), r.alpha)
    return _Fitted(raw[test], calibrated.probabilities(design.subset(test)))


def _ranker_fits(design: model.Design, train: np.ndarray, test: np.ndarray,
                 alphas: Sequence[float]) -> dict[float, _Fitted]:
    """The ranker at each penalty (strongest first, warm-started), fitted on `train` rows of `design`."""
    scored = model.path_scores(design.subset(train), design.subset(test), alphas)
    return {alpha: _Fitted(s, model.softmax(s)) for alpha, s in scored}


def _regression_fit(options: Options, c: float, train: np.ndarray, test: np.ndarray) -> _Fitted:
    # deferred: scikit-learn (about 1 s to import) loads only when a fit runs; a warm build unpickles
    # cached audits, which name this module's classes, and fits nothing
    from builder.ranker.plain import fit_regression
    reg = fit_regression(options, train, c)
    s = reg.scores(options, test)
    return _Fitted(s, model.softmax(s))


@dataclass(frozen=True)
class Inner:
    """A candidate on the inner folds: per inner held-out item its expected accuracy (the folds
    concatenated, so candidates pair item by item) and the mean log loss over the folds."""

    accuracy: np.ndarray
    loss: float


def _inner_table(options: Options, design: model.Design, train: np.ndarray,
                 rules: dict[str, np.ndarray]) -> tuple[dict[Candidate, Inner], int]:
    """Every candidate on the inner folds of `train` (evaluate.inner_splits: the penalty's own
    sample and whole-group folds), and how many folds there were (INNER_FOLDS or fewer)."""
    sample, splits = inner_splits(options.item_groups()[train])
    items = train[sample]
    accuracy: dict[Candidate, list[np.ndarray]] = {c: [] for c in CANDIDATES}
    loss = dict.fromkeys(CANDIDATES, 0.0)
    gold = options.grid.gold
    for inner, held in splits:
        tr, te = items[inner], items[held]
        fitted = {Candidate(RANKER, a): f for a, f in _ranker_fits(design, tr, te, CHOICE_ALPHAS).items()}
        fitted |= {Candidate(REGRESSION, c): _regression_fit(options, c, tr, te) for c in REGRESSION_CS}
        fitted |= {Candidate(RULE, rule=r): _rule_fit(options, rules[r], tr, te) for r in RULES}
        for cand, f in fitted.items():
            accuracy[cand].append(item_accuracy(f.scores, gold[te]))
            loss[cand] += model.log_loss(f.probabilities, gold[te]) / len(splits)
    return {c: Inner(np.concatenate(accuracy[c]), loss[c]) for c in CANDIDATES}, len(splits)


def best(table: dict[Candidate, Inner], kinds: Sequence[str] | None = None) -> Candidate:
    """Within the ranker and within the regression, the strength with the lowest inner log loss
    (a smooth criterion: picking among six penalties by accuracy, a step function, chose noise).
    The ranker so chosen stands unless the regression or a rule beats its inner accuracy, paired
    item by item, by more than one standard error of that difference: on a set where nothing
    tells, the choice among seven by accuracy alone published the luckiest and lost points
    out of the fold. Among challengers that clear it: the largest gain (ties: candidate order)."""
    pool = [c for c in CANDIDATES if kinds is None or c.kind in kinds]
    order = {c: i for i, c in enumerate(CANDIDATES)}
    finalists = []
    for kind in dict.fromkeys(c.kind for c in pool):
        same = [c for c in pool if c.kind == kind]
        finalists += same if kind == RULE else [min(same, key=lambda c: (round(table[c].loss, 9), order[c]))]
    default = finalists[0]
    gains = {}
    for c in finalists[1:]:
        diff = table[c].accuracy - table[default].accuracy
        margin = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
        if round(float(diff.mean()), 9) > round(MARGIN_SE * float(margin), 9):
            gains[c] = float(diff.mean())
    return min(gains, key=lambda c: (-round(gains[c], 9), order[c])) if gains else default


@dataclass(frozen=True)
class _Fold:
    scores: np.ndarray
    probabilities: np.ndarray
    chosen: Candidate
    alpha: float  # the ranker's best penalty on the inner folds (the ablation's), chosen or not
    inner_folds: int  # the inner folds the choice used (INNER_FOLDS, or fewer when a group is large)


def _outer_fold(options: Options, train: np.ndarray, test: np.ndarray,
                rules: dict[str, np.ndarray] | None = None) -> _Fold:
    """Choose on `train`'s inner folds, fit the choice on all of `train`, score `test`. `rules`:
    each rule's scores (rule_scores), computed once per evaluation."""
    rules = {r: rule_scores(options, r) for r in RULES} if rules is None else rules
    design = options.design(train, GROUPS)
    table, inner = _inner_table(options, design, train, rules)
    chosen, alpha = best(table), best(table, (RANKER,)).strength
    if chosen.kind == RANKER:
        f = _ranker_fits(design, train, test, [chosen.strength])[chosen.strength]
    elif chosen.kind == REGRESSION:
        f = _regression_fit(options, chosen.strength, train, test)
    else:
        ranker = model.fit(design.subset(train), alpha)
        f = _rule_fit(options, tie_broken(rules[chosen.rule], ranker.scores(design), options.grid.mask), train, test)
    return _Fold(f.scores, f.probabilities, chosen, alpha, inner)


def tie_broken(rule: np.ndarray, by: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n, K) a rule's order within each item, its ties broken by the scores `by` (the ranker's,
    fitted on the same training items): the rule's rank scaled to [0, 1] (distinct values at least
    1/(K-1) apart) plus `by` squashed below half that. Without it a chosen rule's ties went to the
    earliest shown option, and the published order reached the learned probe's accuracy."""
    width = mask.shape[1]
    rank = 1.0 - masked_rank_desc(np.where(mask, rule, 0.0), mask)
    squashed = 0.49 / max(width - 1, 1) / (1.0 + np.exp(-np.clip(np.where(mask, by, 0.0), -50, 50)))
    return np.where(mask, rank + squashed, -np.inf)


@dataclass(frozen=True)
class Chosen:
    """An Evaluation plus which candidate each fit chose."""

    evaluation: Evaluation
    chosen: tuple[str, ...]  # per fit, Candidate.label

    @property
    def majority(self) -> str:
        """The label most fits chose; ties: the one chosen first."""
        counts = Counter(self.chosen)
        return max(counts, key=lambda label: (counts[label], -self.chosen.index(label)))


def choose_evaluate(options: Options, train: np.ndarray | None = None, test: np.ndarray | None = None) -> Chosen:
    """Held-out scores of the chosen model: `test` from a choice made and fitted on `train`, else
    every item once under cross-fitting by group, a choice per fold (FOLDS folds, or the fewer
    group_folds returns: Evaluation.folds)."""
    return single_threaded(_choose)(options, train, test)


def _choose(options: Options, train: np.ndarray | None, test: np.ndarray | None) -> Chosen:
    n, width = options.grid.mask.shape
    if train is not None and test is not None:
        test = np.sort(np.asarray(test, dtype=np.intp))
        f = _outer_fold(options, np.sort(np.asarray(train, dtype=np.intp)), test)
        return Chosen(Evaluation(TRAIN_TEST, test, f.scores, f.probabilities, (f.alpha,), inner_folds=(f.inner_folds,)),
                      (f.chosen.label,))
    scores, probabilities = np.full((n, width), -np.inf), np.zeros((n, width))
    alphas, chosen, inner = [], [], []
    rules = {r: rule_scores(options, r) for r in RULES}
    splits = folds(options.item_groups())
    for tr, held in splits:
        f = _outer_fold(options, tr, held, rules)
        scores[held], probabilities[held] = f.scores, f.probabilities
        alphas.append(f.alpha)
        chosen.append(f.chosen.label)
        inner.append(f.inner_folds)
    evaluation = Evaluation(cross_validation(len(splits)), np.arange(n), scores, probabilities, tuple(alphas),
                            len(splits), tuple(inner))
    return Chosen(evaluation, tuple(chosen))
