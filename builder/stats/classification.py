"""Point metrics of a classification over an explicit label set (a benchmark names its own).

scikit-learn's `precision_recall_fscore_support` (explicit labels, macro,
zero_division=0) defines the official scores; this module reproduces it from
confusion counts and the tests hold it to sklearn on fixed and random inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# An answer the parser could not map to a label. It stays in the data as a wrong
# answer: it lowers the gold label's recall but enters no label's precision.
UNPARSED = ""


@dataclass(frozen=True)
class LabelScores:
    """One label's scores on the 0-100 scale, as in the official tables."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class ClassificationReport:
    """Everything the report pages show for one run.

    `confusion` rows are gold labels in `labels` order; columns are predicted
    labels in the same order plus a last column for unparsed/other predictions;
    `unparsed` is that column's total (any prediction outside `labels`).
    """

    labels: tuple[str, ...]
    n: int
    accuracy: float
    macro_precision: float
    macro_recall: float
    macro_f1: float
    per_label: dict[str, LabelScores]
    confusion: tuple[tuple[int, ...], ...]
    unparsed: int


def check_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Reject label sets that would silently change the macro average."""
    out = tuple(labels)
    if not out:
        raise ValueError("labels must not be empty")
    if len(set(out)) != len(out):
        raise ValueError(f"labels must be unique, got {out!r}")
    if UNPARSED in out:
        raise ValueError("the unparsed marker '' cannot be a label")
    return out


def encode(gold: Sequence[str], pred: Sequence[str],
           labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Map labels to 0..K-1 and any other prediction to K (one shared encoding
    keeps the point estimate and the bootstrap consistent)."""
    labels = check_labels(labels)
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} items but pred has {len(pred)}")
    if len(gold) == 0:
        raise ValueError("cannot score an empty set of items")
    index = {label: i for i, label in enumerate(labels)}
    bad = sorted({repr(g) for g in gold if g not in index})
    if bad:
        raise ValueError(f"gold values not in labels {labels!r}: {', '.join(bad[:10])}")
    other = len(labels)
    g = np.fromiter((index[x] for x in gold), dtype=np.intp, count=len(gold))
    p = np.fromiter((index.get(x, other) for x in pred), dtype=np.intp, count=len(pred))
    return g, p


def confusion_counts(g: np.ndarray, p: np.ndarray, k: int) -> np.ndarray:
    """K x (K+1) confusion from encoded arrays; the extra column is 'other'."""
    return np.bincount(g * (k + 1) + p, minlength=k * (k + 1)).reshape(k, k + 1)


def classification_report(gold: Sequence[str], pred: Sequence[str],
                          labels: Sequence[str]) -> ClassificationReport:
    """Official scores (x100) plus the per-label and confusion breakdown.

    Computed from the confusion counts rather than by calling scikit-learn: a site
    build scores hundreds of (run, category) slices and sklearn's input checks cost
    ~10 ms each. The tests hold this to `precision_recall_fscore_support(...,
    zero_division=0)` with explicit labels, the official definition.
    """
    labels = check_labels(labels)
    g, p = encode(gold, pred, labels)
    k = len(labels)
    confusion = confusion_counts(g, p, k)
    tp = np.diagonal(confusion).astype(float)
    predicted = confusion[:, :k].sum(axis=0).astype(float)
    support = confusion.sum(axis=1)
    prec = _ratio(tp, predicted)
    rec = _ratio(tp, support.astype(float))
    f1 = _ratio(2.0 * tp, predicted + support)
    per_label = {
        label: LabelScores(100.0 * float(prec[i]), 100.0 * float(rec[i]),
                           100.0 * float(f1[i]), int(support[i]))
        for i, label in enumerate(labels)
    }
    return ClassificationReport(
        labels=labels,
        n=len(g),
        accuracy=100.0 * float(np.mean(g == p)),
        macro_precision=100.0 * float(prec.mean()),
        macro_recall=100.0 * float(rec.mean()),
        macro_f1=100.0 * float(f1.mean()),
        per_label=per_label,
        confusion=tuple(tuple(int(c) for c in row) for row in confusion),
        unparsed=int(confusion[:, k].sum()),
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den with 0 where den is 0 (sklearn's zero_division=0)."""
    return np.divide(num, den, out=np.zeros_like(num, dtype=float), where=den > 0)
