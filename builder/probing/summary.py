"""The lines `buzzprobe probe` ends with: the finished run's score with its 95% interval and,
when the run's other arm is already beside it, the paired sighted - blind gap.

A benchmark gives each plan a `score` callable (RunPlan.score) that reads the finished file
and returns these lines; the wording and the statistics (the site's: percentile bootstrap over
items, 2,000 resamples) are shared here so every benchmark's probe reports alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from builder.core.errors import InputError
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.stats import ClassificationReport, Interval


def score_text(report: ClassificationReport, intervals: dict[str, Interval], failed: int = 0) -> str:
    """accuracy 61.2 (95% interval 55.0 to 67.4), macro F1 ... on 50 items (2 failed)."""
    parts = [f"{name} {getattr(report, metric):.1f} (95% interval {intervals[metric].low:.1f} to "
             f"{intervals[metric].high:.1f})" for metric, name in (("accuracy", "accuracy"), ("macro_f1", "macro F1"))]
    tail = f", {failed} of them failed (counted wrong)" if failed else ""
    return f"score: {', '.join(parts)} on {report.n} items{tail}"


def gap_text(blind: str, sighted: str, gap: dict[str, float], intervals: dict[str, Interval]) -> str:
    """The paired gap, sighted minus blind, in points, with its paired-bootstrap interval."""
    parts = [f"{name} {gap[metric]:+.1f} points (95% interval {intervals[metric].low:+.1f} to "
             f"{intervals[metric].high:+.1f})" for metric, name in (("accuracy", "accuracy"), ("macro_f1", "macro F1"))]
    return f"paired gap, sighted {sighted} minus blind {blind}: {', '.join(parts)}"


def score_lines(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str], failed: int = 0) -> str:
    """`score_text` for a run given as gold and predicted labels."""
    from builder.stats import bootstrap_intervals, classification_report
    return score_text(classification_report(gold, pred, labels), bootstrap_intervals(gold, pred, labels), failed)


def paired_gap(blind: str, sighted: str, gold: Sequence[str], pred_blind: Sequence[str],
               pred_sighted: Sequence[str], labels: Sequence[str]) -> str:
    """`gap_text` for two arms given on the same items, in the same order."""
    from builder.stats import classification_report, paired_bootstrap_difference
    s, b = classification_report(gold, pred_sighted, labels), classification_report(gold, pred_blind, labels)
    gap = {m: getattr(s, m) - getattr(b, m) for m in ("accuracy", "macro_f1")}
    return gap_text(blind, sighted, gap, paired_bootstrap_difference(gold, pred_sighted, pred_blind, labels))


def siblings(path: Path) -> list[Run]:
    """The other readable runs in the run's own folder, where the same --out template puts its
    other arm; a file that does not read as a run is passed over (the build will say why)."""
    found = []
    for other in run_files(path.parent):
        if other.parent != path.parent or other.resolve() == path.resolve():
            continue
        try:
            found.append(read_run(other))
        except InputError:
            continue
    return found
