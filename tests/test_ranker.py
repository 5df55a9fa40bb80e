"""The shared ranker: position-free, exact about varying k, deterministic, never beaten by a rule
it could have learned (the issue's Chinese cloze case), and honest leak scores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from builder.benchmarks.mcq.plugin import leak_csv
from builder.ranker import evaluate as ev
from builder.ranker.cues import GROUPS
from builder.ranker.leak import CSV_COLUMNS, ablation, leak_from, leak_scores, solved
from builder.ranker.text import char_sets, token_sets, tokens

HANZI = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你"


def _phrase(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(HANZI) for _ in range(n))


def cloze_items(n: int = 900, seed: int = 7) -> tuple[list[tuple[str, ...]], list[int]]:
    """Five-option Chinese cloze items, options of one length: on 55% the distractors are the
    gold with two characters changed (the gold shares the most characters with its siblings);
    on the rest every option is an unrelated phrase. Gold position uniform."""
    rng = random.Random(seed)
    texts, gold = [], []
    for _ in range(n):
        size = rng.randint(4, 7)
        g = _phrase(rng, size)
        if rng.random() < 0.55:
            others = []
            for _ in range(4):
                chars = list(g)
                for j in rng.sample(range(size), 2):
                    chars[j] = rng.choice(HANZI)
                others.append("".join(chars))
        else:
            others = [_phrase(rng, size) for _ in range(4)]
        at = rng.randrange(5)
        texts.append(tuple(others[:at] + [g] + others[at:]))
        gold.append(at)
    return texts, gold


def shared_characters_rule(texts: list[tuple[str, ...]], gold: list[int]) -> float:
    """Accuracy (0-100) of "the option sharing the most characters with its siblings", ties split."""
    total = 0.0
    for row, g in zip(texts, gold):
        shared = [sum(len(set(a) & set(b)) for j, b in enumerate(row) if j != i) for i, a in enumerate(row)]
        best = [i for i, s in enumerate(shared) if s == max(shared)]
        total += (g in best) / len(best)
    return 100.0 * total / len(texts)


def test_the_learned_probe_matches_the_sibling_overlap_rule_on_a_chinese_cloze_set() -> None:
    texts, gold = cloze_items()
    rule = shared_characters_rule(texts, gold)
    options = ev.Options.build(texts, gold)
    learned = 100.0 * float(solved(ev.fit_evaluate(options), options.grid.gold).mean())
    assert rule > 50, rule  # the rule finds the leak the set was built with
    assert learned >= rule - 1.0, (learned, rule)


def test_cjk_tokens_count_characters() -> None:
    assert tokens("以上都不对 A-B test") == ["以", "上", "都", "不", "对", "a", "b", "test"]
    sets = token_sets([tokens("你好"), tokens("你们好")])
    assert sets.shape[0] == 2 and sets[0].sum() == 3 and sets[1].sum() == 5  # 2+1 and 3+2 grams
    chars = char_sets(["ab  c", "xyz"], 3)
    assert chars[0].sum() == 2 and chars[1].sum() == 1  # "ab " and "b c": whitespace collapsed


def varying_items(n: int = 300, seed: int = 3) -> tuple[list[tuple[str, ...]], list[int]]:
    """2 to 6 options; the gold is the option with a number twice the others' (numeric cue)."""
    rng = random.Random(seed)
    texts, gold = [], []
    for _ in range(n):
        k = rng.randint(2, 6)
        base = rng.randint(10, 90)
        opts = [f"about {base + rng.randint(-5, 5)} units" for _ in range(k - 1)]
        at = rng.randrange(k)
        opts.insert(at, f"about {base * 3} units")
        texts.append(tuple(opts))
        gold.append(at)
    return texts, gold


def test_varying_k_is_padded_and_masked() -> None:
    texts, gold = varying_items()
    options = ev.Options.build(texts, gold)
    assert options.grid.width == 6 and list(options.grid.k) == [len(t) for t in texts]
    result = ev.fit_evaluate(options)
    k = options.grid.k
    padded = np.arange(6)[None, :] >= k[:, None]
    assert np.all(np.isneginf(result.scores[padded])) and np.all(result.probabilities[padded] == 0)
    assert np.allclose(result.probabilities.sum(axis=1), 1.0)
    assert np.all(result.predictions() < k)
    assert solved(result, options.grid.gold).mean() > 0.9  # the magnitude cue is learnt


def test_scores_follow_the_options_not_their_positions() -> None:
    texts, gold = varying_items(200)
    rng = random.Random(5)
    perms = [rng.sample(range(len(t)), len(t)) for t in texts]
    shuffled = [tuple(t[j] for j in p) for t, p in zip(texts, perms)]
    new_gold = [p.index(g) for p, g in zip(perms, gold)]
    a = ev.fit_evaluate(ev.Options.build(texts, gold))
    b = ev.fit_evaluate(ev.Options.build(shuffled, new_gold))
    for i, p in enumerate(perms):
        assert np.allclose(b.scores[i, :len(p)], a.scores[i, p], atol=1e-9)


def test_deterministic_and_train_test_never_reads_test_labels() -> None:
    texts, gold = varying_items(240)
    options = ev.Options.build(texts, gold)
    train, test = np.arange(0, 160), np.arange(160, 240)
    first = ev.fit_evaluate(options, train, test)
    assert np.array_equal(first.scores, ev.fit_evaluate(options, train, test).scores)
    flipped = list(gold)
    for i in test:
        flipped[i] = (flipped[i] + 1) % len(texts[i])
    other = ev.fit_evaluate(ev.Options.build(texts, flipped), train, test)
    assert np.array_equal(first.scores, other.scores) and first.evaluation == ev.TRAIN_TEST


def test_leak_scores_are_cross_fitted_probabilities_and_write_the_csv() -> None:
    texts, gold = cloze_items(300)
    ids = [f"q{i}" for i in range(300)]
    leak = leak_scores(texts, gold, ids)
    scores = np.array(leak.leak_score)
    assert leak.ids == tuple(ids) and np.all((scores > 0) & (scores < 1))
    lines = leak_csv(leak).decode().splitlines()
    assert lines[0] == ",".join(CSV_COLUMNS) and len(lines) == 301
    first = lines[1].split(",")
    assert first[0] == "q0" and float(first[1]) == pytest.approx(leak.leak_score[0], abs=1e-6)
    assert first[2] == str(int(leak.solvable[0]))
    assert leak.solvable_share == pytest.approx(100 * np.mean(leak.solvable))
    options = ev.Options.build(texts, gold)
    with pytest.raises(ValueError):
        leak_from(ev.fit_evaluate(options, np.arange(200), np.arange(200, 300)), options, ids)


def test_ablation_names_the_family_that_carries_the_signal() -> None:
    texts, gold = cloze_items(600)
    options = ev.Options.build(texts, gold)
    full = ev.fit_evaluate(options)
    result = ablation(options, float(np.median(full.alphas)))
    assert {a.group for a in result} == set(GROUPS)
    assert [a.drop for a in result] == sorted((a.drop for a in result), reverse=True)
    top = result[0]
    assert top.group == "similarity" and top.ci95_low > 0, result
    for a in result:
        assert a.ci95_low <= a.drop <= a.ci95_high
