"""CIBuzzBench's own model runs split by the items the options alone give away (issue 24 item 4):
the analysis the spec'd benchmarks' runs get, on the runs in `runs/`.

The leak score is the shared ranker's (builder.ranker.leak), from the option texts and gold only,
in the published slot order (literal, cultural, pragmatic, correct: the order
content/benchmarks/cibuzzbench-t2.yaml lists them) with row_id as the id, so it equals the index's
`leak/cibuzzbench-t2.csv` (the index also drops items whose gold repeats a distractor; the CSV has
none, and tests/test_cibuzzbench_leak_split.py holds the two equal). Fitting costs seconds, so the
score is kept in the cache folder by the dataset's content, as the derived variants are.

Split: a sighted Task 2 model run on the original options, finished and not imported with warnings;
strict accuracy (the letter equals the gold's; the official scorer also counts an unparsed answer
wrong, so this is the run's accuracy), stratified by category_label (builder.stats.solvable_split).
Every other run is set aside, with the reason the table's caption gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import GOLD, SOURCES
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION
from builder.core.facts import FactTable
from builder.core.cache import CacheFolder, cached
from builder.stats.solvable_split import add_split_facts, solvable_split, split_ranking

if TYPE_CHECKING:
    from builder.ranker.leak import LeakScores

ORIGINAL = "original"
# Why a run is not split, in the order they are checked (the caption's wording: views/leak_split_view.py).
PROBE, TASK, BLIND, VARIANT, UNFINISHED, ONE_KIND = ("probe", "task", "blind", "variant", "unfinished", "one_kind")


@dataclass(frozen=True)
class LeakSplit:
    split: tuple[str, ...]  # run ids given a split, in run id order
    set_aside: dict[str, tuple[str, ...]]  # reason -> run ids, for every reason some run has
    leak: "LeakScores | None" = None  # the per-item scores when fitted (the runs' downloads carry them)


def has_leak_scores(score: RunScore) -> bool:
    """The run's items are scored: Task 2 on the original option set, the options the fit saw."""
    return score.run.header.task == EQUIVALENT_SELECTION and score.run.header.variant == ORIGINAL


def _needs_fit(scores: Mapping[str, RunScore], eligible: list[str]) -> bool:
    """A run is split, or a model answered the scored options (its downloads show the scores);
    model-free probes alone fit nothing: the fit costs seconds per thousand items."""
    return bool(eligible) or any(has_leak_scores(s) and s.run.header.subject.get("kind") == "model"
                                 for s in scores.values())


def t2_leak_scores(dataset: Dataset, folder: Path | None) -> LeakScores:
    """The leak score of every item of the original option set (kept in `folder` when given)."""
    from builder.ranker.leak import LeakScores  # the ranker loads only when a run is split
    inputs = f"t2-leak\0{dataset.file_sha256}\0{dataset.content_sha256}\0{dataset.rows}"
    return cached(CacheFolder(folder).shelf("t2-leak"), inputs, lambda: _fit(dataset), LeakScores)


def _fit(dataset: Dataset) -> LeakScores:
    # deferred: loads the ranker (scipy, scikit-learn: about a second), only when this runs
    from builder.ranker.leak import leak_scores
    frame = dataset.frame
    texts = [list(row) for row in frame[[column for _, column in SOURCES]].itertuples(index=False)]
    gold = [[name for name, _ in SOURCES].index(GOLD)] * len(texts)
    return leak_scores(texts, gold, [str(int(i)) for i in frame["row_id"]])


def set_aside_reason(score: RunScore) -> str | None:
    """Why the run is not split (None: it is, unless all its items are of one kind)."""
    h = score.run.header
    if h.subject.get("kind") != "model" or h.condition == "probe":
        return PROBE
    if h.task != EQUIVALENT_SELECTION:
        return TASK
    if h.condition != "sighted":
        return BLIND
    if h.variant != ORIGINAL:
        return VARIANT
    return None if score.run.in_aggregates else UNFINISHED


def add_leak_split(facts: FactTable, scores: Mapping[str, RunScore], dataset: Dataset,
                   folder: Path | None) -> LeakSplit:
    """The split facts of every eligible run; the leak score is fitted only when one exists."""
    reasons = {rid: set_aside_reason(s) for rid, s in scores.items()}
    eligible = [rid for rid, r in sorted(reasons.items()) if r is None]
    leak = t2_leak_scores(dataset, folder) if _needs_fit(scores, eligible) else None
    if leak is not None and eligible:
        _add_leak_facts(facts, leak, tuple(eligible))
        for rid in eligible:
            if not _add_run_split(facts, scores[rid], leak, dataset):
                reasons[rid] = ONE_KIND
    split = tuple(rid for rid in eligible if reasons[rid] is None)
    _add_ranking(facts, split)
    aside: dict[str, list[str]] = {}
    for rid, reason in sorted(reasons.items()):
        if reason is not None:
            aside.setdefault(reason, []).append(rid)
    return LeakSplit(split, {r: tuple(ids) for r, ids in aside.items()}, leak)


def _add_leak_facts(facts: FactTable, leak: LeakScores, runs: tuple[str, ...]) -> None:
    how = (f"the shared ranker's learned option-only probe, {leak.folds}-fold cross-fitted over whole items "
           "(builder.ranker.leak)")
    facts.add(K.LEAK_SCORE_ITEMS.key(), len(leak.ids), f"items given a leak score by {how}", runs)
    facts.add(K.LEAK_SCORE_SOLVABLE.key(value="count"), sum(leak.solvable),
              f"items whose gold {how} ranks strictly first", runs)
    facts.add(K.LEAK_SCORE_SOLVABLE.key(value="share"), leak.solvable_share,
              "option-solvable items / items given a leak score x100", runs)


def split_arrays(score: RunScore, leak: LeakScores, dataset: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, solvable, category) per item of the run, in row_id order (the interval's draws
    follow it, so a run's file order cannot move them)."""
    solvable_by_id = dict(zip(leak.ids, leak.solvable))
    category = dataset.column("category_label")
    order = sorted(range(len(score.run.items)), key=lambda i: score.run.items[i].row_id)
    rows = [score.run.items[i].row_id for i in order]
    right = np.array([score.gold[i] == score.pred[i] for i in order], dtype=bool)
    return (right, np.array([solvable_by_id[str(r)] for r in rows], dtype=bool),
            np.array([category[r] for r in rows], dtype=object))


def _add_run_split(facts: FactTable, score: RunScore, leak: LeakScores, dataset: Dataset) -> bool:
    right, solvable, strata = split_arrays(score, leak, dataset)
    split = solvable_split(right, solvable, strata)
    if split is None:
        return False
    rid = score.run_id
    on, runs = {"run_id": rid}, (rid,)
    add_split_facts(facts, split, K.SPLIT_LEAK, K.SPLIT_GAP, on, runs, strata="category_label",
                    adjusted=K.SPLIT_GAP_ADJUSTED)
    facts.add(K.SPLIT_COVERAGE.key(**on), 100.0 * len(right) / len(leak.ids),
              "items in the run / items given a leak score x100", runs)
    return True


def _add_ranking(facts: FactTable, split: tuple[str, ...]) -> None:
    """Kendall's tau across the split runs, when there are enough of them and it is defined."""
    every = [facts[K.RUN_SCORE.key(run_id=r, metric="accuracy")] for r in split]
    rest = [facts[K.SPLIT_LEAK.key(run_id=r, value="accuracy_rest")] for r in split]
    ranked = split_ranking(every, rest, [facts[K.SPLIT_GAP.low(run_id=r)] for r in split])
    if ranked is None:
        return
    tau, above = ranked
    if tau is not None:
        facts.add(K.SPLIT_TAU.key(), tau, "Kendall's tau (tau-b) between the runs' strict accuracy on all items and "
                  "on the items the probe does not solve", split)
    facts.add(K.SPLIT_ABOVE_ZERO.key(), above, "split runs whose gap interval lies above zero", split)
