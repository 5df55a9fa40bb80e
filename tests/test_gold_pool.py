"""The slot-matched gold-pool ablation (`gold_pool_slot`): generator invariants (property
tests against a brute-force reference), files and manifest, staleness, and the real data
(counts only). The article's window construction is tested in test_gold_pool_window.py."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.benchmarks.cibuzzbench.dataset import gold_pool as gp
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, Dataset, DatasetSpec, load_dataset
from builder.core.errors import InputError
from tests.synthetic import csv_text, synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
SLOT = gp.GOLD_POOL_SLOT
STEPS = gp.CONSTRUCTIONS[SLOT].tolerance_steps
REGENERATE = "buzzprobe data gold-pool --variant gold_pool_slot"
SLOT_COLUMNS = dict(gp.SLOTS)
KEPT_COLUMNS = [c for c in COLUMNS if c not in SLOT_COLUMNS.values()]


def norm(text: str) -> str:
    return text.strip().casefold()


def load_rows(folder: Path, rows: list[dict[str, str]]) -> Dataset:
    """Write rows as a CSV and load them with the normal loader and a matching spec."""
    path = folder / "data.csv"
    path.write_text(csv_text(rows), encoding="utf-8", newline="")
    tests = sum(r["split"] == "test" for r in rows)
    return load_dataset(path, DatasetSpec(rows=len(rows), split_counts={"train": len(rows) - tests, "test": tests}))


# ----------------------------------------------------------------- reference and invariants


class Reference:
    """Brute-force donor candidates straight from the documented rule (golds bucketed by
    split and exact length, so the full-size checks stay fast)."""

    def __init__(self, rows: list[dict[str, str]]):
        self.buckets: dict[tuple[str, int], list[tuple[int, str]]] = {}
        for r in rows:
            key = (r["split"], len(r["equivalent_en"]))
            self.buckets.setdefault(key, []).append((int(r["row_id"]), norm(r["equivalent_en"])))

    def eligible(self, row: dict[str, str], length: int, tolerance: float, taken: set[str]) -> list[int]:
        lengths = [n for n in range(0, 2 * length + 2) if abs(n - length) <= tolerance * length + 1e-9]
        return sorted(i for n in lengths for i, key in self.buckets.get((row["split"], n), [])
                      if i != int(row["row_id"]) and key not in taken)


def check_invariants(pool: gp.GoldPool, original: list[dict[str, str]]) -> None:
    """Every rule of docs/gold-pool.md, checked against an independent reimplementation."""
    assert [r["row_id"] for r in pool.rows] == [r["row_id"] for r in original]
    assert all(list(r) == list(COLUMNS) for r in pool.rows)
    reference = Reference(original)
    by_row: dict[int, dict[str, gp.SlotChoice]] = {c.row_id: {} for c in pool.choices}
    for c in pool.choices:
        by_row[c.row_id][c.slot] = c
    for before, after in zip(original, pool.rows):
        assert {c: after[c] for c in KEPT_COLUMNS} == {c: before[c] for c in KEPT_COLUMNS}
        row_id = int(before["row_id"])
        taken = {norm(before["equivalent_en"])} | {norm(before[c]) for c in SLOT_COLUMNS.values()}
        for slot, column in gp.SLOTS:
            choice = by_row[row_id][slot]
            length = len(before[column])
            assert choice.length_before == length and choice.length_after == len(after[column])
            skipped = [t for t in STEPS if choice.tolerance is None or t < choice.tolerance]
            assert all(not reference.eligible(before, length, t, taken) for t in skipped)
            if choice.donor is None:  # kept: nothing eligible even at the cap
                assert after[column] == before[column] and choice.tolerance is None
                continue
            candidates = reference.eligible(before, length, choice.tolerance, taken)
            assert choice.candidates == len(candidates)
            expected = random.Random(f"gold_pool:{pool.seed}:{row_id}:{slot}").choice(candidates)
            assert choice.donor == expected
            donor = original[choice.donor]
            assert after[column] == donor["equivalent_en"] and donor["split"] == before["split"]
            assert choice.donor != row_id and norm(after[column]) != norm(before["equivalent_en"])
            assert abs(len(after[column]) - length) <= choice.tolerance * length + 1e-9
            taken.add(norm(after[column]))
        replaced = [norm(after[c]) for s, c in gp.SLOTS if by_row[row_id][s].donor is not None]
        others = [norm(after["equivalent_en"])] + [norm(after[c]) for s, c in gp.SLOTS
                                                   if by_row[row_id][s].donor is None]
        assert len(set(replaced)) == len(replaced) and not set(replaced) & set(others)
        if len({norm(before[c]) for c in ("equivalent_en", *SLOT_COLUMNS.values())}) == 4:
            assert len({norm(after[c]) for c in ("equivalent_en", *SLOT_COLUMNS.values())}) == 4


def check_counts(pool: gp.GoldPool) -> None:
    counts, choices = pool.counts, pool.choices
    kept = [c for c in choices if c.donor is None]
    widened = [c for c in choices if c.tolerance is not None and c.tolerance > gp.TOLERANCE]
    assert counts["slots"] == 3 * len(pool.rows) == len(choices)
    assert counts["unmatched_slots"] == len(kept) == len(pool.unmatched)
    assert counts["widened_slots"] == len(widened) == len(pool.widened)
    assert counts["replaced_slots"] == len(choices) - len(kept)
    assert counts["replaced_within_10pct_slots"] == sum(c.tolerance == gp.TOLERANCE for c in choices)
    assert counts["items_with_unmatched_slot"] == len({c.row_id for c in kept})
    assert counts["items_fully_within_10pct"] == len(pool.rows) - len({c.row_id for c in kept + widened})


# ----------------------------------------------------------------- property tests

TEXT = st.text(alphabet="abAB -'", min_size=1, max_size=14).filter(lambda s: s.strip() != "")


@st.composite
def small_rows(draw: st.DrawFn) -> list[dict[str, str]]:
    n = draw(st.integers(min_value=1, max_value=24))
    rows = []
    for i in range(n):
        rows.append({
            "row_id": str(i), "split": draw(st.sampled_from(["train", "test"])),
            "term_zh": f"词{i}", "explanation_zh": "解释", "meaning_en": "meaning",
            "equivalent_en": draw(TEXT), "distractor_literal_en": draw(TEXT),
            "distractor_cultural_mismatch_en": draw(TEXT), "distractor_pragmatic_neighbor_en": draw(TEXT),
            "harmful_label": "non-harmful", "category_label": "Slang",
        })
    return rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=small_rows(), seed=st.integers(min_value=0, max_value=2**32))
def test_generator_follows_every_rule(rows: list[dict[str, str]], seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        dataset = load_rows(Path(folder), rows)
    pool = gp.make_gold_pool(dataset, seed, variant=SLOT)
    check_invariants(pool, rows)
    check_counts(pool)
    assert gp.make_gold_pool(dataset, seed, variant=SLOT).csv_bytes() == pool.csv_bytes()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_unmatched_slots_keep_their_text_and_are_flagged(seed: int) -> None:
    """Lengths 1, 10 and 40 with donors only of length 5: 10 is within 50% but not 30%."""
    rows = [{"row_id": str(i), "split": "train", "term_zh": f"词{i}", "explanation_zh": "解释",
             "meaning_en": "m", "equivalent_en": f"{i:05d}", "distractor_literal_en": "x",
             "distractor_cultural_mismatch_en": "y" * 10, "distractor_pragmatic_neighbor_en": "z" * 40,
             "harmful_label": "harmful", "category_label": "Slang"} for i in range(4)]
    with tempfile.TemporaryDirectory() as folder:
        pool = gp.make_gold_pool(load_rows(Path(folder), rows), seed, variant=SLOT)
    check_invariants(pool, rows)
    assert pool.counts["unmatched_slots"] == 12 and pool.counts["items_with_unmatched_slot"] == 4
    assert [r["distractor_pragmatic_neighbor_en"] for r in pool.rows] == ["z" * 40] * 4


def test_tolerance_widens_stepwise_and_records_the_step(tmp_path: Path) -> None:
    """A 20-character distractor whose only donors have 23 characters is matched at 15%."""
    rows = synthetic_rows(6, 2, seed=1)
    for i, r in enumerate(rows):
        r["split"] = "train"
        r["equivalent_en"] = f"donor {i:02d} " + "q" * 14  # 23 characters
        r["distractor_literal_en"] = "L" * 20
        r["distractor_cultural_mismatch_en"] = "C" * 23
        r["distractor_pragmatic_neighbor_en"] = "P" * 22
    pool = gp.make_gold_pool(load_rows(tmp_path, rows), variant=SLOT)
    check_invariants(pool, rows)
    literal = [c for c in pool.choices if c.slot == "literal"]
    assert all(c.tolerance == 0.15 and c.donor is not None for c in literal)
    assert pool.counts["widened_slots"] == 6 and pool.counts["items_with_widened_slot"] == 6


def test_donors_come_from_the_same_split(synthetic_dataset: Dataset, synthetic_pool: gp.GoldPool) -> None:
    pool = synthetic_pool
    split = synthetic_dataset.column("split")
    assert all(split[c.donor] == split[c.row_id] for c in pool.choices if c.donor is not None)


# ----------------------------------------------------------------- full-size synthetic data


@pytest.fixture(scope="module")
def synthetic_pool(synthetic_dataset: Dataset) -> gp.GoldPool:
    """The default-seed pool, drawn once for the tests that read it (read-only: tests copy rows they edit)."""
    return gp.make_gold_pool(synthetic_dataset, variant=SLOT)


def test_full_size_synthetic_invariants(synthetic_pool: gp.GoldPool) -> None:
    check_invariants(synthetic_pool, synthetic_rows())
    check_counts(synthetic_pool)
    # synthetic golds ("gold <i> ...") are never shorter than 14 characters, so the shortest
    # synthetic distractors have no donor even at 30%: the rule's fallback is exercised at scale
    assert 0 < synthetic_pool.counts["unmatched_slots"] < 3001


def test_seed_changes_the_draw_and_only_the_draw(synthetic_dataset: Dataset, synthetic_pool: gp.GoldPool) -> None:
    other = gp.make_gold_pool(synthetic_dataset, seed=1, variant=SLOT)
    assert other.csv_bytes() != synthetic_pool.csv_bytes()
    assert [c.candidates for c in other.choices][:50] != [] and other.counts["slots"] == synthetic_pool.counts["slots"]
    assert gp.make_gold_pool(synthetic_dataset, variant=SLOT).csv_bytes() == synthetic_pool.csv_bytes()


@pytest.mark.parametrize("variant", list(gp.CONSTRUCTIONS))
def test_output_does_not_depend_on_the_hash_seed(synthetic_csv: Path, synthetic_dataset: Dataset,
                                                 variant: str) -> None:
    """Both constructions (the window one is tested in test_gold_pool_window.py)."""
    code = ("import hashlib,sys; from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset; "
            "from builder.benchmarks.cibuzzbench.dataset.gold_pool import make_gold_pool; "
            "print(hashlib.sha256(make_gold_pool(load_dataset(sys.argv[1]), variant=sys.argv[2]).csv_bytes()).hexdigest())")
    digests = set()
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code, str(synthetic_csv), variant], cwd=REPO, env=env,
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {hashlib.sha256(gp.make_gold_pool(synthetic_dataset, variant=variant).csv_bytes()).hexdigest()}


def test_written_csv_loads_with_the_official_spec(tmp_path: Path, synthetic_dataset: Dataset,
                                                  synthetic_pool: gp.GoldPool) -> None:
    csv_path, manifest_path = gp.write_gold_pool(synthetic_pool, tmp_path)
    assert (csv_path.name, manifest_path.name) == ("cibuzzbench-gold_pool_slot.csv", "cibuzzbench-gold_pool_slot.manifest.json")
    raw = csv_path.read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n") == 3002 and not raw.startswith(b"\xef\xbb\xbf")
    variant = load_dataset(csv_path)  # the official spec, unchanged
    assert variant.content_sha256 == synthetic_pool.content_sha256 != synthetic_dataset.content_sha256
    assert variant.frame[KEPT_COLUMNS].equals(synthetic_dataset.frame[KEPT_COLUMNS])
    assert gp.load_gold_pool(tmp_path, synthetic_dataset, SLOT).content_sha256 == variant.content_sha256
    assert sorted(p.name for p in tmp_path.iterdir()) == [csv_path.name, manifest_path.name]  # no temp files left


def test_manifest_records_everything(tmp_path: Path, synthetic_dataset: Dataset, synthetic_pool: gp.GoldPool) -> None:
    csv_path, manifest_path = gp.write_gold_pool(synthetic_pool, tmp_path)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert manifest["seed"] == gp.DEFAULT_SEED and manifest["variant"] == SLOT
    assert manifest["source"] == {"file_sha256": synthetic_dataset.file_sha256,
                                  "content_sha256": synthetic_dataset.content_sha256}
    assert manifest["variant_content_sha256"] == synthetic_pool.content_sha256
    assert manifest["variant_file_sha256"] == hashlib.sha256(csv_path.read_bytes()).hexdigest()
    assert manifest["tolerance"] == 0.1 and manifest["tolerance_steps"] == [0.1, 0.15, 0.2, 0.25, 0.3]
    assert manifest["counts"] == synthetic_pool.counts and manifest["rule"] == gp.CONSTRUCTIONS[SLOT].rule
    assert manifest["tool"]["name"] == "buzzprobe" and manifest["generator"] == "gold_pool_slot/1"
    donors = {d["row_id"]: d["donors"] for d in manifest["donors"]}
    assert donors == {i: {s: v for s, v in slots.items()} for i, slots in synthetic_pool.donors.items()}
    assert set(manifest["length_means"]) == {"literal", "cultural", "pragmatic", "correct"}
    text = manifest_path.read_text(encoding="utf-8")
    assert "synthetic meaning" not in text and "gold 1 " not in text  # ids and numbers, never dataset text


def test_writing_is_byte_for_byte_deterministic(tmp_path: Path, synthetic_pool: gp.GoldPool) -> None:
    first = gp.write_gold_pool(synthetic_pool, tmp_path / "a")
    second = gp.write_gold_pool(synthetic_pool, tmp_path / "b")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


# ----------------------------------------------------------------- stale and damaged variants


def other_original(tmp_path: Path) -> Dataset:
    rows = synthetic_rows()
    rows[5]["meaning_en"] += " (edited)"
    return load_dataset(write_synthetic_csv(tmp_path / "other.csv", rows))


def test_stale_manifest_is_rejected(tmp_path: Path, synthetic_pool: gp.GoldPool) -> None:
    gp.write_gold_pool(synthetic_pool, tmp_path / "v")
    with pytest.raises(InputError) as info:
        gp.load_gold_pool(tmp_path / "v", other_original(tmp_path), SLOT)
    assert "stale gold-pool variant" in str(info.value) and REGENERATE in str(info.value)


def test_missing_variant_says_how_to_generate_it(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    with pytest.raises(InputError, match=REGENERATE):
        gp.load_gold_pool(tmp_path / "nothing", synthetic_dataset, SLOT)


def test_missing_csv_says_how_to_regenerate(tmp_path: Path, synthetic_dataset: Dataset,
                                            synthetic_pool: gp.GoldPool) -> None:
    csv_path, _ = gp.write_gold_pool(synthetic_pool, tmp_path)
    csv_path.unlink()
    with pytest.raises(InputError, match=f"CSV is missing; regenerate it with `{REGENERATE}`"):
        gp.load_gold_pool(tmp_path, synthetic_dataset, SLOT)


def test_csv_edited_after_generation_is_rejected(tmp_path: Path, synthetic_dataset: Dataset,
                                                 synthetic_pool: gp.GoldPool) -> None:
    csv_path, _ = gp.write_gold_pool(synthetic_pool, tmp_path)
    rows = [dict(r) for r in synthetic_pool.rows]
    rows[3]["distractor_literal_en"] = "edited by hand"
    csv_path.write_text(csv_text(rows), encoding="utf-8", newline="")
    with pytest.raises(InputError, match="does not match its manifest"):
        gp.load_gold_pool(tmp_path, synthetic_dataset, SLOT)


def test_variant_with_other_gold_is_rejected(tmp_path: Path, synthetic_dataset: Dataset,
                                             synthetic_pool: gp.GoldPool) -> None:
    rows = [dict(r) for r in synthetic_pool.rows]
    rows[0]["equivalent_en"] = "a different gold"
    gp.write_gold_pool(replace(synthetic_pool, rows=rows), tmp_path)
    with pytest.raises(InputError, match="differs from the original in equivalent_en"):
        gp.load_gold_pool(tmp_path, synthetic_dataset, SLOT)


def test_ensure_generates_reuses_and_regenerates(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    folder = tmp_path / "variant"
    first = gp.ensure_gold_pool(synthetic_dataset, folder, variant=SLOT)
    manifest = folder / gp.CONSTRUCTIONS[SLOT].manifest_name
    stamp = manifest.stat().st_mtime_ns
    assert gp.ensure_gold_pool(synthetic_dataset, folder, variant=SLOT).content_sha256 == first.content_sha256
    assert manifest.stat().st_mtime_ns == stamp  # valid: not rewritten
    reseeded = gp.ensure_gold_pool(synthetic_dataset, folder, seed=7, variant=SLOT)
    assert reseeded.content_sha256 != first.content_sha256
    assert json.loads(manifest.read_text(encoding="utf-8"))["seed"] == 7
    other = other_original(tmp_path)
    expected = gp.make_gold_pool(other, 7, variant=SLOT).content_sha256
    assert gp.ensure_gold_pool(other, folder, seed=7, variant=SLOT).content_sha256 == expected
    manifest.write_text("{not json", encoding="utf-8")
    assert gp.ensure_gold_pool(other, folder, seed=7, variant=SLOT).content_sha256 == expected


# ----------------------------------------------------------------- real data (counts only)


@pytest.fixture(scope="module")
def real_pool(real_dataset: Dataset) -> gp.GoldPool:
    return gp.make_gold_pool(real_dataset, variant=SLOT)


def real_rows(dataset: Dataset) -> list[dict[str, str]]:
    frame = dataset.frame[list(COLUMNS)].astype(str)
    return [dict(zip(COLUMNS, values)) for values in frame.itertuples(index=False)]


@pytest.mark.realdata
def test_real_data_invariants_and_counts(real_dataset: Dataset, real_pool: gp.GoldPool) -> None:
    check_invariants(real_pool, real_rows(real_dataset))
    check_counts(real_pool)
    counts = real_pool.counts
    assert (counts["slots"], counts["unmatched_slots"], counts["widened_slots"]) == (9003, 0, 1)
    assert [(c.slot, c.tolerance) for c in real_pool.widened] == [("literal", 0.15)]
    means = real_pool.length_means
    for slot, _ in gp.SLOTS:
        assert abs(means[slot]["after"] - means[slot]["before"]) < 0.02 * means[slot]["before"]


@pytest.mark.realdata
def test_real_ablation_is_the_former_gold_pool(real_pool: gp.GoldPool) -> None:
    """`gold_pool_slot` keeps the construction `gold_pool` had before it became the article's
    set (generator gold_pool/1), byte for byte on the real data."""
    assert real_pool.content_sha256 == "b058ac3b2813fb4cfbea05542942f78cf9e769e1de3e5e150503dae95a31c92b"


@pytest.mark.realdata
def test_real_variant_round_trips(tmp_path: Path, real_dataset: Dataset, real_pool: gp.GoldPool) -> None:
    gp.write_gold_pool(real_pool, tmp_path)
    variant = gp.load_gold_pool(tmp_path, real_dataset, SLOT)
    assert variant.rows == 3001 and variant.content_sha256 == real_pool.content_sha256
    assert variant.row_ids("test") == real_dataset.row_ids("test")
