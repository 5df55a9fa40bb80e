"""Official CIBuzzBench scores, bootstrap intervals and seed summaries."""

from .bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap_intervals,
    metric_on_resamples,
    paired_bootstrap_difference,
)
from .classification import (
    HARMFUL,
    TASK2_LABELS,
    TASK3_LABELS,
    UNPARSED,
    ClassificationReport,
    LabelScores,
    classification_report,
    encode,
    harmful_f1,
)
from .seeds import SeedSummary, summarise_seeds

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "HARMFUL",
    "TASK2_LABELS",
    "TASK3_LABELS",
    "UNPARSED",
    "ClassificationReport",
    "Interval",
    "LabelScores",
    "SeedSummary",
    "bootstrap_intervals",
    "classification_report",
    "encode",
    "harmful_f1",
    "metric_on_resamples",
    "paired_bootstrap_difference",
    "summarise_seeds",
]
