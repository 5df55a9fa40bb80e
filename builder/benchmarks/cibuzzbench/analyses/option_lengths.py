"""How much the option set gives away by length alone.

If the gold equivalent is systematically the longest option, a reader can score
well without knowing any Chinese; these figures measure that directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import DISTRACTOR_TYPES, GOLD, SOURCES

SLOTS: tuple[str, ...] = (GOLD,) + DISTRACTOR_TYPES


@dataclass(frozen=True)
class LengthFigures:
    items: int
    gold_strictly_longest: int
    gold_strictly_shortest: int
    options_within_10pct: int  # items whose four options satisfy |a - b| <= 0.1 * max(a, b) pairwise
    gold_longer_than: dict[str, int]  # distractor type -> items where gold is strictly longer
    mean_chars: dict[str, float]  # slot -> mean characters
    median_chars: dict[str, float]


def char_lengths(dataset: Dataset) -> pd.DataFrame:
    """Characters per option slot, one row per item (columns: correct, literal, ...)."""
    columns = dict(SOURCES)
    return pd.DataFrame({slot: dataset.frame[columns[slot]].str.len() for slot in SLOTS})


def length_figures(dataset: Dataset, split: str | None = None) -> LengthFigures:
    lengths = char_lengths(dataset)
    if split is not None:
        lengths = lengths[dataset.frame["split"] == split]
    gold = lengths[GOLD]
    longer = {t: int((gold > lengths[t]).sum()) for t in DISTRACTOR_TYPES}
    distractors = lengths[list(DISTRACTOR_TYPES)]
    strictly = (gold > distractors.max(axis=1)).sum()
    longest, shortest = lengths.max(axis=1), lengths.min(axis=1)
    return LengthFigures(
        items=len(lengths),
        gold_strictly_longest=int(strictly),
        gold_strictly_shortest=int((gold < distractors.min(axis=1)).sum()),
        # the widest pair is (shortest, longest); integers, so exact: 10 * (max - min) <= max
        options_within_10pct=int((10 * (longest - shortest) <= longest).sum()),
        gold_longer_than=longer,
        mean_chars={s: float(lengths[s].mean()) for s in SLOTS},
        median_chars={s: float(lengths[s].median()) for s in SLOTS},
    )


def length_distribution(dataset: Dataset) -> list[tuple[str, int, int]]:
    """(slot, characters, items) counts: compact input for the distribution chart."""
    lengths = char_lengths(dataset)
    rows: list[tuple[str, int, int]] = []
    for slot in SLOTS:
        counts = lengths[slot].value_counts().sort_index()
        name = "gold" if slot == GOLD else slot
        rows.extend((name, int(length), int(n)) for length, n in zip(counts.index.tolist(), counts.tolist()))
    return rows
