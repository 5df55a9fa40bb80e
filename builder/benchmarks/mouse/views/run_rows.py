"""Mouse runs as the site's shared pages list them (builder.site.run_catalogue): a row on
runs.html and the models page and a page of their own with the run's measured metrics and 95%
intervals (0–1 scale, as the Mouse page shows them). Mouse's tasks are not one multiple-choice
format (translations, ratings, several components), so its rows carry no per-item answers and no
accuracy column on the shared tables (a 0–1 metric beside 0–100 accuracies would mislead)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from builder.benchmarks.mouse.analyses.measured_runs import MAIN_FACTS, MCC_FACTS
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.site.run_catalogue import RunRow, provenance_of
from builder.site.tables import Cell, FactCells, Table

TITLE = "Mouse"
PAGE = "mouse.html"


def _metrics_table(run: Run, facts: FactTable) -> Table | None:
    """The run's measured metrics (its task's Table 3 and MCC columns) with their intervals."""
    base, task, cells = f"mouse.run.{run.header.run_id}", run.header.task, FactCells(facts)
    metrics = [metric for t, metric in (*MAIN_FACTS.values(), *MCC_FACTS.values()) if t == task]
    rows = tuple((Cell(metric.replace("_", " ")), cells(f"{base}.{metric}"), cells.optional(f"{base}.{metric}.ci95_low"),
                  cells.optional(f"{base}.{metric}.ci95_high"))
                 for metric in dict.fromkeys(metrics) if f"{base}.{metric}" in facts)
    if not rows:
        return None
    return Table(f"run-{run.header.run_id}-metrics", "Measured metrics with 95% bootstrap intervals (0–1 scale)",
                 ("Metric", "Value", "Low", "High"), rows, "Seeded percentile bootstrap over items; the Mouse page "
                 "sets them beside the paper's reported values.")


def run_row(run: Run, facts: FactTable) -> RunRow:
    h = run.header
    declared = h.items.get("n")
    table = _metrics_table(run, facts)
    return RunRow(
        run_id=h.run_id, benchmark="mouse", benchmark_title=TITLE, subject=h.subject_label, condition=h.condition,
        option_seed=h.option_seed, answered=len(run.items),
        total=declared if isinstance(declared, int) and declared > 0 else len(run.items), complete=run.complete,
        created=h.created, kind=str(h.subject.get("kind", "model")), benchmark_href=PAGE, task=h.task,
        source=provenance_of(h.source), tables=(table,) if table is not None else (), has_items=False,
        header_json=json.dumps(h.to_json(), ensure_ascii=False, indent=1, sort_keys=True))


def run_rows(runs: Sequence[Run], facts: FactTable) -> list[RunRow]:
    return [run_row(run, facts) for run in runs]

