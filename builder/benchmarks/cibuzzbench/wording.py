"""How CIBuzzBench's pages and tracker name what a row measured: item selection, option set,
seed. One spelling each, so "400-item sample drawn with seed 0" reads the same everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from builder.benchmarks.cibuzzbench.dataset.gold_pool import CONSTRUCTIONS

OPTION_SETS: tuple[tuple[str, str], ...] = (
    ("original", "Original"), ("gold_pool", "Gold pool (article)"), ("gold_pool_slot", "Gold pool, slot-matched"))


def selection_label(items: Mapping[str, Any]) -> str:
    """What the runs asked, in words: all items, the test split, a 400-item sample drawn with seed 0."""
    where = f" of the {items['split']} split" if items.get("split") else ""
    n = f"{items['n']:,}" if isinstance(items.get("n"), int) else str(items.get("n"))
    if items.get("selection") == "sample":
        return f"{n}-item sample{where} drawn with seed {items.get('sample_seed')}"
    if items.get("selection") == "first":
        return f"the first {n} rows of {'the ' + items['split'] + ' split' if items.get('split') else 'the dataset'}"
    return f"the {items['split']} split" if items.get("split") else "all items"


def option_set_label(variant: str) -> str:
    """The option set a run answered, as tables name it ("Original", "Gold pool (article)")."""
    return dict(OPTION_SETS).get(variant, variant.replace("_", " "))


def option_set_rank(variant: str) -> int:
    """Tables list the original options first, then the article's gold pool, then the ablation."""
    names = [name for name, _ in OPTION_SETS]
    return names.index(variant) if variant in names else len(names)


def option_seed_label(seed: int | None) -> str:
    """The seed of the letter order (never to be confused with a sample's seed)."""
    return "no option order" if seed is None else f"option order seed {seed}"


# On a gold pool every wrong option is another item's gold: its slot keeps the name of the
# distractor it replaced, but that name says nothing about the option, so no breakdown by it.
GOLD_POOL_ERRORS_NOTE = ("Gold-pool pairs are left out: there every wrong option is another item's gold, so the "
                         "slot a wrong answer chose (named after the distractor it replaced) is not a distractor type.")


def has_distractor_types(variant: str) -> bool:
    """Whether a run's wrong options are the literal / cultural / pragmatic distractors (not on a
    gold pool, dataset.gold_pool.CONSTRUCTIONS)."""
    return variant not in CONSTRUCTIONS
