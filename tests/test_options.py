"""The official Task 2 option shuffle, checked against an independent literal
re-implementation of the recipe in CONTEXT §1 (not against builder code)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, Dataset, DatasetSpec, load_dataset
from builder.benchmarks.cibuzzbench.dataset.options import (
    LETTERS,
    Option,
    OptionSet,
    build_option_set,
    option_sets,
    shuffled_sources,
)
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from tests.synthetic import csv_text, synthetic_rows

EXTRA_SEEDS = (0, 1, 42, 2**31 - 1, 123456789)


def reference_options(seed: int, row: dict) -> list[tuple[str, str, str]]:
    """The recipe as written in the protocol: [(letter, source, text), ...]."""
    lit = row["distractor_literal_en"]
    cul = row["distractor_cultural_mismatch_en"]
    prag = row["distractor_pragmatic_neighbor_en"]
    gold = row["equivalent_en"]
    options = [("literal", lit), ("cultural", cul), ("pragmatic", prag), ("correct", gold)]
    random.Random(f"{seed}:{row['row_id']}:{row['term_zh']}").shuffle(options)
    return [(letter, src, text) for letter, (src, text) in zip("ABCD", options)]


def as_tuples(option_set: OptionSet) -> list[tuple[str, str, str]]:
    return [(o.letter, o.source, o.text) for o in option_set.options]


def records(dataset: Dataset) -> list[dict]:
    frame = dataset.frame
    return [dict(zip(COLUMNS, values)) for values in frame[list(COLUMNS)].itertuples(index=False)]


def test_constants() -> None:
    assert LETTERS == ("A", "B", "C", "D")
    assert OFFICIAL_SEEDS == (1111, 2222, 3333, 4444, 5555)
    assert DEFAULT_SEED == 1111


def test_hand_computed_example() -> None:
    row = {"row_id": 17, "term_zh": "合成词", "equivalent_en": "G", "distractor_literal_en": "L",
           "distractor_cultural_mismatch_en": "C", "distractor_pragmatic_neighbor_en": "P"}
    order = ["literal", "cultural", "pragmatic", "correct"]
    random.Random("1111:17:合成词").shuffle(order)
    got = build_option_set(row, 1111)
    assert [o.source for o in got.options] == order
    assert shuffled_sources(1111, 17, "合成词") == tuple(order)
    assert got.row_id == 17 and got.seed == 1111
    texts = {"literal": "L", "cultural": "C", "pragmatic": "P", "correct": "G"}
    assert [o.text for o in got.options] == [texts[s] for s in order]


def test_seed_string_uses_row_id_and_term_exactly() -> None:
    # the row_id may arrive as a string cell or an int; the seed string is the same either way
    base = {"term_zh": "合成词", "equivalent_en": "G", "distractor_literal_en": "L",
            "distractor_cultural_mismatch_en": "C", "distractor_pragmatic_neighbor_en": "P"}
    for row_id in range(40):
        a = build_option_set(dict(base, row_id=row_id), 2222)
        b = build_option_set(dict(base, row_id=str(row_id)), 2222)
        assert as_tuples(a) == as_tuples(b) == reference_options(2222, dict(base, row_id=row_id))


@pytest.mark.parametrize("seed", OFFICIAL_SEEDS + EXTRA_SEEDS)
def test_build_option_set_matches_recipe_on_every_synthetic_row(synthetic_dataset: Dataset, seed: int) -> None:
    for row in records(synthetic_dataset):
        assert as_tuples(build_option_set(row, seed)) == reference_options(seed, row), row["row_id"]


@pytest.mark.parametrize("seed", OFFICIAL_SEEDS + (7, 99))
def test_option_sets_match_recipe_on_every_synthetic_row(synthetic_dataset: Dataset, seed: int) -> None:
    sets = option_sets(synthetic_dataset, seed)
    rows = records(synthetic_dataset)
    assert list(sets) == [int(r["row_id"]) for r in rows] == list(range(3001))
    for row in rows:
        got = sets[int(row["row_id"])]
        assert got.seed == seed and got.row_id == int(row["row_id"])
        assert as_tuples(got) == reference_options(seed, row)


@pytest.mark.realdata
@pytest.mark.parametrize("seed", OFFICIAL_SEEDS)
def test_option_sets_match_recipe_on_real_data(real_dataset: Dataset, seed: int) -> None:
    sets = option_sets(real_dataset, seed)
    rows = records(real_dataset)
    assert len(sets) == len(rows) == 3001
    mismatches = [r["row_id"] for r in rows if as_tuples(sets[int(r["row_id"])]) != reference_options(seed, r)]
    assert mismatches == []


def test_letter_map_gold_letter_and_source_of(synthetic_dataset: Dataset) -> None:
    for option_set in list(option_sets(synthetic_dataset, 1111).values())[:200]:
        letters = [o.letter for o in option_set.options]
        assert letters == ["A", "B", "C", "D"]
        assert option_set.letter_map == {o.letter: o.source for o in option_set.options}
        assert sorted(option_set.letter_map.values()) == ["correct", "cultural", "literal", "pragmatic"]
        gold = option_set.gold_letter
        assert option_set.letter_map[gold] == "correct"
        assert option_set.options[LETTERS.index(gold)].text.startswith("gold ")
        assert option_set.source_of(gold) == "correct"
        assert option_set.source_of("E") is None and option_set.source_of("") is None


def test_as_prompt_lines_format() -> None:
    option_set = OptionSet(5, 1111, (
        Option("A", "pragmatic", "spill the tea"), Option("B", "correct", "break a leg"),
        Option("C", "literal", "broken leg"), Option("D", "cultural", "good luck charm"),
    ))
    assert option_set.as_prompt_lines() == "A. spill the tea\nB. break a leg\nC. broken leg\nD. good luck charm"
    assert option_set.gold_letter == "B"


def test_as_prompt_lines_on_dataset(synthetic_dataset: Dataset) -> None:
    rows = {int(r["row_id"]): r for r in records(synthetic_dataset)}
    for row_id, option_set in list(option_sets(synthetic_dataset, 3333).items())[:300]:
        text = option_set.as_prompt_lines()
        expected = "\n".join(f"{letter}. {t}" for letter, _, t in reference_options(3333, rows[row_id]))
        assert text == expected
        assert len(text.split("\n")) == 4 and not text.endswith("\n")


def test_different_seeds_give_different_orders(synthetic_dataset: Dataset) -> None:
    by_seed = {seed: option_sets(synthetic_dataset, seed) for seed in OFFICIAL_SEEDS}
    for a in OFFICIAL_SEEDS:
        for b in OFFICIAL_SEEDS:
            if a >= b:
                continue
            same = sum(by_seed[a][i].letter_map == by_seed[b][i].letter_map for i in by_seed[a])
            # independent uniform shuffles agree 1 time in 24 (about 4%)
            assert same / 3001 < 0.10, (a, b, same)


def test_order_depends_on_term_and_row_id() -> None:
    base = [shuffled_sources(1111, i, "词") for i in range(200)]
    assert len(set(base)) == 24  # all permutations reached
    other_term = [shuffled_sources(1111, i, "词语") for i in range(200)]
    assert sum(x == y for x, y in zip(base, other_term)) < 40


def test_gold_letter_spread_on_synthetic_data(synthetic_dataset: Dataset) -> None:
    counts = Counter(o.gold_letter for o in option_sets(synthetic_dataset, 1111).values())
    assert set(counts) == set(LETTERS)
    for letter in LETTERS:
        assert 0.20 <= counts[letter] / 3001 <= 0.30, counts


@pytest.mark.realdata
def test_gold_letter_spread_on_real_data(real_dataset: Dataset) -> None:
    counts = Counter(o.gold_letter for o in option_sets(real_dataset, 1111).values())
    assert sum(counts.values()) == 3001
    for letter in LETTERS:
        assert 0.20 <= counts[letter] / 3001 <= 0.30, counts


def _small(tmp_path: Path, name: str, rows: list[dict[str, str]], newline: str = "\r\n") -> Dataset:
    path = tmp_path / name
    path.write_text(csv_text(rows, newline=newline), encoding="utf-8", newline="")
    test = sum(r["split"] == "test" for r in rows)
    return load_dataset(path, DatasetSpec(rows=len(rows), split_counts={"train": len(rows) - test, "test": test}))


def test_cache_returns_equal_results_for_reloaded_dataset(tmp_path: Path) -> None:
    rows = synthetic_rows(40, 10, seed=11)
    first = _small(tmp_path, "a.csv", rows)
    again = _small(tmp_path, "b.csv", rows, newline="\n")  # other bytes, same content
    assert first.content_sha256 == again.content_sha256
    a, b = option_sets(first, 4444), option_sets(again, 4444)
    assert a == b
    assert option_sets(first, 4444) == a  # repeated call
    for row in records(again):
        assert as_tuples(b[int(row["row_id"])]) == reference_options(4444, row)


def test_cache_does_not_leak_between_different_content(tmp_path: Path) -> None:
    rows = synthetic_rows(40, 10, seed=11)
    first = _small(tmp_path, "a.csv", rows)
    before = option_sets(first, 5555)
    changed_rows = [dict(r) for r in rows]
    changed_rows[3]["equivalent_en"] = "a brand new gold"
    changed = _small(tmp_path, "c.csv", changed_rows)
    after = option_sets(changed, 5555)
    gold_text = lambda s: s.options[LETTERS.index(s.gold_letter)].text  # noqa: E731
    assert gold_text(after[3]) == "a brand new gold"
    assert gold_text(before[3]) == rows[3]["equivalent_en"]
    # a different seed on the same dataset is not served from the other seed's entry
    assert option_sets(first, 1111) != before
