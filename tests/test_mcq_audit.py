"""The model-free audit of a spec'd benchmark: findings, the shuffle rule, the probes (a planted
cue is found), the `--json` shape and determinism (synthetic benchmarks only)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from bench.mcq_synthetic import write as write_synthetic
from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.analyses.audit import PROBES, run_audit
from builder.benchmarks.mcq.command import audit_json, audit_table
from builder.benchmarks.mcq.load import load_benchmark
from builder.cli import main
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 synthetic items, gold always strictly the longest; published gold at C 40% of the time."""
    return write_synthetic(tmp_path_factory.mktemp("planted"), 300)


@pytest.fixture(scope="module")
def planted_audit(planted: Path):
    return run_audit(load_benchmark(planted))


def write_jsonl(folder: Path, rows: list[dict], extra: str = "") -> Path:
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = folder / "case.yaml"
    spec.write_text(f"name: case\ndataset_path: {folder / 'data.jsonl'}\nid: id\ndoc_to_text: q\n"
                    f"doc_to_choice: choices\ndoc_to_target: answer\n{extra}", encoding="utf-8")
    return spec


def plain_rows(n: int, k: int = 4, seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    return [{"id": f"r{i}", "q": f"synthetic {i}", "answer": rng.randrange(k),
             "choices": [f"opt{i}-{j}-{'x' * rng.randint(1, 9)}" for j in range(k)]} for i in range(n)]


# ------------------------------------------------------------------ findings


def test_findings_count_locate_and_apply_the_rules(tmp_path: Path) -> None:
    rows = plain_rows(12)
    rows[1]["choices"][2] = rows[1]["choices"][3].upper() + "  "  # duplicate distractors: kept
    rows[1]["answer"] = 0
    rows[4]["choices"][1] = rows[4]["choices"][0]  # gold duplicated: excluded
    rows[4]["answer"] = 0
    rows[6]["choices"] = rows[6]["choices"][:3]  # three choices among fours: kept (varying k)
    rows[6]["answer"] = 0
    rows[7]["choices"][3] = "   "  # blank: kept
    rows[7]["answer"] = 0
    rows[9]["choices"] = ["A. one", "B) two", "(C) three", "d: four"]  # lettered: kept
    audit = run_audit(load_benchmark(write_jsonl(tmp_path, rows)))
    found = audit.findings.by_name()
    assert (found["duplicate_choices"].count, found["duplicate_choices"].rule) == (2, "kept")
    assert [e.id for e in found["duplicate_choices"].examples] == ["r1", "r4"]
    assert found["duplicate_choices"].examples[0].line == 2
    assert (found["gold_duplicated"].count, found["gold_duplicated"].rule) == (1, "excluded")
    assert (found["varying_choice_counts"].count, found["varying_choice_counts"].rule) == (1, "kept")
    assert [e.id for e in found["varying_choice_counts"].examples] == ["r6"]
    assert found["empty_choices"].count == 1 and found["lettered_choices"].count == 1
    assert audit.findings.choice_counts == {3: 1, 4: 11}
    assert (audit.items, audit.options, audit.options_range) == (11, 4, (3, 4))


def test_varying_k_keeps_every_item_and_drops_macro_f1(tmp_path: Path) -> None:
    """Items with 5 and 3 options are all audited; chance is the mean of 1/k; macro F1 over
    positions is not reported (position E exists on half the items only); the learned probe is one
    model over both option counts (padding + mask), so it scores all nine items, and so do the
    per-item leak scores."""
    rows = plain_rows(9, k=5)
    for row in rows[5:]:
        row["choices"], row["answer"] = row["choices"][:3], 0
    audit = run_audit(load_benchmark(write_jsonl(tmp_path, rows)))
    assert (audit.options, audit.items, audit.options_range, audit.fixed_k) == (5, 9, (3, 5), False)
    assert audit.findings.by_name()["varying_choice_counts"].count == 4
    assert audit.chance == pytest.approx((5 * 20.0 + 4 * 100.0 / 3) / 9)
    assert all(s.macro_f1 is None for s in audit.probes.values())
    assert audit.as_json()["probes"]["random"]["macro_f1"] is None
    assert audit.probes["learned_options"].items == 9 and audit.probes["longest_chars"].items == 9
    assert audit.learned_chance == pytest.approx(audit.chance)
    assert audit.leak is not None and len(audit.leak.ids) == 9
    assert audit.solvable == pytest.approx(100 * sum(audit.leak.solvable) / 9)


def test_too_few_items_after_exclusions_is_an_input_error(tmp_path: Path) -> None:
    rows = plain_rows(4)
    with pytest.raises(InputError, match="needs at least 5 items"):
        run_audit(load_benchmark(write_jsonl(tmp_path, rows)))


# ------------------------------------------------------------------ the shuffle rule


def test_shuffle_is_the_documented_per_item_rule() -> None:
    expected = list(range(4))
    random.Random("2222:item-9").shuffle(expected)
    assert shuffle.order(2222, "item-9", 4) == expected
    perms = shuffle.permutations(["a", "item-9", "b"], 4, 2222)
    assert perms[1].tolist() == expected  # an item's order does not depend on its neighbours
    assert all(sorted(row) == [0, 1, 2, 3] for row in perms.tolist())
    assert shuffle.SEEDS == (1111, 2222, 3333, 4444, 5555)


# ------------------------------------------------------------------ the probes


def test_planted_length_cue_is_found(planted_audit) -> None:
    probes = planted_audit.probes
    assert probes["longest_chars"].accuracy.mean == 100.0 and probes["longest_chars"].macro_f1.mean == 100.0
    assert probes["shortest_chars"].accuracy.mean == 0.0
    assert probes["learned_options"].accuracy.mean > 95.0
    assert 15.0 < probes["random"].accuracy.mean < 35.0
    assert probes["random"].accuracy.ci95_low < 25.0 < probes["random"].accuracy.ci95_high


def test_published_position_bias_is_its_own_finding(planted_audit) -> None:
    published = planted_audit.as_published["position_prior"]
    shuffled = planted_audit.probes["position_prior"]
    assert published.accuracy.mean > 45.0  # the generator puts the gold at C 40% + 15% of the time
    assert shuffled.accuracy.mean < 35.0  # the seeded shuffle removes it
    assert published.accuracy.sd is None and shuffled.accuracy.sd is not None
    assert published.macro_f1.mean == pytest.approx(100 * (2 * published.accuracy.mean / 100 / (1 + published.accuracy.mean / 100)) / 4)


def test_centroid_finds_distractors_edited_from_the_gold(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows = []
    for i in range(40):
        gold = " ".join(rng.choice(["bright", "harbour", "lantern", "meadow", "quiet", "river", "stone"])
                        for _ in range(4)) + f" {i}"
        words = gold.split()
        distractors = [" ".join(words[:j] + ["edit" + str(j)] + words[j + 1:]) for j in range(3)]
        position = rng.randrange(4)
        rows.append({"id": f"c{i}", "q": "synthetic", "choices": distractors[:position] + [gold] + distractors[position:],
                     "answer": position})
    audit = run_audit(load_benchmark(write_jsonl(tmp_path, rows)))
    assert audit.probes["centroid"].accuracy.mean == 100.0
    assert audit.probes["longest_chars"].accuracy.mean < 60.0


def test_scores_match_a_direct_count_for_longest_words(planted: Path, planted_audit) -> None:
    bench = load_benchmark(planted)
    ids = [i.id for i in bench.items]
    values = []
    for seed in shuffle.SEEDS:
        perms = shuffle.permutations(ids, 4, seed)
        hits = 0
        for item, perm in zip(bench.items, perms):
            shown = [item.choices[j] for j in perm]
            words = [len(t.split()) for t in shown]
            hits += int(perm[words.index(max(words))] == item.gold)  # first maximum = earliest position
        values.append(100.0 * hits / len(ids))
    assert planted_audit.probes["longest_words"].accuracy.mean == pytest.approx(np.mean(values))
    assert planted_audit.probes["longest_words"].per_seed[1111][0] == pytest.approx(values[0])


def test_learned_probe_uses_train_to_test_when_the_spec_has_splits(tmp_path: Path) -> None:
    spec = write_synthetic(tmp_path, 200, splits=True)
    audit = run_audit(load_benchmark(spec))
    assert audit.learned_evaluation == "train→test"
    assert audit.probes["learned_options"].items == 40  # every fifth item is in the test split
    assert audit.probes["longest_chars"].items == 200


def test_learned_probe_never_sees_positions(tmp_path: Path) -> None:
    """Reordering every item's choices in the file leaves the learned scores per text unchanged."""
    rows = plain_rows(30)
    first = run_audit(load_benchmark(write_jsonl(tmp_path, rows)))
    for row in rows:
        gold_text = row["choices"][row["answer"]]
        row["choices"] = row["choices"][::-1]
        row["answer"] = row["choices"].index(gold_text)
    (tmp_path / "b").mkdir()
    second = run_audit(load_benchmark(write_jsonl(tmp_path / "b", rows)))
    assert second.probes["learned_options"].accuracy.mean == pytest.approx(first.probes["learned_options"].accuracy.mean)


# ------------------------------------------------------------------ output


def test_json_shape(planted_audit) -> None:
    data = json.loads(audit_json(planted_audit))
    assert list(data)[:8] == ["benchmark", "items", "options", "findings", "probes", "as_published",
                              "options_range", "chance"]
    assert (data["options_range"], data["chance"]) == ([4, 4], 25.0)
    assert data["benchmark"] == "synthetic-mcq" and data["items"] == 300 and data["options"] == 4
    assert {"duplicate_choices", "varying_choice_counts", "gold_duplicated"} <= set(data["findings"])
    for block in ("probes", "as_published"):
        assert list(data[block]) == list(PROBES)
        for probe in data[block].values():
            assert list(probe) == ["accuracy", "macro_f1"]
            for metric in probe.values():
                assert list(metric) == ["mean", "sd", "ci95_low", "ci95_high"]
                assert 0.0 <= metric["ci95_low"] <= metric["ci95_high"] <= 100.0
    assert data["as_published"]["random"]["accuracy"]["sd"] is None


def test_same_input_gives_identical_json(planted: Path, planted_audit) -> None:
    assert audit_json(run_audit(load_benchmark(planted))) == audit_json(planted_audit)


def test_table_names_every_probe_and_finding(planted_audit) -> None:
    table = audit_table(planted_audit)
    for name in (*PROBES, "duplicate_choices", "as published", "5-fold CV"):
        assert name in table


def test_cli_prints_json_and_reports_bad_input_without_traceback(planted: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(planted), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == 300
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\n", encoding="utf-8")
    assert main(["audit", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "[dataset_path]: required" in err and "Traceback" not in err


def test_cli_audits_every_fixture_spec_from_the_repository(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Relative dataset paths are relative to where buzzprobe runs: the repository."""
    monkeypatch.chdir(REPO)
    for spec in sorted(FIXTURES.glob("*.yaml")):
        assert main(["audit", str(spec.relative_to(REPO)), "--json"]) == 0, spec.name
        assert json.loads(capsys.readouterr().out)["items"] >= 6, spec.name


@pytest.mark.realdata
def test_cibuzzbench_as_a_spec_agrees_with_the_site_heuristics(real_csv: Path, tmp_path: Path) -> None:
    """The generic audit, given CIBuzzBench as a spec, reproduces the dedicated probes: the
    longest option wins as often (only ties differ between the two shuffles)."""
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.options import option_sets
    from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS
    from builder.benchmarks.cibuzzbench.probes.heuristics import longest_chars
    spec = tmp_path / "cibuzzbench.yaml"
    spec.write_text(f"name: cibuzzbench\ndataset_path: cibuzzbench.csv\nid: row_id\ndoc_to_text: term_zh\n"
                    "doc_to_choice: [distractor_literal_en, distractor_cultural_mismatch_en, "
                    "distractor_pragmatic_neighbor_en, equivalent_en]\ndoc_to_target: equivalent_en\n"
                    "split: split\ntrain_split: train\ntest_split: test\ncategory: category_label\n", encoding="utf-8")
    audit = run_audit(load_benchmark(spec, given=real_csv))  # outside the repository: named as --data would
    assert (audit.items, audit.options, audit.learned_evaluation) == (3001, 4, "train→test")
    assert audit.as_published["position_prior"].accuracy.mean == 100.0  # the spec lists the gold last
    dataset = load_dataset(real_csv)
    official = np.mean([100.0 * np.mean([longest_chars(o) == o.gold_letter for o in option_sets(dataset, s).values()])
                        for s in OFFICIAL_SEEDS])
    assert audit.probes["longest_chars"].accuracy.mean == pytest.approx(official, abs=0.3)


def test_the_audit_shuffles_with_cibuzzbenchs_official_seeds() -> None:
    from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS
    from builder.benchmarks.mcq.shuffle import SEEDS
    assert SEEDS == OFFICIAL_SEEDS  # pages compare shuffles made the same way
