"""Dataset variants end to end: derivation, runs on a variant, loading and the probe runner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.dataset.variants import GOLD_POOL, GOLD_POOL_SLOT, derive_variants
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
from tests.synthetic import load_runs
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_checks import validate_run

CREATED = "2026-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def variants(synthetic_dataset) -> dict[str, Dataset]:
    """Both gold-pool sets of the synthetic data, derived once for the fixtures that read them
    (derive_variants is deterministic; the tests that check that call it again themselves)."""
    return derive_variants(synthetic_dataset)


@pytest.fixture(scope="module")
def variant(variants: dict[str, Dataset]) -> Dataset:
    return variants[GOLD_POOL]


def test_variant_keeps_items_and_letter_maps(synthetic_dataset, variant):
    assert variant.content_sha256 != synthetic_dataset.content_sha256
    assert variant.row_ids() == synthetic_dataset.row_ids()
    for column in ("term_zh", "equivalent_en", "split", "harmful_label", "category_label"):
        assert list(variant.frame[column]) == list(synthetic_dataset.frame[column])
    original, derived = option_sets(synthetic_dataset, 1111), option_sets(variant, 1111)
    assert all(original[i].letter_map == derived[i].letter_map for i in synthetic_dataset.row_ids())
    assert derive_variants(synthetic_dataset)[GOLD_POOL].content_sha256 == variant.content_sha256


def test_kept_variants_serve_every_copy_of_the_data_named_after_it(tmp_path, synthetic_csv, monkeypatch):
    """The build keeps the derived variants by the data's content, not its path: a copy of the
    data elsewhere (a test's folder, a fresh clone) reads them back, named after the copy."""
    from types import SimpleNamespace
    from builder.benchmarks.cibuzzbench import plugin
    from builder.benchmarks.cibuzzbench.dataset import variants as module
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    derived = []
    monkeypatch.setattr(module, "derive_variants", lambda data, real=module.derive_variants: (
        derived.append(data.path), real(data))[1])
    settings = SimpleNamespace(kept_folder=lambda: tmp_path / "cache")
    copies = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        shutil.copy(synthetic_csv, tmp_path / name / "data.csv")
        copies.append(load_dataset(tmp_path / name / "data.csv"))
    first, second = (plugin._variants(data, settings) for data in copies)
    assert derived == [copies[0].path]  # the second copy read what the first one's build kept
    for name in (GOLD_POOL, GOLD_POOL_SLOT):
        assert first[name].path == Path(f"{copies[0].path} (derived: {name} variant)")
        assert second[name].path == Path(f"{copies[1].path} (derived: {name} variant)")
        assert second[name].content_sha256 == first[name].content_sha256
        assert second[name].frame.equals(first[name].frame)


@pytest.fixture(scope="module")
def variant_runs(tmp_path_factory, synthetic_dataset, variant) -> Path:
    folder = tmp_path_factory.mktemp("variant-runs")
    generate_probe_runs(synthetic_dataset, folder, CREATED, {GOLD_POOL: variant})
    return folder


def test_probe_runs_are_written_for_each_variant(variant_runs):
    names = sorted(p.name for p in variant_runs.glob("*.jsonl"))
    assert "probe-longest_chars-t2-s1111-test-gold_pool.jsonl" in names
    assert "probe-longest_chars-t2-s1111-test.jsonl" in names
    assert not any("always_non_harmful" in n and "gold_pool" in n for n in names)  # Task 3 has no options
    header = read_run(variant_runs / "probe-longest_chars-t2-s1111-test-gold_pool.jsonl").header
    assert header.dataset["variant"] == GOLD_POOL


def test_a_variant_run_validates_only_against_its_variant(variant_runs, synthetic_dataset, variant):
    run = read_run(variant_runs / "probe-longest_chars-t2-s1111-test-gold_pool.jsonl")
    validate_run(run, variant)
    with pytest.raises(InputError, match="dataset.content_sha256"):
        validate_run(run, synthetic_dataset)


def test_load_runs_picks_each_runs_variant(variant_runs, synthetic_dataset, variant, tmp_path):
    runs = load_runs(variant_runs, {"original": synthetic_dataset, GOLD_POOL: variant})
    assert {r.header.dataset["variant"] for r in runs} == {"original", GOLD_POOL}
    only = tmp_path / "runs"
    only.mkdir()
    shutil.copy(variant_runs / "probe-random-t2-s1111-all-gold_pool.jsonl", only)
    with pytest.raises(InputError) as info:
        load_runs(only, synthetic_dataset)
    assert ":1 [dataset.variant]" in str(info.value) and "gold_pool" in str(info.value)


def test_probe_runner_plans_variant_runs(synthetic_dataset, variant):
    from builder.probing.client import RetryPolicy
    from builder.benchmarks.cibuzzbench.probes.plan import plan_run
    from builder.benchmarks.cibuzzbench.prompts import DEFAULT_PROTOCOLS, load_protocols
    from builder.probing.protocols import find_protocol
    from builder.probing.runner import ProbeSettings
    from builder.runs.selection import make_selection
    protocol = find_protocol(load_protocols(DEFAULT_PROTOCOLS), "equivalent_selection", "blind", "en")
    settings = ProbeSettings(model="demo", base_url="http://127.0.0.1:9/v1", temperature=0.0, top_p=None,
                             max_tokens=8, selection=make_selection("test", None, None), concurrency=1,
                             timeout=1.0, policy=RetryPolicy(0, 0.0, 60.0, 1.0), progress=False)
    plan = plan_run(variant, protocol, settings, 1111, "runs/{run_id}.jsonl", None, GOLD_POOL)
    assert plan.header.run_id.endswith("-gold_pool")
    assert plan.header.dataset == {"name": "CIBuzzBench", "variant": GOLD_POOL, "content_sha256": variant.content_sha256}


# ----------------------------------------------------------------- both gold-pool sets


def test_both_gold_pool_sets_are_derived(synthetic_dataset, variant):
    both = derive_variants(synthetic_dataset)
    assert sorted(both) == [GOLD_POOL, GOLD_POOL_SLOT]
    assert both[GOLD_POOL].content_sha256 == variant.content_sha256 != both[GOLD_POOL_SLOT].content_sha256
    only = derive_variants(synthetic_dataset, [GOLD_POOL_SLOT])
    assert list(only) == [GOLD_POOL_SLOT] and only[GOLD_POOL_SLOT].content_sha256 == both[GOLD_POOL_SLOT].content_sha256


@pytest.fixture(scope="module")
def three_sets(tmp_path_factory, synthetic_dataset, variants):
    """Every probe, learned ones included, on the original and both gold pools, computed
    (option seed 1111 only: generating and scoring every seed's runs would triple the time for nothing)."""
    from builder.benchmarks.cibuzzbench.compute import compute
    folder = tmp_path_factory.mktemp("three-sets")
    for path in generate_probe_runs(synthetic_dataset, folder, CREATED, variants, learned=True, seeds=(1111,)):
        if "-t2-s1111-" not in path.name:
            path.unlink()
    runs = load_runs(folder, {"original": synthetic_dataset, **variants})
    return folder, compute(synthetic_dataset, runs, variants).facts


REQUIRED = ("leak.longest_chars.accuracy.mean", "leak.shortest_chars.accuracy.mean",
            "leak.gold_strictly_longest.share", "leak.learned_lengths.test.accuracy.mean",
            "leak.learned_options.test.accuracy.mean", "leak.options_within_10pct.count")


def test_each_set_has_the_facts_that_show_whether_length_is_gone(three_sets):
    folder, facts = three_sets
    for name in (GOLD_POOL, GOLD_POOL_SLOT):
        assert all(f"variant.{name}.{key}" in facts for key in REQUIRED), name
        assert f"variant.{name}.leak.learned_lengths.accuracy.mean" in facts  # length-only CV is valid there
        assert f"variant.{name}.leak.learned_options.accuracy.mean" not in facts  # option-only CV is not
    assert "leak.constant_letter.test.macro_f1.mean" in facts
    assert not any(k.startswith("variant.") and ".constant_letter." in k for k in facts.values)
    assert not list(folder.glob("probe-constant_letter-*-gold_pool*.jsonl"))
    # the synthetic golds are longer: length is gone on the article's set only
    pool, slot = "variant.gold_pool.leak", "variant.gold_pool_slot.leak"
    assert facts[f"{pool}.gold_strictly_longest.share"] <= 25 < facts[f"{slot}.gold_strictly_longest.share"]
    assert facts[f"{pool}.options_within_10pct.count"] == 3001 > facts[f"{slot}.options_within_10pct.count"]
    for probe in ("longest_chars", "learned_lengths"):
        assert facts[f"{pool}.{probe}.test.accuracy.mean"] < 33 < facts[f"{slot}.{probe}.test.accuracy.mean"]
    # a constant answer: a quarter right, but three letters with F1 0
    assert facts["leak.constant_letter.test.macro_f1.mean"] < 0.5 * facts["leak.constant_letter.test.accuracy.mean"]


def test_the_evidence_table_shows_three_sets_with_accuracy_beside_macro_f1(three_sets):
    from builder.benchmarks.cibuzzbench.views import tables as v
    _, facts = three_sets
    table = v.option_sets_table(v.FactCells(facts), ["longest_chars", "learned_options"], "test")
    assert table.columns[1:] == ("Original: accuracy", "Original: macro F1", "Gold pool (article): accuracy",
                                 "Gold pool (article): macro F1", "Gold pool, slot-matched: accuracy",
                                 "Gold pool, slot-matched: macro F1")
    assert [c.key for c in table.rows[0][1:]] == [
        f"{root}leak.longest_chars.test.{m}.mean" for root in ("", "variant.gold_pool.", "variant.gold_pool_slot.")
        for m in ("accuracy", "macro_f1")]
    lengths = v.option_sets_length_table(v.FactCells(facts))
    assert all(cell.is_fact for row in lengths.rows for cell in row[1:])


def test_data_command_writes_either_variant(tmp_path, monkeypatch, synthetic_csv, capsys):
    from builder.cli import main
    from builder.benchmarks.cibuzzbench.dataset.gold_pool import read_manifest
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    assert main(["data", "gold-pool", "--variant", GOLD_POOL_SLOT, "--out", str(tmp_path)]) == 0
    assert main(["data", "gold-pool", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "gold_pool_slot variant" in out and "gold_pool variant" in out and "unmatched 0" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cibuzzbench-gold_pool.csv", "cibuzzbench-gold_pool.manifest.json",
        "cibuzzbench-gold_pool_slot.csv", "cibuzzbench-gold_pool_slot.manifest.json"]
    assert read_manifest(tmp_path, GOLD_POOL_SLOT)["generator"] == "gold_pool_slot/1"
    with pytest.raises(SystemExit):
        main(["data", "gold-pool", "--variant", "original", "--out", str(tmp_path)])


def test_probe_command_takes_both_variants(synthetic_dataset):
    from builder.cli import _parser
    for name in ("original", GOLD_POOL, GOLD_POOL_SLOT):
        assert _parser().parse_args(["probe", "--model", "m", "--variant", name]).variant == name


def test_run_pages_label_gold_pool_slots_as_other_items_golds(synthetic_dataset, variant, variant_runs):
    """On a gold pool a slot named 'literal' holds another item's gold: the item browser's codes
    say so (lower case), and only for slots the variant changed."""
    from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
    from builder.benchmarks.cibuzzbench.views.run_pages import SLOT_LABELS, replaced_slots, run_items
    replaced = replaced_slots(variant, synthetic_dataset)
    changed = {(r, k) for r, kinds in replaced.items() for k in kinds}
    columns = {"literal": "distractor_literal_en", "cultural": "distractor_cultural_mismatch_en",
               "pragmatic": "distractor_pragmatic_neighbor_en"}
    assert changed == {(r, k) for r in synthetic_dataset.row_ids() for k, c in columns.items()
                       if variant.frame.loc[r, c] != synthetic_dataset.frame.loc[r, c]}
    assert replaced_slots(synthetic_dataset, synthetic_dataset) == {}
    path = next(variant_runs.glob("probe-random-t2-s1111-all-gold_pool.jsonl"))
    rows = run_items(score_run(read_run(path), variant), replaced)
    for row_id, codes, *_ in rows:
        assert sorted(c for c in codes if c.islower()) == sorted(k[0] for k in replaced.get(row_id, ()))
        assert codes.count("G") == 1
    assert {SLOT_LABELS[c] for _, codes, *_ in rows for c in codes if c.islower()} == {"another item's gold"}
