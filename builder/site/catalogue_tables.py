"""The tables built from every benchmark's run rows (run_catalogue.RunRow): every run on
runs.html, filterable by benchmark, and each model (and each group of people) across the
benchmarks where it has runs, joined by model_names.RULE. Every number is a fact cell."""

from __future__ import annotations

from collections.abc import Sequence

from builder.core.facts import FactTable
from builder.site.model_names import is_human_group, model_key
from builder.site.run_catalogue import Measure, RunRow
from builder.site.tables import Cell, FactCells, Table

ALL_RUNS, MODELS_ACROSS, PEOPLE_ACROSS = "all-runs", "models-across", "people-across"


def _measure(cells: FactCells, measure: Measure | None) -> tuple[Cell, Cell, Cell]:
    if measure is None or measure.key not in cells.facts:
        return Cell("–"), Cell("–"), Cell("–")
    return cells(measure.key), cells.optional(measure.low), cells.optional(measure.high)


def all_runs_table(rows: Sequence[RunRow], facts: FactTable) -> Table:
    """One row per run of every benchmark, by benchmark, model runs before model-free probes, then
    run id; each id links to its page."""
    cells = FactCells(facts)
    out = []
    for row in sorted(rows, key=lambda r: (r.benchmark_title, r.kind == "probe", r.run_id)):
        seed = "–" if row.option_seed is None else str(row.option_seed)
        source = "imported" if row.source is not None else ("model-free probe" if row.kind == "probe" else "probed")
        out.append((Cell(row.run_id, href=row.href), Cell(row.benchmark_title), Cell(row.subject),
                    Cell(row.condition), Cell(seed), Cell(source), Cell(row.coverage),
                    *_measure(cells, row.accuracy)))
    return Table(ALL_RUNS, "Every run of every benchmark",
                 ("Run", "Benchmark", "Subject", "Condition", "Option seed", "Source", "Coverage", "Accuracy",
                  "Accuracy 95% low", "Accuracy 95% high"), tuple(out), compact=True,
                 filters=("Benchmark", "Condition", "Source", "Coverage"),
                 note="Accuracy over the items the run answered (strict: an answer that cannot be read is wrong), "
                      "with its 95% percentile bootstrap interval over items. Coverage: \"partial (N of M items)\" "
                      "for a finished run of part of the benchmark's items (e.g. people who answered a subset), "
                      "\"in progress\" for a run without its footer.")


def _subject_rows(rows: Sequence[RunRow], people: bool) -> list[RunRow]:
    picked = [r for r in rows if r.kind != "probe" and is_human_group(r.subject) == people]
    return sorted(picked, key=lambda r: (model_key(r.subject), r.benchmark_title, r.run_id))


def across_table(rows: Sequence[RunRow], facts: FactTable, people: bool = False) -> Table | None:
    """Each model (or group of people) with its accuracy, leak-split gap and tie group on every
    benchmark where it has runs (one row per run: option seeds and conditions stay apart)."""
    picked, cells = _subject_rows(rows, people), FactCells(facts)
    if not picked:
        return None
    spellings: dict[str, list[str]] = {}
    benchmarks: dict[str, set[str]] = {}
    for r in picked:
        key = model_key(r.subject)
        spellings.setdefault(key, [])
        if r.subject not in spellings[key]:
            spellings[key].append(r.subject)
        benchmarks.setdefault(key, set()).add(r.benchmark)
    out = []
    for r in picked:
        key = model_key(r.subject)
        tie = cells(r.tie_group, "count") if r.tie_group and r.tie_group in facts else Cell(r.tie_note or "–")
        out.append((Cell(" = ".join(spellings[key])), Cell(str(len(benchmarks[key]))), Cell(r.benchmark_title),
                    Cell(r.run_id, href=r.href), Cell(r.condition), Cell(r.coverage), *_measure(cells, r.accuracy),
                    *_measure(cells, r.gap), Cell(r.gap_label or "–"), tie))
    what = "Groups of people" if people else "Models"
    return Table(PEOPLE_ACROSS if people else MODELS_ACROSS, f"{what} across the benchmarks",
                 ("Model" if not people else "Group", "Benchmarks", "Benchmark", "Run", "Condition", "Coverage",
                  "Accuracy", "Accuracy 95% low", "Accuracy 95% high", "Leak-split gap", "Gap 95% low",
                  "Gap 95% high", "Gap kind", "Tie group"), tuple(out), compact=True,
                 filters=("Model" if not people else "Group", "Benchmark"),
                 note="Names are joined into one model by the rule stated above the table. Accuracy: strict, over the items the run answered, 95% percentile bootstrap interval. "
                      "Leak-split gap: accuracy on the items the options alone give away minus on the rest, in "
                      "points (adjusted: compared within strata, Mantel–Haenszel; crude: pooled), with its 95% "
                      "bootstrap interval; – where the run has no split (blind runs, benchmarks without a leak "
                      "score). Tie group: the run's paired tie group among its benchmark's imported runs, "
                      "formed only among runs that answered (nearly) the same items, on the items they all answered "
                      "(the benchmark's page states the rule); a partial run or a group of people is not ranked, and "
                      "the cell says why (– where no groups are formed). Benchmarks: on how many benchmarks the model has runs.")


def catalogue_tables(rows: Sequence[RunRow], facts: FactTable) -> dict[str, Table]:
    tables = [all_runs_table(rows, facts), across_table(rows, facts), across_table(rows, facts, people=True)]
    return {t.id: t for t in tables if t is not None}
