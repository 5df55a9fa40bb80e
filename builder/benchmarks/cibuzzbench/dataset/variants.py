"""Dataset variants derived from the original at build time.

A variant is the same items with other distractors (same ids, terms, splits, labels and
gold), so the official shuffle gives the same letter maps and every probe and metric works
unchanged. Deriving it in memory keeps builds self-contained: no generated file has to
exist, and a stale one cannot be used by mistake.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, DatasetSpec, parse_dataset
from builder.benchmarks.cibuzzbench.dataset.gold_pool import CONSTRUCTIONS, GOLD_POOL, GOLD_POOL_SLOT, make_gold_pool

__all__ = ["GOLD_POOL", "GOLD_POOL_SLOT", "derive_variants"]


def derive_variants(original: Dataset, names: Iterable[str] | None = None) -> dict[str, Dataset]:
    """Every gold-pool variant (or only `names`), by name, with the default seed."""
    spec = DatasetSpec(rows=original.rows, split_counts={
        split: len(original.row_ids(split)) for split in ("train", "test")})
    out = {}
    for name in (CONSTRUCTIONS if names is None else names):
        pool = make_gold_pool(original, variant=name)
        label = Path(f"{original.path} (derived: {name} variant)")
        out[name] = parse_dataset(label, pool.csv_bytes(), spec)
    return out
