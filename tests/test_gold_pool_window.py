"""The article's gold-pool set (`gold_pool`): one random length window per item.

Checked against an independent brute-force reading of the rule in docs/gold-pool.md: every
option pair within the tolerance, donors from the same split, never the own gold, no
duplicates, the narrowest tolerance that works, the window drawn uniformly; plus the
property the construction exists for (the gold's length does not single it out), files,
and the real data (counts and length figures only).
"""

from __future__ import annotations

import collections
import json
import math
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.benchmarks.cibuzzbench.dataset import gold_pool as gp
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, Dataset
from builder.benchmarks.cibuzzbench.dataset import gold_pool_draw as draw
from builder.benchmarks.cibuzzbench.dataset.gold_pool_draw import Pool, windows
from tests.test_gold_pool import load_rows, norm

WINDOW = gp.GOLD_POOL
STEPS = gp.CONSTRUCTIONS[WINDOW].tolerance_steps
DISTRACTORS = [column for _, column in gp.SLOTS]
OPTIONS = ["equivalent_en", *DISTRACTORS]


def row(i: int, split: str, gold: str, distractors: tuple[str, str, str] = ("l", "c", "p")) -> dict[str, str]:
    return {"row_id": str(i), "split": split, "term_zh": f"词{i}", "explanation_zh": "解释", "meaning_en": "m",
            "equivalent_en": gold, "distractor_literal_en": distractors[0],
            "distractor_cultural_mismatch_en": distractors[1], "distractor_pragmatic_neighbor_en": distractors[2],
            "harmful_label": "non-harmful", "category_label": "Slang"}


# ----------------------------------------------------------------- reference


def within(a: int, b: int, tolerance: float) -> bool:
    """The documented test, in exact integers: 100 * |a - b| <= percent * max(a, b)."""
    return 100 * abs(a - b) <= round(100 * tolerance) * max(a, b)


def reference_windows(length: int, tolerance: float) -> list[tuple[int, int]]:
    """Brute force: every (shortest, longest) whose lengths are all pairwise within the
    tolerance of `longest`, that contains `length`, with shortest as small as allowed."""
    out = []
    for longest in range(length, 3 * length + 2):
        n = np.arange(longest + 1)  # every candidate at once: `within`'s test, in exact integers
        shortest = int(n[100 * np.abs(n - longest) <= round(100 * tolerance) * np.maximum(n, longest)].min())
        if shortest <= length:
            out.append((shortest, longest))
    return out


class Reference:
    """Candidates by scanning every row, straight from the rule."""

    def __init__(self, rows: list[dict[str, str]]):
        self.rows = rows

    def candidates(self, item: dict[str, str], window: tuple[int, int]) -> list[int]:
        gold = norm(item["equivalent_en"])
        return [int(r["row_id"]) for r in self.rows
                if r["split"] == item["split"] and r["row_id"] != item["row_id"]
                and window[0] <= len(r["equivalent_en"]) <= window[1] and norm(r["equivalent_en"]) != gold]

    def distinct(self, item: dict[str, str], window: tuple[int, int]) -> int:
        return len({norm(self.rows[j]["equivalent_en"]) for j in self.candidates(item, window)})


def check_invariants(pool: gp.GoldPool, original: list[dict[str, str]]) -> None:
    ref = Reference(original)
    by_row: dict[int, list[gp.SlotChoice]] = collections.defaultdict(list)
    for c in pool.choices:
        by_row[c.row_id].append(c)
    for before, after in zip(original, pool.rows):
        row_id = int(before["row_id"])
        assert {c: after[c] for c in COLUMNS if c not in DISTRACTORS} == {c: before[c] for c in COLUMNS
                                                                         if c not in DISTRACTORS}
        choices = by_row[row_id]
        assert [c.slot for c in choices] == [s for s, _ in gp.SLOTS]
        g = len(before["equivalent_en"])
        tolerance = choices[0].tolerance
        for step in STEPS:  # every narrower step had no window with three distinct golds
            if tolerance is not None and step >= tolerance:
                break
            assert all(ref.distinct(before, w) < 3 for w in reference_windows(g, step))
        if tolerance is None:  # unmatched: originals kept, flagged
            assert [after[c] for c in DISTRACTORS] == [before[c] for c in DISTRACTORS]
            assert all(c.donor is None and c.window is None for c in choices)
            continue
        window = choices[0].window
        assert window in reference_windows(g, tolerance) and all(c.window == window for c in choices)
        assert choices[0].candidates == ref.distinct(before, window) >= 3
        donors = [c.donor for c in choices]
        assert all(d in ref.candidates(before, window) for d in donors)
        assert [after[c] for c in DISTRACTORS] == [original[d]["equivalent_en"] for d in donors]
        texts = [after[c] for c in OPTIONS]
        assert len({norm(t) for t in texts}) == 4, "options must be pairwise distinct"
        lengths = [len(t) for t in texts]
        assert all(window[0] <= n <= window[1] for n in lengths)
        assert all(within(a, b, tolerance) for a in lengths for b in lengths)


# ----------------------------------------------------------------- properties

TEXT = st.text(alphabet="abAB -'", min_size=1, max_size=14).filter(lambda s: s.strip() != "")


@st.composite
def small_rows(draw: st.DrawFn) -> list[dict[str, str]]:
    n = draw(st.integers(min_value=1, max_value=30))
    return [row(i, draw(st.sampled_from(["train", "test"])), draw(TEXT),
                (draw(TEXT), draw(TEXT), draw(TEXT))) for i in range(n)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=small_rows(), seed=st.integers(min_value=0, max_value=2**32))
def test_generator_follows_every_rule(rows: list[dict[str, str]], seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        dataset = load_rows(Path(folder), rows)
    pool = gp.make_gold_pool(dataset, seed)
    check_invariants(pool, rows)
    assert gp.make_gold_pool(dataset, seed).csv_bytes() == pool.csv_bytes()
    counts = pool.counts
    assert counts["items_with_unmatched_slot"] == len({c.row_id for c in pool.unmatched})
    assert counts["items_fully_within_10pct"] == sum(c.tolerance == 0.1 for c in pool.choices) // 3


def reference_fill_by_window(row: dict[str, str], pool: Pool, seed: int, steps: tuple[float, ...]) -> list[tuple]:
    """fill_by_window's draw with every candidate list built in full, straight from its docstring."""
    row_id, own = int(row["row_id"]), draw.norm(row["equivalent_en"])
    rng = random.Random(f"gold_pool/2:{seed}:{row_id}")
    for tolerance in steps:
        order = windows(len(row["equivalent_en"]), tolerance)
        rng.shuffle(order)
        for attempt, (shortest, longest) in enumerate(order):
            candidates = [j for j in pool.between(shortest, longest) if pool.keys[j] != own and j != row_id]
            if len({pool.keys[j] for j in candidates}) >= 3:
                donors = []
                for _ in range(3):
                    donors.append(rng.choice(candidates))
                    candidates = [j for j in candidates if pool.keys[j] != pool.keys[donors[-1]]]
                return [(d, tolerance, (shortest, longest), attempt) for d in donors]
    return [(None, None, None, 0)] * 3


def reference_fill_by_slot(row: dict[str, str], pool: Pool, seed: int, steps: tuple[float, ...]) -> list[tuple]:
    row_id = int(row["row_id"])
    taken = {draw.norm(row[c]) for c in OPTIONS}
    out = []
    for slot, column in draw.SLOTS:
        found: tuple = (None, None, 0)
        for tolerance in steps:
            candidates = sorted(j for j in pool.within(len(row[column]), tolerance)
                                if j != row_id and pool.keys[j] not in taken)
            if candidates:
                donor = random.Random(f"gold_pool:{seed}:{row_id}:{slot}").choice(candidates)
                taken.add(pool.keys[donor])
                found = (donor, tolerance, len(candidates))
                break
        out.append(found)
    return out


@settings(max_examples=150, deadline=None)
@given(rows=small_rows(), seed=st.integers(min_value=0, max_value=2**32))
def test_each_draw_is_the_one_from_full_candidate_lists(rows: list[dict[str, str]], seed: int) -> None:
    """The draws skip excluded donors (draw.Remaining) instead of building every candidate list;
    the donors, tolerances, windows and counts must be those of the lists built in full."""
    records = {int(r["row_id"]): r for r in rows}
    pools = draw.donor_pools(records)
    steps = gp.CONSTRUCTIONS[WINDOW].tolerance_steps
    for r in rows:
        pool = pools[r["split"]]
        by_window = [(c.donor, c.tolerance, c.window, c.attempt) for c in draw.fill_by_window(r, pool, seed, steps)[1]]
        assert by_window == reference_fill_by_window(r, pool, seed, steps)
        by_slot = [(c.donor, c.tolerance, c.candidates) for c in draw.fill_by_slot(r, pool, seed, steps)[1]]
        assert by_slot == reference_fill_by_slot(r, pool, seed, steps)


@given(base=st.lists(st.integers(), max_size=12), data=st.data())
def test_remaining_is_the_list_without_the_skipped_indices(base: list[int], data: st.DataObject) -> None:
    indices = st.integers(min_value=0, max_value=max(len(base) - 1, 0))
    skipped = data.draw(st.lists(indices, max_size=len(base))) if base else []
    later = data.draw(st.lists(indices, max_size=len(base))) if base else []
    left = draw.Remaining(base, skipped)
    assert list(left) == [v for i, v in enumerate(base) if i not in set(skipped)]
    left.skip(later)
    assert list(left) == [v for i, v in enumerate(base) if i not in set(skipped) | set(later)]
    assert len(left) == len(list(left))


def test_windows_match_the_brute_force_definition() -> None:
    for tolerance in STEPS:
        for length in range(1, 120):
            assert windows(length, tolerance) == reference_windows(length, tolerance), (length, tolerance)


def test_too_few_golds_widen_then_keep(tmp_path: Path) -> None:
    """Golds of 10, 11, 12 and 13 characters in one split: the 10-character item finds three
    other golds in one window only at 25% (10..13); a split of three items never does."""
    rows = [row(i, "train", chr(97 + i) * n) for i, n in enumerate((10, 11, 12, 13))]
    pool = gp.make_gold_pool(load_rows(tmp_path, rows))
    check_invariants(pool, rows)
    assert {c.tolerance for c in pool.choices if c.row_id == 0} == {0.25}
    assert pool.counts["items_fully_within_10pct"] < 4
    lone = [row(0, "train", "only"), row(1, "test", "one"), row(2, "test", "two")]
    kept = gp.make_gold_pool(load_rows(tmp_path, lone))
    check_invariants(kept, lone)
    assert kept.counts["items_with_unmatched_slot"] == 3 and kept.rows == lone


def test_window_offset_is_uniform(tmp_path: Path) -> None:
    """A gold of 40 characters among plenty of golds of every length: the window's longest
    end is uniform over 40..44 (the five 10% windows containing 40) across seeds."""
    rows = [row(0, "train", "x" * 40)] + [row(i, "train", f"{i:03d}" + "y" * (30 + i % 25)) for i in range(1, 200)]
    dataset = load_rows(tmp_path, rows)
    tops = collections.Counter()
    for seed in range(400):
        pool = gp.make_gold_pool(dataset, seed)
        window = next(c.window for c in pool.choices if c.row_id == 0)
        tops[window[1]] += 1
    assert sorted(tops) == [40, 41, 42, 43, 44]
    assert all(50 <= n <= 110 for n in tops.values()), tops  # 80 expected each


def gold_ranks(rows: list[dict[str, str]]) -> list[float]:
    """1 = longest; ties share the mean rank. Exchangeable options give a mean of 2.5."""
    out = []
    for r in rows:
        g = len(r["equivalent_en"])
        others = [len(r[c]) for c in DISTRACTORS]
        out.append(1 + sum(n > g for n in others) + 0.5 * sum(n == g for n in others))
    return out


@pytest.fixture(scope="module")
def synthetic_window(synthetic_dataset: Dataset) -> gp.GoldPool:
    """The article's set of the synthetic data (default seed), drawn once for the tests that read it."""
    return gp.make_gold_pool(synthetic_dataset)


@pytest.fixture(scope="module")
def synthetic_slot(synthetic_dataset: Dataset) -> gp.GoldPool:
    """The slot-matched ablation of the synthetic data (default seed), drawn once likewise."""
    return gp.make_gold_pool(synthetic_dataset, variant=gp.GOLD_POOL_SLOT)


def test_gold_length_does_not_single_it_out(synthetic_window: gp.GoldPool, synthetic_slot: gp.GoldPool) -> None:
    """The synthetic golds are built longer than their distractors; after the window
    construction the gold is the longest option no more often than a quarter of items and its
    mean length rank is that of an exchangeable option, unlike on the slot-matched ablation."""
    window, slot = synthetic_window, synthetic_slot
    for pool, longest_share in ((window, 0.25), (slot, 1.0)):
        strictly = sum(len(r["equivalent_en"]) > max(len(r[c]) for c in DISTRACTORS) for r in pool.rows)
        assert strictly <= longest_share * len(pool.rows)
    ranks = gold_ranks(window.rows)
    sd = (sum((x - 2.5) ** 2 for x in ranks) / len(ranks)) ** 0.5 / math.sqrt(len(ranks))
    assert abs(sum(ranks) / len(ranks) - 2.5) < 4 * sd
    assert sum(gold_ranks(slot.rows)) / len(slot.rows) < 2.0  # the ablation keeps the gold long


def test_full_size_synthetic_invariants(synthetic_window: gp.GoldPool) -> None:
    """A seeded sample of items (the brute-force reference scans every row per item)."""
    from tests.synthetic import synthetic_rows
    pool = synthetic_window
    rows = synthetic_rows()
    ref = Reference(rows)
    for i in sorted(random.Random(0).sample(range(len(rows)), 60)):
        choices = [c for c in pool.choices if c.row_id == i]
        c = choices[0]
        assert c.window in reference_windows(len(rows[i]["equivalent_en"]), c.tolerance)
        assert c.candidates == ref.distinct(rows[i], c.window)
        texts = [pool.rows[i][col] for col in OPTIONS]
        assert len({norm(t) for t in texts}) == 4
        assert all(within(len(a), len(b), c.tolerance) for a in texts for b in texts)
        assert all(rows[d.donor]["split"] == rows[i]["split"] and d.donor != i for d in choices)
    assert pool.counts["items_fully_within_10pct"] == len(rows)


def test_files_and_manifest(tmp_path: Path, synthetic_dataset: Dataset, synthetic_window: gp.GoldPool,
                            synthetic_slot: gp.GoldPool) -> None:
    pool = synthetic_window
    csv_path, manifest_path = gp.write_gold_pool(pool, tmp_path)
    assert (csv_path.name, manifest_path.name) == ("cibuzzbench-gold_pool.csv", "cibuzzbench-gold_pool.manifest.json")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert (manifest["variant"], manifest["generator"]) == ("gold_pool", "gold_pool/2")
    assert manifest["tolerance_steps"] == list(STEPS) and manifest["counts"] == pool.counts
    windows = {d["row_id"]: d["window"] for d in manifest["donors"]}
    assert windows == {c.row_id: list(c.window) for c in pool.choices}
    assert gp.load_gold_pool(tmp_path, synthetic_dataset).content_sha256 == pool.content_sha256
    slot_files = gp.write_gold_pool(synthetic_slot, tmp_path)
    assert slot_files[0].name == "cibuzzbench-gold_pool_slot.csv"  # both variants share a folder
    assert gp.load_gold_pool(tmp_path, synthetic_dataset).content_sha256 == pool.content_sha256


# ----------------------------------------------------------------- real data (counts and lengths only)


@pytest.fixture(scope="module")
def real_window(real_dataset: Dataset) -> gp.GoldPool:
    return gp.make_gold_pool(real_dataset)


@pytest.mark.realdata
def test_real_counts_and_length_figures(real_dataset: Dataset, real_window: gp.GoldPool) -> None:
    counts = real_window.counts
    assert counts["items_with_unmatched_slot"] == 0
    assert counts["items_fully_within_10pct"] == 3001 - counts["items_with_widened_slot"]
    assert counts["items_with_widened_slot"] <= 10  # a handful: tiny or very long golds
    rows = real_window.rows
    strictly = sum(len(r["equivalent_en"]) > max(len(r[c]) for c in DISTRACTORS) for r in rows)
    assert strictly <= 0.25 * len(rows)
    ranks = gold_ranks(rows)
    assert abs(sum(ranks) / len(ranks) - 2.5) < 0.06
    for r, c in zip(rows, [c for c in real_window.choices if c.slot == "literal"]):
        lengths = [len(r[col]) for col in OPTIONS]
        assert all(within(a, b, c.tolerance) for a in lengths for b in lengths)
