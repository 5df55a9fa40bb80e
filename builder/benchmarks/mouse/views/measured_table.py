"""The measured Mouse rows as a table: buzzprobe's scores with intervals beside the paper's.

Only layout: every number is a fact (`mouse.run.<run_id>.…` from analyses.measured_runs,
`mouse.reported.…` from the paper's tables), and which paper row sits beside a run was decided
in compute (`Measured.reported`).
"""

from __future__ import annotations

from builder.benchmarks.mouse.analyses.measured_runs import MAIN_FACTS, MCC_FACTS, Measured
from builder.benchmarks.mouse.analyses.paper_claims import COLUMN_LABELS
from builder.benchmarks.mouse.reported import Reported
from builder.benchmarks.mouse.analyses.reported_figures import reported_key
from builder.benchmarks.mouse.views.reported_tables import MCC_LABELS, SCORE, short_cite
from builder.site.tables import Cell, FactCells, Table

MEASURED_TABLE = "mouse-measured"


def measured_table(f: FactCells, measured: list[Measured], r: Reported) -> Table:
    """One row per metric of each measured run (its Table 3 metrics, then its MCC), with the
    95% interval and, when the paper reports the same model, the paper's value."""
    rows = []
    for entry in measured:
        mcc_labels = {c: f"{label} MCC" for c, label in MCC_LABELS.items()}
        for table, columns, labels in ((r.main, MAIN_FACTS, COLUMN_LABELS), (r.mcc, MCC_FACTS, mcc_labels)):
            for column, (task, metric) in columns.items():
                if task != entry.task:
                    continue
                key = f"{entry.base}.{metric}"
                reported = (f.optional(reported_key(r, table, entry.reported, column), SCORE)
                            if entry.reported else Cell("–"))
                rows.append((Cell(entry.model), Cell(entry.condition), Cell(labels[column]), f.optional(key, SCORE),
                             f.optional(f"{key}.ci95_low", SCORE), f.optional(f"{key}.ci95_high", SCORE), reported))
    return Table(MEASURED_TABLE, "Measured by buzzprobe: Mouse runs scored with 95% bootstrap intervals, beside the "
                                 f"value reported by {short_cite(r)}",
                 ("Model", "Arm", "Metric", "Measured", "95% low", "95% high", "Reported (paper)"), tuple(rows),
                 note="Measured by buzzprobe from the run files under runs/ (0–1 scale, seeded percentile bootstrap "
                      "over items); the last column is the paper's published value for the same model and arm, "
                      "or – when the paper has none (another model, or the blind arm, which is buzzprobe's). "
                      "buzzprobe's prompts are its own wording, not the paper's texts, so the two columns are "
                      "not the same protocol.")
