"""Charts: a Vega-Lite spec, a static SVG of it, and the table of numbers it draws.

Every builder takes rows that the compute stage already produced and returns a ``Chart``; no
builder computes a metric (the one optional exception, the per-heuristic mean marker, is left
to Vega-Lite's own ``mean`` at draw time unless the caller passes the fact values; see
CIBuzzBench's ``heuristic_seed_chart``). This module is the toolkit every benchmark's charts
use (row checks, the look, rendering, ``finish_chart``) plus the charts more than one benchmark
draws; a benchmark's own charts live in its views (CIBuzzBench: views/charts.py, Mouse:
views/size_chart.py). A page shows,
per chart:

* the SVG (rendered here by vl-convert, so the page reads without JavaScript),
* the spec as ``<script type="application/json" class="vl-spec" data-target="ID">`` which the
  shared bundle (chart_bundle.py) turns into the live chart, and
* ``columns``/``rows`` as an ordinary HTML table beside it.

``Chart.svg`` and ``Chart.spec_json`` are ready to write unescaped (the latter is ``Markup``,
so ``{{ c.spec_json }}`` is right in a Jinja template; ``{{ c.svg|safe }}`` for the SVG);
``Chart.html()`` writes both with a container. The table is left to the templates so it gets
the site's number formatting.

Conventions shared by every chart:

* Offline: data inline as ``values``; no ``$schema`` (the page would otherwise carry a remote
  URL; the bundle is told the mode instead); the SVG carries no namespace URL either (inline
  SVG in HTML needs none; ``render_svg(..., standalone=True)`` keeps them for a file).
* Deterministic: the spec is a pure function of the rows (no generated parameter names, no
  dates), its JSON is written with sorted keys, and vl-convert's SVG is byte-stable for the
  same spec, vl-convert release and fonts. Text is measured with Liberation Sans, which
  vl-convert embeds, so label layout does not depend on the fonts installed on the build
  machine (unless a label needs glyphs Liberation Sans lacks, e.g. CJK).
* Light and dark: no background, all text, axes, gridlines and reference marks in
  ``currentColor`` (the page's text colour, in the inline SVG and in the live chart alike), and
  a palette of mid-tone colours that each keep at least 3:1 contrast against both the light
  (#fdfdfc) and the dark (#151617) page background.
* Size: plot areas are ``WIDTH`` px wide so that, with axis labels, every chart fits the
  60rem text column (about 975 px). To scale down on narrow screens the page's stylesheet
  needs ``.chart svg { max-width: 100%; height: auto; }`` (it applies to the static and the
  live SVG alike; no inline style is written, so a strict CSP without 'unsafe-inline' styles
  holds). Per-mark ARIA labels are off: the SVG is one ``role="img"`` with a ``<title>``, and
  the data table is the accessible version of the numbers.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import vl_convert
from markupsafe import Markup

from builder.core.cache import Shelf, code_hash
from builder.core.names import xml_safe
from builder.site.chart_bundle import VL_VERSION
from builder.site.scriptjson import script_json
from builder.site.svg_file import SVG_ROOT, SVG_XMLNS
from builder.runs.cache import code_hash

if TYPE_CHECKING:
    import altair as alt

WIDTH = 760  # px of plot area; axis labels, titles and legends come on top of this
FONT = "Liberation Sans, Arial, Helvetica, sans-serif"  # metric-compatible family, first one embedded in vl-convert
INK = "currentColor"

# Mid-tone colours, each >= 3:1 contrast against both page backgrounds (see module docstring).
PALETTE: tuple[str, ...] = ("#3a7fc1", "#c8602a", "#009e73", "#a06cc6", "#b8860b", "#d1495b", "#9c755f", "#cc79a7")
SHAPES: tuple[str, ...] = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down",
                           "triangle-right", "triangle-left")

_ID = re.compile(r"^[a-z][a-z0-9-]{0,63}$")

_CONFIG: dict[str, Any] = {
    "background": "transparent",
    "font": FONT,
    "aria": False,
    "padding": 4,
    "view": {"stroke": None},
    "axis": {
        "labelColor": INK, "titleColor": INK, "domainColor": INK, "tickColor": INK,
        "gridColor": INK, "gridOpacity": 0.15, "domainOpacity": 0.6, "tickOpacity": 0.6,
        "labelFontSize": 12, "titleFontSize": 12, "titleFontWeight": "bold",
        "labelLimit": 200, "titlePadding": 8,
    },
    "legend": {
        "labelColor": INK, "titleColor": INK, "labelFontSize": 12, "titleFontSize": 12,
        "orient": "top", "labelLimit": 220, "symbolStrokeWidth": 2,
    },
    "axisQuantitative": {"tickCount": 8},
    "header": {"labelColor": INK, "titleColor": INK, "labelFontSize": 12, "titleFontSize": 12},
    "title": {"color": INK, "subtitleColor": INK},
    "range": {"category": list(PALETTE)},
}


@dataclass(frozen=True)
class Chart:
    """One chart: everything a page needs to show it with and without JavaScript.

    ``spec`` is a Vega-Lite dict; treat it as read-only (the dataclass is frozen, the dict is not).
    ``rows`` is the chart's data table, in the order a reader should see it; ``None`` marks a
    missing value (e.g. an interval that was not computed).
    """

    id: str
    title: str
    description: str
    spec: dict = field(hash=False)
    svg: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    @property
    def spec_json(self) -> Markup:
        """The spec as deterministic JSON, ready to sit inside a <script> element.

        It is ``Markup`` so that a Jinja template writes it as is (``{{ c.spec_json }}``): HTML
        escaping would be wrong there, as a <script> element's text is never entity-decoded
        (``&#34;`` would reach JSON.parse). It is safe unescaped because ``script_json`` leaves
        no ``<``, ``>`` or ``&`` in it.
        """
        return script_json(live_spec(self.spec))

    def html(self) -> Markup:
        """The static SVG in a container whose id is the chart id, plus the spec for the live
        chart (both already escaped); a page may equally write its own container and script."""
        return Markup(
            f'<div class="chart" id="{self.id}">{self.svg}</div>\n'
            f'<script type="application/json" class="vl-spec" data-target="{self.id}">'
            f"{self.spec_json}</script>"
        )


def live_spec(spec: Mapping[str, Any]) -> dict:
    """The spec the live chart draws: a single or layered view is laid out at its column's
    width (``width: "container"``), redrawn with type at full size rather than scaled;
    concatenated or faceted specs keep their drawn widths. ``usermeta.drawnWidth`` keeps the
    drawn width for the bundle, which uses it when the column would leave the plot too narrow
    (long axis labels on a phone; the chart is then scaled like the static one). The static SVG
    is rendered from ``spec`` unchanged (a file needs a width)."""
    if not isinstance(spec.get("width"), (int, float)):
        return dict(spec)
    return {**spec, "width": "container", "autosize": {"type": "fit-x", "contains": "padding"},
            "usermeta": {"drawnWidth": spec["width"]}}


# --------------------------------------------------------------------------------------- SVG

_ROOT = SVG_ROOT
_TAG = re.compile(r"<[^>]*>")  # text content never holds a raw "<": vega escapes it
_XMLNS = SVG_XMLNS
_ID_ATTR = re.compile(r'\bid="([^"]+)"')
_ID_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)([")])')
# Geometry attributes only (never text, titles or labels): vl-convert writes full float
# precision (74.13333333333333); two decimals is a hundredth of a pixel and cuts bar charts by a third.
_GEOMETRY = re.compile(r'\s(?:d|transform|x|y|x1|x2|y1|y2|width|height|viewBox)="[^"]*"')
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{3,}")
_FONT_ATTR = f' font-family="{html.escape(FONT)}"'


def render_svg(spec: Mapping[str, Any], *, title: str | None = None, description: str | None = None,
               id_prefix: str | None = None, standalone: bool = False, renderer: SvgRenderer | None = None) -> str:
    """Render a Vega-Lite spec to an accessible, deterministic SVG string.

    The root gets ``role="img"``, a ``<title>`` (``title``, else the description, else the
    spec's description) and a ``<desc>`` (``description``, when it differs from the title),
    linked by ``aria-labelledby``. Element ids (clip paths, gradients) are renumbered under
    ``id_prefix`` so several SVGs can share one page. External data is refused
    (``allowed_base_urls=[]``): a spec must carry its data inline. With ``standalone=False``
    (the default, for inline use in HTML) the namespace declarations, the only URLs vl-convert
    writes, are dropped; keep them to write the SVG to a file of its own.
    """
    prefix = id_prefix or "chart"
    if not _ID.match(prefix):
        raise ValueError(f"id_prefix {prefix!r} must match {_ID.pattern}")
    svg = (renderer or SvgRenderer()).vegalite(spec)
    if _ROOT.match(svg) is None:  # pragma: no cover - vl-convert always starts with the root element
        raise ValueError("vl-convert did not return an <svg> document")
    svg = _TAG.sub(_tidy_tag, svg)
    # Vega numbers clip paths and gradients with a counter that lives as long as vl-convert's
    # JavaScript runtime (the process): the same spec renders `clip1` first and `clip2` the
    # next time. Renumber them in document order under the chart's own prefix, which makes the
    # SVG independent of what was rendered before it and keeps ids unique on a shared page.
    renamed: dict[str, str] = {}
    for old in _ID_ATTR.findall(svg):
        kind = re.sub(r"[^a-z]", "", old.lower()) or "id"
        renamed.setdefault(old, f"{prefix}-{kind}{len(renamed) + 1}")
    if renamed:
        svg = _ID_REF.sub(lambda m: m.group(1) + renamed.get(m.group(2), m.group(2)) + m.group(3), svg)

    label = title or description or str(spec.get("description") or "Chart")
    desc = description if description and description != label else None
    root = _ROOT.match(svg)
    if root is None:
        raise ValueError("vl-convert drew no <svg> root")  # never from vl-convert: a bug, not input
    attrs = root.group(1) if standalone else _XMLNS.sub("", root.group(1))
    labelled_by = f"{prefix}-title" + (f" {prefix}-desc" if desc else "")
    head = (f'<svg{attrs} role="img" aria-labelledby="{labelled_by}"{_FONT_ATTR}>'
            f'<title id="{prefix}-title">{html.escape(label, quote=False)}</title>')
    if desc:
        head += f'<desc id="{prefix}-desc">{html.escape(desc, quote=False)}</desc>'
    return head + svg[root.end():]


class SvgRenderer:
    """Draws Vega-Lite specs with vl-convert. With a `cache` folder it keeps the raw output by
    content hash, so unchanged charts are not drawn again; the build passes one explicitly
    (no module state), and deleting the folder changes nothing but time."""

    def __init__(self, cache: Path | None = None) -> None:
        self.cache = cache

    def vegalite(self, spec: Mapping[str, Any]) -> str:
        if self.cache is None:
            return self._draw(spec)
        version = vl_convert.__version__  # type: ignore[attr-defined]  # set by the package, absent from its .pyi
        key = hashlib.sha256(json.dumps([version, VL_VERSION, spec], sort_keys=True,
                                        separators=(",", ":")).encode("utf-8")).hexdigest()
        shelf = Shelf(self.cache, "svg")
        name = f"{key}.svg.sealed"  # not .svg: older builds read those unchecked
        data = shelf.read(name)  # sealed: a planted file cannot put markup on a page
        if data is not None:
            return data.decode("utf-8")
        svg = self._draw(spec)
        shelf.write(name, svg.encode("utf-8"))
        return svg

    @staticmethod
    def _draw(spec: Mapping[str, Any]) -> str:
        # vl-convert aborts the whole process (a Rust panic, SIGABRT) on a character XML cannot
        # hold, e.g. a C0 control in a model name: whatever entrance let one through, none reaches it.
        safe = xml_safe(dict(spec))
        assert isinstance(safe, dict)  # xml_safe keeps a dict a dict
        return vl_convert.vegalite_to_svg(safe, vl_version=VL_VERSION, allowed_base_urls=[])


def _tidy_tag(match: re.Match) -> str:
    """Shrink one tag: round geometry, drop attributes that restate a default (opacity 1) or the
    font the root sets for every text (inherited)."""
    tag = _GEOMETRY.sub(lambda m: _LONG_DECIMAL.sub(_round_number, m.group(0)), match.group(0))
    return tag.replace(' opacity="1"', "").replace(_FONT_ATTR, "")


def _round_number(match: re.Match) -> str:
    text = f"{float(match.group(0)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# ---------------------------------------------------------------------------------- builders

def remembered(builder: Callable[..., Chart]) -> Callable[..., Chart]:
    """A chart builder whose charts are kept in the renderer's cache folder, keyed by the
    builder, its rows and options and the package's code: building the Altair objects costs
    more than drawing (which the renderer caches already), about 0.4 s per build. Only a
    built chart is kept (bad rows still raise), sealed like every cache."""
    @functools.wraps(builder)
    def build(rows: Iterable[Sequence], *, renderer: SvgRenderer | None = None, **options: Any) -> Chart:
        rows = [tuple(row) if isinstance(row, (list, tuple)) else row for row in rows]
        folder = renderer.cache if renderer is not None else None
        if folder is None:
            return builder(rows, renderer=renderer, **options)
        named = [builder.__module__, builder.__qualname__, code_hash(), rows, sorted(options.items())]
        shelf = Shelf(folder, "chart")
        name = f"chart-{hashlib.sha256(repr(named).encode()).hexdigest()}.pickle"
        chart = shelf.read_pickle(name, Chart)
        if isinstance(chart, Chart):
            return chart
        chart = builder(rows, renderer=renderer, **options)
        shelf.write_pickle(name, chart)
        return chart
    return build


@remembered
def category_score_chart(rows: Iterable[Sequence], *, id: str = "category-scores",
                         title: str = "Scores by category", value_title: str = "Score",
                         series_title: str = "Series", description: str | None = None,
    renderer: SvgRenderer | None = None, zero: bool = False) -> Chart:
    """Points with interval bars per category; series told apart by colour AND shape; `zero`
    keeps 0 on the axis (a difference, whose intervals are read against it).

    ``rows``: ``(category, series label, value, ci_low, ci_high)``; the bounds may be ``None``
    (no interval drawn). Categories and series keep the order in which they first appear.
    """
    import altair as alt  # deferred: only a chart the cache lacks is built (0.3 s of a warm build's start)
    values, table, categories, series = _category_scores(rows)
    fmt = value_format([x for v in values for x in (v["v"], v["lo"], v["hi"]) if x is not None])
    y = alt.Y("c:N", sort=categories, title=None, scale=alt.Scale(paddingInner=0.3, paddingOuter=0.15))
    offset = alt.YOffset("s:N", sort=series, scale=alt.Scale(paddingOuter=0.5))
    colour = alt.Color("s:N", sort=series, title=series_title,
                       scale=alt.Scale(domain=series, range=palette_colours(len(series))))
    tooltip = [alt.Tooltip("c:N", title="Category"), alt.Tooltip("s:N", title=series_title),
               alt.Tooltip("v:Q", title=value_title, format=fmt),
               alt.Tooltip("lo:Q", title="Interval low", format=fmt),
               alt.Tooltip("hi:Q", title="Interval high", format=fmt)]
    x_scale = alt.Scale(zero=zero, nice=True)
    bars = alt.Chart().mark_rule(strokeWidth=2).encode(
        x=alt.X("lo:Q", title=value_title, scale=x_scale), x2="hi:Q", y=y, yOffset=offset,
        color=colour, tooltip=tooltip,
    )
    points = alt.Chart().mark_point(filled=True, size=70, opacity=1).encode(
        x=alt.X("v:Q", title=value_title, scale=x_scale), y=y, yOffset=offset, color=colour,
        shape=alt.Shape("s:N", sort=series, title=series_title,
                        scale=alt.Scale(domain=series, range=point_shapes(len(series)))),
        tooltip=tooltip,
    )
    chart = alt.layer(bars, points, data=alt.Data(values=values)).properties(
        width=WIDTH, height=band_height(len(categories), max(28, 14 * len(series) + 10)))
    desc = description or (f"{value_title} per category for each {series_title.lower()}: points with "
                           "horizontal interval bars.")
    return finish_chart(chart, renderer=renderer, id=id, title=title, description=desc,
                   columns=("Category", series_title, value_title, "Interval low", "Interval high"),
                   rows=tuple(table))


def _category_scores(rows: Iterable[Sequence]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], list[str], list[str]]:
    """The rows of `category_score_chart`, checked: the chart's data, its table, and the
    categories and series in the order they first appear."""
    values: list[dict[str, Any]] = []
    table: list[tuple[Any, ...]] = []
    categories: list[str] = []
    series: list[str] = []
    for row in rows:
        category, label, value, low, high = unpack_row(row, 5, "category score")
        category, label = label_text(category, "category"), label_text(label, "series")
        value = score_value(value, "value")
        low, high = score_value(low, "ci_low", optional=True), score_value(high, "ci_high", optional=True)
        check_once((category, label), table, "category and series")
        for name, seq in ((category, categories), (label, series)):
            if name not in seq:
                seq.append(name)
        values.append({"c": category, "s": label, "v": value, "lo": low, "hi": high})
        table.append((category, label, value, low, high))
    if not values:
        raise ValueError("category score chart needs at least one row")
    return values, table, categories, series


# ----------------------------------------------------------------------------------- helpers

def finish_chart(chart: alt.TopLevelMixin, *, renderer: SvgRenderer | None, id: str, title: str, description: str,
            columns: tuple[str, ...], rows: tuple[tuple, ...]) -> Chart:
    if not _ID.match(id):
        raise ValueError(f"chart id {id!r} must match {_ID.pattern} (it becomes an HTML id)")
    # Not validated here: each builder's spec is validated against the Vega-Lite schema by the
    # tests (test_charts.py), and validating every chart on every build cost about 0.6 s.
    spec = chart.properties(description=description).configure(**_CONFIG).to_dict(validate=False)
    spec.pop("$schema", None)
    view = spec.get("config", {}).get("view", {})
    for key in ("continuousWidth", "continuousHeight"):  # Altair's theme defaults; every chart sizes itself
        view.pop(key, None)
    spec = json.loads(json.dumps(spec, allow_nan=False))  # plain JSON types only (tuples -> lists)
    return Chart(id=id, title=title, description=description, spec=spec,
                 svg=render_svg(spec, title=title, description=description, id_prefix=id, renderer=renderer),
                 columns=columns, rows=rows)


def unpack_row(row: Sequence, n: int, what: str) -> tuple:
    if isinstance(row, (str, bytes)) or len(row) != n:
        raise ValueError(f"{what} rows need {n} fields, got {row!r}")
    return tuple(row)


def check_once(key: tuple, table: list[tuple], what: str) -> None:
    """Refuse a repeated key: the rows come computed, so a repeat is an upstream bug (not
    something to add up or average here)."""
    if any(row[:len(key)] == key for row in table):
        raise ValueError(f"rows repeat the same {what}: {key!r}")


def label_text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def int_value(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):  # numpy ints are Integral
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(value)


def count_value(value: Any, what: str) -> int:
    value = int_value(value, what)
    if value < 0:
        raise ValueError(f"{what} must not be negative, got {value}")
    return value


def score_value(value: Any, what: str, *, optional: bool = False) -> float | None:
    """A finite number as float; NaN (an undefined score) and, if optional, None become None."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy floats are Real
        raise ValueError(f"{what} must be a number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        return None
    if math.isinf(value):
        raise ValueError(f"{what} must be finite, got {value}")
    return value


def ordered_names(names: set[str], preferred: Sequence[str]) -> list[str]:
    return [s for s in preferred if s in names] + sorted(names - set(preferred))


def palette_colours(n: int) -> list[str]:
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


def point_shapes(n: int) -> list[str]:
    return [SHAPES[i % len(SHAPES)] for i in range(n)]


def band_height(bands: int, step: int) -> int:
    return max(1, bands) * step


def value_format(values: Iterable[float | None]) -> str:
    """Three decimals for scores on a 0-1 scale, one for scores on a 0-100 scale."""
    present = [abs(v) for v in values if v is not None]
    return ".3f" if present and max(present) <= 1 else ".1f"


def shared_domain(values: Sequence[float]) -> tuple[float, float]:
    """One [lo, hi] for both scatter axes: the data's extent padded 5% and rounded outward to a
    1/2/5 step, clipped to [0, 1] or [0, 100] when the data lie on such a scale (layout only)."""
    lo, hi = min(values), max(values)
    span = hi - lo or (abs(hi) or 1.0)
    lo, hi = lo - 0.05 * span, hi + 0.05 * span
    raw = (hi - lo) / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    bound = 1.0 if min(values) >= 0 and max(values) <= 1 else 100.0 if min(values) >= 0 and max(values) <= 100 else None
    if bound is not None:
        lo, hi = max(lo, 0.0), min(hi, bound)
    return round(lo, 10), round(hi, 10)
