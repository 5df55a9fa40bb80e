"""Every run of a spec'd benchmark (probed or imported, any option seed) as the site's shared
pages show it (builder.site.run_catalogue): its scores and leak split as fact cells, its
provenance, and its answers item by item (ids, letters, correctness, leak score; never text)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.compute import Computed
from builder.benchmarks.mcq.gold import gold_letters
from builder.benchmarks.mcq.loading import SpecCache, spec_cache
from builder.benchmarks.mcq.views.tie_note import tie_cell, tie_note
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.site.run_catalogue import ItemRow, Measure, RunRow, provenance_of
from builder.site.tables import Cell, FactCells, Table

if TYPE_CHECKING:
    from builder.runs.cache import RunCache

PAGE_DIR = "benchmarks"


def _measure(pattern: Any, **values: str) -> Measure:
    return Measure(pattern.key(**values), pattern.low(**values), pattern.high(**values))


def run_items(c: Computed, run: Run) -> tuple[ItemRow, ...]:
    """(item id, gold letter, answer, correct, leak score) per answered item, in row order."""
    gold, answer = gold_letters(run, c.loaded)
    leak = c.loaded.audit.leak
    scores = dict(zip(leak.ids, leak.leak_score)) if leak is not None else {}
    items = sorted(run.items, key=lambda i: i.row_id)
    return tuple((i.id, g, a, g == a, scores.get(i.id)) for i, g, a in zip(items, gold, answer))


def _scores_table(c: Computed, run: Run, cells: FactCells) -> Table:
    values = {"bench": c.name, "run_id": run.header.run_id}
    rows = [(Cell(label), cells(p.key(metric=m, **values)), cells(p.low(metric=m, **values)),
             cells(p.high(metric=m, **values)))
            for p, m, label in ((K.RUN_SCORE, "accuracy", "Accuracy (strict)"), (K.RUN_SCORE, "macro_f1", "Macro F1"))
            if p.key(metric=m, **values) in cells.facts]
    if K.RUN_OFFICIAL.key(**values) in cells.facts:
        rows.append((Cell("Accuracy as the upstream scores it"), cells(K.RUN_OFFICIAL.key(**values)),
                     cells(K.RUN_OFFICIAL.low(**values)), cells(K.RUN_OFFICIAL.high(**values))))
    for count, label in (("n", "Items answered"), ("unparsed", "Answers with no letter"),
                         ("errors", "Failed requests"), ("differs", "Items differing from the reference revision")):
        key = K.RUN_COUNT.key(count=count, **values)
        if key in cells.facts:
            rows.append((Cell(label), cells(key, "count"), Cell("–"), Cell("–")))
    if K.RUN_TIE_GROUP.key(**values) in cells.facts or tie_note(c, run, cells.facts):
        rows.append((Cell("Paired tie group among the imported runs"), tie_cell(c, run, cells), Cell("–"), Cell("–")))
    return Table(f"run-{run.header.run_id}-metrics", "Scores with 95% bootstrap intervals",
                 ("Metric", "Value", "Low", "High"), tuple(rows),
                 "Over the items the run answered; an answer that cannot be read counts as wrong (strict). "
                 "Intervals: 95% percentile bootstrap over items.")


def _split_table(c: Computed, run: Run, cells: FactCells) -> Table | None:
    values = {"bench": c.name, "run_id": run.header.run_id}
    if K.LEAK_GAP.key(**values) not in cells.facts:
        return None
    rows = [(Cell("Option-solvable items answered"), cells(K.LEAK_SPLIT.key(value="solvable_items", **values),
                                                           "count"), Cell("–"), Cell("–")),
            (Cell("Accuracy on them"), cells(K.LEAK_SPLIT.key(value="accuracy_solvable", **values)), Cell("–"),
             Cell("–")),
            (Cell("Accuracy on the rest"), cells(K.LEAK_SPLIT.key(value="accuracy_rest", **values)), Cell("–"),
             Cell("–")),
            (Cell("Gap, crude (points)"), cells(K.LEAK_GAP.key(**values)), cells(K.LEAK_GAP.low(**values)),
             cells(K.LEAK_GAP.high(**values)))]
    if K.LEAK_ADJUSTED.key(**values) in cells.facts:
        rows.append((Cell("Gap, adjusted within strata (points)"), cells(K.LEAK_ADJUSTED.key(**values)),
                     cells(K.LEAK_ADJUSTED.low(**values)), cells(K.LEAK_ADJUSTED.high(**values))))
    return Table(f"run-{run.header.run_id}-leak-split", "On the items the options give away, and on the rest",
                 ("What", "Value", "95% low", "95% high"), tuple(rows),
                 "Option-solvable: the benchmark's cross-fitted choices-only probe ranks the gold strictly first. "
                 "Gap: strict accuracy on those items minus on the rest, crude (pooled) and adjusted (within "
                 "strata, Mantel–Haenszel), each with its 95% bootstrap interval resampled within strata; the "
                 f"benchmark's page compares every run's split ({PAGE_DIR}/{c.name}.html).")


def run_row(c: Computed, run: Run, facts: FactTable, cache: SpecCache = SpecCache()) -> RunRow:
    """One run's row: the fact keys its tables show and its answers."""
    h, cells = run.header, FactCells(facts)
    values = {"bench": c.name, "run_id": h.run_id}
    adjusted = K.LEAK_ADJUSTED.key(**values) in facts
    split = K.LEAK_GAP.key(**values) in facts
    spec = c.loaded.benchmark.spec
    tables = [_scores_table(c, run, cells), *filter(None, [_split_table(c, run, cells)])]
    return RunRow(
        run_id=h.run_id, benchmark=c.name, benchmark_title=spec.title, subject=h.subject_label,
        condition=h.condition, option_seed=h.option_seed, answered=len(run.items), total=len(c.loaded.data.items),
        complete=run.complete, created=h.created, kind=str(h.subject.get("kind", "model")),
        benchmark_href=f"{PAGE_DIR}/{c.name}.html", task=h.task,
        accuracy=_measure(K.RUN_SCORE, metric="accuracy", **values) if run.items else None,
        gap=_measure(K.LEAK_ADJUSTED if adjusted else K.LEAK_GAP, **values) if split else None,
        gap_label=("adjusted" if adjusted else "crude") if split else "",
        tie_group=K.RUN_TIE_GROUP.key(**values) if K.RUN_TIE_GROUP.key(**values) in facts else None,
        tie_note=tie_note(c, run, facts),
        source=provenance_of(h.source), item_text=spec.url or "",
        header_json=json.dumps(h.to_json(), ensure_ascii=False, indent=1, sort_keys=True),
        tables=tuple(tables), items_of=functools.cache(lambda: run_items(c, run)), memo=_memo(cache, run))


def _memo(cache: SpecCache, run: Run) -> Callable[[str, Callable[[], Any]], Any] | None:
    """The run cache for values of this run's items, named by what else they depend on (the
    benchmark's data and audit: the spec's cache key)."""
    runs, key = cache.runs, cache.key
    if runs is None or not key:
        return None
    return lambda name, compute: runs.derived(run, f"{name}:{key}", compute)


def run_rows(shelf: Any, facts: FactTable, run_cache: "RunCache | None" = None,
             cache_dir: Path | None = None) -> list[RunRow]:
    """Every spec's runs; `run_cache` and `cache_dir` (the build's): each run's downloads are kept with the run."""
    rows = []
    for c in shelf.specs:
        cache = spec_cache(c.loaded.benchmark, run_cache, None, cache_dir)
        rows += [run_row(c, run, facts, cache) for run in c.loaded.runs]
    return rows
