"""Metric engine: official scores vs scikit-learn and hand-worked cases,
vectorised bootstrap vs a naive sklearn loop, seed summaries."""

from __future__ import annotations

import dataclasses
import inspect
import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

import builder.stats.bootstrap as bootstrap_module
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION, TASK_LABELS, harmful_f1
from builder.stats import (
    UNPARSED,
    ClassificationReport,
    Interval,
    LabelScores,
    SeedSummary,
    bootstrap_intervals,
    classification_report,
    encode,
    metric_on_resamples,
    paired_bootstrap_difference,
    summarise_seeds,
)

T2, T3 = TASK_LABELS[EQUIVALENT_SELECTION], TASK_LABELS[HARMFULNESS_DETECTION]
APPROX = {"rel": 1e-12, "abs": 1e-12}


def sk_scores(gold, pred, labels):
    """The official definition, spelled out once for comparisons."""
    p, r, f, _ = precision_recall_fscore_support(
        gold, pred, labels=list(labels), average="macro", zero_division=0)
    return 100 * p, 100 * r, 100 * f


@st.composite
def gold_pred(draw, labels=T2, other=(UNPARSED,), max_size=60):
    n = draw(st.integers(1, max_size))
    gold = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    pred = draw(st.lists(st.sampled_from(tuple(labels) + tuple(other)), min_size=n, max_size=n))
    return gold, pred


def synthetic(n: int, accuracy: float, seed: int = 0, labels=T2):
    """A predictor right on ~`accuracy` of items, wrong or unparsed otherwise."""
    rng = np.random.default_rng(seed)
    gold = [labels[i] for i in rng.integers(0, len(labels), n)]
    pred = []
    for g in gold:
        u = rng.random()
        if u < accuracy:
            pred.append(g)
        elif u < accuracy + (1 - accuracy) * 0.2:
            pred.append(UNPARSED)
        else:
            pred.append(labels[(labels.index(g) + 1) % len(labels)])
    return gold, pred


# --- classification_report: hand-worked cases ---------------------------------

# gold A A A B C D / pred A A B B "" A:
#   A: tp=2 pred=3 true=3 -> P=R=F=2/3      B: tp=1 pred=2 true=1 -> P=1/2 R=1 F=2/3
#   C: tp=0 pred=0 true=1 -> 0,0,0 (the "" counts in no precision)   D: 0,0,0
HAND_GOLD = ["A", "A", "A", "B", "C", "D"]
HAND_PRED = ["A", "A", "B", "B", "", "A"]


def test_hand_worked_task2_six_items():
    rep = classification_report(HAND_GOLD, HAND_PRED, T2)
    assert rep.n == 6
    assert rep.accuracy == pytest.approx(50.0, **APPROX)
    assert rep.macro_precision == pytest.approx(100 * 7 / 24, **APPROX)
    assert rep.macro_recall == pytest.approx(100 * 5 / 12, **APPROX)
    assert rep.macro_f1 == pytest.approx(100 / 3, **APPROX)
    expected = {
        "A": (200 / 3, 200 / 3, 200 / 3, 3),
        "B": (50.0, 100.0, 200 / 3, 1),
        "C": (0.0, 0.0, 0.0, 1),
        "D": (0.0, 0.0, 0.0, 1),
    }
    for label, (p, r, f, s) in expected.items():
        got = rep.per_label[label]
        assert (got.precision, got.recall, got.f1) == pytest.approx((p, r, f), **APPROX)
        assert got.support == s
    assert rep.unparsed == 1


def test_hand_worked_confusion_layout():
    rep = classification_report(HAND_GOLD, HAND_PRED, T2)
    assert rep.confusion == (
        (2, 1, 0, 0, 0),   # gold A
        (0, 1, 0, 0, 0),   # gold B
        (0, 0, 0, 0, 1),   # gold C -> unparsed column
        (1, 0, 0, 0, 0),   # gold D
    )


def test_confusion_follows_label_order():
    rep = classification_report(HAND_GOLD, HAND_PRED, ("D", "C", "B", "A"))
    assert rep.confusion == (
        (0, 0, 0, 1, 0),
        (0, 0, 0, 0, 1),
        (0, 0, 1, 0, 0),
        (0, 0, 1, 2, 0),
    )
    assert list(rep.per_label) == ["D", "C", "B", "A"]
    assert rep.macro_f1 == pytest.approx(100 / 3, **APPROX)


def test_hand_worked_task3_harmful_f1():
    # harmful: tp=1 pred=2 true=3 -> F1 = 2/(2+3) = 0.4; non-harmful: tp=1 pred=2 true=2 -> 0.5
    gold = ["harmful", "harmful", "harmful", "non-harmful", "non-harmful"]
    pred = ["harmful", "non-harmful", "", "non-harmful", "harmful"]
    rep = classification_report(gold, pred, T3)
    assert harmful_f1(rep) == pytest.approx(40.0, **APPROX)
    assert rep.per_label["harmful"].precision == pytest.approx(50.0, **APPROX)
    assert rep.per_label["harmful"].recall == pytest.approx(100 / 3, **APPROX)
    assert rep.macro_f1 == pytest.approx(45.0, **APPROX)
    assert rep.accuracy == pytest.approx(40.0, **APPROX)
    assert rep.confusion == ((1, 1, 1), (1, 1, 0))


def test_harmful_f1_needs_task3_report():
    with pytest.raises(ValueError, match="harmful"):
        harmful_f1(classification_report(HAND_GOLD, HAND_PRED, T2))


def test_all_unparsed_scores_zero_and_fills_last_column():
    gold = ["A", "B", "B", "D"]
    rep = classification_report(gold, [UNPARSED] * 4, T2)
    assert (rep.accuracy, rep.macro_precision, rep.macro_recall, rep.macro_f1) == (0, 0, 0, 0)
    assert rep.unparsed == 4
    assert [row[-1] for row in rep.confusion] == [1, 2, 0, 1]


def test_absent_label_counts_zero_in_macro():
    rep = classification_report(["A", "B"], ["A", "B"], T2)
    assert rep.macro_f1 == pytest.approx(50.0, **APPROX)  # C and D score 0, as sklearn does
    assert rep.accuracy == 100.0


def test_scores_are_plain_python_numbers():
    rep = classification_report(HAND_GOLD, HAND_PRED, T2)
    for value in (rep.accuracy, rep.macro_precision, rep.macro_recall, rep.macro_f1):
        assert type(value) is float
    for scores in rep.per_label.values():
        assert all(type(v) is float for v in (scores.precision, scores.recall, scores.f1))
        assert type(scores.support) is int
    assert all(type(c) is int for row in rep.confusion for c in row)
    assert type(rep.unparsed) is int and type(rep.n) is int


def test_dataclasses_are_frozen():
    rep = classification_report(HAND_GOLD, HAND_PRED, T2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.accuracy = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.per_label["A"].f1 = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("gold", "pred", "labels", "match"),
    [
        (["A", "B"], ["A"], T2, "items"),
        ([], [], T2, "empty"),
        (["A", "E"], ["A", "A"], T2, "not in labels"),
        (["A", ""], ["A", "A"], T2, "not in labels"),
        (["harmful"], ["harmful"], T2, "not in labels"),
        (["A"], ["A"], (), "empty"),
        (["A"], ["A"], ("A", "A", "B"), "unique"),
        (["A"], ["A"], ("A", ""), "unparsed"),
    ],
)
def test_bad_input_raises(gold, pred, labels, match):
    with pytest.raises(ValueError, match=match):
        classification_report(gold, pred, labels)


# --- classification_report vs scikit-learn ------------------------------------

def test_small_fixture_matches_sklearn():
    gold = ["A", "B", "C", "D", "A", "B", "C", "D", "A", "C"]
    pred = ["A", "B", "D", "D", "", "A", "C", "", "A", "B"]
    rep = classification_report(gold, pred, T2)
    assert (rep.macro_precision, rep.macro_recall, rep.macro_f1) == pytest.approx(
        sk_scores(gold, pred, T2), **APPROX)
    assert rep.accuracy == pytest.approx(100 * accuracy_score(gold, pred), **APPROX)


@settings(max_examples=150, deadline=None)
@given(gold_pred())
def test_random_task2_matches_sklearn(data):
    gold, pred = data
    rep = classification_report(gold, pred, T2)
    assert (rep.macro_precision, rep.macro_recall, rep.macro_f1) == pytest.approx(
        sk_scores(gold, pred, T2), **APPROX)
    assert rep.accuracy == pytest.approx(100 * accuracy_score(gold, pred), **APPROX)
    p, r, f, s = precision_recall_fscore_support(gold, pred, labels=list(T2), zero_division=0)
    for i, label in enumerate(T2):
        got = rep.per_label[label]
        assert (got.precision, got.recall, got.f1) == pytest.approx(
            (100 * p[i], 100 * r[i], 100 * f[i]), **APPROX)
        assert got.support == s[i]
    sk_conf = confusion_matrix(gold, pred, labels=[*T2, UNPARSED])[: len(T2)]
    assert np.array_equal(np.array(rep.confusion), sk_conf)
    assert rep.unparsed == pred.count(UNPARSED)


@settings(max_examples=100, deadline=None)
@given(gold_pred(labels=T3))
def test_random_task3_matches_sklearn(data):
    gold, pred = data
    rep = classification_report(gold, pred, T3)
    assert rep.macro_f1 == pytest.approx(sk_scores(gold, pred, T3)[2], **APPROX)
    _, _, f, _ = precision_recall_fscore_support(
        gold, pred, labels=["harmful"], average=None, zero_division=0)
    assert harmful_f1(rep) == pytest.approx(100 * f[0], **APPROX)


@settings(max_examples=100, deadline=None)
@given(gold_pred())
def test_random_matches_independent_counting(data):
    """Guards against sklearn being called with the wrong options (e.g. no labels=)."""
    gold, pred = data
    rep = classification_report(gold, pred, T2)
    f1s = []
    for label in T2:
        tp = sum(g == p == label for g, p in zip(gold, pred))
        n_pred, n_true = pred.count(label), gold.count(label)
        prec = tp / n_pred if n_pred else 0.0
        rec = tp / n_true if n_true else 0.0
        f1 = 2 * tp / (n_pred + n_true) if n_pred + n_true else 0.0
        got = rep.per_label[label]
        assert (got.precision, got.recall, got.f1) == pytest.approx(
            (100 * prec, 100 * rec, 100 * f1), **APPROX)
        f1s.append(f1)
    assert rep.macro_f1 == pytest.approx(100 * sum(f1s) / len(T2), **APPROX)
    assert sum(map(sum, rep.confusion)) == len(gold)
    assert rep.accuracy == pytest.approx(
        100 * sum(rep.confusion[i][i] for i in range(len(T2))) / len(gold), **APPROX)


@settings(max_examples=50, deadline=None)
@given(gold_pred(other=(UNPARSED, "E", "none", "a")))
def test_other_predictions_behave_like_unparsed(data):
    gold, pred = data
    as_unparsed = [p if p in T2 else UNPARSED for p in pred]
    rep, ref = classification_report(gold, pred, T2), classification_report(gold, as_unparsed, T2)
    assert rep == ref
    assert rep.unparsed == sum(p not in T2 for p in pred)


# --- bootstrap: vectorised core vs sklearn ------------------------------------

@settings(max_examples=100, deadline=None)
@given(gold_pred())
def test_identity_resample_equals_point_estimate(data):
    gold, pred = data
    g, p = encode(gold, pred, T2)
    out = metric_on_resamples(g, p, np.arange(len(g))[None, :], len(T2))
    rep = classification_report(gold, pred, T2)
    assert out["macro_f1"][0] == pytest.approx(rep.macro_f1, **APPROX)
    assert out["accuracy"][0] == pytest.approx(rep.accuracy, **APPROX)


@settings(max_examples=100, deadline=None)
@given(gold_pred(max_size=30), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_resample_rows_match_sklearn(data, rows, seed):
    gold, pred = data
    idx = np.random.default_rng(seed).integers(0, len(gold), size=(rows, len(gold)))
    g, p = encode(gold, pred, T2)
    out = metric_on_resamples(g, p, idx, len(T2))
    assert out["macro_f1"].shape == out["accuracy"].shape == (rows,)
    for r in range(rows):
        gs, ps = [gold[i] for i in idx[r]], [pred[i] for i in idx[r]]
        assert out["macro_f1"][r] == pytest.approx(sk_scores(gs, ps, T2)[2], **APPROX)
        assert out["accuracy"][r] == pytest.approx(100 * accuracy_score(gs, ps), **APPROX)


def naive_bootstrap(gold, pred, labels, resamples, seed, level):
    """Textbook loop with sklearn per resample, same draws as the engine."""
    idx = np.random.default_rng(seed).integers(0, len(gold), size=(resamples, len(gold)))
    acc, f1 = [], []
    for row in idx:
        gs, ps = [gold[i] for i in row], [pred[i] for i in row]
        acc.append(100 * accuracy_score(gs, ps))
        f1.append(sk_scores(gs, ps, labels)[2])
    tail = (1 - level) / 2
    return {"accuracy": np.quantile(acc, [tail, 1 - tail]),
            "macro_f1": np.quantile(f1, [tail, 1 - tail])}


def test_bootstrap_matches_naive_sklearn_loop():
    gold, pred = synthetic(40, 0.6, seed=3)
    got = bootstrap_intervals(gold, pred, T2, resamples=150, seed=11, level=0.9)
    ref = naive_bootstrap(gold, pred, T2, 150, 11, 0.9)
    for m in ("accuracy", "macro_f1"):
        assert (got[m].low, got[m].high) == pytest.approx(tuple(ref[m]), **APPROX)
        assert got[m].level == 0.9


def test_chunking_does_not_change_results(monkeypatch):
    gold, pred = synthetic(50, 0.7, seed=4)
    whole = bootstrap_intervals(gold, pred, T2, resamples=333, seed=5)
    monkeypatch.setattr(bootstrap_module, "_CHUNK_CELLS", 50 * 7)  # 7 rows per chunk, ragged tail
    assert bootstrap_intervals(gold, pred, T2, resamples=333, seed=5) == whole
    monkeypatch.setattr(bootstrap_module, "_CHUNK_CELLS", 1)  # one row per chunk
    assert bootstrap_intervals(gold, pred, T2, resamples=333, seed=5) == whole


# --- bootstrap: behaviour ------------------------------------------------------

def test_bootstrap_deterministic_for_seed():
    gold, pred = synthetic(200, 0.6)
    a = bootstrap_intervals(gold, pred, T2, resamples=500, seed=7)
    assert a == bootstrap_intervals(gold, pred, T2, resamples=500, seed=7)
    assert a != bootstrap_intervals(gold, pred, T2, resamples=500, seed=8)
    assert set(a) == {"accuracy", "macro_f1"}
    assert all(isinstance(v, Interval) and type(v.low) is float for v in a.values())


def test_bootstrap_defaults():
    params = inspect.signature(bootstrap_intervals).parameters
    assert params["resamples"].default == 2000
    assert params["seed"].default == 20260922
    assert params["level"].default == 0.95
    gold, pred = synthetic(100, 0.6)
    assert bootstrap_intervals(gold, pred, T2) == bootstrap_intervals(
        gold, pred, T2, resamples=2000, seed=20260922, level=0.95)


def test_interval_contains_point_estimate():
    for labels in (T2, T3):
        gold, pred = synthetic(400, 0.65, seed=1, labels=labels)
        rep = classification_report(gold, pred, labels)
        ci = bootstrap_intervals(gold, pred, labels)
        assert ci["accuracy"].low < rep.accuracy < ci["accuracy"].high
        assert ci["macro_f1"].low < rep.macro_f1 < ci["macro_f1"].high
        assert 0 <= ci["macro_f1"].low and ci["macro_f1"].high <= 100


def test_width_shrinks_with_n():
    def widths(n):
        gold, pred = synthetic(n, 0.6, seed=2)
        ci = bootstrap_intervals(gold, pred, T2, resamples=1000)
        return {m: ci[m].high - ci[m].low for m in ci}

    small, large = widths(100), widths(2500)
    for m in ("accuracy", "macro_f1"):
        assert large[m] < small[m] / 3  # ~ 1/sqrt(25) = 1/5 in theory


def test_higher_level_gives_wider_interval():
    gold, pred = synthetic(300, 0.6)
    narrow = bootstrap_intervals(gold, pred, T2, level=0.5)
    wide = bootstrap_intervals(gold, pred, T2, level=0.99)
    for m in ("accuracy", "macro_f1"):
        assert wide[m].low < narrow[m].low < narrow[m].high < wide[m].high


def test_single_resample_gives_degenerate_interval():
    gold, pred = synthetic(30, 0.6)
    ci = bootstrap_intervals(gold, pred, T2, resamples=1)
    assert all(v.low == v.high for v in ci.values())


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"resamples": 0}, "resamples"),
    ({"resamples": -5}, "resamples"),
    ({"resamples": 10.5}, "resamples"),
    ({"level": 0.0}, "level"),
    ({"level": 1.0}, "level"),
    ({"level": 95}, "level"),
])
def test_bootstrap_rejects_bad_options(kwargs, match):
    gold, pred = synthetic(20, 0.5)
    with pytest.raises(ValueError, match=match):
        bootstrap_intervals(gold, pred, T2, **kwargs)
    with pytest.raises(ValueError, match=match):
        paired_bootstrap_difference(gold, pred, pred, T2, **kwargs)


def test_bootstrap_rejects_bad_data():
    with pytest.raises(ValueError):
        bootstrap_intervals(["A", "B"], ["A"], T2)
    with pytest.raises(ValueError):
        bootstrap_intervals(["A", "X"], ["A", "A"], T2)
    with pytest.raises(ValueError):
        paired_bootstrap_difference(["A", "B"], ["A", "B"], ["A"], T2)


def test_paired_difference_with_itself_is_exactly_zero():
    gold, pred = synthetic(300, 0.6)
    diff = paired_bootstrap_difference(gold, pred, pred, T2)
    for m in ("accuracy", "macro_f1"):
        assert (diff[m].low, diff[m].high) == (0.0, 0.0)
        assert diff[m].level == 0.95


def test_paired_difference_matches_naive_loop():
    gold, a = synthetic(40, 0.7, seed=5)
    _, b = synthetic(40, 0.5, seed=6)
    got = paired_bootstrap_difference(gold, a, b, T2, resamples=100, seed=3)
    idx = np.random.default_rng(3).integers(0, 40, size=(100, 40))
    acc, f1 = [], []
    for row in idx:
        gs = [gold[i] for i in row]
        sa, sb = [a[i] for i in row], [b[i] for i in row]
        acc.append(100 * (accuracy_score(gs, sa) - accuracy_score(gs, sb)))
        f1.append(sk_scores(gs, sa, T2)[2] - sk_scores(gs, sb, T2)[2])
    for m, vals in (("accuracy", acc), ("macro_f1", f1)):
        assert (got[m].low, got[m].high) == pytest.approx(
            tuple(np.quantile(vals, [0.025, 0.975])), **APPROX)


def test_paired_difference_sign_and_pairing_benefit():
    gold, a = synthetic(500, 0.75, seed=9)
    b = list(a)
    for i in range(0, 500, 10):  # b breaks 10% of items: a strictly better
        b[i] = UNPARSED
    diff = paired_bootstrap_difference(gold, a, b, T2)
    assert diff["accuracy"].low > 0 and diff["macro_f1"].low > 0
    rev = paired_bootstrap_difference(gold, b, a, T2)
    assert rev["accuracy"].high < 0
    # Pairing cancels shared item noise: unpaired, the difference would be ~1.4x
    # wider than a single run's interval; paired, it is narrower.
    own = bootstrap_intervals(gold, a, T2)["accuracy"]
    assert diff["accuracy"].high - diff["accuracy"].low < own.high - own.low


# --- seeds -----------------------------------------------------------------------

def test_seed_summary_hand_worked():
    s = summarise_seeds({7: 9.0, 1: 2.0, 3: 4.0, 2: 4.0, 5: 4.0, 4: 5.0, 6: 5.0, 0: 7.0})
    assert s.mean == pytest.approx(5.0, **APPROX)
    assert s.sd == pytest.approx(math.sqrt(32 / 7), **APPROX)  # sample sd, not sqrt(32/8)
    assert s.n == 8
    assert list(s.values) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert s.values[7] == 9.0


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(-10**6, 10**6),
                       st.floats(0, 100, allow_nan=False), min_size=2, max_size=20))
def test_seed_summary_vs_statistics(values):
    s = summarise_seeds(values)
    assert s.mean == pytest.approx(statistics.fmean(values.values()), rel=1e-9, abs=1e-9)
    assert s.sd == pytest.approx(statistics.stdev(values.values()), rel=1e-9, abs=1e-9)
    assert s.sd == pytest.approx(float(np.std(list(values.values()), ddof=1)), rel=1e-6, abs=1e-9)
    assert s.n == len(values)
    assert list(s.values) == sorted(values)


def test_single_seed_has_no_sd():
    s = summarise_seeds({42: 61.5})
    assert s == SeedSummary(mean=61.5, sd=None, n=1, values={42: 61.5})


@pytest.mark.parametrize("values", [{}, {1: float("nan"), 2: 3.0}, {1: float("inf")}])
def test_seed_summary_rejects_bad_values(values):
    with pytest.raises(ValueError):
        summarise_seeds(values)


def test_public_types_exported():
    assert dataclasses.is_dataclass(LabelScores) and dataclasses.is_dataclass(ClassificationReport)
    assert UNPARSED == "" and T2 == ("A", "B", "C", "D") and T3 == ("harmful", "non-harmful")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(2, 16), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_counted_resamples_equal_the_index_confusion_matrices_bit_for_bit(n, k, resamples, seed):
    """The bootstrap counts each resample's items (multiplicities x 0/1 columns); the same draws as
    index matrices through metric_on_resamples give the same figures, every bit, for two paired
    predictors with unparsed answers (code k) among them."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, k, n)
    preds = [np.where(rng.random(n) < 0.5, g, rng.integers(0, k + 1, n)), rng.integers(0, k + 1, n)]
    got = bootstrap_module._resampled(g, preds, k, resamples, seed)
    for p, counted in zip(preds, got):
        parts = [metric_on_resamples(g, p, idx, k)
                 for idx in bootstrap_module._draw(n, resamples, seed, bootstrap_module._CHUNK_CELLS)]
        for m in ("accuracy", "macro_f1"):
            assert np.array_equal(counted[m], np.concatenate([part[m] for part in parts]))
