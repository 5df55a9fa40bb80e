"""The models page's leak split: each split run's strict accuracy on the items the options give
away and on the rest (analyses/leak_split.py), with a caption naming the runs set aside and why."""

from __future__ import annotations

from collections.abc import Mapping

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses import leak_split as L
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.views.tables import FactCells, run_page
from builder.benchmarks.cibuzzbench.wording import selection_label
from builder.site.tables import Cell, Table
from builder.stats.solvable_split import MIN_RANKED, TABLE_COLUMNS

SPLIT_TABLE, RANK_TABLE = "model-leak-split", "model-leak-rank"
COLUMNS = TABLE_COLUMNS + ("option_seed", "items_asked", "run")  # the spec'd benchmarks' columns, then what varies
REASONS = {
    L.PROBE: "model-free probe runs (no model answered)",
    L.TASK: "Task 3 runs (no options to give away)",
    L.BLIND: "blind runs (the term is withheld, so they do not answer the benchmark's question; split, they would "
             "only measure agreement with the probe)",
    L.VARIANT: "runs on a gold-pool option set (its options are not those the leak score was fitted on)",
    L.UNFINISHED: "runs in progress or imported with warnings (left out of every model table)",
    L.ONE_KIND: "runs whose items are all option-solvable or all not (no gap to measure)",
}


def leak_split_tables(f: FactCells, scores: Mapping[str, RunScore], split: L.LeakSplit | None) -> list[Table]:
    """The split table (none without a split run) and, over enough runs, the ranking table."""
    if split is None or not split.split:
        return []
    rows = tuple(_row(f, scores[rid]) for rid in split.split)
    tables = [Table(SPLIT_TABLE, "Task 2 model runs on the items the options give away, and on the rest", COLUMNS,
                    rows, _note(split))]
    if K.SPLIT_ABOVE_ZERO.key() in f.facts:
        tables.append(Table(RANK_TABLE, "Ranking on all items against ranking on the rest", ("What", "Value"),
                            ((Cell("Kendall's tau, strict accuracy on all items vs on the rest"),
                              f.optional(K.SPLIT_TAU.key(), "num")),
                             (Cell("runs whose gap interval lies above zero"), f(K.SPLIT_ABOVE_ZERO.key(), "count"))),
                            "Over the runs of the split table (tau is absent when either ranking is all ties)."))
    return tables


def _row(f: FactCells, score: RunScore) -> tuple[Cell, ...]:
    rid, h = score.run_id, score.run.header
    on = {"run_id": rid}
    accuracy = f(K.RUN_SCORE.key(metric="accuracy", **on))
    return (Cell(h.subject_label), f(K.RUN_N.key(**on), "count"), f(K.SPLIT_COVERAGE.key(**on), "pct"), accuracy,
            accuracy, f(K.SPLIT_LEAK.key(value="solvable_items", **on), "count"),
            f(K.SPLIT_LEAK.key(value="accuracy_solvable", **on)), f(K.SPLIT_LEAK.key(value="accuracy_rest", **on)),
            f(K.SPLIT_GAP.key(**on)), f(K.SPLIT_GAP.low(**on)), f(K.SPLIT_GAP.high(**on)),
            f.optional(K.SPLIT_GAP_ADJUSTED.key(**on)), f.optional(K.SPLIT_GAP_ADJUSTED.low(**on)),
            f.optional(K.SPLIT_GAP_ADJUSTED.high(**on)),
            Cell(str(h.option_seed)), Cell(selection_label(h.items)), Cell(rid, href=run_page(rid)))


def _note(split: L.LeakSplit) -> str:
    """What was measured, then which runs were set aside and why (model runs by id)."""
    text = ("Sighted Task 2 model runs on the original options. Option-solvable: the shared ranker's learned "
            "option-only probe, cross-fitted over every item of the CSV from the four options alone, ranks the gold "
            "strictly first (the leak score the index publishes as leak/cibuzzbench-t2.csv). Accuracy is strict, "
            "the letter equal to the gold's; CIBuzzBench's official scorer also counts an unparsed answer wrong, so "
            "official accuracy is the same figure. Coverage: % of the leak-scored items the run answered. Gap = "
            "accuracy on the option-solvable items minus accuracy on the rest (points, crude: over the categories "
            "as mixed), 95% bootstrap interval resampling items within each category; the adjusted gap compares "
            "the two kinds "
            "within each category and pools those gaps with Mantel–Haenszel weights n1·n0/(n1+n0), same bootstrap. "
            "A leak score says what a reader could exploit, not what a model did.")
    aside = []
    for reason in (r for r in REASONS if r in split.set_aside):
        named = "" if reason == L.PROBE else ": " + ", ".join(split.set_aside[reason])
        aside.append(f"{REASONS[reason]}{named}")
    if aside:
        text += " Set aside: " + "; ".join(aside) + "."
    if len(split.split) < MIN_RANKED:
        text += (f" A ranking across runs (Kendall's tau, all items against the rest) needs {MIN_RANKED} split runs "
                 "or more, so none is given.")
    return text
