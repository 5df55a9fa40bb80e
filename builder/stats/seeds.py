"""Summaries of one score across sampling seeds."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class SeedSummary:
    """Mean and SAMPLE sd (ddof=1): the seeds are a sample of possible runs."""

    mean: float
    sd: float | None
    n: int
    values: dict[int, float]


def summarise_seeds(values: Mapping[int, float]) -> SeedSummary:
    """Summarise per-seed scores; sd is None for one seed (it is undefined)."""
    if not values:
        raise ValueError("need at least one seed value")
    ordered = {int(seed): float(values[seed]) for seed in sorted(values)}
    bad = [seed for seed, v in ordered.items() if not math.isfinite(v)]
    if bad:
        raise ValueError(f"non-finite score for seed(s) {bad}")
    scores = list(ordered.values())
    sd = statistics.stdev(scores) if len(scores) >= 2 else None
    return SeedSummary(statistics.fmean(scores), sd, len(scores), ordered)
