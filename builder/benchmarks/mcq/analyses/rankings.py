"""Imported runs of published results, compared with each other (the MMLU-Pro page's models).

Each model's strict accuracy (paired statistics use strict), official accuracy, coverage and
items differing from the reference revision are facts of run_summary.py; here: paired tie groups.
Models are ordered by strict accuracy; a model joins the tie group of the model just above it
unless an exact McNemar test on the items both answered (each scored against its own file's
gold) separates them at p < 0.05, so a rank is only claimed where the pair of runs supports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.run_summary import RunSummary
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


@dataclass(frozen=True)
class Place:
    run_id: str
    rank: int  # 1 = the highest score
    group: int  # paired tie group, 1 = the top one
    p: float | None  # exact McNemar against the run ranked just above (None for the first)


def ranked(scores: Mapping[str, float], summaries: Mapping[str, RunSummary]) -> list[Place]:
    """Runs by score (ties by id), each joining the group of the run above unless McNemar on the
    items both answered separates them at p < ALPHA."""
    places: list[Place] = []
    for rid in sorted(scores, key=lambda r: (-scores[r], r)):
        above = places[-1] if places else None
        p = None if above is None else mcnemar_exact(*fixes_and_breaks(summaries[rid], summaries[above.run_id]))
        group = 1 if above is None else above.group + (p is not None and p < ALPHA)
        places.append(Place(rid, len(places) + 1, group, p))
    return places


def tie_groups(runs: Sequence[Run], summaries: Mapping[str, RunSummary], facts: FactTable, bench: str) -> list[Place]:
    """The imported runs in strict-accuracy order, with `tie_group` and `tie_p` facts."""
    answered = [r.header.run_id for r in imported(runs) if r.items]
    places = ranked({rid: facts[K.RUN_SCORE.key(bench=bench, run_id=rid, metric="accuracy")] for rid in answered},
                    summaries)
    for place, above in zip(places, [None, *places]):
        values = {"bench": bench, "run_id": place.run_id}
        if above is not None and place.p is not None:
            facts.add(K.RUN_TIE_P.key(**values), place.p, "exact McNemar against the model ranked just above, on the "
                      "items both answered", (place.run_id, above.run_id))
        facts.add(K.RUN_TIE_GROUP.key(**values), place.group, "paired tie group by strict accuracy (a new group where "
                  f"McNemar against the model above gives p < {ALPHA})", (place.run_id,))
    return places
