"""Measured validly, labelled truly: the folds a cross-fitting used are the folds its labels name,
the position prior is fitted on training folds only, one percentile interval and one
Mantel–Haenszel computation serve every split (docs/audit.md, docs/ranker.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.analyses.audit import run_audit
from builder.benchmarks.mcq.analyses.position_prior import cross_fitted_prior, in_sample_prior
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mcq.views.spec_tables import _fold_counts
from builder.ranker.evaluate import CROSS_VALIDATION, Options, fit_evaluate, folds
from builder.ranker.groups import group_folds, item_groups
from builder.stats import split_gap
from builder.stats.bootstrap import percentile_interval
from builder.stats.solvable_split import solvable_split
from builder.stats.split_gap import mantel_haenszel, split_gaps, stratum_counts

SHARED = ["alpha", "bravo", "charlie", "delta"]


def _rows(n: int, shared: int, seed: int = 7) -> list[dict]:
    """n items, the first `shared` of them with one option set (in varying order): one group
    holding more than a fifth of the items."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        choices = rng.sample(SHARED, 4) if i < shared else [f"opt{i}-{j}-{'x' * rng.randint(1, 9)}" for j in range(4)]
        rows.append({"id": f"r{i}", "q": f"synthetic {i}", "answer": rng.randrange(4), "choices": choices})
    return rows


def _spec(folder: Path, rows: list[dict]) -> Path:
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = folder / "case.yaml"
    spec.write_text(f"name: case\ndataset_path: {folder / 'data.jsonl'}\nid: id\ndoc_to_text: q\n"
                    "doc_to_choice: choices\ndoc_to_target: answer\n", encoding="utf-8")
    return spec


# ------------------------------------------------------------------ the folds used are the folds named


def test_a_group_over_a_fifth_of_the_items_leaves_fewer_than_five_folds() -> None:
    groups = item_groups([r["choices"] for r in _rows(60, 40)])
    used = group_folds(groups, 5, 0)
    assert len(used) < 5
    held = np.sort(np.concatenate([h for _, h in used]))
    assert held.tolist() == list(range(60))  # still every item held out exactly once


def test_the_cross_validation_label_names_the_folds_it_used() -> None:
    rows = _rows(60, 40)
    options = Options.build([r["choices"] for r in rows], [r["answer"] for r in rows])
    used = len(folds(options.item_groups()))
    ev = fit_evaluate(options)
    assert used < 5 and ev.folds == used
    assert ev.evaluation == f"{used}-fold CV" != CROSS_VALIDATION


def test_the_audit_records_and_labels_the_folds_it_used(tmp_path: Path) -> None:
    audit = run_audit(load_benchmark(_spec(tmp_path, _rows(60, 40))))
    assert audit.learned_folds < 5
    assert audit.learned_evaluation == f"{audit.learned_folds}-fold CV"
    leak = audit.as_json()["learned"]["leak"]["evaluation"]
    assert leak.startswith(f"{audit.learned_folds}-fold cross-fitting")


def test_the_index_note_names_each_benchmarks_fold_count() -> None:
    rows = [SimpleNamespace(title="Big group", folds=3), SimpleNamespace(title="Plain", folds=5)]
    assert _fold_counts(rows) == "5-fold for Plain; 3-fold for Big group"
    assert _fold_counts(rows[1:]) == "5-fold"


# ------------------------------------------------------------------ the position prior is cross-fitted


def test_on_random_golds_the_cross_fitted_prior_is_at_chance_and_the_in_sample_one_above() -> None:
    rng = np.random.default_rng(11)
    in_sample, crossed = [], []
    for _ in range(300):
        gold = rng.integers(0, 4, 200)
        groups = np.arange(200)
        in_sample.append(100 * np.mean(in_sample_prior(gold, 4) == gold))
        crossed.append(100 * np.mean(cross_fitted_prior(gold, groups, 4) == gold))
    assert np.mean(in_sample) > 27.0  # the most common of four positions, fitted on the items it scores
    assert abs(np.mean(crossed) - 25.0) < 1.0  # fitted on other items: chance in expectation


def test_the_cross_fitted_prior_never_reads_its_own_fold() -> None:
    gold = np.array([0] * 30 + [3] * 10)
    groups = np.arange(40)
    pred = cross_fitted_prior(gold, groups, 4)
    for train, held in folds(groups):
        assert (pred[held] == np.argmax(np.bincount(gold[train], minlength=4))).all()


def test_the_audits_position_prior_is_the_cross_fitted_one(tmp_path: Path) -> None:
    rows = _rows(80, 0, seed=3)
    audit = run_audit(load_benchmark(_spec(tmp_path, rows)))
    gold0 = np.array([r["answer"] for r in rows])
    ids = [r["id"] for r in rows]
    groups = item_groups([r["choices"] for r in rows])
    for seed, (accuracy, _) in audit.probes["position_prior"].per_seed.items():
        perm = shuffle.permutations(ids, [4] * len(rows), seed)
        gold = np.argmax(perm == gold0[:, None], axis=1)
        assert accuracy == pytest.approx(100 * np.mean(cross_fitted_prior(gold, groups, 4) == gold))
    in_sample = [100 * np.mean(in_sample_prior(g, 4) == g) for g in
                 (np.argmax(shuffle.permutations(ids, [4] * len(rows), s) == gold0[:, None], axis=1)
                  for s in shuffle.SEEDS)]
    assert audit.probes["position_prior"].accuracy.mean < np.mean(in_sample)


# ------------------------------------------------------------------ one interval, one Mantel–Haenszel


def test_split_gap_has_no_interval_of_its_own_and_the_shared_one_is_numpys_percentile() -> None:
    assert not hasattr(split_gap, "_interval")
    tail = 100.0 * (1.0 - 0.95) / 2.0  # split_gap's former rule, verbatim: the published gaps must not move
    for size in (997, 1000, 1999):
        draws = np.random.default_rng(size).normal(size=size)
        interval = percentile_interval(draws, 0.95)
        assert (interval.low, interval.high) == tuple(float(v) for v in np.percentile(draws, [tail, 100.0 - tail]))


def test_the_split_reads_one_mantel_haenszel_computation() -> None:
    rng = np.random.default_rng(4)
    right, kind = rng.random(300) < 0.6, rng.random(300) < 0.4
    strata = np.array(["b", "a", "c"])[rng.integers(0, 3, 300)]
    gaps = split_gaps(right, kind, strata, resamples=50)
    assert gaps.strata == stratum_counts(right, kind, strata)
    assert gaps.adjusted is not None and gaps.adjusted.gap == mantel_haenszel(gaps.strata)
    split = solvable_split(right, kind, strata)
    assert split is not None and split.adjusted is not None
    assert [r.stratum for r in split.strata] == ["a", "b", "c"]
    pooled = sum(r.weight * r.gap for r in split.strata) / sum(r.weight for r in split.strata)
    assert split.adjusted.gap == pytest.approx(pooled)
