"""The sighted and blind prompts of a spec'd benchmark, for one item in one option order.

The spec's templates (validated in spec.py) see `question`, `options` (lines `A. text` in the
shown order) and `letters` (`A, B, C or D`); the blind prompt never receives the question, so
no template can leak it.
"""

from __future__ import annotations

from collections.abc import Sequence

from builder.benchmarks.mcq.fields import LETTERS, environment
from builder.benchmarks.mcq.load import Item
from builder.benchmarks.mcq.spec import Spec

SIGHTED, BLIND = "sighted", "blind"


def letters_phrase(k: int) -> str:
    """`A, B, C or D` for k = 4."""
    return ", ".join(LETTERS[:k - 1]) + f" or {LETTERS[k - 1]}"


def option_lines(item: Item, order: Sequence[int]) -> str:
    """`order[j]` = the published choice shown at position j (shuffle.order)."""
    return "\n".join(f"{LETTERS[j]}. {item.choices[i]}" for j, i in enumerate(order))


def render_prompt(spec: Spec, item: Item, order: Sequence[int], condition: str) -> str:
    if condition not in (SIGHTED, BLIND):
        raise ValueError(f"condition must be {SIGHTED!r} or {BLIND!r}, not {condition!r}")
    values = {"options": option_lines(item, order), "letters": letters_phrase(len(order))}
    if condition == SIGHTED:
        values["question"] = item.stem
    template = spec.sighted if condition == SIGHTED else spec.blind
    return environment().from_string(template).render(values)
