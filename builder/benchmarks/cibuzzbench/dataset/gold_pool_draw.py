"""The two ways a gold-pool variant fills an item's distractor slots with other items' golds.

- `fill_by_window` (variant `gold_pool`, the article's set): all four options lie in one
  length window at most 10% wide, placed at a uniformly random offset among the windows that
  contain the gold's length, so the gold's place in its window says nothing about which
  option it is.
- `fill_by_slot` (variant `gold_pool_slot`, the ablation): each distractor is replaced by a
  gold within 10% of the length of the distractor it replaces, so the original length gap
  between the gold and its distractors survives.

Lengths are Python `len` (code points), so they are integers and every tolerance test is
exact integer arithmetic: `|a - b| <= t * max(a, b)` with `t` a whole percentage, no float
rounding anywhere. Both draw only from sorted candidate lists with string-seeded
`random.Random`, so output depends on nothing but the data and the seed.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import overload

SLOTS: tuple[tuple[str, str], ...] = (
    ("literal", "distractor_literal_en"),
    ("cultural", "distractor_cultural_mismatch_en"),
    ("pragmatic", "distractor_pragmatic_neighbor_en"),
)
GOLD_COLUMN = "equivalent_en"


@dataclass(frozen=True)
class SlotChoice:
    """What happened to one distractor slot of one item."""

    row_id: int
    slot: str  # literal | cultural | pragmatic
    length_before: int
    length_after: int
    donor: int | None  # row_id of the item whose gold was used; None when kept (unmatched)
    tolerance: float | None  # the tolerance the donor was found at; None when kept
    candidates: int  # how many donors (slot) or distinct donor texts (window) were eligible
    window: tuple[int, int] | None = None  # window construction: the (shortest, longest) length allowed
    attempt: int = 0  # window construction: windows tried before this one at this tolerance


def norm(text: str) -> str:
    return text.strip().casefold()


def percent(tolerance: float) -> int:
    """0.1 -> 10: tolerances are whole percentages, so the tests below stay integer."""
    return round(tolerance * 100)


@dataclass(frozen=True)
class Pool:
    """Donor items of one split sorted by (gold length, row_id), for range lookups; with each
    normalised gold's positions in that order, so a draw skips the few excluded donors instead
    of filtering every candidate (a 3,001-item variant asks for about 9,000 candidate lists)."""

    lengths: list[int]
    row_ids: list[int]
    golds: dict[int, str]  # row_id -> gold text
    keys: dict[int, str]  # row_id -> normalised gold, for the equality checks
    ordered_keys: list[str] = field(init=False, compare=False)  # keys[row_ids[p]] at position p
    positions: dict[str, list[int]] = field(init=False, compare=False)  # key -> its positions, ascending
    by_id: dict[tuple[int, int], list[int]] = field(init=False, compare=False, default_factory=dict)  # window -> ids, sorted

    def __post_init__(self) -> None:
        ordered = [self.keys[i] for i in self.row_ids]
        positions: dict[str, list[int]] = {}
        for p, k in enumerate(ordered):
            positions.setdefault(k, []).append(p)
        object.__setattr__(self, "ordered_keys", ordered)
        object.__setattr__(self, "positions", positions)

    def span(self, shortest: int, longest: int) -> tuple[int, int]:
        """The positions [start, stop) of the golds whose length is in [shortest, longest]."""
        return bisect.bisect_left(self.lengths, shortest), bisect.bisect_right(self.lengths, longest)

    def between(self, shortest: int, longest: int) -> list[int]:
        """Row ids whose gold length is in [shortest, longest], in (length, row_id) order."""
        start, stop = self.span(shortest, longest)
        return self.row_ids[start:stop]

    def within_span(self, length: int, tolerance: float) -> tuple[int, int]:
        """The span of the golds whose length differs from `length` by at most `tolerance * length`."""
        p = percent(tolerance)
        return self.span(-(-(100 - p) * length // 100), (100 + p) * length // 100)

    def within(self, length: int, tolerance: float) -> list[int]:
        """Golds whose length differs from `length` by at most `tolerance * length`."""
        start, stop = self.within_span(length, tolerance)
        return self.row_ids[start:stop]

    def sorted_ids(self, start: int, stop: int) -> list[int]:
        """The row ids of a span in ascending order (kept: the same windows recur item after item)."""
        found = self.by_id.get((start, stop))
        if found is None:
            found = self.by_id[(start, stop)] = sorted(self.row_ids[start:stop])
        return found

    def key_positions(self, key: str, start: int, stop: int) -> list[int]:
        """The positions of `key` within [start, stop)."""
        spots = self.positions.get(key, [])
        return spots[bisect.bisect_left(spots, start):bisect.bisect_left(spots, stop)]


class Remaining(Sequence[int]):
    """`base` less the indices in `skipped`, indexed as the list with those left out would be: what
    random.choice needs (its length and one item) without building that list."""

    def __init__(self, base: Sequence[int], skipped: Iterable[int] = ()):
        self.base = base
        self.skipped = sorted(set(skipped))

    def skip(self, indices: Iterable[int]) -> None:
        self.skipped = sorted(set(self.skipped).union(indices))

    def __len__(self) -> int:
        return len(self.base) - len(self.skipped)

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[int]: ...

    def __getitem__(self, i: int | slice) -> int | Sequence[int]:
        if isinstance(i, slice) or not 0 <= i < len(self):
            raise IndexError("Remaining takes an index from 0 to its length")
        at = i
        for s in self.skipped:  # ascending: each skipped index at or before the target moves it on
            if s <= at:
                at += 1
            else:
                break
        return self.base[at]


def donor_pools(records: dict[int, dict[str, str]]) -> dict[str, Pool]:
    by_split: dict[str, list[tuple[int, int]]] = {}
    for row_id, r in records.items():
        by_split.setdefault(r["split"], []).append((len(r[GOLD_COLUMN]), row_id))
    pools = {}
    for split, entries in by_split.items():
        entries.sort()
        ids = [i for _, i in entries]
        golds = {i: records[i][GOLD_COLUMN] for i in ids}
        pools[split] = Pool([n for n, _ in entries], ids, golds, {i: norm(g) for i, g in golds.items()})
    return pools


# ----------------------------------------------------------------- gold_pool_slot


def fill_by_slot(row: dict[str, str], pool: Pool, seed: int,
                 steps: tuple[float, ...]) -> tuple[dict[str, str], list[SlotChoice]]:
    """Each slot gets a gold within the tolerance of the replaced distractor's length."""
    row_id = int(row["row_id"])
    # Original distractors are excluded too, so a slot kept at the cap can never
    # collide with a replacement chosen for another slot.
    taken = {norm(row[GOLD_COLUMN])} | {norm(row[column]) for _, column in SLOTS}
    out = dict(row)
    picked = []
    for slot, column in SLOTS:
        choice = _fill_slot(row_id, slot, row[column], pool, taken, seed, steps)
        if choice.donor is not None:
            out[column] = pool.golds[choice.donor]
            taken.add(norm(out[column]))
        picked.append(choice)
    return out, picked


def _fill_slot(row_id: int, slot: str, original: str, pool: Pool, taken: set[str], seed: int,
               steps: tuple[float, ...]) -> SlotChoice:
    """The donors: golds within the tolerance, less every text already taken, in row-id order (the
    item's own gold is taken, so the item is never its own donor); one drawn with the slot's seed."""
    length = len(original)
    for tolerance in steps:
        start, stop = pool.within_span(length, tolerance)
        ids = pool.sorted_ids(start, stop)
        out = {p for key in taken for p in pool.key_positions(key, start, stop)}
        candidates = Remaining(ids, [bisect.bisect_left(ids, pool.row_ids[p]) for p in out])
        if len(candidates):
            donor = random.Random(f"gold_pool:{seed}:{row_id}:{slot}").choice(candidates)
            return SlotChoice(row_id, slot, length, len(pool.golds[donor]), donor,
                              tolerance, len(candidates))
    return SlotChoice(row_id, slot, length, length, None, None, 0)


# ----------------------------------------------------------------- gold_pool (windows)


def windows(length: int, tolerance: float) -> list[tuple[int, int]]:
    """Every window (shortest, longest) of the given relative width that contains `length`.

    A window holds the lengths n with longest * (1 - t) <= n <= longest, so any two of them
    satisfy |a - b| <= t * max(a, b); it contains `length` for longest from `length` up to
    floor(length / (1 - t)).
    """
    p = percent(tolerance)
    top = 100 * length // (100 - p)
    return [(-(-(100 - p) * longest // 100), longest) for longest in range(length, top + 1)]


def fill_by_window(row: dict[str, str], pool: Pool, seed: int,
                   steps: tuple[float, ...]) -> tuple[dict[str, str], list[SlotChoice]]:
    """All three distractors from one random window around the gold's length.

    The window's offset is uniform over the windows that contain the gold (the first of a
    seeded shuffle); when it holds fewer than three distinct other golds, the next windows of
    the shuffle are tried, then the next tolerance step. With none even at the cap the item
    keeps its original distractors, flagged as unmatched.
    """
    row_id = int(row["row_id"])
    gold = row[GOLD_COLUMN]
    own = norm(gold)
    rng = random.Random(f"gold_pool/2:{seed}:{row_id}")
    for tolerance in steps:
        order = windows(len(gold), tolerance)
        rng.shuffle(order)
        for attempt, (shortest, longest) in enumerate(order):
            start, stop = pool.span(shortest, longest)
            texts = set(pool.ordered_keys[start:stop])
            distinct = len(texts) - (own in texts)
            if distinct >= len(SLOTS):
                donors = _draw_distinct(pool, start, stop, own, rng)
                return _apply(row, pool, donors, tolerance, distinct, (shortest, longest), attempt)
    return dict(row), [SlotChoice(row_id, slot, len(row[column]), len(row[column]), None, None, 0)
                       for slot, column in SLOTS]


def _draw_distinct(pool: Pool, start: int, stop: int, own: str, rng: random.Random) -> list[int]:
    """Three donors of the span, none with the item's own text (so never the item itself), with
    pairwise different texts: each uniform over what is left, in (length, row_id) order."""
    ids = pool.row_ids[start:stop]
    candidates = Remaining(ids, [p - start for p in pool.key_positions(own, start, stop)])
    donors = []
    for n, _ in enumerate(SLOTS):
        donor = rng.choice(candidates)
        donors.append(donor)
        if n + 1 < len(SLOTS):
            candidates.skip(p - start for p in pool.key_positions(pool.keys[donor], start, stop))
    return donors


def _apply(row: dict[str, str], pool: Pool, donors: list[int], tolerance: float, distinct: int,
           window: tuple[int, int], attempt: int) -> tuple[dict[str, str], list[SlotChoice]]:
    out = dict(row)
    picked = []
    for (slot, column), donor in zip(SLOTS, donors):
        out[column] = pool.golds[donor]
        picked.append(SlotChoice(int(row["row_id"]), slot, len(row[column]), len(out[column]), donor,
                                 tolerance, distinct, window, attempt))
    return out, picked
