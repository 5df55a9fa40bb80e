"""Imported runs of published results, compared with each other (the MMLU-Pro page's models).

Each model's strict accuracy (paired statistics use strict), official accuracy, coverage and
items differing from the reference revision are facts of report.py; here: paired tie groups.
Models are ordered by strict accuracy; a model joins the tie group of the model just above it
unless an exact McNemar test on the items both answered (each scored against its own file's
gold) separates them at p < 0.05, so a rank is only claimed where the pair of runs supports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builder.benchmarks.mcq import fact_keys as K
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.stats.paired import mcnemar_exact

ALPHA = 0.05


def imported(runs: Sequence[Run]) -> list[Run]:
    return [r for r in runs if isinstance(r.header.source, dict) and r.header.source.get("kind") == "import"]


def correct(run: Run, loaded: Any) -> dict[int, bool]:
    """Per row_id, whether the strict letter is the run's own gold."""
    from builder.benchmarks.mcq.gold import gold_letters
    row_ids = sorted(i.row_id for i in run.items)
    gold, pred = gold_letters(run, loaded, row_ids)
    return {r: g == p for r, g, p in zip(row_ids, gold, pred)}


def tie_groups(loaded: Any, facts: FactTable, bench: str) -> list[Run]:
    """The imported runs in strict-accuracy order, with `tie_group` and `tie_p` facts."""
    runs = imported(loaded.runs)
    score = {r.header.run_id: facts[K.RUN_SCORE.key(bench=bench, run_id=r.header.run_id, metric="accuracy")]
             for r in runs if r.items}
    ordered = sorted((r for r in runs if r.items), key=lambda r: (-score[r.header.run_id], r.header.run_id))
    group, above = 1, None
    for run in ordered:
        mine = correct(run, loaded)
        values = {"bench": bench, "run_id": run.header.run_id}
        if above is not None:
            shared = sorted(set(mine) & set(above[1]))
            fixes = sum(1 for r in shared if mine[r] and not above[1][r])
            breaks = sum(1 for r in shared if above[1][r] and not mine[r])
            p = mcnemar_exact(fixes, breaks)
            facts.add(K.RUN_TIE_P.key(**values), p, "exact McNemar against the model ranked just above, on the items "
                      "both answered", (run.header.run_id, above[0]))
            group += p < ALPHA
        facts.add(K.RUN_TIE_GROUP.key(**values), group, "paired tie group by strict accuracy (a new group where "
                  f"McNemar against the model above gives p < {ALPHA})", (run.header.run_id,))
        above = (run.header.run_id, mine)
    return ordered
