"""Official CIBuzzBench scores, bootstrap intervals, paired tests and seed summaries."""

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
from .paired import discordant, holm, mcnemar_exact
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
    "discordant",
    "encode",
    "harmful_f1",
    "holm",
    "mcnemar_exact",
    "metric_on_resamples",
    "paired_bootstrap_difference",
    "summarise_seeds",
]
