"""Paired analysis of two runs (a = blind/baseline, b = sighted/treatment) on synthetic runs:
hand-worked counts and p-values, refusals, Holm, categories, distractor errors, facts, pairing."""

from __future__ import annotations

import dataclasses
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from builder.benchmarks.cibuzzbench.analyses.paired import (
    ERROR_SOURCES,
    PairedAnalysis,
    PairError,
    analyse_pair,
    holm,
    mcnemar_exact,
)
from builder.benchmarks.cibuzzbench.analyses.paired_facts import add_paired_facts, analyse_pairs, find_pairs, pair_id
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.facts import FactTable
from builder.stats import paired_bootstrap_difference
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Footer, Header, Run
from builder.runs.writer import write_run

REPO = Path(__file__).resolve().parents[1]
SEED = 1111
T2, T3 = "equivalent_selection", "harmfulness_detection"
CORRECT = "correct"


# ---------------------------------------------------------------- helpers


def letter_for(dataset: Dataset, row_id: int, outcome: str, seed: int = SEED) -> str:
    """The letter showing `outcome` (a source name) for the item; '' stays unparsed."""
    if outcome == "":
        return ""
    return next(l for l, s in option_sets(dataset, seed)[row_id].letter_map.items() if s == outcome)


def make_run(dataset: Dataset, run_id: str, condition: str, predictions: dict[int, str], *,
             task: str = T2, seed: int | None = SEED, subject: str = "demo-model",
             sha: str | None = None, variant: str = "original",
             maps: dict[int, dict[str, str]] | None = None, parameters: dict[str, Any] | None = None) -> Run:
    """A run in memory; Task 2 predictions are letters, items carry the official map."""
    seed = seed if task == T2 else None
    header = Header(
        run_id=run_id, benchmark="cibuzzbench", task=task, condition=condition,
        subject={"kind": "model", "name": subject, "parameters": parameters or {}}, option_seed=seed,
        items={"selection": "all", "n": dataset.rows},
        dataset={"name": "CIBuzzBench", "variant": variant,
                 "content_sha256": sha or dataset.content_sha256},
        created="2026-12-01T00:00:00Z", tool={"name": "buzzprobe", "version": "0.1.0"})
    sets = option_sets(dataset, seed) if task == T2 else None
    items = tuple(
        Item(row_id=r, prediction=p,
             letter_map=(maps or {}).get(r, dict(sets[r].letter_map)) if sets is not None else None)
        for r, p in predictions.items())
    return Run(f"{run_id}.jsonl", header, items, Footer(len(items)),
               {r: i + 2 for i, r in enumerate(predictions)})


def outcome_run(dataset: Dataset, run_id: str, condition: str, outcomes: dict[int, str], **kw: Any) -> Run:
    return make_run(dataset, run_id, condition,
                    {r: letter_for(dataset, r, o, kw.get("seed", SEED)) for r, o in outcomes.items()}, **kw)


# Hand-worked pair on rows 0..9 (categories cycle through CATEGORIES in the synthetic data).
#   row  a (blind)   b (sighted)
#   0-2  correct     correct      agree, both right
#   3    literal     correct      fix
#   4    pragmatic   correct      fix
#   5    pragmatic   correct      fix
#   6    cultural    cultural     agree, both wrong
#   7    correct     pragmatic    break
#   8    pragmatic   literal      disagree, both wrong (neither fix nor break)
#   9    unparsed    correct      fix
HAND_A = {0: CORRECT, 1: CORRECT, 2: CORRECT, 3: "literal", 4: "pragmatic", 5: "pragmatic",
          6: "cultural", 7: CORRECT, 8: "pragmatic", 9: ""}
HAND_B = {0: CORRECT, 1: CORRECT, 2: CORRECT, 3: CORRECT, 4: CORRECT, 5: CORRECT,
          6: "cultural", 7: "pragmatic", 8: "literal", 9: CORRECT}


@pytest.fixture(scope="module")
def hand(synthetic_dataset: Dataset) -> PairedAnalysis:
    a = outcome_run(synthetic_dataset, "demo-blind", "blind", HAND_A)
    b = outcome_run(synthetic_dataset, "demo-sighted", "sighted", HAND_B)
    return analyse_pair(a, b, synthetic_dataset)


def binom_two_sided(k: int, n: int) -> float:
    """Manual exact two-sided binomial test at p = 1/2 (symmetric, so 2 x the smaller tail)."""
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2**n
    return min(1.0, 2.0 * tail)


# ---------------------------------------------------------------- hand-worked pair


def test_hand_counts(hand: PairedAnalysis) -> None:
    assert (hand.n, hand.only_a, hand.only_b) == (10, 0, 0)
    assert (hand.agreement, hand.agreement_share) == (4, 40.0)
    assert (hand.fixes, hand.breaks) == (4, 1)
    assert (hand.run_a, hand.run_b) == ("demo-blind", "demo-sighted")


def test_hand_mcnemar_matches_manual_binomial(hand: PairedAnalysis) -> None:
    # 4 fixes vs 1 break: P(X in {0,1,4,5}) for X ~ Bin(5, 1/2) = (1+5+5+1)/32
    assert hand.mcnemar_p == pytest.approx(12 / 32, abs=1e-12)
    assert hand.mcnemar_p == pytest.approx(binom_two_sided(4, 5), abs=1e-12)


def test_hand_scores_use_official_metrics(hand: PairedAnalysis, synthetic_dataset: Dataset) -> None:
    gold = [letter_for(synthetic_dataset, r, CORRECT) for r in range(10)]
    pa = [letter_for(synthetic_dataset, r, HAND_A[r]) for r in range(10)]
    pb = [letter_for(synthetic_dataset, r, HAND_B[r]) for r in range(10)]
    assert (hand.a.accuracy, hand.b.accuracy) == (40.0, 70.0)
    for report, pred in ((hand.a, pa), (hand.b, pb)):
        sk = 100 * f1_score(gold, pred, labels=list("ABCD"), average="macro", zero_division=0)
        assert report.macro_f1 == pytest.approx(sk, abs=1e-9)
    assert hand.gap.accuracy == pytest.approx(30.0)
    assert hand.gap.macro_f1 == pytest.approx(hand.b.macro_f1 - hand.a.macro_f1)
    assert hand.ratio_accuracy == pytest.approx(100 * 40 / 70)
    assert hand.ratio_macro_f1 == pytest.approx(100 * hand.a.macro_f1 / hand.b.macro_f1)


def test_gap_interval_is_b_minus_a_paired_bootstrap(hand: PairedAnalysis, synthetic_dataset: Dataset) -> None:
    gold = [letter_for(synthetic_dataset, r, CORRECT) for r in range(10)]
    pa = [letter_for(synthetic_dataset, r, HAND_A[r]) for r in range(10)]
    pb = [letter_for(synthetic_dataset, r, HAND_B[r]) for r in range(10)]
    expected = paired_bootstrap_difference(gold, pb, pa, list("ABCD"), resamples=2000)
    assert hand.gap.accuracy_ci == expected["accuracy"]
    assert hand.gap.macro_f1_ci == expected["macro_f1"]
    assert hand.gap.accuracy_ci.level == 0.95
    assert hand.gap.accuracy_ci.low <= hand.gap.accuracy <= hand.gap.accuracy_ci.high
    assert hand.gap.accuracy_ci.high > 0  # b is better: the interval leans positive


def test_hand_errors_by_distractor_type(hand: PairedAnalysis) -> None:
    assert hand.errors_a is not None and hand.errors_b is not None
    assert hand.errors_a.counts == {"literal": 1, "cultural": 1, "pragmatic": 3, "unparsed": 1}
    assert hand.errors_a.total == 6 == hand.n * (100 - hand.a.accuracy) / 100
    assert hand.errors_b.counts == {"literal": 1, "cultural": 1, "pragmatic": 1, "unparsed": 0}
    assert tuple(hand.errors_a.counts) == ERROR_SOURCES


def test_hand_categories(hand: PairedAnalysis) -> None:
    by = {c.label: c for c in hand.categories}
    assert [c.label for c in hand.categories] == list(CATEGORIES)  # dataset order, CSV spelling
    assert {k: c.n for k, c in by.items()} == {
        "Experience": 2, "Quotation": 2, "Stylistic device": 2, "Homophonic pun": 2, "Slang": 1,
        "Abbreviation": 1}
    assert sum(c.fixes for c in hand.categories) == hand.fixes
    assert sum(c.breaks for c in hand.categories) == hand.breaks
    pun = by["Homophonic pun"]  # rows 3 and 9: both fixes
    assert (pun.fixes, pun.breaks, pun.a.accuracy, pun.b.accuracy) == (2, 0, 0.0, 100.0)
    assert pun.gap.accuracy == 100.0 and pun.mcnemar_p == pytest.approx(0.5)
    assert by["Quotation"].breaks == 1 and by["Quotation"].gap.accuracy == -50.0
    assert by["Experience"].mcnemar_p == 1.0  # no discordant items
    assert [c.holm_p for c in hand.categories] == list(holm([c.mcnemar_p for c in hand.categories]))


def test_category_with_no_items_is_left_out(synthetic_dataset: Dataset) -> None:
    rows = [0, 6, 12]  # all Experience
    a = outcome_run(synthetic_dataset, "x-blind", "blind", {r: "literal" for r in rows})
    b = outcome_run(synthetic_dataset, "x-sighted", "sighted", {r: CORRECT for r in rows})
    result = analyse_pair(a, b, synthetic_dataset)
    assert [c.label for c in result.categories] == ["Experience"]
    assert result.categories[0].holm_p == result.categories[0].mcnemar_p == pytest.approx(0.25)


def test_only_shared_items_are_analysed(synthetic_dataset: Dataset, hand: PairedAnalysis) -> None:
    a = outcome_run(synthetic_dataset, "demo-blind", "blind", {**HAND_A, 20: CORRECT, 21: "literal"})
    b = outcome_run(synthetic_dataset, "demo-sighted", "sighted", {**HAND_B, 30: "literal"})
    result = analyse_pair(a, b, synthetic_dataset)
    assert (result.n, result.only_a, result.only_b) == (10, 2, 1)
    assert dataclasses.replace(result, only_a=0, only_b=0) == hand


def test_result_is_frozen(hand: PairedAnalysis) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.fixes = 0  # type: ignore[misc]


def test_no_discordant_pairs_gives_p_one(synthetic_dataset: Dataset) -> None:
    same = {r: CORRECT if r % 2 else "cultural" for r in range(12)}
    result = analyse_pair(outcome_run(synthetic_dataset, "s-blind", "blind", same),
                          outcome_run(synthetic_dataset, "s-sighted", "sighted", same), synthetic_dataset)
    assert (result.fixes, result.breaks, result.mcnemar_p) == (0, 0, 1.0)
    assert result.agreement_share == 100.0 and result.gap.accuracy == 0.0


def test_ratio_is_none_when_b_scores_zero(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "z-blind", "blind", {0: CORRECT, 1: "literal"})
    b = outcome_run(synthetic_dataset, "z-sighted", "sighted", {0: "literal", 1: "literal"})
    result = analyse_pair(a, b, synthetic_dataset)
    assert result.ratio_accuracy is None and result.ratio_macro_f1 is None
    facts = FactTable()
    add_paired_facts(facts, [result])
    assert f"pair.{pair_id('z-blind', 'z-sighted')}.ratio.accuracy" not in facts


def test_task3_pair(synthetic_dataset: Dataset) -> None:
    harm = synthetic_dataset.column("harmful_label")
    rows = range(40)
    a = make_run(synthetic_dataset, "h-blind", "blind", {r: "non-harmful" for r in rows}, task=T3)
    b = make_run(synthetic_dataset, "h-sighted", "sighted", {r: harm[r] for r in rows}, task=T3)
    result = analyse_pair(a, b, synthetic_dataset)
    harmful = sum(harm[r] == "harmful" for r in rows)
    assert harmful > 0
    assert (result.fixes, result.breaks, result.b.accuracy) == (harmful, 0, 100.0)
    assert result.errors_a is None and result.option_seed is None


# ---------------------------------------------------------------- McNemar and Holm


@pytest.mark.parametrize("fixes, breaks", [(0, 0), (1, 0), (0, 1), (3, 3), (4, 1), (10, 2), (2, 17), (54, 14)])
def test_mcnemar_matches_manual_binomial(fixes: int, breaks: int) -> None:
    expected = 1.0 if fixes + breaks == 0 else binom_two_sided(fixes, fixes + breaks)
    assert mcnemar_exact(fixes, breaks) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("fixes, breaks", [(0, 1), (5, 5), (6, 5), (54, 14), (14, 54), (700, 640), (1500, 1400), (3, 2900)])
def test_mcnemar_equals_scipy_binomtest(fixes: int, breaks: int) -> None:
    from scipy.stats import binomtest
    assert mcnemar_exact(fixes, breaks) == pytest.approx(binomtest(fixes, fixes + breaks, 0.5).pvalue, rel=1e-9, abs=1e-300)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_holm_hand_example() -> None:
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx((0.03, 0.06, 0.06, 0.02))
    assert holm([0.5, 0.6]) == (1.0, 1.0)
    assert holm([0.2]) == (0.2,)
    assert holm([]) == ()


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=8))
def test_holm_properties(ps: list[float]) -> None:
    adjusted = holm(ps)
    assert all(p <= q <= 1.0 for p, q in zip(ps, adjusted))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adjusted[i] <= adjusted[j] for i, j in zip(order, order[1:]))
    assert min(adjusted) == pytest.approx(min(1.0, len(ps) * min(ps)))


# ---------------------------------------------------------------- the reported probe structure


def probe_like_outcomes(dataset: Dataset) -> tuple[dict[int, str], dict[int, str]]:
    """400 items: 292 both right, 54 fixes, 14 breaks, 40 both wrong (34 same letter);
    blind errors 60 pragmatic / 19 cultural / 15 literal, as reported for the blind probe."""
    rows = sorted(random.Random(2026).sample(range(dataset.rows), 400))
    blind_errors = ["pragmatic"] * 60 + ["cultural"] * 19 + ["literal"] * 15
    other = {"pragmatic": "cultural", "cultural": "literal", "literal": "pragmatic"}
    a: dict[int, str] = {}
    b: dict[int, str] = {}
    for i, r in enumerate(rows):
        if i < 292:
            a[r] = b[r] = CORRECT
        elif i < 292 + 14:
            a[r], b[r] = CORRECT, "pragmatic"
        else:
            a[r] = blind_errors[i - 306]
            wrong = i - 306
            b[r] = CORRECT if wrong < 54 else (a[r] if wrong < 54 + 34 else other[a[r]])
    return a, b


def test_reported_probe_structure(synthetic_dataset: Dataset) -> None:
    oa, ob = probe_like_outcomes(synthetic_dataset)
    result = analyse_pair(outcome_run(synthetic_dataset, "flash-blind", "blind", oa),
                          outcome_run(synthetic_dataset, "flash-sighted", "sighted", ob), synthetic_dataset)
    assert (result.n, result.fixes, result.breaks, result.agreement) == (400, 54, 14, 326)
    assert (result.a.accuracy, result.b.accuracy) == (76.5, 86.5)
    assert f"{result.mcnemar_p:.1e}" == "1.1e-06"
    assert result.mcnemar_p == pytest.approx(binom_two_sided(54, 68), rel=1e-9)
    assert result.errors_a is not None
    assert result.errors_a.counts == {"literal": 15, "cultural": 19, "pragmatic": 60, "unparsed": 0}
    assert result.errors_a.total == 94
    assert result.gap.accuracy == pytest.approx(10.0)
    assert 0 < result.gap.accuracy_ci.low < 10 < result.gap.accuracy_ci.high


# ---------------------------------------------------------------- refusals


def refused(dataset: Dataset, a: Run, b: Run, pattern: str) -> None:
    with pytest.raises(PairError, match=pattern) as info:
        analyse_pair(a, b, dataset)
    assert isinstance(info.value, ValueError)
    assert a.header.run_id in str(info.value) and b.header.run_id in str(info.value)


def test_refuses_different_tasks(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    b = make_run(synthetic_dataset, "r-t3", "sighted", {r: "harmful" for r in range(10)}, task=T3)
    refused(synthetic_dataset, a, b, "tasks differ")


def test_refuses_different_option_seeds(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", HAND_B, seed=2222)
    refused(synthetic_dataset, a, b, "option seeds differ")


def test_refuses_different_content_hashes(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", HAND_B, sha="0" * 64)
    refused(synthetic_dataset, a, b, "content hashes differ")
    both = [outcome_run(synthetic_dataset, f"r-{c}", c, HAND_A, sha="0" * 64) for c in ("blind", "sighted")]
    refused(synthetic_dataset, *both, "other data than the loaded dataset")


def test_refuses_different_variants(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", HAND_B, variant="gold_pool")
    refused(synthetic_dataset, a, b, "variants differ")


def test_refuses_different_letter_maps(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    swapped = dict(option_sets(synthetic_dataset, SEED)[7].letter_map)
    first, second = sorted(swapped)[:2]
    swapped[first], swapped[second] = swapped[second], swapped[first]
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", HAND_B, maps={7: swapped})
    refused(synthetic_dataset, a, b, r"letter maps differ on 1 shared item.*row_id 7")


def test_refuses_items_without_a_gold_option_or_outside_the_dataset(synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    bogus = {"A": "literal", "B": "literal", "C": "literal", "D": "literal"}
    a = outcome_run(d, "r-blind", "blind", HAND_A, maps={4: bogus})
    b = outcome_run(d, "r-sighted", "sighted", HAND_B, maps={4: bogus})
    refused(d, a, b, r"no letter map with a correct option, e\.g\. row_id 4")
    a = make_run(d, "r-blind", "blind", {d.rows: "harmful"}, task=T3)
    b = make_run(d, "r-sighted", "sighted", {d.rows: "harmful"}, task=T3)
    refused(d, a, b, f"row_id {d.rows} is not in the dataset")


def test_letter_maps_outside_the_intersection_do_not_matter(synthetic_dataset: Dataset) -> None:
    bogus = {"A": "literal", "B": "literal", "C": "literal", "D": "literal"}
    a = outcome_run(synthetic_dataset, "r-blind", "blind", HAND_A)
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", {**HAND_B, 50: CORRECT}, maps={50: bogus})
    assert analyse_pair(a, b, synthetic_dataset).n == 10


def test_refuses_disjoint_runs_and_self_pairs(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "r-blind", "blind", {0: CORRECT})
    b = outcome_run(synthetic_dataset, "r-sighted", "sighted", {1: CORRECT})
    refused(synthetic_dataset, a, b, "share no items")
    with pytest.raises(PairError, match="itself"):
        analyse_pair(a, a, synthetic_dataset)


# ---------------------------------------------------------------- determinism and speed


def test_item_order_does_not_change_the_result(synthetic_dataset: Dataset) -> None:
    oa, ob = probe_like_outcomes(synthetic_dataset)
    shuffle = lambda d: dict(sorted(d.items(), key=lambda kv: random.Random(kv[0]).random()))  # noqa: E731
    a = outcome_run(synthetic_dataset, "d-blind", "blind", oa)
    first = analyse_pair(a, outcome_run(synthetic_dataset, "d-sighted", "sighted", ob), synthetic_dataset)
    second = analyse_pair(outcome_run(synthetic_dataset, "d-blind", "blind", shuffle(oa)),
                          outcome_run(synthetic_dataset, "d-sighted", "sighted", shuffle(ob)), synthetic_dataset)
    assert first == second
    other_seed = analyse_pair(a, outcome_run(synthetic_dataset, "d-sighted", "sighted", ob),
                              synthetic_dataset, seed=1)
    assert other_seed.gap.accuracy_ci != first.gap.accuracy_ci  # the seed really drives the bootstrap


def test_full_size_pair_covers_every_category(synthetic_dataset: Dataset) -> None:
    rng = random.Random(5)
    sources = ("literal", "cultural", "pragmatic", CORRECT, CORRECT, CORRECT, "")
    oa = {r: rng.choice(sources) for r in range(synthetic_dataset.rows)}
    ob = {r: rng.choice(sources) for r in range(synthetic_dataset.rows)}
    a = outcome_run(synthetic_dataset, "f-blind", "blind", oa)
    b = outcome_run(synthetic_dataset, "f-sighted", "sighted", ob)
    result = analyse_pair(a, b, synthetic_dataset, seed=987654)
    assert result.n == 3001 and len(result.categories) == len(CATEGORIES)


def test_works_on_runs_read_from_disk(tmp_path: Path, synthetic_dataset: Dataset, hand: PairedAnalysis) -> None:
    paths = []
    for run in (outcome_run(synthetic_dataset, "demo-blind", "blind", HAND_A),
                outcome_run(synthetic_dataset, "demo-sighted", "sighted", HAND_B)):
        paths.append(tmp_path / f"{run.header.run_id}.jsonl")
        write_run(paths[-1], run.header, run.items, run.footer)
    assert analyse_pair(read_run(paths[0]), read_run(paths[1]), synthetic_dataset) == hand


# ---------------------------------------------------------------- facts


def test_facts_values_and_provenance(hand: PairedAnalysis) -> None:
    facts = FactTable()
    add_paired_facts(facts, [hand])
    base = "pair.demo-blind__vs__demo-sighted"
    assert facts[f"{base}.n"] == 10
    assert facts[f"{base}.agreement.count"] == 4 and facts[f"{base}.agreement.share"] == 40.0
    assert (facts[f"{base}.fixes"], facts[f"{base}.breaks"]) == (4, 1)
    assert facts[f"{base}.mcnemar_p"] == pytest.approx(0.375)
    assert facts[f"{base}.a.accuracy"] == 40.0 and facts[f"{base}.b.accuracy"] == 70.0
    assert facts[f"{base}.ratio.accuracy"] == pytest.approx(100 * 40 / 70)
    assert facts[f"{base}.gap.accuracy"] == pytest.approx(30.0)
    assert facts[f"{base}.gap.macro_f1.ci95_low"] == hand.gap.macro_f1_ci.low
    assert facts[f"{base}.category.Homophonic pun.gap.accuracy"] == 100.0
    assert facts[f"{base}.category.Homophonic pun.holm_p"] == hand.categories[3].holm_p
    assert facts[f"{base}.errors.pragmatic.count"] == 3 and facts[f"{base}.errors.total.count"] == 6
    assert all(p.runs == ("demo-blind", "demo-sighted") for p in facts.provenance.values())
    assert all(p.computation for p in facts.provenance.values())


def test_every_fact_key_is_documented(hand: PairedAnalysis) -> None:
    facts = FactTable()
    add_paired_facts(facts, [hand])
    doc = (REPO / "docs" / "paired-facts.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`(pair\.<pair_id>\.[^`]+)`", doc))
    prefix = f"pair.{pair_id(hand.run_a, hand.run_b)}."
    categories = "|".join(map(re.escape, CATEGORIES))
    for key in facts.values:
        generic = "pair.<pair_id>." + key.removeprefix(prefix)
        generic = re.sub(rf"\.category\.({categories})\.", ".category.<label>.", generic)
        generic = re.sub(r"\.errors\.(literal|cultural|pragmatic|unparsed)\.", ".errors.<type>.", generic)
        assert generic in documented, f"{generic} is not in docs/paired-facts.md"


def test_facts_added_twice_are_refused(hand: PairedAnalysis) -> None:
    facts = FactTable()
    add_paired_facts(facts, [hand])
    with pytest.raises(ValueError, match="computed twice"):
        add_paired_facts(facts, [hand])


# ---------------------------------------------------------------- finding pairs


def test_find_pairs_matches_blind_with_sighted(synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    runs = [
        outcome_run(d, "m1-sighted", "sighted", HAND_B, subject="m1"),
        outcome_run(d, "m1-blind", "blind", HAND_A, subject="m1"),
        outcome_run(d, "m2-blind", "blind", HAND_A, subject="m2"),  # no sighted m2
        outcome_run(d, "m1-blind-s2222", "blind", HAND_A, subject="m1", seed=2222),  # other seed
        outcome_run(d, "m1-blind-far", "blind", {100: CORRECT}, subject="m1"),  # no shared items
        outcome_run(d, "m1-sighted-2", "sighted", HAND_B, subject="m1"),
        outcome_run(d, "m1-sighted-zh", "sighted", HAND_B, subject="m1", parameters={"lang": "zh"}),
        outcome_run(d, "m1-sighted-en", "sighted", HAND_B, subject="m1", parameters={"lang": "en"}),
        make_run(d, "m1-t3-blind", "blind", {0: "harmful"}, task=T3, subject="m1"),  # other task
        outcome_run(d, "probe", "probe", HAND_A, subject="m1"),
    ]
    expected = [("m1-blind", "m1-sighted"), ("m1-blind", "m1-sighted-2"), ("m1-blind", "m1-sighted-en")]
    for order in (runs, runs[::-1]):
        assert [(a.header.run_id, b.header.run_id) for a, b in find_pairs(order)] == expected
    results = analyse_pairs(runs, d)
    assert [(r.run_a, r.run_b) for r in results] == expected


def test_pair_id_accepts_runs_and_ids(synthetic_dataset: Dataset) -> None:
    a = outcome_run(synthetic_dataset, "x-blind", "blind", {0: CORRECT})
    b = outcome_run(synthetic_dataset, "x-sighted", "sighted", {0: CORRECT})
    assert pair_id(a, b) == pair_id("x-blind", "x-sighted") == "x-blind__vs__x-sighted"
    assert pair_id(a, b) != pair_id(b, a)
