"""The tables comparing the published probe's figures with the site's (article page): one per
way a figure can be checked, laid out by builder.site.fidelity_table."""

from __future__ import annotations

from collections.abc import Sequence

from builder.benchmarks.cibuzzbench.analyses.fidelity import ARTICLE
from builder.claims.figure_statements import FigureStatement
from builder.core.reported import ReportedTable
from builder.site.fidelity_table import fidelity_table
from builder.site.tables import FactCells, Table

TITLES = {
    "data": ("article-fidelity-data", "Recomputed independently from the CIBuzzBench data",
             "Matches: the site's value rounds to the article's figure (it lies within half a unit of its last "
             "quoted digit, unless a statement gives its own tolerance)."),
    "counts": ("article-fidelity-counts", "Consistent with the probe's own counts (arithmetic, not a re-run)",
               "Each figure is recomputed from other figures the article states (its counts, accuracies and "
               "fixes/breaks), so a match says the published figures agree with one another, not that a run "
               "reproduces them."),
    "model_run": ("article-fidelity-model-run", "Needs the probe's model run (not re-run here)",
                  "These figures come from the probe's own model run, which this site has not repeated; they are "
                  "quoted, and runs you add are measured on the models page."),
}


def fidelity_tables(f: FactCells, statements: Sequence[FigureStatement], reported: ReportedTable) -> list[Table]:
    """One table per way a figure can be checked (FigureStatement.kind), so no count mixes a
    reproduction with arithmetic on the probe's own figures."""
    tables = (fidelity_table(f, statements, reported, ARTICLE, _heading(kind), kind) for kind in TITLES)
    return [t for t in tables if t is not None]


def _heading(kind: str) -> tuple[str, str, str, str, str]:
    table_id, title, note = TITLES[kind]
    return table_id, title, "What the article states", "Article", note + " Statements: content/article-figures.yaml."
