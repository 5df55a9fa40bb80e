"""CIBuzzBench's runs as the site's shared pages list them (builder.site.run_catalogue): each
links to the run page this plug-in writes itself (run_pages.py), and its answers item by item
are the per-run downloads (row id, gold, prediction, correct, and the item's leak score where it
has one: a Task 2 run on the original option set, analyses/leak_split.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.leak_split import has_leak_scores
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.views.tables import run_page
from builder.core.facts import FactTable
from builder.site.run_catalogue import ItemRow, Measure, RunRow, provenance_of

if TYPE_CHECKING:
    from builder.ranker.leak import LeakScores
    from builder.runs.cache import RunCache

TITLE = "CIBuzzBench"
DATASET_PAGE = "dataset.html"


def _measure(pattern: Any, **values: str) -> Measure:
    return Measure(pattern.key(**values), pattern.low(**values), pattern.high(**values))


def _items(score: RunScore, leak: "LeakScores | None") -> tuple[ItemRow, ...]:
    """Per item (row id, gold, prediction, correct, leak score or None where it has none)."""
    scored = dict(zip(leak.ids, leak.leak_score)) if leak is not None and has_leak_scores(score) else {}
    return tuple((str(item.row_id), gold, item.prediction, item.prediction == gold, scored.get(str(item.row_id)))
                 for item, gold in zip(score.run.items, score.gold))


def run_row(score: RunScore, facts: FactTable, memo: Callable[[str, Callable[[], Any]], Any] | None = None,
            leak: "LeakScores | None" = None) -> RunRow:
    h, rid = score.run.header, score.run_id
    gap = next((p for p in (K.SPLIT_GAP_ADJUSTED, K.SPLIT_GAP) if p.key(run_id=rid) in facts), None)
    return RunRow(
        run_id=rid, benchmark="cibuzzbench", benchmark_title=TITLE, subject=h.subject_label, condition=h.condition,
        option_seed=h.option_seed, answered=int(facts[K.RUN_N.key(run_id=rid)]),
        total=int(facts[K.RUN_SELECTED.key(run_id=rid)]), complete=score.run.complete, created=h.created,
        kind=str(h.subject.get("kind", "model")), benchmark_href=DATASET_PAGE, page=run_page(rid), task=h.task,
        accuracy=_measure(K.RUN_SCORE, run_id=rid, metric="accuracy"),
        gap=_measure(gap, run_id=rid) if gap is not None else None,
        gap_label="" if gap is None else ("adjusted" if gap is K.SPLIT_GAP_ADJUSTED else "crude"),
        source=provenance_of(h.source), items_of=functools.cache(lambda: _items(score, leak)), memo=memo)


def run_rows(computed: Any, facts: FactTable, cache: "RunCache | None" = None, data_key: str = "",
             leak: "LeakScores | None" = None) -> list[RunRow]:
    """`cache` and `data_key` (runs.cache.datasets_key): a run's downloads are kept with the run
    (the leak scores are the dataset's, so the key covers them); `leak`: the items' leak scores."""
    def memo(score: RunScore) -> Callable[[str, Callable[[], Any]], Any] | None:
        if cache is None or not data_key:
            return None
        return lambda name, compute: cache.derived(score.run, f"{name}:{data_key}", compute)
    return [run_row(score, facts, memo(score), leak) for score in computed.scores.values()]
