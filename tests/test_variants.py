"""Dataset variants end to end: derivation, runs on a variant, loading and the probe runner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.dataset.options import option_sets
from builder.dataset.variants import GOLD_POOL, derive_variants
from builder.errors import InputError
from builder.probes.generate import generate_probe_runs
from builder.runs.load import load_runs
from builder.runs.reader import read_run
from builder.runs.validate import validate_run

CREATED = "2026-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def variant(synthetic_dataset):
    return derive_variants(synthetic_dataset)[GOLD_POOL]


def test_variant_keeps_items_and_letter_maps(synthetic_dataset, variant):
    assert variant.content_sha256 != synthetic_dataset.content_sha256
    assert variant.row_ids() == synthetic_dataset.row_ids()
    for column in ("term_zh", "equivalent_en", "split", "harmful_label", "category_label"):
        assert list(variant.frame[column]) == list(synthetic_dataset.frame[column])
    original, derived = option_sets(synthetic_dataset, 1111), option_sets(variant, 1111)
    assert all(original[i].letter_map == derived[i].letter_map for i in synthetic_dataset.row_ids())
    assert derive_variants(synthetic_dataset)[GOLD_POOL].content_sha256 == variant.content_sha256


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
    from builder.probe.client import RetryPolicy
    from builder.probe.protocols import DEFAULT_PROTOCOLS, find_protocol, load_protocols
    from builder.probe.runner import ProbeSettings, plan_run
    from builder.probe.selection import make_selection
    protocol = find_protocol(load_protocols(DEFAULT_PROTOCOLS), "equivalent_selection", "blind", "en")
    settings = ProbeSettings(model="demo", base_url="http://127.0.0.1:9/v1", temperature=0.0, top_p=None,
                             max_tokens=8, selection=make_selection("test", None, None), concurrency=1,
                             timeout=1.0, policy=RetryPolicy(0, 0.0, 60.0, 1.0), progress=False)
    plan = plan_run(variant, protocol, settings, 1111, "runs/{run_id}.jsonl", None, GOLD_POOL)
    assert plan.header.run_id.endswith("-gold_pool")
    assert plan.header.dataset == {"name": "CIBuzzBench", "variant": GOLD_POOL, "content_sha256": variant.content_sha256}
