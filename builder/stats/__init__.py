"""Classification scores (sklearn's definitions), bootstrap intervals, paired tests and seed summaries."""

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
    UNPARSED,
    ClassificationReport,
    LabelScores,
    classification_report,
    encode,
)
from .paired import discordant, holm, mcnemar_exact
from .seeds import SeedSummary, summarise_seeds

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "UNPARSED",
    "ClassificationReport",
    "Interval",
    "LabelScores",
    "SeedSummary",
    "bootstrap_intervals",
    "classification_report",
    "discordant",
    "encode",
    "holm",
    "mcnemar_exact",
    "metric_on_resamples",
    "paired_bootstrap_difference",
    "summarise_seeds",
]
