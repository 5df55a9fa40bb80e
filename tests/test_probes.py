"""Model-free probes: the heuristics on hand-made option sets, the generated probe runs on
the synthetic dataset, and byte-for-byte reproducibility of the committed probe runs."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import Option, OptionSet
from builder.benchmarks.cibuzzbench.probes import heuristics as h
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_checks import validate_run

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "runs" / "probes"
CREATED = "2026-12-01T00:00:00Z"
SEEDS = (1111, 2222, 3333, 4444, 5555)
OPTION_PROBES = ("random", "longest_chars", "shortest_chars", "longest_words", "constant_letter")
SOURCE_COLUMNS = {
    "literal": "distractor_literal_en",
    "cultural": "distractor_cultural_mismatch_en",
    "pragmatic": "distractor_pragmatic_neighbor_en",
    "correct": "equivalent_en",
}


def opts(*texts: str, row_id: int = 0, seed: int = 1111, letters: str = "ABCD") -> OptionSet:
    sources = ("literal", "cultural", "pragmatic", "correct")
    return OptionSet(row_id, seed, tuple(Option(letter, src, text)
                                         for letter, src, text in zip(letters, sources, texts)))


# ---------------------------------------------------------------- heuristics


@pytest.mark.parametrize("texts,longest,shortest,words", [
    (("a", "bb", "ccc", "dddd"), "D", "A", "A"),
    (("dddd", "ccc", "bb", "a"), "A", "D", "A"),
    (("xx", "a b c", "yyyyyyy", "z"), "C", "D", "B"),
    (("one two", "three", "a b c d", "sixsixsix"), "D", "B", "C"),
    (("合成词语", "ab", "abc", "x y"), "A", "B", "D"),  # characters, not bytes: 4 chars vs 12 bytes
    (("  a  ", "a", "a\tb\nc", "ab"), "A", "B", "C"),  # whitespace counts as characters; tab/newline split words
])
def test_heuristics_pick_the_right_letter(texts: tuple[str, ...], longest: str, shortest: str, words: str) -> None:
    options = opts(*texts)
    assert h.longest_chars(options) == longest
    assert h.shortest_chars(options) == shortest
    assert h.longest_words(options) == words


@pytest.mark.parametrize("texts,longest,shortest,words", [
    (("same", "same", "same", "same"), "A", "A", "A"),
    (("ab", "abcd", "xy", "wxyz"), "B", "A", "A"),
    (("abcd", "a", "wxyz", "b"), "A", "B", "A"),
    (("x", "one two", "y", "six six"), "B", "A", "B"),
    (("aaa", "b", "c", "d d d"), "D", "B", "D"),
    (("aa a", "b bb", "ccccc", "dd d"), "C", "A", "A"),
])
def test_heuristic_ties_go_to_earliest_letter(texts: tuple[str, ...], longest: str, shortest: str,
                                              words: str) -> None:
    options = opts(*texts)
    assert h.longest_chars(options) == longest
    assert h.shortest_chars(options) == shortest
    assert h.longest_words(options) == words


def test_ties_follow_letters_not_tuple_order() -> None:
    options = opts("tie", "tie", "no", "no", letters="DCBA")  # listed D, C, B, A
    assert h.longest_chars(options) == "C"
    assert h.shortest_chars(options) == "A"
    assert h.longest_words(options) == "A"


def test_constant_letter_ignores_the_options() -> None:
    choose = h.constant("A")
    assert {choose(opts(*texts, row_id=i)) for i, texts in enumerate(
        [("a", "bb", "ccc", "dddd"), ("dddd", "ccc", "bb", "a"), ("x", "x", "x", "x")])} == {"A"}


def test_uniform_random_is_deterministic_per_item() -> None:
    choose = h.uniform_random(0)
    sets = [opts("a", "b", "c", "d", row_id=i, seed=2222) for i in range(300)]
    forward = {s.row_id: choose(s) for s in sets}
    backward = {s.row_id: h.uniform_random(0)(s) for s in reversed(sets)}
    interleaved = {s.row_id: choose(s) for s in sets[::2] + sets[1::2]}
    assert forward == backward == interleaved
    assert set(forward.values()) <= set("ABCD")

    # the option texts play no part, only (rng_seed, seed, row_id)
    assert all(choose(opts("w", "xx", "yyy", "zzzz", row_id=i, seed=2222)) == forward[i] for i in range(300))
    # global random state is neither used nor disturbed
    random.seed(12345)
    state = random.getstate()
    assert {s.row_id: choose(s) for s in sets} == forward
    assert random.getstate() == state

    other_seed = {s.row_id: choose(opts("a", "b", "c", "d", row_id=s.row_id, seed=3333)) for s in sets}
    other_rng = {s.row_id: h.uniform_random(1)(s) for s in sets}
    assert sum(other_seed[i] != forward[i] for i in forward) > 150
    assert sum(other_rng[i] != forward[i] for i in forward) > 150


@pytest.mark.parametrize("rng_seed,seed", [(0, 1111), (0, 5555), (7, 2222)])
def test_uniform_random_is_roughly_uniform(rng_seed: int, seed: int) -> None:
    choose = h.uniform_random(rng_seed)
    counts = Counter(choose(opts("a", "b", "c", "d", row_id=i, seed=seed)) for i in range(4000))
    assert set(counts) == set("ABCD")
    for letter, n in counts.items():
        assert 0.20 <= n / 4000 <= 0.30, (letter, counts)


# ---------------------------------------------------------------- generated probe runs


def expected_run_ids() -> set[str]:
    ids = {f"probe-{p}-t2-s{s}-{scope}" for p in OPTION_PROBES for s in SEEDS for scope in ("all", "test")}
    ids |= {f"probe-always_non_harmful-t3-{scope}" for scope in ("all", "test")}
    return ids


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Dataset) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("probes")
    return out, generate_probe_runs(synthetic_dataset, out, CREATED)


def test_probe_run_ids(generated: tuple[Path, list[Path]]) -> None:
    out, written = generated
    assert len(expected_run_ids()) == 52
    assert len(written) == 52
    assert {p.stem for p in written} == expected_run_ids()
    assert {p.name for p in out.iterdir()} == {f"{i}.jsonl" for i in expected_run_ids()}  # no temp files


def test_probe_runs_read_and_validate(generated: tuple[Path, list[Path]], synthetic_dataset: Dataset) -> None:
    _, written = generated
    all_ids = list(range(synthetic_dataset.rows))
    test_ids = synthetic_dataset.row_ids("test")
    assert len(test_ids) == 600
    for path in written:
        run = read_run(path)
        validate_run(run, synthetic_dataset)
        header = run.header
        assert header.run_id == path.stem
        assert header.condition == "probe" and header.subject["kind"] == "probe"
        assert header.created == CREATED
        assert header.dataset["content_sha256"] == synthetic_dataset.content_sha256
        assert run.footer is not None and run.footer.items == len(run.items)
        if path.stem.endswith("-test"):
            assert header.items == {"selection": "split", "split": "test", "n": 600}
            assert run.row_ids == test_ids
        else:
            assert header.items == {"selection": "all", "n": synthetic_dataset.rows}
            assert run.row_ids == all_ids
        if "-t3-" in path.stem:
            assert header.task == "harmfulness_detection" and header.option_seed is None
            assert {i.prediction for i in run.items} == {"non-harmful"}
            assert all(i.letter_map is None for i in run.items)
        else:
            assert header.task == "equivalent_selection"
            assert f"-s{header.option_seed}-" in path.stem
            assert {i.prediction for i in run.items} <= set("ABCD")
        assert all(i.response is None and i.error is None for i in run.items)


def _independent_shuffle(seed: int, row_id: int, term_zh: str) -> list[str]:
    order = ["literal", "cultural", "pragmatic", "correct"]
    random.Random(f"{seed}:{row_id}:{term_zh}").shuffle(order)
    return order


@pytest.mark.parametrize("seed", [1111, 4444])
def test_longest_chars_matches_independent_computation(generated: tuple[Path, list[Path]],
                                                       synthetic_dataset: Dataset, seed: int) -> None:
    out, _ = generated
    frame = synthetic_dataset.frame
    run = read_run(out / f"probe-longest_chars-t2-s{seed}-all.jsonl")
    ties = 0
    for item, (_, row) in zip(run.items, frame.iterrows(), strict=True):
        assert item.row_id == int(row["row_id"])
        order = _independent_shuffle(seed, item.row_id, row["term_zh"])
        assert item.letter_map == dict(zip("ABCD", order))
        lengths = [len(row[SOURCE_COLUMNS[src]]) for src in order]
        expected = "ABCD"[lengths.index(max(lengths))]  # first of the longest
        ties += lengths.count(max(lengths)) > 1
        assert item.prediction == expected, (item.row_id, lengths)
    assert ties > 0  # the synthetic data exercises the tie rule


def test_probe_predictions_differ_between_seeds(generated: tuple[Path, list[Path]]) -> None:
    """Letters move with the shuffle, so the same heuristic answers differently per seed."""
    out, _ = generated
    a = read_run(out / "probe-longest_chars-t2-s1111-all.jsonl")
    b = read_run(out / "probe-longest_chars-t2-s2222-all.jsonl")
    differ = sum(x.prediction != y.prediction for x, y in zip(a.items, b.items))
    assert differ > len(a.items) // 2


def test_generation_is_byte_identical_and_removes_stale(tmp_path: Path, generated: tuple[Path, list[Path]],
                                                        synthetic_dataset: Dataset) -> None:
    first, _ = generated
    expected = {p.name: p.read_bytes() for p in first.glob("*.jsonl")}

    out = tmp_path / "probes"
    out.mkdir()
    (out / "probe-old_heuristic-t2-s1111-all.jsonl").write_text("stale\n")
    (out / "probe-longest_chars-t2-s1111-all.jsonl").write_text("outdated content\n")
    (out / "README.md").write_text("kept\n")
    generate_probe_runs(synthetic_dataset, out, CREATED)
    again = {p.name: p.read_bytes() for p in out.glob("*.jsonl")}
    assert again == expected
    assert (out / "README.md").read_text() == "kept\n"


    # Option seed 1111 only: the stamp check reads that seed's run alone, and each run is made on
    # its own (the full regeneration above already compared every run byte for byte).
    other = tmp_path / "other-stamp"
    generate_probe_runs(synthetic_dataset, other, "2030-01-01T00:00:00Z", seeds=(1111,))
    changed = (other / "probe-random-t2-s1111-all.jsonl").read_bytes()
    assert changed != expected["probe-random-t2-s1111-all.jsonl"]
    assert changed.replace(b"2030-01-01T00:00:00Z", CREATED.encode()) == expected["probe-random-t2-s1111-all.jsonl"]


# ---------------------------------------------------------------- real data


@pytest.mark.realdata
def test_committed_probe_runs_are_reproducible(tmp_path: Path, real_dataset: Dataset) -> None:
    committed = sorted(COMMITTED.glob("*.jsonl"))
    assert committed, f"no committed probe runs under {COMMITTED}"
    stamp_source = COMMITTED / "probe-longest_chars-t2-s1111-all.jsonl"
    with stamp_source.open(encoding="utf-8") as handle:
        created = json.loads(handle.readline())["created"]

    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    written = generate_probe_runs(real_dataset, tmp_path, created, derive_variants(real_dataset), learned=True)
    assert sorted(p.name for p in written) == [p.name for p in committed]
    mismatched = [p.name for p in committed if (tmp_path / p.name).read_bytes() != p.read_bytes()]
    assert mismatched == [], "committed probe runs differ from `make runs`; regenerate them"
