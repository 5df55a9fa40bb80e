"""Everything one run of a spec'd benchmark determines by itself, computed once and kept in the
run cache (builder.runs.cache): its counts, strict and official scores with their bootstrap
intervals, per-category accuracy, its leak split, and which items it answered right (what the
cross-run steps, tie groups and Kendall's tau, read).

29 imported MMLU-Pro runs hold 350,000 item rows; recomputing these on every build cost about
25 s of a 32 s forced build (issue 23 item 7). The cached value's name carries the benchmark's
key (spec, data and audit code: audit_cache.cache_key), so a changed spec, data file or probe
recomputes it, and the run cache's own key covers the run's bytes and the builder's code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.gold import gold_letters
from builder.core.facts import FactTable
from builder.core.names import slug
from builder.core.workers import ordered_map
from builder.runs.schema import Run
from builder.stats import bootstrap_intervals, classification_report
from builder.stats.solvable_split import SolvableSplit, StratumRow, add_split_facts, solvable_split

if TYPE_CHECKING:
    from builder.benchmarks.mcq.loading import Loaded, SpecCache


@dataclass(frozen=True)
class RunSummary:
    facts: FactTable  # this run's facts, merged into the build's table
    row_ids: np.ndarray  # answered items, ascending
    right: np.ndarray  # per answered item: the strict letter is the run's own gold
    split: bool  # whether the leak split was computed (a sighted run with both kinds of item)
    strata: tuple[StratumRow, ...] = ()  # the split within each stratum (the adjusted gap's inputs)


def run_summaries(loaded: "Loaded", runs: Sequence[Run], categories: Sequence[tuple[str, str]],
                  cache: "SpecCache | None" = None) -> list[RunSummary]:
    """Each run's summary, in order, from the run cache (`cache`, loading.spec_cache) when the
    run, the benchmark and the code are unchanged; those the cache lacks (every run, on a cold build:
    bootstraps and leak splits, about 10 s) are summarised in worker processes
    (builder.core.workers), each a function of its run alone, and kept in the cache here."""
    fresh: dict[int, RunSummary] = {}

    def summary(run: Run) -> RunSummary:
        found = fresh.get(id(run))
        return found if found is not None else summarise(loaded, run, categories)

    if cache is None or cache.runs is None or not cache.key:
        return ordered_map(summary, runs)
    runs_cache, name = cache.runs, f"mcq-summary:{cache.key}"
    missing = [run for run in runs if not runs_cache.has(run, name)]
    fresh.update(zip(map(id, missing), ordered_map(summary, missing)))
    return [runs_cache.derived(run, name, partial(summary, run)) for run in runs]


def summarise(loaded: "Loaded", run: Run, categories: Sequence[tuple[str, str]]) -> RunSummary:
    facts, bench = FactTable(), loaded.benchmark.spec.name
    values = {"bench": bench, "run_id": run.header.run_id}
    _counts(run, facts, values)
    row_ids = np.array(sorted(i.row_id for i in run.items), dtype=np.int64)
    if not run.items:
        return RunSummary(facts, row_ids, np.zeros(0, dtype=bool), False)
    gold, pred = gold_letters(run, loaded)
    right = np.array([g == p for g, p in zip(gold, pred)], dtype=bool)
    _scores(loaded, run, gold, pred, facts, values)
    _categories(loaded, row_ids, right, categories, facts, values)
    _import_facts(loaded, run, gold, facts, values)
    split = _leak_split(loaded, run, row_ids, right, facts, values)
    return RunSummary(facts, row_ids, right, split is not None, split.strata if split is not None else ())


def _counts(run: Run, facts: FactTable, values: dict[str, str]) -> None:
    runs = (run.header.run_id,)
    facts.add(K.RUN_COUNT.key(count="n", **values), len(run.items), "items answered in the run", runs)
    facts.add(K.RUN_COUNT.key(count="unparsed", **values), sum(1 for i in run.items if i.prediction == "" and
                                                               i.error is None), "answers with no letter", runs)
    facts.add(K.RUN_COUNT.key(count="errors", **values), sum(1 for i in run.items if i.error is not None),
              "requests that failed after their retries", runs)
    declared = run.header.items.get("n")
    if isinstance(declared, int) and declared > 0:
        facts.add(K.RUN_COVERAGE.key(**values), 100.0 * len(run.items) / declared,
                  f"% of the {declared:,} items the run's header declares that it answered", runs)


def _labels(loaded: "Loaded") -> str:
    return LETTERS[:loaded.audit.options_range[1]]


def _scores(loaded: "Loaded", run: Run, gold: list[str], pred: list[str], facts: FactTable,
            values: dict[str, str]) -> None:
    labels, runs = _labels(loaded), (run.header.run_id,)
    report, ci = classification_report(gold, pred, labels), bootstrap_intervals(gold, pred, labels)
    for metric in ("accuracy", "macro_f1"):
        what = f"{metric.replace('_', ' ')} over the answered items, letters of the shown order as labels; " \
               "95% percentile bootstrap over items"
        facts.add(K.RUN_SCORE.key(metric=metric, **values), getattr(report, metric), what, runs)
        facts.add(K.RUN_SCORE.low(metric=metric, **values), ci[metric].low, what, runs)
        facts.add(K.RUN_SCORE.high(metric=metric, **values), ci[metric].high, what, runs)


def _categories(loaded: "Loaded", row_ids: np.ndarray, right: np.ndarray, categories: Sequence[tuple[str, str]],
                facts: FactTable, values: dict[str, str]) -> None:
    of_item = np.array([loaded.data.items[int(r)].category for r in row_ids], dtype=object)
    for value, label in categories:
        picked = right[of_item == value]
        if picked.size:
            facts.add(K.RUN_CATEGORY.key(label=label, **values), 100.0 * int(picked.sum()) / picked.size,
                      f"accuracy on the run's items of category {value!r}", (values["run_id"],))


def _import_facts(loaded: "Loaded", run: Run, gold: list[str], facts: FactTable, values: dict[str, str]) -> None:
    """An imported run: how many items its file's revision differs on, and (scored by the
    upstream's own rules) the official accuracy beside the strict one."""
    source = run.header.source
    if not isinstance(source, dict) or source.get("kind") != "import":
        return
    runs = (run.header.run_id,)
    facts.add(K.RUN_COUNT.key(count="differs", **values), sum(1 for i in run.items if i.revision is not None),
              "items whose question, options or gold in the run's file differ from the reference revision", runs)
    every = source.get("upstream_all")
    if isinstance(every, dict) and isinstance(every.get("questions"), int) and every["questions"] > 0:
        facts.add(K.RUN_UPSTREAM_ALL.key(**values), 100.0 * every["correct"] / every["questions"],
                  "accuracy over every question of the upstream's benchmark, as it scores them", runs)
    parts = source.get("upstream_parts")
    for label, part in (parts.items() if isinstance(parts, dict) else ()):
        if isinstance(part, dict) and isinstance(part.get("questions"), int) and part["questions"] > 0:
            facts.add(K.RUN_UPSTREAM_PART.key(label=slug(str(label)), **values),
                      100.0 * part["correct"] / part["questions"], f"accuracy over every record of {label}, as the "
                      "upstream scores them", runs)
    if source.get("scoring") != "upstream":
        return
    labels = _labels(loaded)
    official = [i.scored for i in sorted(run.items, key=lambda i: i.row_id)]
    report, ci = classification_report(gold, official, labels), bootstrap_intervals(gold, official, labels)
    what = "accuracy as the upstream scorer counts it (unparsed -> its seeded random letter); 95% percentile " \
           "bootstrap over items"
    facts.add(K.RUN_OFFICIAL.key(**values), report.accuracy, what, runs)
    facts.add(K.RUN_OFFICIAL.low(**values), ci["accuracy"].low, what, runs)
    facts.add(K.RUN_OFFICIAL.high(**values), ci["accuracy"].high, what, runs)


def _leak_split(loaded: "Loaded", run: Run, row_ids: np.ndarray, right: np.ndarray, facts: FactTable,
                values: dict[str, str]) -> SolvableSplit | None:
    """Accuracy on the option-solvable items and on the rest, crude and within strata
    (builder.benchmarks.mcq.analyses.leak_split); then the same on the items with the benchmark's
    most common number of options, when some items have another number."""
    leak = getattr(loaded.audit, "leak", None)
    if leak is None or run.header.condition != "sighted":
        return None
    solvable_by_id = dict(zip(leak.ids, leak.solvable))
    items = [loaded.data.items[int(r)] for r in row_ids]
    solvable = np.array([solvable_by_id[i.id] for i in items], dtype=bool)
    strata = np.array([i.stratum for i in items], dtype=object)
    split = solvable_split(right, solvable, strata)
    if split is None:
        return None
    named, runs = strata_names(loaded), (run.header.run_id,)
    add_split_facts(facts, split, K.LEAK_SPLIT, K.LEAK_GAP, values, runs, strata=named, adjusted=K.LEAK_ADJUSTED)
    modal = np.array([len(i.choices) == loaded.audit.options for i in items], dtype=bool)
    if not modal.all():
        restricted = solvable_split(right[modal], solvable[modal], strata[modal])
        if restricted is not None:
            add_split_facts(facts, restricted, K.LEAK_MODAL_SPLIT, K.LEAK_MODAL_GAP, values, runs, strata=named,
                            adjusted=K.LEAK_MODAL_ADJUSTED)
    return split


def strata_names(loaded: "Loaded") -> str:
    """What the leak split's strata are, for captions: the spec's stratum names, else category."""
    names = [name for name, _ in loaded.benchmark.spec.strata]
    return " × ".join(names) if names else "category"
