"""Imported runs of published results, compared with each other (the MMLU-Pro page's models).

Each model's strict accuracy (paired statistics use strict), official accuracy, coverage and
items differing from the reference revision are facts of run_summary.py; here: paired tie groups.
Models are ordered by strict accuracy; a model joins the tie group of the model just above it
unless an exact McNemar test on the items both answered (each scored against its own file's
gold) separates them at p < 0.05, so a rank is only claimed where the pair of runs supports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.run_summary import RunSummary
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.stats.paired import mcnemar_exact

ALPHA = 0.05


def imported(runs: Sequence[Run]) -> list[Run]:
    return [r for r in runs if isinstance(r.header.source, dict) and r.header.source.get("kind") == "import"]


def fixes_and_breaks(mine: RunSummary, above: RunSummary) -> tuple[int, int]:
    """(items only `mine` got right, items only `above` got right) among those both answered."""
    _, in_mine, in_above = np.intersect1d(mine.row_ids, above.row_ids, assume_unique=True, return_indices=True)
    a, b = mine.right[in_mine], above.right[in_above]
    return int((a & ~b).sum()), int((b & ~a).sum())


def tie_groups(runs: Sequence[Run], summaries: Mapping[str, RunSummary], facts: FactTable, bench: str) -> list[Run]:
    """The imported runs in strict-accuracy order, with `tie_group` and `tie_p` facts."""
    answered = [r for r in imported(runs) if r.items]
    score = {r.header.run_id: facts[K.RUN_SCORE.key(bench=bench, run_id=r.header.run_id, metric="accuracy")]
             for r in answered}
    ordered = sorted(answered, key=lambda r: (-score[r.header.run_id], r.header.run_id))
    group, above = 1, None
    for run in ordered:
        rid = run.header.run_id
        values = {"bench": bench, "run_id": rid}
        if above is not None:
            p = mcnemar_exact(*fixes_and_breaks(summaries[rid], summaries[above]))
            facts.add(K.RUN_TIE_P.key(**values), p, "exact McNemar against the model ranked just above, on the items "
                      "both answered", (rid, above))
            group += p < ALPHA
        facts.add(K.RUN_TIE_GROUP.key(**values), group, "paired tie group by strict accuracy (a new group where "
                  f"McNemar against the model above gives p < {ALPHA})", (rid,))
        above = rid
    return ordered
