"""The learned probe publishes the model its training folds chose among the ranker, a plain
n-gram regression and the rules (builder.ranker.choice): on a small set where a length rule is
the truth it reaches the rule, where n-grams carry the signal a learned model is chosen, it is
deterministic, and no choice sees the fold it is scored on (issue 30, item 3)."""

from __future__ import annotations

import random

import numpy as np

from builder.ranker import choice
from builder.ranker.choice import RULE, Candidate, choose_evaluate, expected_accuracy, rule_scores
from builder.ranker.evaluate import Options, fit_evaluate, folds

VOCAB = ("alpha", "beta", "gamma", "delta", "Echo", "fox", "golf", "hotel", "india", "juliet", "kilo", "lima",
         "9", "17", "none of the above", "(a)", "x.")


def length_rule_set(n: int, seed: int, k: int = 4) -> tuple[list[list[str]], list[int]]:
    """About n items of k noisy options; the gold is the longest option on half the items, a
    random one on the rest: the longest-characters rule is the truth, the other cues are noise."""
    rng = random.Random(seed)
    texts, gold = [], []
    for _ in range(n):
        opts = [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 6))) for _ in range(k)]
        if len({len(o) for o in opts}) < k or len(set(opts)) < k:
            continue
        longest = max(range(k), key=lambda j: len(opts[j]))
        texts.append(opts)
        gold.append(longest if rng.random() < 0.5 else rng.randrange(k))
    return texts, gold


def ngram_set(n: int = 300, seed: int = 5, k: int = 4) -> tuple[list[list[str]], list[int]]:
    """Options of three four-character words; the gold holds one of three marker words (a
    distractor does one time in ten), so only the words tell: every length rule is at chance."""
    rng = random.Random(seed)
    vocab, marks = [f"w{i}" for i in range(100, 300)], ["zqxv", "kbjm", "pfwy"]
    texts, gold = [], []
    for _ in range(n):
        g = rng.randrange(k)
        opts = []
        for j in range(k):
            words = [rng.choice(vocab) for _ in range(3)]
            if j == g or rng.random() < 0.1:
                words[rng.randrange(3)] = rng.choice(marks)
            opts.append(" ".join(words))
        texts.append(opts)
        gold.append(g)
    return texts, gold


def test_a_small_set_whose_truth_is_a_length_rule_reaches_the_rule():
    """Six sets of about 70 items: the old probe (the ranker, its penalty by inner log loss) trailed
    the rule by 2.4 points pooled; the choice must come within 1.5 (it does within 1.0)."""
    old, new, rule, items = 0.0, 0.0, 0.0, 0
    for seed in range(6):
        texts, gold = length_rule_set(80, seed)
        options, g = Options.build(texts, gold), np.array(gold)
        n = len(g)
        old += n * expected_accuracy(fit_evaluate(options).scores, g)
        new += n * expected_accuracy(choose_evaluate(options).evaluation.scores, g)
        rule += n * expected_accuracy(rule_scores(options, "longest_chars"), g)
        items += n
    old, new, rule = (100 * v / items for v in (old, new, rule))
    assert old < rule - 2.0, (old, rule)  # the set shows the failure the choice fixes
    assert new >= rule - 1.5, (new, rule)


def test_where_ngrams_carry_the_signal_a_learned_model_is_chosen():
    texts, gold = ngram_set()
    options, g = Options.build(texts, gold), np.array(gold)
    chosen = choose_evaluate(options)
    assert all(not label.startswith(RULE) for label in chosen.chosen), chosen.chosen
    best_rule = max(expected_accuracy(rule_scores(options, r), g) for r in choice.RULES)
    assert best_rule < 0.35
    assert expected_accuracy(chosen.evaluation.scores, g) > 0.8


def test_the_choice_is_deterministic():
    texts, gold = length_rule_set(80, 2)
    first, second = (choose_evaluate(Options.build(texts, gold)) for _ in range(2))
    assert first.chosen == second.chosen
    assert np.array_equal(first.evaluation.scores, second.evaluation.scores)
    assert np.array_equal(first.evaluation.probabilities, second.evaluation.probabilities)


def test_the_choice_never_sees_the_outer_test_fold(monkeypatch):
    """Every fit the choice makes trains on the outer training items only, and the held-out
    items' golds can be anything: the choice and the held-out scores stay the same."""
    texts, gold = length_rule_set(120, 4)
    options = Options.build(texts, gold)
    train, held = folds(options.item_groups())[0]
    seen: list[np.ndarray] = []
    real_rule, real_regression = choice._rule_fit, choice._regression_fit
    monkeypatch.setattr(choice, "_rule_fit", lambda *a: seen.append(a[2]) or real_rule(*a))
    monkeypatch.setattr(choice, "_regression_fit", lambda *a: seen.append(a[2]) or real_regression(*a))
    before = choice._outer_fold(options, train, held)
    assert seen and all(not np.isin(tr, held).any() for tr in seen)
    flipped = np.array(gold)
    flipped[held] = (flipped[held] + 1) % 4
    after = choice._outer_fold(Options.build(texts, flipped), train, held)
    assert before.chosen == after.chosen
    assert np.array_equal(before.scores, after.scores)
    assert np.array_equal(before.probabilities, after.probabilities)


def test_a_rule_gives_probabilities_that_keep_its_choice_and_ties():
    """A chosen rule's leak score: softmax of its score times a non-negative fitted weight."""
    texts, gold = length_rule_set(80, 1)
    options = Options.build(texts, gold)
    train, held = folds(options.item_groups())[0]
    fitted = choice._rule_fit(options, rule_scores(options, "longest_chars"), train, held)
    assert np.allclose(fitted.probabilities.sum(axis=1), 1.0)
    assert np.array_equal(fitted.probabilities.argmax(axis=1), fitted.scores.argmax(axis=1))
    assert Candidate(RULE, rule="longest_chars").label == "rule longest_chars"
