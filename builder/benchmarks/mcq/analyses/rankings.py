"""Imported runs of published results, compared with each other (the MMLU-Pro page's models).

Each model's strict accuracy (paired statistics use strict), official accuracy, coverage and
items differing from the reference revision are facts of run_summary.py; here: paired tie groups.
Models are ordered by strict accuracy; a model joins the tie group of the model just above it
unless an exact McNemar test on the items both answered (each scored against its own file's
gold) separates them at p < 0.05, so a rank is only claimed where the pair of runs supports it.

Like with like (comparable): accuracies over different item sets are not comparable (a run that
answered 166 easy items can outscore one that answered all 2,150), so only model runs that
answered at least FULL_SHARE of the benchmark's items are ranked, and they are ranked and tested
on the items every one of them answered. 99% keeps runs that lost a handful of requests (MMLU-Pro:
12,002 and 12,010 of 12,022) while the common items still cover nearly the whole benchmark; below
that the run is partial and set aside, with the reason shown where its tie group would be. People
(model_names.is_human_group) are never ranked among models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import reduce

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.run_summary import RunSummary
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.stats.paired import mcnemar_exact
from builder.site.model_names import is_human_group

ALPHA = 0.05
FULL_SHARE = 0.99  # a model run answering at least this share of the benchmark's items is ranked
RULE = ("Tie groups compare like with like: only model runs that answered at least 99% of the benchmark's items "
        "are ranked, by strict accuracy on the items every one of them answered; runs with partial coverage "
        "and people are not ranked.")


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


def is_full(answered: int, total: int) -> bool:
    """Whether a run covers enough of the benchmark to be ranked (FULL_SHARE)."""
    return total > 0 and answered >= FULL_SHARE * total


def unranked_note(answered: int, total: int, people: bool) -> str:
    """What a page shows in place of the tie group of an imported run that is not ranked."""
    partial = f"partial: {answered:,} of {total:,} items"
    if people:
        return f"not ranked (people, not ranked among models{'; ' + partial if not is_full(answered, total) else ''})"
    return f"not ranked ({partial}; not ranked with the full runs)"


def comparable(runs: Sequence[Run], summaries: Mapping[str, RunSummary], total: int) -> dict[str, RunSummary]:
    """The imported model runs that are ranked, each restricted to the items every one of them
    answered (the module's like-with-like rule)."""
    full = [r.header.run_id for r in imported(runs) if r.items and not is_human_group(r.header.subject_label)
            and is_full(len(summaries[r.header.run_id].row_ids), total)]
    return on_common(summaries, full)


def on_common(summaries: Mapping[str, RunSummary], ids: Sequence[str]) -> dict[str, RunSummary]:
    """The runs `ids`, each restricted to the items every one of them answered."""
    if not ids:
        return {}
    # row_ids are ascending and distinct (RunSummary): no run's ids need sorting out again
    common = reduce(lambda a, b: np.intersect1d(a, b, assume_unique=True), [summaries[rid].row_ids for rid in ids])
    restricted = {}
    for rid in ids:
        keep = np.isin(summaries[rid].row_ids, common, assume_unique=True)
        restricted[rid] = replace(summaries[rid], row_ids=summaries[rid].row_ids[keep], right=summaries[rid].right[keep])
    return restricted


def accuracy(summary: RunSummary) -> float:
    """Strict accuracy, 0–100, over the items the summary holds."""
    return 100.0 * float(summary.right.mean()) if len(summary.right) else 0.0


def tie_groups(runs: Sequence[Run], summaries: Mapping[str, RunSummary], facts: FactTable, bench: str,
               total: int) -> list[Place]:
    """The ranked imported runs (comparable) in strict-accuracy order on their common items, with
    `tie_group` and `tie_p` facts; `total`: the benchmark's items."""
    ranks = comparable(runs, summaries, total)
    places = ranked({rid: accuracy(s) for rid, s in ranks.items()}, ranks)
    common = len(next(iter(ranks.values())).row_ids) if ranks else 0
    on = (f"on the {common:,} items every ranked run answered (model runs answering at least {FULL_SHARE:.0%} of the "
          f"{total:,} items; partial runs and people are not ranked)")
    for place, above in zip(places, [None, *places]):
        values = {"bench": bench, "run_id": place.run_id}
        if above is not None and place.p is not None:
            facts.add(K.RUN_TIE_P.key(**values), place.p, f"exact McNemar against the model ranked just above, {on}",
                      (place.run_id, above.run_id))
        facts.add(K.RUN_TIE_GROUP.key(**values), place.group, f"paired tie group by strict accuracy {on} (a new group "
                  f"where McNemar against the model above gives p < {ALPHA})", (place.run_id,))
    return places
