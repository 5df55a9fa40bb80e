"""Mouse metrics on the paper's 0-1 scale, with seeded percentile bootstrap intervals.

Every statistic is computed from an index matrix: the point estimate from the identity
row, the interval from the resample matrices that `builder.stats.bootstrap` draws and
caches (same seed and item count -> the same resamples as every other bootstrap in the
site, so intervals are paired across models). One code path for both means a point value
always lies in the distribution its interval summarises.

Definitions (held to scikit-learn by tests/test_mouse_metrics.py):
- accuracy: share correct; an unparsed answer (None) is wrong.
- balanced accuracy: `balanced_accuracy_score`, mean recall over labels present in gold.
- macro-F1: `f1_score(labels=<task labels>, average="macro", zero_division=0)`; unparsed
  answers lower the gold label's recall but enter no label's precision.
- MCC: `matthews_corrcoef` with unparsed answers as one extra predicted label.
- QWK: `cohen_kappa_score(weights="quadratic", labels=[0, 1, 2])`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from builder.stats import UNPARSED, Interval, encode
from builder.stats.bootstrap import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, percentile_interval, row_counts
# Private on purpose: the shared, cached resample matrices and the option checks.
from builder.stats.bootstrap import _CHUNK_CELLS, _check_options, _index_chunks
from builder.benchmarks.mouse.labels import IR_LABELS, JUDGE_LABELS, RC_COMPONENTS, RC_LABELS, TD_LABELS
from builder.benchmarks.mouse.parsing import is_copy

Label = int | str
Stats = Callable[[np.ndarray], dict[str, np.ndarray]]


@dataclass(frozen=True)
class BootstrapOptions:
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL


DEFAULT_BOOTSTRAP = BootstrapOptions()


@dataclass(frozen=True)
class ClassScores:
    """One classification task (or RC component), 0-1 scale; MCC in [-1, 1].

    `intervals` is keyed by metric name ("accuracy", "balanced_accuracy", "macro_f1",
    "mcc", "f1_<label>") and is empty when no bootstrap was asked for.
    """

    labels: tuple[Label, ...]
    n: int
    unparsed: int
    accuracy: float
    balanced_accuracy: float
    macro_f1: float
    mcc: float
    f1: dict[Label, float]
    intervals: dict[str, Interval] = field(default_factory=dict)


@dataclass(frozen=True)
class RCScores:
    """Representational Components: per component, and averaged over the three."""

    components: dict[str, ClassScores]
    balanced_accuracy: float
    macro_f1: float
    intervals: dict[str, Interval] = field(default_factory=dict)


@dataclass(frozen=True)
class TranslationScores:
    """TR. `scores` are the final 0/1/2 per item after the copy and unparsed rules."""

    n: int
    missing: int  # no translation (the model call failed); scored 0
    copied: int  # translation equal to the source up to whitespace; scored 0
    judge_unparsed: int  # judge output without a final 分数：0/1/2; scored 0
    semantic_accuracy: float  # mean score / 2
    perfect_rate: float  # share of items scored 2
    scores: tuple[int, ...]
    intervals: dict[str, Interval] = field(default_factory=dict)


@dataclass(frozen=True)
class Agreement:
    """Judge vs human quadratic weighted kappa over the pairs where both scored."""

    n: int
    excluded: int  # pairs dropped because either score is missing/unparsed
    qwk: float  # nan when undefined (e.g. everyone gave the same score)
    intervals: dict[str, Interval] = field(default_factory=dict)


# ---------------------------------------------------------------- estimation core

def _identity(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.intp)[None, :]


def _estimate(stats: Stats, n: int, boot: BootstrapOptions | None
              ) -> tuple[dict[str, float], dict[str, Interval]]:
    """Point values (identity resample) and percentile intervals (shared resamples)."""
    point = {k: float(v[0]) for k, v in stats(_identity(n)).items()}
    if boot is None:
        return point, {}
    _check_options(boot.resamples, boot.level)
    parts = [stats(idx) for idx in _index_chunks(n, boot.resamples, boot.seed, _CHUNK_CELLS)]
    intervals = {}
    for key in point:
        values = np.concatenate([p[key] for p in parts])
        values = values[np.isfinite(values)]
        if values.size:
            intervals[key] = percentile_interval(values, boot.level)
    return point, intervals


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def confusions(g: np.ndarray, p: np.ndarray, k: int, idx: np.ndarray) -> np.ndarray:
    """(rows, k, k+1) confusion counts, one per row of `idx`; column k is 'unparsed'."""
    return row_counts((g * (k + 1) + p)[idx], k * (k + 1)).reshape(idx.shape[0], k, k + 1)


def confusion_metrics(conf: np.ndarray, labels: Sequence[Label]) -> dict[str, np.ndarray]:
    """All classification metrics for a batch of confusions (see module docstring)."""
    k = conf.shape[1]
    n = conf.sum(axis=(1, 2)).astype(float)
    tp = np.diagonal(conf, axis1=1, axis2=2).astype(float)
    support = conf.sum(axis=2).astype(float)
    predicted = conf.sum(axis=1).astype(float)  # k+1 columns, unparsed last
    present = support > 0
    recall = _ratio(tp, support)
    f1 = _ratio(2.0 * tp, predicted[:, :k] + support)
    correct = tp.sum(axis=1)
    cov_tp = correct * n - (support * predicted[:, :k]).sum(axis=1)
    cov_pp = n ** 2 - (predicted ** 2).sum(axis=1)
    cov_tt = n ** 2 - (support ** 2).sum(axis=1)
    out = {
        "accuracy": correct / n,
        "balanced_accuracy": (recall * present).sum(axis=1) / present.sum(axis=1),
        "macro_f1": f1.mean(axis=1),
        "mcc": _ratio(cov_tp, np.sqrt(cov_tt * cov_pp)),
    }
    out.update({f"f1_{label}": f1[:, i] for i, label in enumerate(labels)})
    return out


def encode_answers(gold: Sequence[Label], pred: Sequence[Label | None],
                   labels: Sequence[Label]) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..k-1 for labels and k for unparsed (None), via the shared `encode`."""
    known = set(labels)
    bad = sorted({repr(x) for x in pred if x is not None and x not in known})
    if bad:
        raise ValueError(f"predictions must be labels {tuple(labels)!r} or None, got {', '.join(bad[:10])}")
    return encode([str(x) for x in gold], [UNPARSED if x is None else str(x) for x in pred],
                  [str(x) for x in labels])


# ---------------------------------------------------------------- classification tasks

def score_classification(gold: Sequence[Label], pred: Sequence[Label | None], labels: Sequence[Label],
                         boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> ClassScores:
    labels = tuple(labels)
    g, p = encode_answers(gold, pred, labels)
    k = len(labels)
    point, intervals = _estimate(lambda idx: confusion_metrics(confusions(g, p, k, idx), labels), len(g), boot)
    return _class_scores(labels, len(g), int((p == k).sum()), point, intervals)


def _class_scores(labels: tuple[Label, ...], n: int, unparsed: int, point: dict[str, float],
                  intervals: dict[str, Interval], prefix: str = "") -> ClassScores:
    return ClassScores(
        labels=labels, n=n, unparsed=unparsed,
        accuracy=point[prefix + "accuracy"], balanced_accuracy=point[prefix + "balanced_accuracy"],
        macro_f1=point[prefix + "macro_f1"], mcc=point[prefix + "mcc"],
        f1={label: point[f"{prefix}f1_{label}"] for label in labels},
        intervals={k.removeprefix(prefix): v for k, v in intervals.items() if k.startswith(prefix)},
    )


def score_ir(gold: Sequence[int], pred: Sequence[int | None],
             boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> ClassScores:
    """IR: 8-class balanced accuracy and macro-F1 (labels 0-7), MCC."""
    return score_classification(gold, pred, IR_LABELS, boot)


def score_td(gold: Sequence[int], pred: Sequence[int | None],
             boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> ClassScores:
    """TD: accuracy and F1 of the toxic class (`.f1[1]`, interval "f1_1"), MCC."""
    return score_classification(gold, pred, TD_LABELS, boot)


def score_rc(gold: Mapping[str, Sequence[Label]], pred: Mapping[str, Sequence[Label | None]],
             boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> RCScores:
    """RC: three binary sub-tasks; balanced accuracy and macro-F1 per component and their
    mean. All components are resampled on the same items, so the mean's interval is honest."""
    for mapping, what in ((gold, "gold"), (pred, "pred")):
        if tuple(sorted(mapping)) != tuple(sorted(RC_COMPONENTS)):
            raise ValueError(f"{what} must have exactly the components {RC_COMPONENTS!r}, got {tuple(mapping)!r}")
    encoded = {c: encode_answers(gold[c], pred[c], RC_LABELS) for c in RC_COMPONENTS}
    sizes = {len(g) for g, _ in encoded.values()}
    if len(sizes) != 1:
        raise ValueError(f"components have different item counts: {sorted(sizes)}")

    def stats(idx: np.ndarray) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for c, (g, p) in encoded.items():
            out.update({f"{c}.{k}": v for k, v in confusion_metrics(confusions(g, p, 2, idx), RC_LABELS).items()})
        for metric in ("balanced_accuracy", "macro_f1"):
            out[metric] = np.mean([out[f"{c}.{metric}"] for c in RC_COMPONENTS], axis=0)
        return out

    point, intervals = _estimate(stats, sizes.pop(), boot)
    components = {c: _class_scores(RC_LABELS, len(g), int((p == 2).sum()), point, intervals, f"{c}.")
                  for c, (g, p) in encoded.items()}
    averaged = {k: v for k, v in intervals.items() if "." not in k}
    return RCScores(components, point["balanced_accuracy"], point["macro_f1"], averaged)


# ---------------------------------------------------------------- translation and judge

def translation_scores(sources: Sequence[str], translations: Sequence[str | None],
                       judge: Sequence[int | None]) -> tuple[int, ...]:
    """Final 0/1/2 per item: 0 for a missing translation, a copy of the source, or an
    unparsed judge verdict; otherwise the judge's score."""
    if not len(sources) == len(translations) == len(judge):
        raise ValueError("sources, translations and judge scores differ in length")
    bad = sorted({repr(j) for j in judge if j is not None and j not in JUDGE_LABELS})
    if bad:
        raise ValueError(f"judge scores must be 0, 1, 2 or None, got {', '.join(bad)}")
    return tuple(0 if t is None or not t.strip() or is_copy(s, t) or j is None else int(j)
                 for s, t, j in zip(sources, translations, judge))


def score_tr(sources: Sequence[str], translations: Sequence[str | None], judge: Sequence[int | None],
             boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> TranslationScores:
    """TR: Semantic Accuracy = mean score / 2; Perfect Rate = share of 2s."""
    scores = translation_scores(sources, translations, judge)
    missing = sum(1 for t in translations if t is None or not t.strip())
    copied = sum(1 for src, t in zip(sources, translations) if t is not None and t.strip() and is_copy(src, t))
    return tr_from_scores(scores, missing, copied, sum(1 for j in judge if j is None), boot)


def tr_from_scores(scores: Sequence[int], missing: int = 0, copied: int = 0, judge_unparsed: int = 0,
                   boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> TranslationScores:
    """TR metrics from final per-item scores (e.g. as stored in a Mouse run file)."""
    if not scores:
        raise ValueError("cannot score an empty set of items")
    if any(x not in JUDGE_LABELS for x in scores):
        raise ValueError("final TR scores must be 0, 1 or 2")
    s = np.asarray(scores, dtype=float)
    point, intervals = _estimate(
        lambda idx: {"semantic_accuracy": s[idx].mean(axis=1) / 2.0,
                     "perfect_rate": (s[idx] == 2.0).mean(axis=1)}, len(s), boot)
    return TranslationScores(len(s), missing, copied, judge_unparsed, point["semantic_accuracy"],
                             point["perfect_rate"], tuple(int(x) for x in scores), intervals)


def qwk_metrics(conf: np.ndarray) -> dict[str, np.ndarray]:
    """Quadratic weighted kappa per confusion (rows, 3, 3+1); nan where undefined."""
    k = len(JUDGE_LABELS)
    observed = conf[:, :, :k].astype(float)
    i, j = np.indices((k, k))
    weights = (i - j) ** 2.0
    rows, cols = observed.sum(axis=2), observed.sum(axis=1)
    n = observed.sum(axis=(1, 2))
    expected = rows[:, :, None] * cols[:, None, :] / n[:, None, None]
    num = (weights * observed).sum(axis=(1, 2))
    den = (weights * expected).sum(axis=(1, 2))
    kappa = np.full(conf.shape[0], np.nan)
    np.subtract(1.0, num / np.where(den > 0, den, 1.0), out=kappa, where=den > 0)
    return {"qwk": kappa}


def judge_agreement(judge: Sequence[int | None], human: Sequence[int | None],
                    boot: BootstrapOptions | None = DEFAULT_BOOTSTRAP) -> Agreement:
    """QWK of judge vs human scores; pairs with a missing score on either side are left
    out (and counted) because an unparsed verdict has no place on the 0-2 scale."""
    if len(judge) != len(human):
        raise ValueError(f"judge has {len(judge)} scores but human has {len(human)}")
    pairs = [(a, b) for a, b in zip(judge, human) if a is not None and b is not None]
    if not pairs:
        raise ValueError("no item has both a judge and a human score")
    a, b = encode_answers([x for x, _ in pairs], [y for _, y in pairs], JUDGE_LABELS)
    point, intervals = _estimate(lambda idx: qwk_metrics(confusions(a, b, 3, idx)), len(pairs), boot)
    return Agreement(len(pairs), len(judge) - len(pairs), point["qwk"], intervals)
