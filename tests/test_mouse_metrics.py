"""Mouse metrics: hand-worked cases, scikit-learn on fixtures and random inputs, and the
vectorised bootstrap against a naive per-resample scikit-learn loop."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import (accuracy_score, balanced_accuracy_score, cohen_kappa_score, f1_score,
                             matthews_corrcoef)

from builder.stats.bootstrap import _CHUNK_CELLS, _index_chunks
from builder.benchmarks.mouse.importer import import_icc, import_judge, import_main, import_single_choice
from builder.benchmarks.mouse.labels import IR_LABELS, MS_LABELS, RC_COMPONENTS, TD_LABELS
from builder.benchmarks.mouse.analyses.metrics import (BootstrapOptions, judge_agreement, score_classification,
                                                      score_ir, score_rc, score_td, score_tr, tr_from_scores,
                                                      translation_scores)

FIXTURES = Path(__file__).parent / "fixtures" / "mouse"
APPROX = {"rel": 1e-12, "abs": 1e-12}
SENTINEL = "<unparsed>"  # how unparsed answers are shown to scikit-learn


def sk(gold, pred, labels):
    """The reference definitions, spelled out once."""
    g = [str(x) for x in gold]
    p = [SENTINEL if x is None else str(x) for x in pred]
    labs = [str(x) for x in labels]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
        return {
            "accuracy": accuracy_score(g, p),
            "balanced_accuracy": balanced_accuracy_score(g, p),
            "macro_f1": f1_score(g, p, labels=labs, average="macro", zero_division=0),
            "mcc": matthews_corrcoef(g, p),
            "f1": dict(zip(labels, f1_score(g, p, labels=labs, average=None, zero_division=0))),
        }


def assert_matches_sklearn(scores, gold, pred, labels):
    ref = sk(gold, pred, labels)
    for metric in ("accuracy", "balanced_accuracy", "macro_f1", "mcc"):
        assert getattr(scores, metric) == pytest.approx(ref[metric], **APPROX), metric
    for label in labels:
        assert scores.f1[label] == pytest.approx(ref["f1"][label], **APPROX)
    assert scores.unparsed == sum(1 for x in pred if x is None)


# ------------------------------------------------------------------ worked by hand

def test_td_by_hand():
    gold = [1, 1, 1, 0, 0, 0]
    pred = [1, 1, None, 1, 0, 0]
    s = score_td(gold, pred, boot=None)
    # correct: items 0, 1, 4, 5 -> accuracy 4/6
    assert s.accuracy == pytest.approx(4 / 6)
    # toxic (1): tp=2, predicted 1 three times (0, 1, 3), gold 1 three times -> F1 = 2*2/(3+3) = 2/3
    assert s.f1[1] == pytest.approx(2 / 3)
    # non-toxic (0): tp=2, predicted 0 twice, gold 0 three times -> F1 = 2*2/(2+3) = 4/5
    assert s.f1[0] == pytest.approx(4 / 5)
    assert s.macro_f1 == pytest.approx((2 / 3 + 4 / 5) / 2)
    # recall(1) = 2/3, recall(0) = 2/3 -> balanced accuracy 2/3
    assert s.balanced_accuracy == pytest.approx(2 / 3)
    # MCC with the unparsed answer as a third predicted label:
    # n=6, correct=4, gold counts t=(3, 3), predicted counts p=(2, 3, 1 unparsed)
    # cov(y,p) = 4*6 - (3*2 + 3*3) = 9; cov(p,p) = 36 - (4+9+1) = 22; cov(y,y) = 36 - 18 = 18
    assert s.mcc == pytest.approx(9 / math.sqrt(22 * 18))
    assert s.unparsed == 1


def test_ir_by_hand_absent_classes():
    gold = [0, 0, 3, 3, 7]
    pred = [0, 3, 3, None, 5]
    s = score_ir(gold, pred, boot=None)
    # recall: class 0 = 1/2, class 3 = 1/2, class 7 = 0; classes absent from gold are skipped
    assert s.balanced_accuracy == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    # F1: class 0: tp 1, pred 1, gold 2 -> 2/3; class 3: tp 1, pred 2, gold 2 -> 1/2;
    # class 5: pred 1, gold 0 -> 0; classes 1, 2, 4, 6, 7 -> 0; macro over all 8 labels
    assert s.macro_f1 == pytest.approx((2 / 3 + 1 / 2) / 8)
    assert s.accuracy == pytest.approx(2 / 5)


def test_rc_by_hand():
    gold = {"homophonic": [1, 0, 1, 0], "semantic": [1, 1, 1, 1], "visual": [0, 0, 1, 1]}
    pred = {"homophonic": [1, 0, 1, 0], "semantic": [1, 1, 0, None], "visual": [1, 1, 1, 1]}
    s = score_rc(gold, pred, boot=None)
    # homophonic: perfect -> balanced accuracy 1, macro-F1 1
    # semantic: only class 1 in gold, recall 2/4 -> balanced accuracy 1/2;
    #   F1(1) = 2*2/(2+4) = 2/3, F1(0) = 0 (predicted once, never gold) -> macro 1/3
    # visual: recall(0) = 0, recall(1) = 1 -> 1/2; F1(1) = 2*2/(4+2) = 2/3, F1(0) = 0 -> 1/3
    assert s.components["semantic"].balanced_accuracy == pytest.approx(0.5)
    assert s.components["visual"].macro_f1 == pytest.approx(1 / 3)
    assert s.balanced_accuracy == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert s.macro_f1 == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)
    assert s.components["semantic"].unparsed == 1
    # MCC: semantic gold has one class -> undefined -> 0 (scikit-learn's convention)
    assert s.components["semantic"].mcc == 0.0


def test_tr_by_hand():
    sources = ["源一", "源二", "源三", "源四", "源五"]
    translations = ["译一", "源 二", None, "译四", "译五"]
    judge = [2, 2, 2, None, 1]
    s = score_tr(sources, translations, judge, boot=None)
    # item 2 copies its source (whitespace aside) -> 0; item 3 missing -> 0; item 4 judge unparsed -> 0
    assert s.scores == (2, 0, 0, 0, 1)
    # Semantic Accuracy = mean(2, 0, 0, 0, 1) / 2 = (3/5)/2 = 0.3; Perfect Rate = 1/5
    assert s.semantic_accuracy == pytest.approx(0.3)
    assert s.perfect_rate == pytest.approx(0.2)
    assert (s.missing, s.copied, s.judge_unparsed) == (1, 1, 1)


def test_qwk_by_hand():
    judge = [0, 1, 2, 2]
    human = [0, 2, 2, 1]
    # observed pairs (judge, human): (0,0) (1,2) (2,2) (2,1); weights (i-j)^2: 0, 1, 0, 1 -> sum 2
    # row totals (judge) = (1, 1, 2), column totals (human) = (1, 1, 2), n = 4
    # expected E_ij = r_i c_j / 4; sum w*E = (1/4) * sum_ij (i-j)^2 r_i c_j
    #   = (1/4) * [r0(c1*1 + c2*4) + r1(c0*1 + c2*1) + r2(c0*4 + c1*1)]
    #   = (1/4) * [1*(1+8) + 1*(1+2) + 2*(4+1)] = (1/4) * 22 = 5.5
    # QWK = 1 - 2/5.5 = 7/11
    a = judge_agreement(judge, human, boot=None)
    assert a.qwk == pytest.approx(7 / 11)
    assert a.qwk == pytest.approx(cohen_kappa_score(judge, human, weights="quadratic"))


def test_qwk_skips_unscored_pairs_and_is_nan_without_spread():
    a = judge_agreement([2, None, 1, 2], [2, 1, None, 2], boot=None)
    assert (a.n, a.excluded) == (2, 2)
    assert math.isnan(a.qwk)  # both raters gave only 2s: kappa undefined, as in scikit-learn


# ------------------------------------------------------------------ scikit-learn on fixtures

def test_fixture_results_match_sklearn():
    main = import_main(FIXTURES / "outputs" / "main_eval.csv")
    for result in (main.td, main.ir, *main.rc.values()):
        assert_matches_sklearn(result.score(boot=None), result.gold, result.predictions, result.labels)
    rc = main.score_rc(boot=None)
    for c in RC_COMPONENTS:
        ref = sk(main.rc[c].gold, main.rc[c].predictions, (0, 1))
        assert rc.components[c].balanced_accuracy == pytest.approx(ref["balanced_accuracy"], **APPROX)
    for choice in (import_single_choice(FIXTURES / "outputs" / "single_choice.csv"),
                   import_icc(FIXTURES / "outputs" / "icc.csv")):
        r = choice.result
        assert_matches_sklearn(r.score(boot=None), r.gold, r.predictions, r.labels)
    judge = import_judge(FIXTURES / "outputs" / "judge.csv")
    pairs = [(i.judge, i.human) for i in judge.items if i.judge is not None and i.human is not None]
    assert judge.agreement(boot=None).qwk == pytest.approx(
        cohen_kappa_score(*zip(*pairs), weights="quadratic", labels=[0, 1, 2]), **APPROX)


# ------------------------------------------------------------------ scikit-learn on random inputs

@st.composite
def answers(draw, labels, max_size=40):
    n = draw(st.integers(1, max_size))
    gold = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    pred = draw(st.lists(st.sampled_from((*labels, None)), min_size=n, max_size=n))
    return gold, pred


# scikit-learn takes ~30 ms per example here, so example counts are kept modest.
@given(answers(IR_LABELS))
@settings(max_examples=40, deadline=None)
def test_ir_matches_sklearn(data):
    gold, pred = data
    assert_matches_sklearn(score_ir(gold, pred, boot=None), gold, pred, IR_LABELS)


@given(answers(TD_LABELS))
@settings(max_examples=40, deadline=None)
def test_td_matches_sklearn(data):
    # the toxic-class F1 is `f1[1]`, checked against f1_score(labels=["1"], average=None)
    gold, pred = data
    assert_matches_sklearn(score_td(gold, pred, boot=None), gold, pred, TD_LABELS)


@given(answers(MS_LABELS))
@settings(max_examples=30, deadline=None)
def test_ms_matches_sklearn(data):
    gold, pred = data
    assert_matches_sklearn(score_classification(gold, pred, MS_LABELS, boot=None), gold, pred, MS_LABELS)


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))))
@settings(max_examples=80, deadline=None)
def test_qwk_matches_sklearn(pair):
    judge, human = pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = cohen_kappa_score(judge, human, weights="quadratic", labels=[0, 1, 2])
    got = judge_agreement(judge, human, boot=None).qwk
    assert (math.isnan(got) and math.isnan(ref)) or got == pytest.approx(ref, rel=1e-9, abs=1e-12)


# ------------------------------------------------------------------ bootstrap

def _resample_rows(n, boot):
    return np.concatenate(_index_chunks(n, boot.resamples, boot.seed, _CHUNK_CELLS))


def _percentiles(values, level):
    tail = (1 - level) / 2
    return tuple(np.quantile(values, [tail, 1 - tail]))


def test_bootstrap_matches_naive_sklearn_loop():
    rng = np.random.default_rng(7)
    gold = [int(x) for x in rng.integers(0, 8, 60)]
    pred = [None if rng.random() < 0.1 else int(x) for x in rng.integers(0, 8, 60)]
    boot = BootstrapOptions(resamples=40, seed=11)
    s = score_ir(gold, pred, boot=boot)
    rows = _resample_rows(len(gold), boot)
    naive = {m: [] for m in ("accuracy", "balanced_accuracy", "macro_f1", "mcc")}
    for idx in rows:
        ref = sk([gold[i] for i in idx], [pred[i] for i in idx], IR_LABELS)
        for m in naive:
            naive[m].append(ref[m])
    for m, values in naive.items():
        low, high = _percentiles(values, boot.level)
        assert s.intervals[m].low == pytest.approx(low, **APPROX), m
        assert s.intervals[m].high == pytest.approx(high, **APPROX), m


def test_rc_average_interval_is_over_paired_resamples():
    rng = np.random.default_rng(3)
    n = 40
    gold = {c: [int(x) for x in rng.integers(0, 2, n)] for c in RC_COMPONENTS}
    pred = {c: [int(x) for x in rng.integers(0, 2, n)] for c in RC_COMPONENTS}
    boot = BootstrapOptions(resamples=50, seed=5)
    s = score_rc(gold, pred, boot=boot)
    averages = [np.mean([balanced_accuracy_score([gold[c][i] for i in idx], [pred[c][i] for i in idx])
                         for c in RC_COMPONENTS]) for idx in _resample_rows(n, boot)]
    assert (s.intervals["balanced_accuracy"].low, s.intervals["balanced_accuracy"].high) == \
        pytest.approx(_percentiles(averages, boot.level))
    assert set(s.components["visual"].intervals) >= {"balanced_accuracy", "macro_f1", "mcc"}


def test_tr_and_qwk_intervals_match_naive_loop():
    scores = [2, 0, 1, 2, 2, 0, 1, 1, 2, 0]
    boot = BootstrapOptions(resamples=80, seed=9)
    s = tr_from_scores(scores, boot=boot)
    rows = _resample_rows(len(scores), boot)
    sem = [np.mean([scores[i] for i in idx]) / 2 for idx in rows]
    assert (s.intervals["semantic_accuracy"].low, s.intervals["semantic_accuracy"].high) == \
        pytest.approx(_percentiles(sem, boot.level))
    human = [2, 1, 1, 2, 1, 0, 1, 2, 2, 0]
    a = judge_agreement(scores, human, boot=boot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappas = np.array([cohen_kappa_score([scores[i] for i in idx], [human[i] for i in idx],
                                             weights="quadratic", labels=[0, 1, 2]) for idx in rows])
    kappas = kappas[np.isfinite(kappas)]
    assert (a.intervals["qwk"].low, a.intervals["qwk"].high) == pytest.approx(_percentiles(kappas, boot.level))


def test_bootstrap_is_seeded():
    gold = [0, 1] * 20
    pred = [0, 1, 1, 0, None] * 8
    a = score_td(gold, pred, boot=BootstrapOptions(200, seed=1))
    b = score_td(gold, pred, boot=BootstrapOptions(200, seed=1))
    c = score_td(gold, pred, boot=BootstrapOptions(200, seed=2))
    assert a.intervals == b.intervals
    assert a.intervals != c.intervals
    assert a.intervals["accuracy"].low <= a.accuracy <= a.intervals["accuracy"].high


def test_default_bootstrap_is_2000_resamples_95_percent():
    s = score_td([0, 1, 1, 0], [0, 1, 0, 0])
    assert s.intervals["f1_1"].level == 0.95


@pytest.mark.parametrize("boot", [BootstrapOptions(0), BootstrapOptions(10, level=1.0)])
def test_bad_bootstrap_options(boot):
    with pytest.raises(ValueError):
        score_td([0, 1], [0, 1], boot=boot)


# ------------------------------------------------------------------ input checks

def test_invalid_inputs_are_rejected():
    with pytest.raises(ValueError, match="predictions must be labels"):
        score_td([0, 1], [0, 2], boot=None)
    with pytest.raises(ValueError, match="gold values not in labels"):
        score_td([0, 3], [0, 1], boot=None)
    with pytest.raises(ValueError, match="empty"):
        score_td([], [], boot=None)
    with pytest.raises(ValueError, match="components"):
        score_rc({"homophonic": [1]}, {"homophonic": [1]}, boot=None)
    with pytest.raises(ValueError, match="judge scores"):
        translation_scores(["a"], ["b"], [3])
    with pytest.raises(ValueError):
        judge_agreement([None], [1], boot=None)


def test_classification_scores_only_the_given_labels():
    s = score_classification(["A", "D", "B"], ["A", None, "C"], ("A", "B", "C", "D"), boot=None)
    assert s.labels == ("A", "B", "C", "D")
    assert s.accuracy == pytest.approx(1 / 3)
    assert score_classification(["A"], ["A"], ("A", "B"), boot=None).accuracy == 1.0

def test_every_percentile_interval_is_the_stats_layers() -> None:
    """One interval rule (builder.stats.bootstrap.percentile_interval): no module outside
    builder/stats takes quantiles of bootstrap draws itself, Mouse's metrics included."""
    import ast
    builder = Path(__file__).resolve().parents[1] / "builder"
    own = []
    for path in sorted(builder.rglob("*.py")):
        if path.parent.name == "stats" and path.parent.parent == builder:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("quantile", "nanquantile", "percentile",
                                                                 "nanpercentile"):
                own.append(f"{path.relative_to(builder)}:{node.lineno}")
    assert own == []
