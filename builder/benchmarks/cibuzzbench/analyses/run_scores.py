"""Score one validated run with the official metrics, intervals and category breakdown."""

from __future__ import annotations

from dataclasses import dataclass, field

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset
from builder.benchmarks.cibuzzbench.dataset.options import GOLD
from builder.stats import ClassificationReport, Interval, bootstrap_intervals, classification_report
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, labels_for


@dataclass(frozen=True)
class RunScore:
    run: Run
    report: ClassificationReport
    intervals: dict[str, Interval]  # "accuracy", "macro_f1"
    by_category: dict[str, ClassificationReport]
    gold: tuple[str, ...]  # in item order, kept for slice intervals and paired analyses
    pred: tuple[str, ...]
    category_positions: dict[str, tuple[int, ...]]  # category -> item positions
    failed: int = 0  # items whose request failed (error set), counted here so facts need not read the items
    failed_unanswered: int = 0  # of those, the ones without a prediction (already among the unparsed)
    # Slice intervals once computed (kept with the score in the per-run cache).
    _category_intervals: dict[str, dict[str, Interval]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def run_id(self) -> str:
        return self.run.header.run_id

    @property
    def labels(self) -> tuple[str, ...]:
        return self.report.labels

    def category_intervals(self, category: str) -> dict[str, Interval]:
        """Bootstrap intervals within one category (computed on demand: they cost time)."""
        if category not in self._category_intervals:
            picks = self.category_positions[category]
            self._category_intervals[category] = bootstrap_intervals(
                [self.gold[i] for i in picks], [self.pred[i] for i in picks], self.labels)
        return self._category_intervals[category]


def gold_labels(run: Run, dataset: Dataset) -> list[str]:
    """Task 2 gold is the letter the item's own (validated) map gives the correct option."""
    if run.header.task == EQUIVALENT_SELECTION:
        return [_gold_letter(item.letter_map or {}) for item in run.items]
    harm = dataset.column("harmful_label")
    return [harm[item.row_id] for item in run.items]


def _gold_letter(letter_map: dict[str, str]) -> str:
    return next(letter for letter, source in letter_map.items() if source == GOLD)


def score_run(run: Run, dataset: Dataset) -> RunScore:
    labels = labels_for(run.header.task)
    gold = gold_labels(run, dataset)
    pred = [item.prediction for item in run.items]
    categories = dataset.column("category_label")
    positions: dict[str, list[int]] = {}
    for i, item in enumerate(run.items):
        positions.setdefault(categories[item.row_id], []).append(i)
    by_category = {}
    for category in CATEGORIES:
        picks = positions.get(category, [])
        if picks:
            by_category[category] = classification_report([gold[i] for i in picks], [pred[i] for i in picks], labels)
    failed = [item for item in run.items if item.error is not None]
    return RunScore(run, classification_report(gold, pred, labels),
                    bootstrap_intervals(gold, pred, labels), by_category, tuple(gold), tuple(pred),
                    {c: tuple(p) for c, p in positions.items()},
                    len(failed), sum(1 for item in failed if item.prediction == ""))
