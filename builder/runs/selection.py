"""Which items a run holds (its header's `items`): all, one split, or a seeded sample
(optionally within a split). It lives with the run store because a run is checked against it;
the probe uses it to choose what to ask.

A sample is a pure function of (dataset, n, sample_seed, split), so the sighted and blind
arms of a paired comparison ask exactly the same items. Any benchmark's rows will do (`Rows`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from builder.core.errors import InputError


class Rows(Protocol):
    """What a selection draws from: a benchmark's row_ids, all or of one split."""

    def row_ids(self, split: str | None = None) -> list[int]: ...


@dataclass(frozen=True)
class Selection:
    kind: str  # "all" | "split" | "sample" | "first" (the first n rows, file order: official --max_samples)
    split: str | None = None
    n: int | None = None  # sample size
    sample_seed: int | None = None

    def row_ids(self, dataset: Rows) -> list[int]:
        """Selected row_ids in ascending order."""
        pool = sorted(dataset.row_ids(self.split))
        if self.kind == "first":
            assert self.n is not None
            return pool[: self.n]
        if self.kind != "sample":
            return pool
        assert self.n is not None and self.sample_seed is not None
        if not 0 < self.n <= len(pool):
            where = f"the {self.split} split" if self.split else "the dataset"
            raise InputError.single("--sample", f"sample size {self.n} must be between 1 and {len(pool)} ({where})")
        return sorted(random.Random(self.sample_seed).sample(pool, self.n))

    @classmethod
    def from_header(cls, items: dict[str, Any]) -> "Selection":
        """The selection a run header's `items` object declares, so a reader can recompute
        exactly which row_ids the run must hold (`row_ids` dispatches on the kind)."""
        return cls(str(items.get("selection")), items.get("split"), items.get("n"), items.get("sample_seed"))

    def header(self, n: int) -> dict[str, Any]:
        """The run header's `items` object."""
        if self.kind == "all":
            return {"selection": "all", "n": n}
        if self.kind == "split":
            return {"selection": "split", "split": self.split, "n": n}
        out: dict[str, Any] = {"selection": "sample", "n": n, "sample_seed": self.sample_seed}
        if self.split:
            out["split"] = self.split
        return out

    @property
    def tag(self) -> str:
        """Short name for run ids: all, test, n400-r0, test-n100-r7."""
        if self.kind == "all":
            return "all"
        if self.kind == "split":
            return str(self.split)
        prefix = f"{self.split}-" if self.split else ""
        return f"{prefix}n{self.n}-r{self.sample_seed}"


def make_selection(split: str | None, sample: int | None, sample_seed: int) -> Selection:
    if sample is not None:
        return Selection("sample", split, sample, sample_seed)
    if split is not None:
        return Selection("split", split)
    return Selection("all")
