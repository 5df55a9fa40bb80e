"""The items a spec'd benchmark asks and scores: the audit's kept items by record number. Its
own module so that loading a build (runs are checked against it) does not import the probing
engine and its HTTP client."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from builder.benchmarks.mcq.analyses.findings import examine
from builder.benchmarks.mcq.load import Item, SpecData


@dataclass(frozen=True)
class ChoiceSet:
    """The items a probe may ask (the audit's kept items), by row_id = record number."""

    benchmark: SpecData
    items: dict[int, Item]

    def row_ids(self, split: str | None = None) -> list[int]:
        return sorted(n for n, item in self.items.items() if split is None or item.split == split)


def choice_set(benchmark: SpecData, kept: Collection[int] | None = None) -> ChoiceSet:
    """The audited items; `kept` (record numbers the findings rules keep, e.g. from the build's
    cache) spares examining every item again."""
    if kept is None:
        return ChoiceSet(benchmark, {item.number: item for item in examine(benchmark)[0]})
    keep = set(kept)
    return ChoiceSet(benchmark, {item.number: item for item in benchmark.items if item.number in keep})
