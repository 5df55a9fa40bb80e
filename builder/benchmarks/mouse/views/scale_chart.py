"""The Mouse page's chart: the Qwen3 size series' reported headline scores against model size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from builder.benchmarks.mouse.analyses.paper_claims import COLUMN_LABELS, PRIMARY
from builder.benchmarks.mouse.analyses.reported_figures import MouseComputed, reported_key
from builder.benchmarks.mouse.reported import Reported
from builder.benchmarks.mouse.views.reported_tables import short_cite
from builder.core.facts import FactTable
from builder.benchmarks.mouse.views.size_chart import scale_chart

if TYPE_CHECKING:  # charts pulls in Altair and vl-convert: imported only when a chart is drawn
    from builder.site.charts import Chart, SvgRenderer

SCALE_CHART = "mouse-qwen3-scale"


def mouse_charts(facts: FactTable, computed: MouseComputed, renderer: "SvgRenderer") -> dict[str, Chart]:
    return {SCALE_CHART: qwen3_scale_chart(facts, computed.reported, renderer)}


def qwen3_scale_rows(facts: FactTable, r: Reported) -> list[tuple[str, str, float, float]]:
    """(task label, model, size in billions, reported headline score) over the Qwen3 series."""
    return [(COLUMN_LABELS[column], p.model, p.size_b, facts[reported_key(r, r.main, p.model, column)])
            for column in PRIMARY.values() for p in r.qwen3_scale_series()]


def qwen3_scale_chart(facts: FactTable, r: Reported, renderer: "SvgRenderer | None" = None) -> Chart:
    series = r.qwen3_scale_series()
    return scale_chart(
        qwen3_scale_rows(facts, r), id=SCALE_CHART,
        title=f"Qwen3 by model size, {series[0].model} to {series[-1].model} (reported by {short_cite(r)}, "
              f"Table {r.main.table})",
        description="Each task's headline score as reported for the Qwen3 size series, against the parameter "
                    "count on a logarithmic axis (0–1 scale). Qwen3-Max has no published size and is not shown.",
        value_title="Reported score (0–1)", series_title="Task", renderer=renderer)
