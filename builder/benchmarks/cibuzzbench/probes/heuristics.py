"""Surface heuristics that answer Task 2 without reading the Chinese term.

Each sees only one item's lettered options; what they score measures how much of
the task the option set gives away on its own.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, OptionSet

Heuristic = Callable[[OptionSet], str]


def _pick(options: OptionSet, key: Callable[[str], float]) -> str:
    """Letter with the highest key; ties go to the earliest letter."""
    best = max(options.options, key=lambda o: (key(o.text), -LETTERS.index(o.letter)))
    return best.letter


def longest_chars(options: OptionSet) -> str:
    return _pick(options, len)


def shortest_chars(options: OptionSet) -> str:
    return _pick(options, lambda text: -len(text))


def longest_words(options: OptionSet) -> str:
    return _pick(options, lambda text: len(text.split()))


def constant(letter: str) -> Heuristic:
    """The same letter for every item: the floor a rule that stops discriminating falls to
    (accuracy about 25, but macro F1 about 10, since three letters score F1 0)."""
    def choose(options: OptionSet) -> str:
        return letter
    return choose


@functools.lru_cache(maxsize=1 << 17)
def uniform_letter(rng_seed: int, option_seed: int, row_id: int) -> str:
    """The random letter of one item: a function of the item and the seeds alone, so the
    baseline can be scored on any run's own items (analyses.chance) without its options. Kept:
    seeding a generator from text hashes it (5 us), and a build asks for each letter often."""
    return random.Random(f"uniform:{rng_seed}:{option_seed}:{row_id}").choice(LETTERS)


def uniform_random(rng_seed: int) -> Heuristic:
    """Seeded per item, so the answer for an item never depends on which others ran."""
    def choose(options: OptionSet) -> str:
        return uniform_letter(rng_seed, options.seed, options.row_id)
    return choose
