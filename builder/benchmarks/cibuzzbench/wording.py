"""How CIBuzzBench's pages and tracker name what a row measured: item selection, option set,
seed. One spelling each, so "400-item sample drawn with seed 0" reads the same everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OPTION_SETS: tuple[tuple[str, str], ...] = (
    ("original", "Original"), ("gold_pool", "Gold pool (article)"), ("gold_pool_slot", "Gold pool, slot-matched"))


def selection_label(items: Mapping[str, Any]) -> str:
    """What the runs asked, in words: all items, the test split, a 400-item sample drawn with seed 0."""
    where = f" of the {items['split']} split" if items.get("split") else ""
    if items.get("selection") == "sample":
        return f"{items.get('n')}-item sample{where} drawn with seed {items.get('sample_seed')}"
    return f"the {items['split']} split" if items.get("split") else "all items"


def option_set_label(variant: str) -> str:
    """The option set a run answered, as tables name it ("Original", "Gold pool (article)")."""
    return dict(OPTION_SETS).get(variant, variant.replace("_", " "))


def option_seed_label(seed: int | None) -> str:
    """The seed of the letter order (never to be confused with a sample's seed)."""
    return "no option order" if seed is None else f"option order seed {seed}"
