"""The leak split adjusted for what else differs between the items it compares (issue 30 item 4):
the Mantel–Haenszel risk difference over strata, its stratified bootstrap, the per-stratum rows,
the crude/adjusted disagreement, and the spec's `strata` key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import InputError
from builder.stats.bootstrap import percentile_interval
from builder.stats.solvable_split import solvable_split
from builder.stats.split_gap import mantel_haenszel_gap, split_gaps, stratified_gap


def _simpson() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratum 'easy' (accuracy 90%) holds most solvable items, stratum 'hard' (30%) most of the
    rest; within each stratum the two kinds score the same."""
    rows = []
    for stratum, n_solv, n_rest, acc in (("easy", 400, 100, 0.9), ("hard", 100, 400, 0.3)):
        for kind, n in ((True, n_solv), (False, n_rest)):
            hits = int(round(acc * n))
            rows += [(stratum, kind, i < hits) for i in range(n)]
    strata, kind, right = (np.array(col) for col in zip(*rows))
    return right.astype(bool), kind.astype(bool), strata


def test_the_adjusted_gap_removes_what_the_strata_mix_adds() -> None:
    right, kind, strata = _simpson()
    crude = 100.0 * (right[kind].mean() - right[~kind].mean())
    assert crude == pytest.approx(36.0)  # (0.9*400+0.3*100)/500 - (0.9*100+0.3*400)/500 = 0.78 - 0.42
    gaps = split_gaps(right, kind, strata, resamples=300)
    assert gaps.crude.gap == pytest.approx(crude) and gaps.crude.low > 25
    assert gaps.adjusted is not None and gaps.adjusted.gap == pytest.approx(0.0, abs=1e-9)
    assert gaps.adjusted.low < 0 < gaps.adjusted.high and gaps.strata_both == 2


def test_mantel_haenszel_weights_by_hand() -> None:
    """Stratum a: 2 solvable (both right), 2 rest (one right): gap 50, w = 2*2/4 = 1. Stratum b:
    1 solvable (wrong), 3 rest (all right): gap -100, w = 3/4. Stratum c: solvable only, w = 0."""
    right = np.array([1, 1, 1, 0, 0, 1, 1, 1, 1, 0], bool)
    kind = np.array([1, 1, 0, 0, 1, 0, 0, 0, 1, 1], bool)
    strata = np.array(list("aaaabbbbcc"))
    expected = (1.0 * 50.0 + 0.75 * -100.0) / 1.75
    assert mantel_haenszel_gap(right, kind, strata) == pytest.approx(expected)
    assert mantel_haenszel_gap(right, kind, np.array(["a"] * 4 + ["b"] * 6)[:10]) is not None
    assert mantel_haenszel_gap(right[:2], kind[:2], strata[:2]) is None  # one kind only: undefined


def test_the_crude_interval_is_unchanged_by_the_adjustment() -> None:
    """The adjusted gap is read from the same draws; the crude interval keeps its published bytes."""
    right, kind, strata = _simpson()
    assert stratified_gap(right, kind, strata, resamples=200) == (
        lambda g: (g.gap, g.low, g.high))(split_gaps(right, kind, strata, resamples=200).crude)


def test_a_split_keeps_its_strata_rows_and_says_when_readings_disagree() -> None:
    right, kind, strata = _simpson()
    split = solvable_split(right, kind, strata)
    assert split is not None and split.disagrees  # crude above zero, adjusted across it
    rows = {r.stratum: r for r in split.strata}
    assert (rows["easy"].solvable_items, rows["easy"].rest_items) == (400, 100)
    assert rows["easy"].gap == pytest.approx(0.0) and rows["hard"].weight == pytest.approx(80.0)
    same = solvable_split(right, kind, np.array(["one"] * len(right)))
    assert same is not None and not same.disagrees and same.adjusted.gap == pytest.approx(same.gap)


SPEC = """name: strat
dataset_path: {data}
doc_to_text: q
doc_to_choice: c
doc_to_target: a
category: cat
"""


def _spec(tmp_path: Path, extra: str) -> Path:
    data = tmp_path / "d.jsonl"
    data.write_text('{"q": "x", "c": ["a", "b"], "a": 0, "cat": "k", "src": "one-two"}\n')
    path = tmp_path / "strat.yaml"
    path.write_text(SPEC.format(data=data) + extra)
    return path


def test_the_spec_names_its_strata(tmp_path: Path) -> None:
    spec = load_spec(_spec(tmp_path, 'strata:\n  category: cat\n  source: "{{ src.split(\'-\')[0] }}"\n'),
                     root=tmp_path)
    assert [name for name, _ in spec.strata] == ["category", "source"]
    from builder.benchmarks.mcq.load import load_benchmark
    item = load_benchmark(spec.path, root=tmp_path).items[0]
    assert item.strata == ("k", "one") and item.stratum == "k / one"


@pytest.mark.parametrize("value, message", [
    ("strata: cat\n", "must map 1 to 4 stratum names"),
    ("strata:\n  Bad Name: cat\n", "stratum name"),
    ("strata:\n  source: [a, b]\n", "stratum 'source': must be a field name or a template"),
    ("strata:\n  source: '{{ src.split( }}'\n", "template does not compile"),
])
def test_a_bad_strata_key_is_a_located_error(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_spec(_spec(tmp_path, value), root=tmp_path)
    text = str(caught.value)
    assert message in text and "strat.yaml:7 [strata]" in text


def _drawn_item_by_item(right: np.ndarray, kind: np.ndarray, strata: np.ndarray, resamples: int,
                        seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The stratified bootstrap spelled out: per stratum in sorted order, draw its items' indices
    from one generator, gather the drawn items and count; per draw the crude and the adjusted gap
    (nan where a kind is missing or no stratum holds both)."""
    rng = np.random.default_rng(seed)
    n1 = np.zeros(resamples)
    n0, h1, h0, num, den = (np.zeros(resamples) for _ in range(5))
    for stratum in np.unique(strata):
        members = np.flatnonzero(strata == stratum)
        pick = members[rng.integers(0, len(members), (resamples, len(members)))]
        chosen, hit = kind[pick], right[pick]
        a, b = chosen.sum(axis=1), (~chosen).sum(axis=1)
        ha, hb = (hit & chosen).sum(axis=1), (hit & ~chosen).sum(axis=1)
        n1, n0, h1, h0 = n1 + a, n0 + b, h1 + ha, h0 + hb
        mixed = (a > 0) & (b > 0)
        w = np.where(mixed, a * b / np.maximum(a + b, 1), 0.0)
        num += np.where(mixed, w * (ha / np.maximum(a, 1) - hb / np.maximum(b, 1)), 0.0)
        den += w
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * (h1 / n1 - h0 / n0), np.where(den > 0, 100.0 * num / den, np.nan)


@pytest.mark.parametrize("seed", range(12))
def test_the_counted_draws_give_the_item_by_item_intervals_bit_for_bit(seed: int) -> None:
    """split_gaps counts how often each draw took each item (kept across runs over the same items)
    instead of gathering them: the intervals are the spelled-out bootstrap's, every bit, with one
    stratum or many, strata of one item, and kinds missing from some strata."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 400))
    strata = np.array([f"s{v}" for v in rng.integers(0, int(rng.integers(1, 9)), n)])
    kind, right = rng.random(n) < rng.uniform(0.1, 0.9), rng.random(n) < 0.6
    kind[:2] = (True, False)
    resamples = int(rng.integers(1, 120))
    gaps = split_gaps(right, kind, strata, resamples=resamples, seed=seed)
    crude, adjusted = _drawn_item_by_item(right, kind, strata, resamples, seed)
    crude, adjusted = crude[np.isfinite(crude)], adjusted[np.isfinite(adjusted)]
    interval = percentile_interval(crude, 0.95)
    assert (gaps.crude.low, gaps.crude.high) == (interval.low, interval.high)
    if gaps.adjusted is not None:
        interval = percentile_interval(adjusted, 0.95)
        assert (gaps.adjusted.low, gaps.adjusted.high) == (interval.low, interval.high)
