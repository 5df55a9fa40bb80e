"""CIBuzzBench's charts: option length by slot, heuristic scores per option seed, each model's
sighted against blind score, the blind arm's errors by distractor type, and the front page's measured-against-reported finding. They
are built with the site's chart toolkit (builder.site.charts: validation of every row, one
look, SVG rendering); the slots and their colours are CIBuzzBench's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from builder.site.charts import (INK, PALETTE, WIDTH, Chart, SvgRenderer, band_height, check_once, count_value,
                                 finish_chart, int_value, label_text, ordered_names, palette_colours, remembered,
                                 score_value, shared_domain, unpack_row, value_format)

if TYPE_CHECKING:
    import altair as alt

SLOT_ORDER: tuple[str, ...] = ("gold", "literal", "cultural", "pragmatic")


SLOT_COLOURS: dict[str, str] = {"gold": "#b8860b", "literal": "#3a7fc1", "cultural": "#009e73", "pragmatic": "#a06cc6"}


@remembered
def option_length_chart(rows: Iterable[Sequence], *, id: str = "option-lengths",
                        title: str = "Option length by slot",
                        description: str | None = None,
    renderer: SvgRenderer | None = None) -> Chart:
    """Distribution of option lengths, one panel per slot (gold, literal, cultural, pragmatic).

    ``rows`` are already-aggregated ``(slot, length_in_chars, count)`` triples, one per
    (slot, length) that occurs, e.g. ``analyses.option_lengths.length_distribution``; a repeated
    (slot, length) is an error, not something to add up. The spec carries those triples only
    (not one row per option) and draws each as a one-character-wide histogram bar. The data table
    is the same counts pivoted to one row per length (0 where a slot has no option that long).
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    seen = _option_lengths(rows)
    slots = ordered_names({s for s, _ in seen}, SLOT_ORDER)
    rank = {s: i for i, s in enumerate(slots)}
    ordered = sorted(seen.items(), key=lambda kv: (rank[kv[0][0]], kv[0][1]))
    values = [{"slot": s, "len": n, "n": c} for (s, n), c in ordered]
    colours = [SLOT_COLOURS.get(s, PALETTE[i % len(PALETTE)]) for i, s in enumerate(slots)]

    base = (
        alt.Chart()
        .transform_calculate(end="datum.len + 1")
        .mark_bar(binSpacing=0, stroke=None)
        .encode(
            x=alt.X("len:Q", bin="binned", title="Option length (characters)",
                    axis=alt.Axis(tickMinStep=1, format="d")),
            x2="end:Q",
            y=alt.Y("n:Q", title="Options", axis=alt.Axis(tickMinStep=1, format="d", tickCount=3)),
            color=alt.Color("slot:N", scale=alt.Scale(domain=slots, range=colours), legend=None),
            tooltip=[alt.Tooltip("slot:N", title="Slot"), alt.Tooltip("len:Q", title="Characters"),
                     alt.Tooltip("n:Q", title="Options")],
        )
        .properties(width=WIDTH, height=80)
    )
    chart = base.facet(
        row=alt.Row("slot:N", sort=slots, title=None,
                    header=alt.Header(labelAngle=0, labelAlign="left", labelAnchor="start",
                                      labelOrient="top", labelFontWeight="bold")),
        data=alt.Data(values=values),
        spacing=10,
    )
    lengths = sorted({n for _, n in seen})
    table = tuple((n, *(seen.get((s, n), 0) for s in slots)) for n in lengths)
    desc = description or ("Histogram of option lengths in characters, one panel per option slot ("
                           + ", ".join(slots) + ").")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=("Length (characters)", *slots), rows=table)


def _option_lengths(rows: Iterable[Sequence]) -> dict[tuple[str, int], int]:
    """The rows of `option_length_chart`, checked: {(slot, length): count}, each pair once."""
    seen: dict[tuple[str, int], int] = {}
    for row in rows:
        slot, length, count = unpack_row(row, 3, "option length")
        slot = label_text(slot, "slot")
        length, count = count_value(length, "length"), count_value(count, "count")
        if (slot, length) in seen:
            raise ValueError(f"option length rows repeat slot {slot!r} at length {length}")
        seen[(slot, length)] = count
    if not seen:
        raise ValueError("option length chart needs at least one row")
    return seen


@remembered
def heuristic_seed_chart(rows: Iterable[Sequence], *, id: str = "heuristic-seeds",
                         title: str = "Heuristic scores by option seed", value_title: str = "Macro-F1",
                         means: Mapping[str, float] | None = None,
                         description: str | None = None,
    renderer: SvgRenderer | None = None) -> Chart:
    """One dot per (heuristic, seed) score, with a tick at each heuristic's mean.

    ``rows``: ``(heuristic label, seed, score)``. Pass ``means`` (heuristic -> mean, the
    computed facts) to mark exactly those values; without it the tick is Vega-Lite's ``mean``
    of the plotted dots, computed when the chart is drawn (nothing is computed in Python).
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table, order = _heuristic_scores(rows)
    mean_values = []
    if means is not None:
        unknown = sorted(set(means) - set(order))
        if unknown:
            raise ValueError(f"means given for heuristics with no rows: {unknown}")
        mean_values = [{"h": h, "m": score_value(means[h], f"mean of {h!r}")} for h in order if h in means]
    fmt = value_format([v["v"] for v in values] + [m["m"] for m in mean_values])
    y = alt.Y("h:N", sort=order, title=None)
    x_scale = alt.Scale(zero=False, nice=True)
    dots = alt.Chart().mark_point(filled=True, size=70, opacity=0.75, color=PALETTE[0]).encode(
        x=alt.X("v:Q", title=value_title, scale=x_scale), y=y,
        tooltip=[alt.Tooltip("h:N", title="Heuristic"), alt.Tooltip("seed:Q", title="Option seed", format="d"),
                 alt.Tooltip("v:Q", title=value_title, format=fmt)],
    )
    tick = {"color": INK, "thickness": 2, "size": 22}
    if means is None:
        ticks = alt.Chart().mark_tick(**tick).encode(
            x=alt.X("mean(v):Q", title=value_title, scale=x_scale), y=y,
            tooltip=[alt.Tooltip("h:N", title="Heuristic"),
                     alt.Tooltip("mean(v):Q", title=f"Mean {value_title}", format=fmt)],
        )
        chart = alt.layer(dots, ticks, data=alt.Data(values=values))
    else:
        ticks = alt.Chart(alt.Data(values=mean_values)).mark_tick(**tick).encode(
            x=alt.X("m:Q", title=value_title, scale=x_scale), y=y,
            tooltip=[alt.Tooltip("h:N", title="Heuristic"),
                     alt.Tooltip("m:Q", title=f"Mean {value_title}", format=fmt)],
        )
        chart = alt.layer(dots.properties(data=alt.Data(values=values)), ticks)
    chart = chart.properties(width=WIDTH, height=band_height(len(order), 30))
    desc = description or (f"{value_title} of each heuristic for every option seed (the letter order; dots); the "
                           "vertical tick marks each heuristic's mean over seeds.")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=("Heuristic", "Option seed", value_title), rows=tuple(table))


def _heuristic_scores(rows: Iterable[Sequence]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], list[str]]:
    """The rows of `heuristic_seed_chart`, checked: the chart's data, its table, and the
    heuristics in the order they first appear."""
    values: list[dict[str, Any]] = []
    table: list[tuple[Any, ...]] = []
    order: list[str] = []
    for row in rows:
        label, seed, score = unpack_row(row, 3, "heuristic seed")
        label, seed, score = label_text(label, "heuristic"), int_value(seed, "seed"), score_value(score, "score")
        check_once((label, seed), table, "heuristic and seed")
        if label not in order:
            order.append(label)
        values.append({"h": label, "seed": seed, "v": score})
        table.append((label, seed, score))
    if not values:
        raise ValueError("heuristic seed chart needs at least one row")
    return values, table, order


@remembered
def blind_error_chart(rows: Iterable[Sequence], *, id: str = "blind-errors",
                      title: str = "Where the wrong answers went", source_title: str = "Source",
                      description: str | None = None,
    renderer: SvgRenderer | None = None) -> Chart:
    """Wrong answers by the distractor type chosen, one bar per (type, source).

    ``rows``: ``(distractor type, count, source label)``, e.g. one source per run. Types and
    sources keep the order in which they first appear; each bar is labelled with its count.
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table, types, sources = list[dict[str, Any]](), list[tuple[Any, ...]](), list[str](), list[str]()
    for row in rows:
        kind, count, source = unpack_row(row, 3, "blind error")
        kind, count, source = label_text(kind, "distractor type"), count_value(count, "count"), label_text(source, "source")
        check_once((kind, source), table, "distractor type and source")
        for name, seq in ((kind, types), (source, sources)):
            if name not in seq:
                seq.append(name)
        values.append({"t": kind, "n": count, "s": source})
        table.append((kind, source, count))
    if not values:
        raise ValueError("blind error chart needs at least one row")
    y = alt.Y("t:N", sort=types, title="Chosen option")
    offset = alt.YOffset("s:N", sort=sources)
    tooltip = [alt.Tooltip("t:N", title="Chosen option"), alt.Tooltip("s:N", title=source_title),
               alt.Tooltip("n:Q", title="Wrong answers", format=",d")]
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("n:Q", title="Wrong answers", axis=alt.Axis(tickMinStep=1, format=",d")), y=y, yOffset=offset,
        color=alt.Color("s:N", sort=sources, title=source_title,
                        scale=alt.Scale(domain=sources, range=palette_colours(len(sources)))),
        tooltip=tooltip,
    )
    labels = alt.Chart().mark_text(align="left", baseline="middle", dx=4, fontSize=11, color=INK).encode(
        x="n:Q", y=y, yOffset=offset, text=alt.Text("n:Q", format=",d"), tooltip=tooltip,
    )
    chart = alt.layer(bars, labels, data=alt.Data(values=values)).properties(
        width=WIDTH, height=band_height(len(types), max(28, 16 * len(sources) + 8)))
    desc = description or ("Count of wrong answers by the type of distractor that was chosen, one bar per "
                           f"{source_title.lower()}.")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=("Chosen option", source_title, "Wrong answers"), rows=tuple(table))


@remembered
def measured_reported_chart(rows: Iterable[Sequence], *, id: str = "finding",
                            title: str = "Measured here and reported", value_title: str = "Macro F1",
                            description: str | None = None, renderer: SvgRenderer | None = None) -> Chart:
    """One bar per figure, coloured by where it comes from (measured by this site, or reported by
    a cited source), so a reader never takes a quoted figure for a recomputed one.

    ``rows``: ``(label, value, origin)``; bars keep the order given.
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table, order, origins = list[dict[str, Any]](), list[tuple[Any, ...]](), list[str](), list[str]()
    for row in rows:
        label, value, origin = unpack_row(row, 3, "figure")
        label, value, origin = label_text(label, "figure"), score_value(value, "value"), label_text(origin, "origin")
        check_once((label,), table, "figure")
        order.append(label)
        if origin not in origins:
            origins.append(origin)
        values.append({"f": label, "v": value, "o": origin})
        table.append((label, origin, value))
    if not values:
        raise ValueError("measured/reported chart needs at least one row")
    fmt = value_format([v["v"] for v in values])
    y = alt.Y("f:N", sort=order, title=None, axis=alt.Axis(labelLimit=320))
    tooltip = [alt.Tooltip("f:N", title="Figure"), alt.Tooltip("o:N", title="Origin"),
               alt.Tooltip("v:Q", title=value_title, format=fmt)]
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("v:Q", title=value_title, scale=alt.Scale(domain=[0, 100])), y=y,
        color=alt.Color("o:N", sort=origins, title=None, legend=alt.Legend(orient="bottom", labelLimit=400),
                        scale=alt.Scale(domain=origins, range=palette_colours(len(origins)))),
        tooltip=tooltip)
    labels = alt.Chart().mark_text(align="left", baseline="middle", dx=4, fontSize=11, color=INK).encode(
        x="v:Q", y=y, text=alt.Text("v:Q", format=".1f"), tooltip=tooltip)
    chart = alt.layer(bars, labels, data=alt.Data(values=values)).properties(
        width=WIDTH - 200, height=band_height(len(order), 30))
    desc = description or f"{value_title} of each figure, coloured by where it comes from."
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=("Figure", "Origin", value_title), rows=tuple(table))


@remembered
def sighted_blind_scatter(rows: Iterable[Sequence], *, id: str = "sighted-vs-blind",
                          title: str = "Sighted against blind", value_title: str = "Score",
                          label_title: str = "Run", description: str | None = None,
                          renderer: SvgRenderer | None = None) -> Chart:
    """Each label's blind score (x) against its sighted score (y), both with interval bars,
    on equal axes with the y = x diagonal (points above it: seeing the item helped).

    ``rows``: ``(label, blind, sighted, blind_low, blind_high, sighted_low, sighted_high)``;
    bounds may be ``None``. Points are labelled when there are at most 12 of them.
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table = _sighted_blind_scores(rows)
    extent = [x for v in values for k, x in v.items() if k != "l" and x is not None]
    lo, hi = shared_domain(extent)
    fmt = value_format(extent)
    scale = alt.Scale(domain=[lo, hi], nice=False, zero=False)
    side = min(WIDTH, 520)
    x_title, y_title = f"Blind {value_title.lower()}", f"Sighted {value_title.lower()}"
    tooltip = [alt.Tooltip("l:N", title=label_title),
               alt.Tooltip("b:Q", title=x_title, format=fmt), alt.Tooltip("blo:Q", title="Blind low", format=fmt),
               alt.Tooltip("bhi:Q", title="Blind high", format=fmt),
               alt.Tooltip("s:Q", title=y_title, format=fmt),
               alt.Tooltip("slo:Q", title="Sighted low", format=fmt),
               alt.Tooltip("shi:Q", title="Sighted high", format=fmt)]
    x = alt.X("b:Q", title=x_title, scale=scale)
    y = alt.Y("s:Q", title=y_title, scale=scale)
    diagonal = alt.Chart().mark_rule(color=INK, strokeDash=[4, 4], opacity=0.6).encode(
        x=alt.datum(lo, type="quantitative", scale=scale), y=alt.datum(lo, type="quantitative", scale=scale),
        x2=alt.datum(hi), y2=alt.datum(hi),
    )
    x_bars = alt.Chart().mark_rule(color=PALETTE[0], strokeWidth=1.5).encode(
        x=alt.X("blo:Q", title=x_title, scale=scale), x2="bhi:Q", y=y, tooltip=tooltip)
    y_bars = alt.Chart().mark_rule(color=PALETTE[0], strokeWidth=1.5).encode(
        x=x, y=alt.Y("slo:Q", title=y_title, scale=scale), y2="shi:Q", tooltip=tooltip)
    points = alt.Chart().mark_point(filled=True, size=70, opacity=1, color=PALETTE[0]).encode(
        x=x, y=y, tooltip=tooltip)
    layers = [diagonal, x_bars, y_bars, points]
    if len(values) <= 12:
        layers.append(alt.Chart().mark_text(align="left", baseline="bottom", dx=5, dy=-4, fontSize=11, color=INK)
                      .encode(x=x, y=y, text="l:N"))
    chart = alt.layer(*layers, data=alt.Data(values=values)).properties(width=side, height=side)
    desc = description or (f"{y_title} against {x_title.lower()} per run, with interval bars on both axes; "
                           "the dashed diagonal is y = x.")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=(label_title, x_title, "Blind low", "Blind high", y_title, "Sighted low", "Sighted high"),
                   rows=tuple(table))


def _sighted_blind_scores(rows: Iterable[Sequence]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """The rows of `sighted_blind_scatter`, checked: the chart's data and its table (blind
    before sighted, each with its interval)."""
    values: list[dict[str, Any]] = []
    table: list[tuple[Any, ...]] = []
    for row in rows:
        label, blind, sighted, b_lo, b_hi, s_lo, s_hi = unpack_row(row, 7, "sighted/blind")
        label = label_text(label, "label")
        check_once((label,), table, "label")
        blind, sighted = score_value(blind, "blind"), score_value(sighted, "sighted")
        b_lo, b_hi = score_value(b_lo, "blind_low", optional=True), score_value(b_hi, "blind_high", optional=True)
        s_lo, s_hi = score_value(s_lo, "sighted_low", optional=True), score_value(s_hi, "sighted_high", optional=True)
        values.append({"l": label, "b": blind, "s": sighted, "blo": b_lo, "bhi": b_hi, "slo": s_lo, "shi": s_hi})
        table.append((label, blind, b_lo, b_hi, sighted, s_lo, s_hi))
    if not values:
        raise ValueError("sighted/blind scatter needs at least one row")
    return values, table
