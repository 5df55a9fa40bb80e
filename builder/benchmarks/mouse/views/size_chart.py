"""Mouse's chart builder: scores against model size on a logarithmic axis (the Qwen3 size
series, views/scale_chart.py), built with the site's chart toolkit (builder.site.charts).
Imported only when a chart is drawn: it pulls in Altair."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from builder.site.charts import (WIDTH, Chart, SvgRenderer, check_once, finish_chart, label_text, palette_colours,
                                 point_shapes, remembered, score_value, unpack_row, value_format)

if TYPE_CHECKING:
    import altair as alt


@remembered
def scale_chart(rows: Iterable[Sequence], *, id: str = "scale", title: str = "Scores by model size",
                description: str | None = None, value_title: str = "Score", series_title: str = "Task",
                size_title: str = "Parameters (billions, log scale)",
    renderer: SvgRenderer | None = None) -> Chart:
    """Score against model size on a logarithmic x axis, one line per series (e.g. per task),
    series told apart by colour AND point shape.

    ``rows``: ``(series, model, size_in_billions, value)``, one per (series, model); sizes must
    be positive (log scale); a NaN value is kept as a gap. Series keep the order in which they
    first appear; points within a series are drawn by size. The x axis ticks at the sizes
    present, so every model sits on a labelled tick.
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table, series, sizes = _scale_points(rows)
    present = [v["v"] for v in values if v["v"] is not None]
    fmt = value_format(present)
    unit = bool(present) and min(present) >= 0 and max(present) <= 1
    y_scale = alt.Scale(domain=[0, 1], nice=False) if unit else alt.Scale(zero=False, nice=True)
    x = alt.X("x:Q", title=size_title, scale=alt.Scale(type="log", nice=False, padding=18),
              axis=alt.Axis(values=sorted(sizes), format="~g", grid=True))
    y = alt.Y("v:Q", title=value_title, scale=y_scale)
    colour = alt.Color("s:N", sort=series, title=series_title,
                       scale=alt.Scale(domain=series, range=palette_colours(len(series))))
    tooltip = [alt.Tooltip("s:N", title=series_title), alt.Tooltip("m:N", title="Model"),
               alt.Tooltip("x:Q", title="Parameters (billions)", format="~g"),
               alt.Tooltip("v:Q", title=value_title, format=fmt)]
    lines = alt.Chart().mark_line(strokeWidth=2).encode(x=x, y=y, color=colour, detail="s:N",
                                                        order=alt.Order("x:Q"))
    points = alt.Chart().mark_point(filled=True, size=70, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=tooltip,
        shape=alt.Shape("s:N", sort=series, title=series_title,
                        scale=alt.Scale(domain=series, range=point_shapes(len(series)))),
    )
    chart = alt.layer(lines, points, data=alt.Data(values=values)).properties(width=WIDTH, height=360)
    desc = description or (f"{value_title} against model size (log scale), one line per "
                           f"{series_title.lower()}.")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=(series_title, "Model", "Parameters (billions)", value_title), rows=tuple(table))


def _scale_points(rows: Iterable[Sequence]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], list[str], set[float]]:
    """The rows of `scale_chart`, checked and drawn in order (series as they first appear, then
    by size): the chart's data, its table, the series and the sizes present."""
    values: list[dict[str, Any]] = []
    table: list[tuple[Any, ...]] = []
    series: list[str] = []
    sizes: set[float] = set()
    for row in rows:
        label, model, size, value = unpack_row(row, 4, "scale")
        label, model = label_text(label, "series"), label_text(model, "model")
        size, value = score_value(size, "size"), score_value(value, "value")
        if size is None or size <= 0:
            raise ValueError(f"size must be a positive number of billions (log scale), got {row[2]!r}")
        check_once((label, model), table, "series and model")
        if label not in series:
            series.append(label)
        sizes.add(size)
        values.append({"s": label, "m": model, "x": size, "v": value})
        table.append((label, model, size, value))
    if not values:
        raise ValueError("scale chart needs at least one row")
    rank = {s: i for i, s in enumerate(series)}
    values.sort(key=lambda v: (rank[v["s"]], v["x"]))
    table.sort(key=lambda r: (rank[r[0]], r[2]))
    return values, table, series, sizes
