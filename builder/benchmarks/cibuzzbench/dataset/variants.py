"""Dataset variants derived from the original at build time.

A variant is the same items with other distractors (same ids, terms, splits, labels and
gold), so the official shuffle gives the same letter maps and every probe and metric works
unchanged. Deriving it in memory keeps builds self-contained: no generated file has to
exist, and a stale one cannot be used by mistake.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, DatasetSpec, parse_dataset
from builder.benchmarks.cibuzzbench.dataset.gold_pool import CONSTRUCTIONS, GOLD_POOL, GOLD_POOL_SLOT, make_gold_pool

__all__ = ["GOLD_POOL", "GOLD_POOL_SLOT", "derive_variants", "named_after"]


def derive_variants(original: Dataset, names: Iterable[str] | None = None) -> dict[str, Dataset]:
    """Every gold-pool variant (or only `names`), by name, with the default seed."""
    spec = DatasetSpec(rows=original.rows, split_counts={
        split: len(original.row_ids(split)) for split in ("train", "test")})
    out = {}
    for name in (CONSTRUCTIONS if names is None else names):
        pool = make_gold_pool(original, variant=name)
        out[name] = parse_dataset(_label(original, name), pool.csv_bytes(), spec)
    return out


def _label(original: Dataset, name: str) -> Path:
    """What names a variant in messages and pages: it has no file of its own."""
    return Path(f"{original.path} (derived: {name} variant)")


def named_after(variants: Mapping[str, Dataset], original: Dataset) -> dict[str, Dataset]:
    """`variants` derived from a copy of `original`'s content kept elsewhere, named after
    `original` itself: a variant depends on the content alone, so the cache keeps it by
    content and every copy of the data (a test's, a fresh clone's) reuses it."""
    return {name: dataclasses.replace(variant, path=_label(original, name)) for name, variant in variants.items()}
