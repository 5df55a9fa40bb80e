"""The official Task 2 option shuffle, reproduced exactly.

Runs from the official code and from buzzprobe are only comparable if the same
letters point at the same strings, so this mirrors the upstream recipe: the list
(literal, cultural, pragmatic, correct) is shuffled in place by
``random.Random(f"{seed}:{row_id}:{term_zh}")`` and lettered A-D in that order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any
from types import MappingProxyType
from dataclasses import dataclass
from functools import cached_property, lru_cache

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset

LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
GOLD = "correct"
SOURCES: tuple[tuple[str, str], ...] = (
    ("literal", "distractor_literal_en"),
    ("cultural", "distractor_cultural_mismatch_en"),
    ("pragmatic", "distractor_pragmatic_neighbor_en"),
    (GOLD, "equivalent_en"),
)
DISTRACTOR_TYPES: tuple[str, ...] = ("literal", "cultural", "pragmatic")


@dataclass(frozen=True)
class Option:
    letter: str
    source: str  # literal | cultural | pragmatic | correct
    text: str


@dataclass(frozen=True)
class OptionSet:
    row_id: int
    seed: int
    options: tuple[Option, ...]

    @property
    def gold_letter(self) -> str:
        return next(o.letter for o in self.options if o.source == GOLD)

    @cached_property
    def letter_map(self) -> dict[str, str]:
        return {o.letter: o.source for o in self.options}

    def source_of(self, letter: str) -> str | None:
        return self.letter_map.get(letter)

    def as_prompt_lines(self) -> str:
        return "\n".join(f"{o.letter}. {o.text}" for o in self.options)


@lru_cache(maxsize=65536)
def shuffled_sources(seed: int, row_id: int, term_zh: str) -> tuple[str, ...]:
    """Source order after the official shuffle; depends only on seed, id and term (cached:
    dataset variants keep the terms, so they reuse the original's shuffles)."""
    order = [name for name, _ in SOURCES]
    random.Random(f"{seed}:{row_id}:{term_zh}").shuffle(order)
    return tuple(order)


def build_option_set(row: dict[str, Any], seed: int) -> OptionSet:
    texts = {name: str(row[column]) for name, column in SOURCES}
    row_id = int(row["row_id"])
    order = shuffled_sources(seed, row_id, str(row["term_zh"]))
    options = tuple(Option(letter, src, texts[src]) for letter, src in zip(LETTERS, order))
    return OptionSet(row_id, seed, options)


def option_sets(dataset: Dataset, seed: int) -> Mapping[int, OptionSet]:
    """All items' options for one seed, keyed by row_id (cached per dataset, read-only)."""
    return _cached_option_sets(DatasetKey(dataset), seed)


class DatasetKey:
    """Hashable by content hash so the cache survives re-loading the same data."""

    def __init__(self, dataset: Dataset):
        self.dataset = dataset

    def __hash__(self) -> int:
        return hash(self.dataset.content_sha256)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetKey) and other.dataset.content_sha256 == self.dataset.content_sha256


@lru_cache(maxsize=16)
def _cached_option_sets(key: DatasetKey, seed: int) -> Mapping[int, OptionSet]:
    columns = ["row_id", "term_zh"] + [column for _, column in SOURCES]
    records = (dict(zip(columns, values)) for values in key.dataset.frame[columns].itertuples(index=False))
    return MappingProxyType({int(r["row_id"]): build_option_set(r, seed) for r in records})
