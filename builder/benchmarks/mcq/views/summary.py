"""What a spec'd benchmark's page says first (issue 32, findings first): a few sentences, each
chosen and filled from the facts the audit and the runs computed, each pointing to the section
below that holds its evidence. Nothing here is typed: a number is a fact cell's text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.compute import Computed
from builder.benchmarks.mcq.analyses.rankings import imported
from builder.core.facts import FactTable
from builder.site.tables import FactCells
from builder.benchmarks.mcq.views.spec_tables import leak_prose


@dataclass(frozen=True)
class Finding:
    """One sentence of the summary and the anchor of its evidence on the page."""

    text: str
    anchor: str


def page_summary(c: Computed, cells: FactCells) -> list[Finding]:
    """The options-alone finding, then what the model runs show (or where they are)."""
    return [_options_alone(c, cells), _models(c, cells)]


def _options_alone(c: Computed, cells: FactCells) -> Finding:
    """The learned option-only probe's accuracy against chance, and whether its gain's interval
    clears chance (the index's figures: the same facts as the benchmarks table)."""
    b = c.name
    learned = {"bench": b, "block": "shuffled", "probe": "learned_options", "metric": "accuracy"}
    gain = {"bench": b, "probe": "learned"}
    low = cells(K.INDEX_GAIN.low(**gain))
    clears = low.value is not None and low.value > 0
    text = (f"Reading only the answer options, never the question, a learned probe picks the right answer on "
            f"{cells(K.AUDIT.key(**learned)).shown}% of the {cells(K.LEARNED_ITEMS.key(bench=b), 'count').shown} "
            f"items it was scored on, against {cells(K.LEARNED_CHANCE.key(bench=b)).shown}% by chance: "
            f"{cells(K.INDEX_GAIN.key(**gain)).shown} points over chance (95% interval {low.shown} to "
            f"{cells(K.INDEX_GAIN.high(**gain)).shown}). ")
    text += ("The options alone give part of the answer away: "
             f"{cells(K.SOLVABLE.key(bench=b), 'pct').shown} of those items are option-solvable (the probe ranks "
             "the gold first)." if clears else
             "That interval reaches chance, so the options alone do not measurably give the answer away.")
    return Finding(text, "audit")


def _models(c: Computed, cells: FactCells) -> Finding:
    """The leak split's first sentence where there is one; else what runs the page has."""
    spec = c.loaded.benchmark.spec
    if c.leak is not None:
        return Finding(leak_prose(c, cells)[0], "leak-split")
    if c.pairs:
        n = len(c.pairs)
        return Finding(f"{n} model{'s were' if n > 1 else ' was'} asked each item twice, with and without the "
                       "question; the gaps are compared item by item.", "models")
    if c.loaded.runs:
        published = len(imported(c.loaded.runs))
        return Finding(f"{len(c.loaded.runs)} model run{'s' if len(c.loaded.runs) > 1 else ''} "
                       f"({published} imported from published results).", "models")
    if spec.runs_page is not None:
        return Finding("Its model runs are shown on the site's own pages for this data set (the models section "
                       "links to them); this page audits the options.", "models")
    return Finding("No model has been run on it yet.", "models")


def shelf_listing(computed: list[Computed], page_dir: str, facts: FactTable) -> list[dict[str, Any]]:
    """Each benchmark as the index, the FAQ and the benchmarks page name it: its page, whether
    it shows tie groups (imported published results that rankings.py ranks, or a leak split's ranks:
    chained exact McNemar tests), how many model runs its leak split has (0: none) and how many of
    them have a gap whose 95% interval lies above zero (adjusted within strata where every run has
    an adjusted gap, as the page's own sentence reads it)."""
    listed = []
    for c in computed:
        adjusted = bool(c.leak is not None and c.leak.adjusted)
        above = (K.LEAK_ADJUSTED_COUNT.key(bench=c.name, count="above_zero") if adjusted
                 else K.LEAK_WIDER.key(bench=c.name))
        listed.append({"name": c.name, "title": c.loaded.benchmark.spec.title, "href": f"{page_dir}/{c.name}.html",
                       "tie_groups": c.leak is not None or any(K.RUN_TIE_GROUP.key(bench=c.name, run_id=r.header.run_id)
                                                                in facts for r in imported(c.loaded.runs)),
                       "leak_models": len(c.leak.run_ids) if c.leak is not None else 0,
                       "leak_above": int(facts[above]) if c.leak is not None else 0, "leak_adjusted": adjusted})
    return listed


def strongest_splits(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The benchmarks with a leak split, the largest share of models whose gap clears zero first
    (then the most models, then by name): the index names the first and the rest beside it."""
    split = [b for b in listed if b["leak_models"]]
    return sorted(split, key=lambda b: (-b["leak_above"] / b["leak_models"], -b["leak_models"], b["name"]))
