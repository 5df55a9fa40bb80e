"""The lines `buzzprobe probe` ends with: the finished run's score with its 95% interval and,
when the run's other arm is already beside it, the paired sighted - blind gap.

A benchmark gives each plan a `score` callable (RunPlan.score) that reads the finished file
and returns its figures (`score_figures`, `gap_figures`); the wording (`describe`), the JSON and
the statistics (the site's: percentile bootstrap over items, 2,000 resamples) are shared here so
every benchmark's probe reports alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.runs.files import run_files
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.stats import ClassificationReport, Interval
from builder.stats import bootstrap_intervals, classification_report
from builder.stats import classification_report, paired_bootstrap_difference


Figures = dict[str, Any]  # {"accuracy": {"value", "low", "high"}, "macro_f1": {...}, ...}
METRICS = (("accuracy", "accuracy"), ("macro_f1", "macro F1"))


def score_figures(report: ClassificationReport, intervals: dict[str, Interval], failed: int = 0) -> Figures:
    """A run's score as `--json` prints it: each metric with its 95% interval, the items, the failed."""
    return {**{m: {"value": getattr(report, m), "low": intervals[m].low, "high": intervals[m].high}
               for m, _ in METRICS}, "items": report.n, "failed": failed}


def gap_figures(blind: str, sighted: str, gap: dict[str, float], intervals: dict[str, Interval]) -> Figures:
    """The paired gap, sighted minus blind, in points, with its paired-bootstrap interval."""
    return {"blind": blind, "sighted": sighted,
            **{m: {"value": gap[m], "low": intervals[m].low, "high": intervals[m].high} for m, _ in METRICS}}


def score_from_labels(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str], failed: int = 0) -> Figures:
    """`score_figures` for a run given as gold and predicted labels."""
    return score_figures(classification_report(gold, pred, labels), bootstrap_intervals(gold, pred, labels), failed)


def paired_gap(blind: str, sighted: str, gold: Sequence[str], pred_blind: Sequence[str],
               pred_sighted: Sequence[str], labels: Sequence[str]) -> Figures:
    """`gap_figures` for two arms given on the same items, in the same order."""
    s, b = classification_report(gold, pred_sighted, labels), classification_report(gold, pred_blind, labels)
    gap = {m: getattr(s, m) - getattr(b, m) for m, _ in METRICS}
    return gap_figures(blind, sighted, gap, paired_bootstrap_difference(gold, pred_sighted, pred_blind, labels))


def describe(score: Figures, gaps: list[Figures]) -> list[str]:
    """The closing lines: accuracy 61.2 (95% interval 55.0 to 67.4), ... and one line per gap.
    Figures are points (one decimal) unless the score says `"unit": "0-1"` (Mouse's metrics:
    three significant digits); a metric without an interval is shown without one."""
    spec = ".3g" if score.get("unit") == "0-1" else ".1f"
    parts = [_metric(m, score[m], spec) for m in score if isinstance(score[m], dict)]
    tail = f", {score['failed']} of them failed (counted wrong)" if score["failed"] else ""
    lines = [f"score: {', '.join(parts)} on {score['items']} items{tail}"]
    for gap in gaps:
        parts = [f"{name} {gap[m]['value']:+.1f} points (95% interval {gap[m]['low']:+.1f} to {gap[m]['high']:+.1f})"
                 for m, name in METRICS]
        lines.append(f"paired gap, sighted {gap['sighted']} minus blind {gap['blind']}: {', '.join(parts)}")
    return lines


def _metric(metric: str, figure: dict[str, Any], spec: str) -> str:
    name = dict(METRICS).get(metric, metric.replace("_", " "))
    if figure.get("value") is None:
        return f"{name} -"
    if figure.get("low") is None or figure.get("high") is None:
        return f"{name} {figure['value']:{spec}}"
    return f"{name} {figure['value']:{spec}} (95% interval {figure['low']:{spec}} to {figure['high']:{spec}})"


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
