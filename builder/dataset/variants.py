"""Dataset variants derived from the original at build time.

A variant is the same items with other distractors (same ids, terms, splits, labels and
gold), so the official shuffle gives the same letter maps and every probe and metric works
unchanged. Deriving it in memory keeps builds self-contained: no generated file has to
exist, and a stale one cannot be used by mistake.
"""

from __future__ import annotations

from pathlib import Path

from builder.dataset.cibuzzbench import Dataset, DatasetSpec, parse_dataset
from builder.dataset.gold_pool import make_gold_pool

GOLD_POOL = "gold_pool"


def derive_variants(original: Dataset) -> dict[str, Dataset]:
    pool = make_gold_pool(original)
    spec = DatasetSpec(rows=original.rows, split_counts={
        split: len(original.row_ids(split)) for split in ("train", "test")})
    label = Path(f"{original.path} (derived: {GOLD_POOL} variant)")
    return {GOLD_POOL: parse_dataset(label, pool.csv_bytes(), spec)}
