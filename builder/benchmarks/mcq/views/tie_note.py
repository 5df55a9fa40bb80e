"""What a page shows for an imported run's tie group: the group, or why the run is not ranked
(analyses/rankings.py ranks only like with like), so a partial run never shows a blank."""

from __future__ import annotations

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.compute import Computed
from builder.benchmarks.mcq.analyses.rankings import imported, unranked_note
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.site.model_names import is_human_group
from builder.site.tables import Cell, FactCells


def tie_note(c: Computed, run: Run, facts: FactTable) -> str:
    """Why an imported run with answers has no tie group; "" where it has one or is not imported."""
    key = K.RUN_TIE_GROUP.key(bench=c.name, run_id=run.header.run_id)
    if key in facts or not run.items or not imported([run]):
        return ""
    return unranked_note(len(run.items), len(c.loaded.data.items), is_human_group(run.header.subject_label))


def tie_cell(c: Computed, run: Run, cells: FactCells) -> Cell:
    """The run's tie group, else why it is not ranked, else –."""
    key = K.RUN_TIE_GROUP.key(bench=c.name, run_id=run.header.run_id)
    if key in cells.facts:
        return cells(key, "count")
    return Cell(tie_note(c, run, cells.facts) or "–")
