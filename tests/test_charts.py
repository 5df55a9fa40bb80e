"""Charts: valid offline Vega-Lite specs, deterministic accessible SVG fallbacks, escaping, and
the shared self-hosted Vega bundle (deterministic, cached, fetching nothing at run time)."""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import shutil
import subprocess
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import altair as alt
import pytest
import vl_convert
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema

from builder.site import chart_bundle
from builder.site import charts
from builder.site.chart_bundle import VL_VERSION, bundle_version, vega_bundle
from builder.benchmarks.cibuzzbench.views import charts as cibuzzbench_charts
from builder.benchmarks.cibuzzbench.views.charts import (blind_error_chart, heuristic_seed_chart, option_length_chart,
                                                      sighted_blind_scatter)
from builder.benchmarks.mouse.views.size_chart import scale_chart
from builder.site.charts import Chart, category_score_chart, live_spec, render_svg
from builder.site.scriptjson import script_json

EVIL_SCRIPT = "<script>alert(1)</script>"
EVIL_ATTR = '"onerror=alert(1) x="'
URL = re.compile(r"https?://", re.IGNORECASE)

LENGTH_ROWS = [("gold", 5, 3), ("gold", 7, 1), ("literal", 4, 2), ("literal", 5, 2),
               ("cultural", 6, 4), ("pragmatic", 3, 1), ("pragmatic", 9, 3)]
SEED_ROWS = [(h, seed, base + d) for h, base in (("Always longest", 41.2), ("Random", 24.8))
             for seed, d in ((1, 0.0), (2, 1.5), (3, -0.9))]
CATEGORY_ROWS = [("Experience", "blind", 40.0, 34.0, 46.0), ("Experience", "sighted", 55.5, 50.1, 61.0),
                 ("Slang", "blind", 31.0, 25.0, 37.0), ("Slang", "sighted", 48.0, None, None),
                 (EVIL_SCRIPT, EVIL_ATTR, 44.0, 40.0, 48.0)]
ERROR_ROWS = [("literal", 100, "blind"), ("cultural", 50, "blind"), ("pragmatic", 33, "blind"),
              ("unparsed", 3, "blind"), ("literal", 60, "sighted"), (EVIL_SCRIPT, 2, EVIL_ATTR)]
SCATTER_ROWS = [("run-a", 45.1, 61.3, 41.0, 49.2, 57.0, 65.1), ("run-b", 38.0, 40.2, 34.1, 42.0, 36.3, 44.0),
                (EVIL_SCRIPT, 52.5, 70.1, 48.0, 56.9, None, None)]

# builder, rows, strings that must appear as SVG text (axis titles, categories, legends)
CASES = {
    "option_length": (option_length_chart, LENGTH_ROWS,
                      ["Option length (characters)", "Options", "gold", "literal", "cultural", "pragmatic"]),
    "heuristic_seed": (heuristic_seed_chart, SEED_ROWS, ["Macro-F1", "Always longest", "Random"]),
    "category_score": (category_score_chart, CATEGORY_ROWS,
                       ["Score", "Experience", "Slang", "blind", "sighted", "Series", EVIL_SCRIPT]),
    "blind_error": (blind_error_chart, ERROR_ROWS,
                    ["Wrong answers", "Chosen option", "literal", "unparsed", "blind", "sighted", "100", EVIL_SCRIPT]),
    "scatter": (sighted_blind_scatter, SCATTER_ROWS, ["Blind score", "Sighted score", "run-a", "run-b", EVIL_SCRIPT]),
    # Builds no longer validate (site/charts.py: finish_chart), so every builder is here.
    "category_score_zero": (functools.partial(category_score_chart, zero=True), CATEGORY_ROWS,
                            ["Score", "Experience", "Slang", "0"]),
    "measured_reported": (cibuzzbench_charts.measured_reported_chart,
                          [("Sighted", 61.5, "measured here"), ("Blind", 44.0, "reported"), (EVIL_SCRIPT, 30.0, EVIL_ATTR)],
                          ["Macro F1", "Sighted", "Blind", "measured here", "reported", EVIL_SCRIPT]),
    "scale": (scale_chart, [("A", "m2", 8, 0.5), ("A", "m1", 0.5, 0.25), ("B", "m1", 0.5, 0.75)],
              ["Parameters (billions, log scale)", "Score", "Task", "A", "B"]),
}


@functools.cache
def build(name: str) -> Chart:
    builder, rows, _ = CASES[name]
    return builder(rows)


@pytest.fixture(params=sorted(CASES))
def case(request) -> tuple[str, Chart]:
    return request.param, build(request.param)


def svg_tree(svg: str) -> ET.Element:
    """Parse the inline SVG (no namespace declarations) as XML: it must be well-formed."""
    return ET.fromstring(svg)


def svg_texts(svg: str) -> list[str]:
    return ["".join(el.itertext()) for el in svg_tree(svg).iter("text")]


def walk(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, (*path, i))


# ------------------------------------------------------------------------------- the specs

def test_spec_is_valid_vega_lite_with_inline_data(case):
    name, chart = case
    spec = chart.spec
    validate_jsonschema(spec, load_schema())  # Altair's bundled Vega-Lite schema: nothing fetched
    assert vl_convert.vegalite_to_vega(spec, vl_version=VL_VERSION)["marks"]  # and it compiles
    assert "$schema" not in spec and "datasets" not in spec
    data = [v for p, v in walk(spec) if p and p[-1] == "data"]
    assert data, name
    for d in data:
        assert set(d) == {"values"} and isinstance(d["values"], list) and d["values"], (name, d)
    assert spec["description"] == chart.description
    assert spec["config"]["background"] == "transparent"


def test_no_remote_url_anywhere(case):
    name, chart = case
    assert not URL.search(chart.spec_json), name
    assert not URL.search(chart.svg), name
    assert not URL.search(chart.html()), name
    assert not [p for p, v in walk(chart.spec) if p and p[-1] in ("url", "$schema")]


def test_spec_json_is_canonical_and_round_trips(case):
    """The page's spec is the chart's, laid out at the column's width (live_spec)."""
    _, chart = case
    text = chart.spec_json
    assert json.loads(text) == live_spec(chart.spec)
    assert text == json.dumps(live_spec(chart.spec), sort_keys=True, separators=(",", ":"), ensure_ascii=False
                              ).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def test_fixed_width_fits_the_text_column(case):
    name, chart = case
    root = svg_tree(chart.svg)
    assert int(root.get("width")) <= 975, name  # 60rem at 17px, less the page padding
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"


# ------------------------------------------------------------------------------ the SVGs

def test_svg_is_deterministic(case):
    name, chart = case
    builder, rows, _ = CASES[name]
    again = builder(list(rows))
    assert again == chart
    assert again.svg == chart.svg and again.spec_json == chart.spec_json
    assert render_svg(chart.spec, title=chart.title, description=chart.description, id_prefix=chart.id) == chart.svg


def test_svg_is_accessible_and_has_expected_text(case):
    name, chart = case
    root = svg_tree(chart.svg)
    assert root.tag == "svg" and root.get("role") == "img"
    title = root.find("title")
    assert title is not None and title.text == chart.title and root[0] is title
    assert root.get("aria-labelledby").split() == [f"{chart.id}-title", f"{chart.id}-desc"]
    assert root.find("desc").text == chart.description
    texts = svg_texts(chart.svg)
    for expected in CASES[name][2]:
        assert expected in texts, (name, expected)


def test_svg_draws_the_marks():
    def marks(chart: Chart, cls: str) -> int:
        return sum(1 for g in svg_tree(chart.svg).iter("g") if cls in (g.get("class") or "").split())

    assert marks(build("option_length"), "mark-rect") == 4  # one bar group per slot panel
    lengths = svg_tree(build("option_length").svg)
    bars = [p for g in lengths.iter("g") if "mark-rect" in (g.get("class") or "") for p in g.iter("path")]
    assert len(bars) == len(LENGTH_ROWS)
    assert marks(build("heuristic_seed"), "mark-symbol") == 1 and marks(build("heuristic_seed"), "mark-rect") == 1
    assert marks(build("category_score"), "mark-rule") >= 1 and marks(build("category_score"), "mark-symbol") >= 1
    assert marks(build("blind_error"), "mark-rect") == 1 and marks(build("blind_error"), "mark-text") >= 1
    assert marks(build("scatter"), "mark-rule") >= 3  # diagonal and both interval directions


def test_colours_are_theme_neutral(case):
    """No hard-coded black or white: text and guides take the page's colour (currentColor)."""
    name, chart = case
    assert 'fill="#000"' not in chart.svg and 'fill="white"' not in chart.svg and 'stroke="#888"' not in chart.svg
    assert 'fill="currentColor"' in chart.svg, name


def test_labels_are_escaped_in_svg_and_spec():
    for name in ("category_score", "blind_error", "scatter"):
        chart = build(name)
        assert "<script" not in chart.svg.lower(), name
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in chart.svg, name
        root = svg_tree(chart.svg)
        for el in root.iter():
            assert el.tag != "script"
            assert not [a for a in el.attrib if a.lower().startswith("on")], (name, el.attrib)
        # the spec JSON cannot close its <script> element or open a comment
        text = chart.spec_json
        assert "<" not in text and ">" not in text and "&" not in text
        markup = chart.html()
        assert markup.lower().count("<script") == 1 and markup.lower().count("</script") == 1
        assert f'<div class="chart" id="{chart.id}">' in markup
        assert f'data-target="{chart.id}"' in markup
    assert EVIL_ATTR in svg_texts(build("category_score").svg)


def test_jinja_template_writes_spec_and_svg_unchanged():
    """As content/templates/chart.html does it, with autoescape on: the JSON must reach the
    page byte for byte (a <script> element's text is not entity-decoded) and parse back."""
    from jinja2 import Environment

    chart = build("category_score")  # has <script> and "onerror= labels
    template = Environment(autoescape=True).from_string(
        '<div id="t">{{ c.svg|safe }}</div><script type="application/json" class="vl-spec" '
        'data-target="t">{{ c.spec_json }}</script>')
    page = template.render(c=chart)
    body = page.split('data-target="t">', 1)[1].removesuffix("</script>")
    assert body == str(chart.spec_json) and json.loads(body) == live_spec(chart.spec)
    assert page.lower().count("<script") == 1
    assert str(Environment(autoescape=True).from_string("{{ c.html() }}").render(c=chart)) == str(chart.html())


def test_script_json_escapes_for_html():
    text = script_json({"a": "</script><!-- & \u2028", "b": [1.5, None]})
    assert text == '{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028","b":[1.5,null]}'
    assert json.loads(text) == {"a": "</script><!-- & \u2028", "b": [1.5, None]}
    with pytest.raises(ValueError):
        script_json({"a": float("nan")})


def test_script_json_narrow_form_escapes_only_what_can_end_the_element():
    """The run pages' form: "<" and the line separators only, so "Q&A" keeps its bytes."""
    text = script_json({"a": "</script><!-- Q&A \u2029", "n": float("nan")}, strict=False)
    assert text == '{"a":"\\u003c/script>\\u003c!-- Q&A \\u2029","n":NaN}'
    assert "</" not in text and "<!" not in text


def test_clip_ids_are_renumbered_per_chart_not_per_process():
    """Vega's clip-path counter runs for the whole process; the SVG must not depend on it."""
    spec = {"data": {"values": [{"a": 1, "b": 2}, {"a": 3, "b": 5}]}, "mark": {"type": "line", "clip": True},
            "encoding": {"x": {"field": "a", "type": "quantitative", "scale": {"domain": [0, 2]}},
                         "y": {"field": "b", "type": "quantitative"}}}
    raw = [vl_convert.vegalite_to_svg(spec, vl_version=VL_VERSION) for _ in range(2)]
    assert raw[0] != raw[1]  # what the renumbering is for (if vl-convert fixes it, fine too)
    first, second = (render_svg(spec, title="t", id_prefix="line") for _ in range(2))
    assert first == second
    assert re.findall(r'id="([^"]+)"', first) == ["line-title", "line-clip1"]
    assert 'clip-path="url(#line-clip1)"' in first
    other = render_svg(spec, title="t", id_prefix="other")
    assert "other-clip1" in other and "line-" not in other


def test_render_svg_refuses_external_data():
    with pytest.raises(Exception, match="not allowed"):
        render_svg({"data": {"url": "https://example.invalid/x.csv"}, "mark": "point"}, title="t")


def test_render_svg_standalone_keeps_namespaces():
    spec = build("heuristic_seed").spec
    standalone = render_svg(spec, title="t", standalone=True)
    assert 'xmlns="http://www.w3.org/2000/svg"' in standalone
    assert "xmlns" not in render_svg(spec, title="t")


def test_svg_rendering_timing_is_reasonable():
    import time

    spec = build("option_length").spec
    start = time.perf_counter()
    render_svg(spec, title="t")
    assert time.perf_counter() - start < 10  # about 0.1-0.3 s here; a guard, not a benchmark


# --------------------------------------------------------------------------- the builders

def test_option_lengths_stay_compact():
    """The spec carries one value per (slot, length), never one per option."""
    rows = [(slot, n, 1000 + n) for slot in ("gold", "literal", "cultural", "pragmatic") for n in range(3, 93)]
    chart = option_length_chart(rows)
    (values,) = [v["values"] for p, v in walk(chart.spec) if p and p[-1] == "data"]
    assert len(values) == len(rows)
    assert len(chart.spec_json) < 20_000
    assert len(chart.html()) < 80_000  # a page holds several charts and stays under 300 KB


def test_option_length_table_and_order():
    chart = build("option_length")
    assert chart.columns == ("Length (characters)", "gold", "literal", "cultural", "pragmatic")
    assert chart.rows == ((3, 0, 0, 0, 1), (4, 0, 2, 0, 0), (5, 3, 2, 0, 0), (6, 0, 0, 4, 0),
                          (7, 1, 0, 0, 0), (9, 0, 0, 0, 3))
    (values,) = [v["values"] for p, v in walk(chart.spec) if p and p[-1] == "data"]
    assert [v["slot"] for v in values] == ["gold"] * 2 + ["literal"] * 2 + ["cultural"] + ["pragmatic"] * 2
    shuffled = option_length_chart(list(reversed(LENGTH_ROWS)))
    assert shuffled.svg == chart.svg and shuffled.spec == chart.spec


def test_option_length_rejects_repeated_or_bad_rows():
    with pytest.raises(ValueError, match="repeat"):
        option_length_chart([("gold", 5, 1), ("gold", 5, 2)])
    with pytest.raises(ValueError, match="negative"):
        option_length_chart([("gold", 5, -1)])
    with pytest.raises(ValueError, match="integer"):
        option_length_chart([("gold", 5.0, 1)])
    assert option_length_chart([("go.ld [x]", 5, 1)]).columns[1] == "go.ld [x]"  # a value, not a field name
    with pytest.raises(ValueError, match="at least one"):
        option_length_chart([])


def test_heuristic_mean_comes_from_the_facts_when_given():
    chart = heuristic_seed_chart(SEED_ROWS, means={"Always longest": 41.4, "Random": 25.0})
    spec = chart.spec_json
    assert '"m":41.4' in spec and '"m":25.0' in spec and "mean" not in json.dumps(chart.spec["layer"])
    # without facts, Vega-Lite's own mean marks it at draw time; Python computes nothing
    assert any(v == "mean" for p, v in walk(build("heuristic_seed").spec) if p and p[-1] == "aggregate")
    with pytest.raises(ValueError, match="no rows"):
        heuristic_seed_chart(SEED_ROWS, means={"Unknown": 1.0})


def test_scatter_has_equal_axes_and_the_diagonal():
    chart = build("scatter")
    layers = chart.spec["layer"]
    diagonal = layers[0]["encoding"]
    assert diagonal["x"]["datum"] == diagonal["y"]["datum"] and diagonal["x2"]["datum"] == diagonal["y2"]["datum"]
    points = layers[3]["encoding"]
    assert points["x"]["scale"]["domain"] == points["y"]["scale"]["domain"] == [diagonal["x"]["datum"],
                                                                                  diagonal["x2"]["datum"]]
    lo, hi = points["x"]["scale"]["domain"]
    assert lo <= 34.1 and hi >= 70.1 and 0 <= lo and hi <= 100
    assert chart.rows[2] == (EVIL_SCRIPT, 52.5, 48.0, 56.9, 70.1, None, None)


def test_category_series_differ_in_colour_and_shape():
    points = build("category_score").spec["layer"][1]["encoding"]
    assert points["color"]["field"] == points["shape"]["field"] == points["yOffset"]["field"] == "s"
    colours, shapes = points["color"]["scale"]["range"], points["shape"]["scale"]["range"]
    assert len(set(colours)) == len(set(shapes)) == 3


def test_missing_interval_and_nan_become_null():
    chart = category_score_chart([("A", "s", float("nan"), None, 2.0), ("A", "t", 1.0, 0.5, 1.5)])
    assert chart.rows[0] == ("A", "s", None, None, 2.0)
    assert "NaN" not in chart.spec_json


@pytest.mark.parametrize("rows, message", [
    ([("A", "s", 1.0, 0.5)], "5 fields"),
    ([("A", "s", float("inf"), None, None)], "finite"),
    ([("A", "s", "high", None, None)], "number"),
    ([("", "s", 1.0, None, None)], "non-empty"),
    ([(3, "s", 1.0, None, None)], "non-empty string"),
])
def test_category_rows_are_validated(rows, message):
    with pytest.raises(ValueError, match=message):
        category_score_chart(rows)


@pytest.mark.parametrize("builder, rows", [
    (heuristic_seed_chart, [("H", 1, 0.5), ("H", 1, 0.6)]),
    (category_score_chart, [("A", "s", 1.0, None, None), ("A", "s", 2.0, None, None)]),
    (blind_error_chart, [("literal", 1, "blind"), ("literal", 2, "blind")]),
    (sighted_blind_scatter, [("r", 1.0, 2.0, None, None, None, None)] * 2),
])
def test_repeated_keys_are_refused_not_summed(builder, rows):
    with pytest.raises(ValueError, match="repeat"):
        builder(rows)


def test_chart_id_must_be_a_plain_html_id():
    with pytest.raises(ValueError, match="chart id"):
        blind_error_chart(ERROR_ROWS, id='x" onclick="y')
    assert blind_error_chart(ERROR_ROWS[:1], id="errors-run-2").id == "errors-run-2"


def test_palette_reads_on_light_and_dark_backgrounds():
    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    def contrast(a: str, b: str) -> float:
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    for colour in (*charts.PALETTE, *cibuzzbench_charts.SLOT_COLOURS.values()):
        assert contrast(colour, "#fdfdfc") >= 3 and contrast(colour, "#151617") >= 3, colour


# ----------------------------------------------------------------------------- the bundle

# Every absolute URL string in the bundle, and why none of them is requested at run time.
BUNDLE_URLS = {
    "http://www.w3.org/2000/svg": "SVG namespace name for createElementNS; never requested",
    "http://www.w3.org/1999/xlink": "XLink namespace name; never requested",
    "http://www.w3.org/2000/xmlns/": "XMLNS namespace name; never requested",
    "https://vega.github.io/schema/vega/v6.json": "$schema string written into the compiled Vega spec; "
                                                   "vega-embed only parses its version out of it",
    "https://vega.github.io/editor/": "'Open in Vega Editor' action default; only reachable with the "
                                      "actions menu, which the embed options turn off",
    "https://github.com/vega/vega-lite/issues/2415": "text of a Vega-Lite warning message",
}


@pytest.fixture(scope="module")
def bundle() -> str:
    return vega_bundle().decode("utf-8")


def test_bundle_is_cached_and_deterministic(bundle):
    info = vega_bundle.cache_info()
    assert vega_bundle() is vega_bundle()
    assert vega_bundle.cache_info().hits >= info.hits + 2 and vega_bundle.cache_info().misses == 1
    assert vega_bundle.__wrapped__() == vega_bundle()  # a fresh generation gives the same bytes


def test_bundle_version_names_its_inputs():
    version = bundle_version()
    assert vl_convert.__version__ in version and f"vega-lite {VL_VERSION}" in version
    assert VL_VERSION in vl_convert.get_vegalite_versions()
    assert alt.SCHEMA_VERSION.lstrip("v").startswith(VL_VERSION + ".")  # Altair writes the same major.minor
    assert vega_bundle().decode().startswith(f"/*! buzzprobe charts: {version}.")


def test_bundle_exposes_the_page_api(bundle):
    for name in ("window.buzzprobeEmbed=", "window.buzzprobeRenderAll=", "vl-spec", "data-target"):
        assert name in bundle, name
    # the embed options as written in the snippet survive minification
    for option in ('mode:"vega-lite"', "actions:false", "defaultStyle:false", "ast:true", 'renderer:"svg"'):
        assert option in bundle, option
    assert "null.loader" not in bundle and "null.Error" not in bundle  # vl-convert binds `vega` to null


def test_bundle_is_a_private_classic_script(bundle):
    assert not re.search(r"(?m)^\s*(import|export)\b", bundle)
    body = bundle.split("\n", 1)[1]
    assert body.startswith('(function () {\n"use strict";\n') and body.endswith("\n})();\n")
    node = shutil.which("node")
    if node:
        subprocess.run([node, "-e", "new (require('vm').Script)(require('fs').readFileSync(0, 'utf8'))"],
                       input=bundle, text=True, check=True, timeout=60)


def test_bundle_fetches_nothing(bundle):
    found = set(re.findall(r"https?://[^\s\"'`)\\]*", bundle))
    assert found <= set(BUNDLE_URLS), found - set(BUNDLE_URLS)
    # The only network primitive is Vega's default loader (fetch for data URLs), which the
    # snippet replaces with a loader that rejects every URL.
    assert len(re.findall(r"\bfetch\(", bundle)) == 1
    for api in ("XMLHttpRequest", "sendBeacon", "WebSocket", "EventSource", "importScripts", "import("):
        assert api not in bundle, api
    assert "load:refuse" in bundle and "sanitize:refuse" in bundle and "http:refuse" in bundle
    assert "cdn.jsdelivr" not in bundle and "unpkg" not in bundle


# ----------------------------------------------------------------- in a real browser, offline

PROBE_JS = r"""
(function () {
  var log = [];
  function note(kind, args) {
    log.push(kind + ": " + Array.prototype.map.call(args, String).join(" "));
    document.documentElement.setAttribute("data-probe", JSON.stringify(log));
  }
  ["log", "info", "warn", "error", "debug"].forEach(function (k) {
    var orig = console[k];
    console[k] = function () { note("console." + k, arguments); return orig.apply(console, arguments); };
  });
  var f = window.fetch;
  window.fetch = function (u) { note("fetch", [u]); return f.apply(this, arguments); };
  var o = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (m, u) { note("xhr", [u]); return o.apply(this, arguments); };
  document.addEventListener("securitypolicyviolation", function (e) {
    note("csp", [e.violatedDirective, e.blockedURI]);
  });
  window.addEventListener("error", function (e) { note("error", [e.message]); });
  document.documentElement.setAttribute("data-probe", "[]");
})();
"""


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.skipif(_chromium() is None, reason="no headless Chromium on this machine")
def test_charts_render_live_offline_under_a_strict_csp(tmp_path: Path):
    """Every chart goes live with no console output, no request but the page's own files, and
    no eval (script-src 'self' only); a broken spec keeps its static SVG."""
    figures = "\n".join(build(name).html() for name in sorted(CASES))
    broken = ('<div class="chart" id="broken"><svg><title>static</title></svg></div>'
              '<script type="application/json" class="vl-spec" data-target="broken">{"mark":"nope"}</script>')
    csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'"
    (tmp_path / "index.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}"><title>t</title>'
        f'<script src="probe.js"></script></head><body>{figures}\n{broken}'
        f'<script src="charts.js" defer></script><script src="go.js" defer></script></body></html>',
        encoding="utf-8")
    (tmp_path / "probe.js").write_text(PROBE_JS, encoding="utf-8")
    # The bundle draws nothing by itself: the site's chart-loader.js asks it to, on a reader's interaction.
    (tmp_path / "go.js").write_text("window.buzzprobeRenderAll();\n", encoding="utf-8")
    (tmp_path / "charts.js").write_bytes(vega_bundle())

    requested: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            requested.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        result = subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--virtual-time-budget=15000", "--dump-dom", url],
            capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
        thread.join()
    dom = result.stdout
    assert "data-probe" in dom, result.stderr[-2000:]
    probe = json.loads(html.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    expected = "console.error: buzzprobe: chart #broken kept its static image"
    assert len(probe) == 1 and probe[0].startswith(expected), probe  # nothing else: no CSP hit, no fetch
    for name in CASES:
        chart = build(name)
        assert re.search(rf'<div class="chart" id="{chart.id}" data-chart="live">', dom), name
    assert '<div class="chart" id="broken" data-chart="static"><svg><title>static</title></svg></div>' in dom
    assert sorted(set(requested)) == ["/charts.js", "/go.js", "/index.html", "/probe.js"]


def test_a_remembered_chart_is_the_chart_built_afresh(tmp_path: Path) -> None:
    """With a cache folder a chart is kept and read back whole; bad rows still raise."""
    renderer = charts.SvgRenderer(tmp_path)
    fresh = charts.category_score_chart(CATEGORY_ROWS, renderer=charts.SvgRenderer(None))
    first = charts.category_score_chart(iter(CATEGORY_ROWS), renderer=renderer)
    assert list(tmp_path.glob("chart-*.pickle"))
    again = charts.category_score_chart(CATEGORY_ROWS, renderer=renderer)
    assert fresh == first == again and again.svg == fresh.svg and again.spec == fresh.spec
    assert charts.category_score_chart(CATEGORY_ROWS, renderer=renderer, zero=True).spec != fresh.spec
    with pytest.raises(ValueError):
        charts.category_score_chart([("a", "b", 1.0, 2.0)], renderer=renderer)
