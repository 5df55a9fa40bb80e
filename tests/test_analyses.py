"""Dataset-level analyses on tiny hand-built datasets whose answers are known by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.analyses.audits import audit_figures, normalise
from builder.benchmarks.cibuzzbench.analyses.categories import category_figures
from builder.benchmarks.cibuzzbench.analyses.option_lengths import char_lengths, length_figures
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset, DatasetSpec, load_dataset
from tests.synthetic import csv_text


def item(i: int, gold: str, lit: str, cul: str, prag: str, *, split: str = "train", term: str | None = None,
         harmful: bool = False, category: str = "Slang") -> dict[str, str]:
    return {
        "row_id": str(i), "split": split, "term_zh": term if term is not None else f"词{i}",
        "explanation_zh": f"解释{i}", "meaning_en": f"meaning {i}", "equivalent_en": gold,
        "distractor_literal_en": lit, "distractor_cultural_mismatch_en": cul,
        "distractor_pragmatic_neighbor_en": prag,
        "harmful_label": "harmful" if harmful else "non-harmful", "category_label": category,
    }


def load_rows(tmp_path: Path, rows: list[dict[str, str]]) -> Dataset:
    path = tmp_path / "tiny.csv"
    path.write_text(csv_text(rows), encoding="utf-8", newline="")
    test = sum(r["split"] == "test" for r in rows)
    return load_dataset(path, DatasetSpec(rows=len(rows), split_counts={"train": len(rows) - test, "test": test}))


# --------------------------------------------------------------------------- option lengths

# lengths (gold, literal, cultural, pragmatic) per item, chosen by hand:
#   0: 5, 2, 3, 1  gold strictly longest; longer than all three
#   1: 4, 4, 2, 1  tie with literal: NOT strictly longest; longer than cultural, pragmatic
#   2: 2, 6, 2, 3  shortest-ish: longer than none (tie with cultural is not "longer")
#   3: 3, 1, 1, 1  (test) gold written in Chinese: 3 characters, 9 bytes; strictly longest
#   4: 6, 6, 6, 7  (test) ties and a longer pragmatic: longer than none
LENGTH_ITEMS = [
    item(0, "aaaaa", "bb", "ccc", "d"),
    item(1, "eeee", "ffff", "gg", "h"),
    item(2, "ii", "jjjjjj", "kk", "lll"),
    item(3, "好极了", "m", "n", "o", split="test"),
    item(4, "pp  pp", "qqqqqq", "rrr rr", "sssssss", split="test"),
]


@pytest.fixture
def length_dataset(tmp_path: Path) -> Dataset:
    return load_rows(tmp_path, LENGTH_ITEMS)


def test_char_lengths_counts_characters(length_dataset: Dataset) -> None:
    lengths = char_lengths(length_dataset)
    assert list(lengths.columns) == ["correct", "literal", "cultural", "pragmatic"]
    assert lengths.loc[:, "correct"].tolist() == [5, 4, 2, 3, 6]
    assert lengths.loc[:, "literal"].tolist() == [2, 4, 6, 1, 6]
    assert lengths.loc[:, "cultural"].tolist() == [3, 2, 2, 1, 6]
    assert lengths.loc[:, "pragmatic"].tolist() == [1, 1, 3, 1, 7]


def test_gold_strictly_longest_excludes_ties(length_dataset: Dataset) -> None:
    figures = length_figures(length_dataset)
    assert figures.items == 5
    assert figures.gold_strictly_longest == 2  # items 0 and 3; item 1 ties, item 4 is beaten


def test_gold_longer_than_each_type(length_dataset: Dataset) -> None:
    figures = length_figures(length_dataset)
    assert figures.gold_longer_than == {"literal": 2, "cultural": 3, "pragmatic": 3}


def test_mean_and_median_chars(length_dataset: Dataset) -> None:
    figures = length_figures(length_dataset)
    assert figures.mean_chars == pytest.approx({"correct": 4.0, "literal": 19 / 5, "cultural": 14 / 5,
                                                "pragmatic": 13 / 5})
    assert figures.median_chars == {"correct": 4.0, "literal": 4.0, "cultural": 2.0, "pragmatic": 1.0}


def test_length_figures_per_split(length_dataset: Dataset) -> None:
    test = length_figures(length_dataset, split="test")
    assert test.items == 2
    assert test.gold_strictly_longest == 1
    assert test.gold_longer_than == {"literal": 1, "cultural": 1, "pragmatic": 1}
    assert test.mean_chars["correct"] == pytest.approx(4.5)
    assert test.median_chars["pragmatic"] == pytest.approx(4.0)
    train = length_figures(length_dataset, split="train")
    assert train.items == 3
    assert train.gold_strictly_longest == 1
    assert train.gold_longer_than == {"literal": 1, "cultural": 2, "pragmatic": 2}
    assert train.median_chars["correct"] == 4.0


def test_all_ties_are_never_strictly_longest(tmp_path: Path) -> None:
    ds = load_rows(tmp_path, [item(i, "x" * 4, "y" * 4, "z" * 4, "w" * 4) for i in range(3)])
    figures = length_figures(ds)
    assert figures.gold_strictly_longest == 0
    assert figures.gold_longer_than == {"literal": 0, "cultural": 0, "pragmatic": 0}


# --------------------------------------------------------------------------- audits

AUDIT_ITEMS = [
    # 0: literal equals its OWN gold (case/space variant): duplicate option, not "other gold"
    item(0, "Piece of cake", "piece of CAKE ", "easy peasy", "no sweat", term="甲"),
    # 1: literal equals item 0's gold, case-insensitive and trimmed -> other gold (literal)
    item(1, "Break a leg", "  PIECE OF CAKE", "good luck", "see you", term="甲", split="test"),
    # 2: cultural equals item 1's gold -> other gold (cultural);
    #    pragmatic equals its own gold -> duplicate, not other gold
    item(2, "Spill the tea", "pour the tea", "break a leg", "Spill The Tea", term="乙"),
    # 3: literal and cultural equal each other (case-insensitive) -> duplicate;
    #    pragmatic equals item 2's gold -> other gold (pragmatic)
    item(3, "Hit the sack", "hit the road", "Hit the Road", "spill the TEA", term="乙"),
    # 4 and 5 share a gold; item 4's literal equals its own gold AND item 5's gold -> both counts
    item(4, "Cold feet", "COLD FEET", "cold hands", "warm feet", term="丙", split="test"),
    item(5, "cold feet ", "frozen toes", "chilly", "nervous", term="丁", split="test"),
    # 6: substrings and near misses of other golds do not count
    item(6, "Under the weather", "piece of", "break a legs", "hit the sack now", term="戊"),
]


@pytest.fixture
def audit_dataset(tmp_path: Path) -> Dataset:
    return load_rows(tmp_path, AUDIT_ITEMS)


def test_normalise() -> None:
    assert normalise("  Piece OF cake\t") == "piece of cake"
    assert normalise("a  b") != normalise("a b")  # inner whitespace is kept


def test_distractor_is_other_gold(audit_dataset: Dataset) -> None:
    figures = audit_figures(audit_dataset)
    assert figures.items == 7
    assert figures.distractor_strings == 21
    assert figures.distractor_is_other_gold_by_type == {"literal": 2, "cultural": 1, "pragmatic": 1}
    assert figures.distractor_is_other_gold == 4


def test_exact_matching_counts_only_identical_strings(tmp_path: Path, audit_dataset: Dataset) -> None:
    assert audit_figures(audit_dataset).distractor_is_other_gold_exact == 0  # every hit above differs in case or spaces
    ds = load_rows(tmp_path, [item(0, "Alpha", "x", "y", "z"), item(1, "Beta", "Alpha", "alpha", "Alpha ")])
    figures = audit_figures(ds)
    assert (figures.distractor_is_other_gold, figures.distractor_is_other_gold_exact) == (3, 1)


def test_own_gold_is_not_other_gold(tmp_path: Path) -> None:
    ds = load_rows(tmp_path, [item(0, "Alpha", " alpha", "ALPHA", "alpha "), item(1, "Beta", "x", "y", "z")])
    figures = audit_figures(ds)
    assert figures.distractor_is_other_gold == 0
    assert figures.duplicate_option_items == 1


def test_duplicate_option_items(audit_dataset: Dataset) -> None:
    # items 0, 2, 3 and 4
    assert audit_figures(audit_dataset).duplicate_option_items == 4


def test_distinct_terms_and_split_overlap(audit_dataset: Dataset) -> None:
    figures = audit_figures(audit_dataset)
    assert figures.distinct_terms == 5  # 甲 乙 丙 丁 戊
    # 甲 is in train (0) and test (1); 乙 appears twice but only in train
    assert figures.train_test_term_overlap == 1


def test_clean_items_audit_to_zero(tmp_path: Path) -> None:
    ds = load_rows(tmp_path, [item(i, f"gold {i}", f"lit {i}", f"cul {i}", f"pra {i}",
                                   split="test" if i % 2 else "train") for i in range(6)])
    figures = audit_figures(ds)
    assert figures.distractor_is_other_gold == 0
    assert figures.duplicate_option_items == 0
    assert figures.distinct_terms == 6
    assert figures.train_test_term_overlap == 0


def test_synthetic_dataset_audits(synthetic_dataset: Dataset) -> None:
    figures = audit_figures(synthetic_dataset)
    # every synthetic option carries its row id and slot prefix, so nothing collides
    assert figures.items == 3001 and figures.distractor_strings == 9003
    assert figures.distractor_is_other_gold == 0
    assert figures.duplicate_option_items == 0
    assert figures.distinct_terms == 3001
    assert figures.train_test_term_overlap == 0


# --------------------------------------------------------------------------- categories

CATEGORY_ITEMS = [
    item(0, "g0", "l0", "c0", "p0", category="Slang", harmful=True),
    item(1, "g1", "l1", "c1", "p1", category="Slang", harmful=False, split="test"),
    item(2, "g2", "l2", "c2", "p2", category="Slang", harmful=True, split="test"),
    item(3, "g3", "l3", "c3", "p3", category="Slang", harmful=False),
    item(4, "g4", "l4", "c4", "p4", category="Homophonic pun", harmful=True),
    item(5, "g5", "l5", "c5", "p5", category="Experience", harmful=False, split="test"),
    item(6, "g6", "l6", "c6", "p6", category="Experience", harmful=False),
    item(7, "g7", "l7", "c7", "p7", category="Abbreviation", harmful=False),
]


def test_category_figures(tmp_path: Path) -> None:
    figures = category_figures(load_rows(tmp_path, CATEGORY_ITEMS))
    assert [f.label for f in figures] == list(CATEGORIES)
    by = {f.label: f for f in figures}
    assert {k: v.count for k, v in by.items()} == {
        "Experience": 2, "Quotation": 0, "Stylistic device": 0, "Homophonic pun": 1, "Slang": 4, "Abbreviation": 1}
    assert by["Slang"].share == pytest.approx(50.0)
    assert by["Experience"].share == pytest.approx(25.0)
    assert by["Homophonic pun"].share == pytest.approx(12.5)
    assert by["Quotation"].share == 0.0
    assert sum(f.share for f in figures) == pytest.approx(100.0)
    assert {k: v.harmful for k, v in by.items()} == {
        "Experience": 0, "Quotation": 0, "Stylistic device": 0, "Homophonic pun": 1, "Slang": 2, "Abbreviation": 0}
    assert by["Slang"].harmful_rate == pytest.approx(50.0)
    assert by["Homophonic pun"].harmful_rate == pytest.approx(100.0)
    assert by["Experience"].harmful_rate == 0.0
    assert by["Quotation"].harmful_rate == 0.0  # empty category: no division by zero
    assert {k: v.test_count for k, v in by.items()} == {
        "Experience": 1, "Quotation": 0, "Stylistic device": 0, "Homophonic pun": 0, "Slang": 2, "Abbreviation": 0}


def test_category_figures_on_synthetic(synthetic_dataset: Dataset) -> None:
    figures = category_figures(synthetic_dataset)
    # the generator assigns categories round-robin: 3001 = 6 * 500 + 1
    assert [f.count for f in figures] == [501, 500, 500, 500, 500, 500]
    assert sum(f.test_count for f in figures) == 600
    harmful = int((synthetic_dataset.frame["harmful_label"] == "harmful").sum())
    assert sum(f.harmful for f in figures) == harmful
    for f in figures:
        assert 0.0 <= f.harmful_rate <= 100.0
        assert f.harmful_rate == pytest.approx(100.0 * f.harmful / f.count)


# --------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_category_totals(real_dataset: Dataset) -> None:
    figures = category_figures(real_dataset)
    assert [f.label for f in figures] == list(CATEGORIES)
    assert all(f.count > 0 for f in figures)
    assert sum(f.count for f in figures) == 3001
    assert sum(f.share for f in figures) == pytest.approx(100.0)
    assert sum(f.test_count for f in figures) == 600
    frame = real_dataset.frame
    assert sum(f.harmful for f in figures) == int((frame["harmful_label"] == "harmful").sum())


@pytest.mark.realdata
def test_real_length_and_audit_invariants(real_dataset: Dataset) -> None:
    lengths = length_figures(real_dataset)
    assert lengths.items == 3001
    # strictly longest implies longer than every type
    assert lengths.gold_strictly_longest <= min(lengths.gold_longer_than.values())
    train, test = length_figures(real_dataset, "train"), length_figures(real_dataset, "test")
    assert train.items + test.items == 3001
    assert train.gold_strictly_longest + test.gold_strictly_longest == lengths.gold_strictly_longest
    audit = audit_figures(real_dataset)
    assert audit.items == 3001 and audit.distractor_strings == 9003
    assert audit.distractor_is_other_gold == sum(audit.distractor_is_other_gold_by_type.values())
    # issue 17: the published 2.80% needs case-insensitive matching; exact matching finds fewer
    assert round(100 * audit.distractor_is_other_gold / 9003, 2) == 2.80
    assert round(100 * audit.distractor_is_other_gold_exact / 9003, 2) == 2.78
    assert 0 < audit.distinct_terms <= 3001
