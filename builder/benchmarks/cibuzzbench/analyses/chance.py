"""The random letter on a run's own items: the chance line a model run is judged against.

A premise such as "the blind arm exploits the options" needs chance on the same items and
option order as the run (a 400-item sample is not the test split), so the `random` probe's
rule is replayed on the run's row ids and option seed, and bootstrapped like any run.
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.probes.generate import RANDOM_SEED
from builder.benchmarks.cibuzzbench.probes.heuristics import uniform_letter
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION
from builder.stats import ClassificationReport, Interval, bootstrap_intervals, classification_report


@dataclass(frozen=True)
class ChanceScore:
    report: ClassificationReport
    intervals: dict[str, Interval]  # "accuracy", "macro_f1"


def has_chance_line(score: RunScore) -> bool:
    """Model runs of Task 2 with an option order (probe runs are baselines themselves)."""
    h = score.run.header
    return h.task == EQUIVALENT_SELECTION and h.condition != "probe" and h.option_seed is not None


def chance_on_items(score: RunScore) -> ChanceScore:
    """The uniform random letter (rng seed RANDOM_SEED, as the `random` probe) on the run's items."""
    seed = int(score.run.header.option_seed or 0)
    pred = [uniform_letter(RANDOM_SEED, seed, row_id) for row_id in score.run.row_ids]
    return ChanceScore(classification_report(score.gold, pred, score.labels),
                       bootstrap_intervals(score.gold, pred, score.labels))
