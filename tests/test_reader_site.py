"""The site as a reader meets it (issue 32): charts and tables that fit a phone, a menu that
folds, sortable tables, a search box, reuse (licence, citation, downloads, preview tags) and
light pages (the Vega bundle only on demand; a throttled load under 3 s).

A small synthetic site is built once (probe runs and one model's sighted/blind pair, so it has
charts, wide tables and run pages) and read as files and in headless Chromium, served under a
GitHub Pages-style sub-path (tests/browser_support.py). Browser tests skip without playwright
or Chromium, and fail under CI.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

import pytest

from builder.core.errors import InputError
from builder.site.charts import live_spec
from builder.site.environment import make_environment
from builder.site.labels import LABELS, column_label
from builder.site.tables import Cell, Table
from builder.claims.engine import Evidence
from builder.site.configuration import load_site_config
from builder.site.reuse import repository_url
from builder.site.search_index import search_index
from builder.site.structured import sitemap
from builder.site.svg_file import standalone_svg
from builder.stats.solvable_split import STRATA_COLUMNS, TABLE_COLUMNS
from tests.browser_support import (
    CONTENT,
    REPO,
    SITE_URL,
    SubPathServer,
    build_site,
    launch_chromium,
    make_inputs,
    model_header,
    model_items,
    new_context,
    open_page,
    spec_for,
    write_model_run,
)
from tests.synthetic import synthetic_rows

ROWS, TEST_ROWS, SEED = 120, 24, 1111
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
MODEL = "toy-reader-model"
SIGHTED, BLIND = "toy-reader-sighted-t2-s1111-all", "toy-reader-blind-t2-s1111-all"
LOCAL_ENDPOINT = "http://127.0.0.1:18080/v1"
# Pages a reader lands on: the front page, the ones with charts and the widest tables, a list
# and a run page (the run pages carry the item browser).
READER_PAGES = ("index.html", "dataset.html", "categories.html", "models.html", "runs.html",
                "benchmarks.html", f"runs/{SIGHTED}.html")
THROTTLE = 4  # CPU slowdown (Chrome DevTools' "4x slowdown", a mid-range phone)
LOAD_BUDGET_MS = 3000


# --- the site ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reader-site")
    spec = spec_for(ROWS, TEST_ROWS)
    csv_path, runs, dataset = make_inputs(root, synthetic_rows(n=ROWS, test=TEST_ROWS, seed=5), spec,
                                          lambda stem: f"-s{SEED}-" in stem or "-t3-" in stem)
    for run_id, condition, accuracy in ((SIGHTED, "sighted", 0.8), (BLIND, "blind", 0.45)):
        items = model_items(dataset, SEED, accuracy, 7 if condition == "sighted" else 8)
        header = model_header(dataset, run_id, MODEL, condition, SEED, len(items))
        # served by a local server, as the committed local-model runs are
        header = dc_replace(header, subject={**header.subject, "runtime": {"endpoint": LOCAL_ENDPOINT, "threads": 1}})
        write_model_run(runs, header, items)
    return build_site(csv_path, runs, spec, root / "site", charts=True)


def read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def pages_of(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


# --- reuse: licence, citation, downloads, preview tags, sitemap ----------------------------


def test_licence_is_stated_in_the_repository_and_on_every_page(site):
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Permission is hereby granted" in licence
    assert "CC BY 4.0" in licence and "creativecommons.org/licenses/by/4.0" in licence
    stated = load_site_config(CONTENT)["licence"]
    assert "MIT" in stated and "CC BY 4.0" in stated
    for name in pages_of(site):
        page = read(site, name)
        assert "not stated in content/site.yaml" not in page, name
        assert f"Licence: {stated}" in page.replace("&#39;", "'"), name


def test_every_page_has_preview_tags(site):
    for name in pages_of(site):
        page = read(site, name)
        title = re.search(r"<title>(.*?) · ", page).group(1)
        for tag in ("og:title", "og:description", "og:type", "og:site_name"):
            assert f'<meta property="{tag}" content="' in page, (name, tag)
        assert f'<meta property="og:title" content="{title}">' in page, name
        assert '<meta name="twitter:card" content="summary">' in page, name
        assert f'<meta name="twitter:title" content="{title}">' in page, name
        if name != "404.html":  # the address is known in this build: one canonical address per page
            assert f'<link rel="canonical" href="{SITE_URL}{name}">' in page, name
            assert f'<meta property="og:url" content="{SITE_URL}{name}">' in page, name


def test_every_chart_is_downloadable_as_svg_and_csv(site):
    charts = 0
    for name in pages_of(site):
        page = read(site, name)
        for chart_id in re.findall(r'<figure class="chart" id="chart-([^"]+)">', page):
            charts += 1
            prefix = "../" if "/" in name else ""
            assert f'href="{prefix}tables/chart-{chart_id}.svg" download>SVG</a>' in page, (name, chart_id)
            assert f'href="{prefix}tables/chart-{chart_id}.csv">CSV</a>' in page, (name, chart_id)
            assert f'href="{prefix}tables/chart-{chart_id}.png" download>PNG</a>' in page, (name, chart_id)
            assert (site / "tables" / f"chart-{chart_id}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
            svg = (site / "tables" / f"chart-{chart_id}.svg").read_bytes()
            root = ET.fromstring(svg)  # a well-formed file of its own, in the SVG namespace
            assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
            assert root.find("{http://www.w3.org/2000/svg}title").text
    assert charts >= 2


def test_standalone_svg_adds_the_namespaces_an_inline_svg_lacks():
    inline = '<svg class="marks" width="10" height="5" viewBox="0 0 10 5"><use xlink:href="#a"/></svg>'
    out = standalone_svg(inline).decode()
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
                          'xmlns:xlink="http://www.w3.org/1999/xlink" class="marks"')
    ET.fromstring(out.encode())
    with pytest.raises(ValueError):
        standalone_svg("<div></div>")


def test_live_charts_are_laid_out_at_their_column_width():
    assert live_spec({"width": 576, "mark": "bar"}) == {
        "width": "container", "mark": "bar", "autosize": {"type": "fit-x", "contains": "padding"},
        "usermeta": {"drawnWidth": 576}}
    concat = {"hconcat": [{"width": 200, "mark": "bar"}]}
    assert live_spec(concat) == concat  # a concatenation keeps its drawn widths


def test_pages_embed_the_container_width_spec(site):
    specs = re.findall(r'<script type="application/json" class="vl-spec"[^>]*>(.*?)</script>', read(site, "dataset.html"))
    assert specs
    for text in specs:
        spec = json.loads(text)
        assert spec.get("width") == "container" or "width" not in spec, spec.get("width")


def test_repository_comes_from_site_yaml_or_the_pages_workflow():
    env = {"GITHUB_REPOSITORY": "owner/buzz.probe", "GITHUB_SERVER_URL": "https://github.com"}
    assert repository_url("", env) == "https://github.com/owner/buzz.probe"
    assert repository_url("https://example.org/code", env) == "https://example.org/code"  # site.yaml wins
    assert repository_url("", {}) == ""
    assert repository_url("", {"GITHUB_REPOSITORY": "o/n"}) == "https://github.com/o/n"
    with pytest.raises(InputError) as bad:
        repository_url("", {"GITHUB_REPOSITORY": "no slug here"})
    assert "GITHUB_REPOSITORY" in str(bad.value) and "owner/name" in str(bad.value)
    with pytest.raises(InputError) as bad:
        repository_url("", {"GITHUB_REPOSITORY": "o/n", "GITHUB_SERVER_URL": "javascript:alert(1)"})
    assert "GITHUB_SERVER_URL" in str(bad.value)


def test_the_pages_workflow_repository_reaches_the_footer_and_the_citation(tmp_path, monkeypatch):
    (tmp_path / "site.yaml").write_text((CONTENT / "site.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/buzzprobe")
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    assert load_site_config(tmp_path)["repository"] == "https://github.com/someone/buzzprobe"
    monkeypatch.delenv("GITHUB_REPOSITORY")
    assert load_site_config(tmp_path)["repository"] == ""


def test_citation_carries_the_address(site):
    page = read(site, "index.html")
    bibtex = re.search(r'<pre class="bibtex">(.*?)</pre>', page, re.S).group(1)
    assert f"url          = {{{SITE_URL}}}" in bibtex
    assert '<a href="CITATION.cff">CITATION.cff</a>' in page
    cff = read(site, "CITATION.cff")
    assert f'url: "{SITE_URL}"' in cff and "cff-version: 1.2.0" in cff and "CC BY 4.0" in cff
    import yaml
    assert yaml.safe_load(cff)["url"] == SITE_URL


def test_sitemap_is_absolute_when_the_address_is_known_and_says_so_when_not(site):
    text = read(site, "sitemap.xml")
    locs = re.findall(r"<loc>(.*?)</loc>", text)
    assert locs and all(loc.startswith(SITE_URL) for loc in locs)
    assert "Relative locations" not in text
    relative = sitemap(["index"], "").decode()
    assert "<loc>index.html</loc>" in relative and "Relative locations" in relative
    ET.fromstring(relative.encode())


def test_search_index_does_not_depend_on_the_order_files_come_in():
    """Same inputs, same bytes: the index is sorted, whatever order the renderer built files in."""
    files = {"b.html": b"<title>B \xc2\xb7 buzzprobe</title>", "a.html": b"<title>A \xc2\xb7 buzzprobe</title>"}
    assert search_index(files, "buzzprobe") == search_index(dict(reversed(list(files.items()))), "buzzprobe")


# --- readable labels ---------------------------------------------------------------------

_SCRIPTS = re.compile(r"<(script|style|pre)\b.*?</\1>", re.S)
_CODE = re.compile(r"<code\b.*?</code>", re.S)
_ATTRS = re.compile(r"<[^>]+>")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
_FACT_KEY = re.compile(r"\b[a-z0-9_-]+(?:\.[a-z0-9_-]+){2,}\b")
_LOCAL = re.compile(r"https?://(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])", re.I)


def _visible_text(page: str) -> str:
    """What a reader reads: no scripts, styles or raw <pre> blocks (a run's full header as JSON),
    no <code> (file names, hashes), no attributes."""
    return html_lib.unescape(_ATTRS.sub(" ", _CODE.sub(" ", _SCRIPTS.sub(" ", page))))


GENERIC_TITLES = {"Score", "Series", "Value", "Category"}  # a chart's axis or legend that says nothing


def test_pages_show_no_fact_keys_snake_case_headers_or_local_endpoints(site):
    """Crawl every page of the built site (issue 32 item 4): headers, chart axis and legend
    titles (a label from the table, not "Score" or "Series") and a run id heading a column."""
    problems, headers = [], 0
    run_ids = [p.stem for p in (site / "runs").glob("*.html")]
    for name in pages_of(site):
        page = read(site, name)
        for th in re.findall(r"<th\b[^>]*>(.*?)</th>", _SCRIPTS.sub(" ", page), re.S):
            headers += 1
            text = _visible_text(th).strip()
            if _SNAKE.search(text):
                problems.append(f"{name}: snake_case header {text!r}")
            if any(text == rid or text.startswith(rid + " ") for rid in run_ids):
                problems.append(f"{name}: a run id as a header {text!r} (the model's name reads)")
        for title in re.findall(r'class="mark-text role-(?:axis|legend)-title".*?>([^<]*)</text>', page):
            if title.strip() in GENERIC_TITLES:
                problems.append(f"{name}: a chart titled only {title.strip()!r}")
        text = _visible_text(page)
        problems += [f"{name}: fact key {k!r}" for k in _FACT_KEY.findall(text) if "__vs__" in k or k.startswith("pair.")]
        problems += [f"{name}: local endpoint {m!r}" for m in _LOCAL.findall(text)]
    assert headers > 100
    assert not problems, "\n".join(problems[:20])
    run_page = read(site, f"runs/{SIGHTED}.html")
    assert "endpoint: a local server on the machine that ran the probe" in run_page
    assert LOCAL_ENDPOINT in run_page  # still in the run's full header (the raw JSON, for provenance)


def test_column_labels_come_from_the_label_table():
    assert column_label("accuracy_rest") == "Accuracy, the rest"
    assert column_label("gap_adjusted_low") == "Adjusted gap 95% low"
    assert column_label("macro_f1") == "Macro F1"
    assert column_label("gold_share") == "Gold share"  # not in the table: words
    assert column_label("gemini-1_5-pro-002 accuracy") == "gemini-1_5-pro-002 accuracy"  # a run id stays
    assert column_label("Strict accuracy") == "Strict accuracy"
    for name in TABLE_COLUMNS + STRATA_COLUMNS:
        assert name in LABELS, name


def test_split_table_headers_and_tracker_pairs_read_as_words():
    """The real site's split tables and the tracker's paired gaps (the synthetic site has neither)."""
    env = make_environment(CONTENT / "templates")
    context = {"root": "", "provenance": {}, "run_ids": frozenset({"b-run", "s-run"}), "prediction_verdicts": [],
               "build_date": "2026-01-01", "complete_run_count": 2, "run_count": 2}
    table = Table("t", "caption", TABLE_COLUMNS, ((tuple(Cell("x") for _ in TABLE_COLUMNS)),))
    rendered = str(env.get_template("table.html").make_module(context).render(table))
    headers = re.findall(r"<th\b[^>]*>(.*?)</th>", rendered)
    assert headers == [LABELS[c] for c in TABLE_COLUMNS] and not any(_SNAKE.search(h) for h in headers)
    tracker = env.get_template("blocks/tracker.html").make_module(context)
    evidence = [Evidence("toy", 48.7, "pair.b-run__vs__s-run.gap.macro_f1"), Evidence("toy", 1.0, "s-run")]
    items = str(tracker.evidence_items(evidence))
    assert "__vs__" not in items and "pair." not in items
    assert 'blind run <a href="runs/b-run.html">b-run</a> against sighted run <a href="runs/s-run.html">s-run</a>' in items
    assert '— <a href="runs/s-run.html">s-run</a>' in items


# --- the search index --------------------------------------------------------------------


def _index(site: Path) -> list[list[str]]:
    text = read(site, "assets/search-index.js")
    prefix = "window.buzzprobeSearchIndex = "
    assert text.startswith(prefix) and text.endswith(";\n")
    return json.loads(text[len(prefix):-2])["entries"]


def test_search_index_lists_pages_benchmarks_runs_and_models(site):
    entries = _index(site)
    by_path = {(kind, path): title for kind, title, path, _ in entries}
    for name in pages_of(site):
        if name == "404.html":
            continue
        kind = "run" if name.startswith("runs/") else "benchmark" if name.startswith("benchmarks") else "page"
        assert (kind, name) in by_path, name
    assert by_path[("run", f"runs/{SIGHTED}.html")] == f"Run {SIGHTED}"
    assert ("model", "models.html") in by_path  # the model is linked where the models are listed
    assert any(kind == "model" and title == MODEL for kind, title, _, _ in entries)
    assert not any(path == "404.html" for _, _, path, _ in entries)


# --- in the browser ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def server(site):
    with SubPathServer(site) as running:
        yield running


OVERFLOW = """() => {
  const de = document.documentElement, vw = de.clientWidth, wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('.scroll, pre')) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1) wide.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right));
  }
  const charts = Array.from(document.querySelectorAll('figure.chart .chart-body svg')).filter(svg =>
    !svg.closest('.chart-pending')).map(svg => {
    const r = svg.getBoundingClientRect(), col = svg.closest('figure').getBoundingClientRect();
    const body = svg.closest('.chart-body');
    return {id: svg.closest('figure').id, left: r.left, right: r.right, colLeft: col.left, colRight: col.right,
            width: r.width, height: r.height, bodyScrolls: body.scrollWidth > body.clientWidth + 1,
            live: body.getAttribute('data-chart') === 'live'};
  });
  const tables = Array.from(document.querySelectorAll('main table')).map(t => {
    const wrap = t.closest('.scroll'), cell = t.querySelector('tbody td');
    return {wrapped: !!wrap, scrolls: wrap ? wrap.scrollWidth > wrap.clientWidth + 1 : false,
            overflowX: wrap ? getComputedStyle(wrap).overflowX : '', cue: wrap ? wrap.hasAttribute('data-scroll') : false,
            cueShown: !!(wrap && wrap.previousElementSibling && wrap.previousElementSibling.classList.contains('scroll-cue')),
            sticky: cell ? getComputedStyle(cell).position : 'sticky'};
  });
  return {scrollWidth: de.scrollWidth, clientWidth: vw, wide: wide.slice(0, 6), charts, tables};
}"""


def _layout_problems(name: str, layout: dict[str, Any]) -> list[str]:
    problems = []
    if layout["scrollWidth"] > layout["clientWidth"] + 1:
        problems.append(f"{name}: the page scrolls sideways ({layout['scrollWidth']} px): {layout['wide']}")
    for c in layout["charts"]:
        if c["right"] > c["colRight"] + 1 or c["left"] < c["colLeft"] - 1 or c["bodyScrolls"]:
            problems.append(f"{name}: chart {c['id']} is clipped or scrolls: {c}")
        if c["width"] < 100 or c["height"] < 50:
            problems.append(f"{name}: chart {c['id']} has collapsed: {c}")
    for t in layout["tables"]:
        if not t["wrapped"] or t["overflowX"] not in ("auto", "scroll"):
            problems.append(f"{name}: a table outside a scrolling wrapper: {t}")
        elif t["scrolls"] and not (t["cue"] and t["cueShown"] and t["sticky"] == "sticky"):
            problems.append(f"{name}: a wide table without its cue or sticky first column: {t}")
    return problems


def _wake_charts(page: Any) -> None:
    """Interact with every chart (as a reader pointing at it) and wait until each is live."""
    for body in page.locator("figure.chart .chart-body").all():
        body.scroll_into_view_if_needed()
        body.hover()
    page.wait_for_function("""() => Array.from(document.querySelectorAll('figure.chart .chart-body'))
        .every(b => b.getAttribute('data-chart') === 'live')""", timeout=30000)


def test_phone_no_sideways_scroll_and_charts_fit_their_column(browser, server):
    context = new_context(browser, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    problems, wide_tables, charts = [], 0, 0
    try:
        for name in READER_PAGES:
            with open_page(context, server.url(name), name) as (page, visit):
                layout = page.evaluate(OVERFLOW)
                problems += _layout_problems(name, layout)
                wide_tables += sum(t["scrolls"] for t in layout["tables"])
                charts += len(layout["charts"])
                if layout["charts"]:  # the live charts too, laid out at the column's width
                    _wake_charts(page)
                    live = page.evaluate(OVERFLOW)
                    assert all(c["live"] for c in live["charts"]), live["charts"]
                    problems += [f"(live) {p}" for p in _layout_problems(name, live)]
                problems += [f"{name}: request off 127.0.0.1: {u}" for u in visit.external]
                problems += [f"{name}: {e}" for e in visit.console_errors + visit.page_errors]
    finally:
        context.close()
    assert charts >= 2 and wide_tables >= 1, (charts, wide_tables)  # the checks had something to check
    assert not problems, "\n".join(problems)


def test_desktop_tables_that_are_cut_show_their_cue(browser, server):
    context = new_context(browser, viewport=DESKTOP)
    problems = []
    try:
        for name in READER_PAGES:
            with open_page(context, server.url(name), name) as (page, _):
                problems += _layout_problems(name, page.evaluate(OVERFLOW))
    finally:
        context.close()
    assert not problems, "\n".join(problems)


MENU = """() => {
  const inline = document.querySelector('header.site > nav'), menu = document.querySelector('header.site details.menu');
  const shown = el => !!el && getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().height > 0;
  return {inline: shown(inline), menu: shown(menu), open: menu.open,
          header: document.querySelector('header.site').getBoundingClientRect().height,
          links: Array.from(menu.querySelectorAll('nav a')).filter(a => a.checkVisibility()).length};
}"""


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_menu_folds_on_a_phone_and_opens_without_javascript(browser, server, site, js):
    nav_links = read(site, "index.html").split('<nav aria-label="Site">', 1)[1].split("</nav>", 1)[0].count("<a ")
    context = new_context(browser, js=js, viewport=PHONE)
    try:
        with open_page(context, server.url("index.html"), "index") as (page, _):
            folded = page.evaluate(MENU)
            assert not folded["inline"] and folded["menu"] and not folded["open"] and folded["links"] == 0
            assert folded["header"] < 110, folded  # was about 200 px of an 844 px screen
            page.click("header.site details.menu summary")
            opened = page.evaluate(MENU)
            assert opened["open"] and opened["links"] == nav_links
            page.set_viewport_size(DESKTOP)
            wide = page.evaluate(MENU)
            assert wide["inline"] and not wide["menu"]
    finally:
        context.close()


def _column(page: Any, table: str, column: int) -> list[str]:
    return page.eval_on_selector_all(f"{table} tbody tr", f"rs => rs.map(r => r.cells[{column}].textContent.trim())")


def _as_number(text: str) -> float:
    return float(re.match(r"[+-]?\d*\.?\d+", text.replace("\u2212", "-").replace(",", "")).group(0))


def test_tables_sort_by_the_clicked_column_numerically(browser, server):
    context = new_context(browser, viewport=DESKTOP)
    try:
        with open_page(context, server.url("dataset.html"), "dataset") as (page, _):
            # a table with a numeric column whose text order differs from its numeric order
            found = page.evaluate("""() => {
              const tables = Array.from(document.querySelectorAll('main table[data-sortable]'));
              for (let t = 0; t < tables.length; t++) {
                const heads = Array.from(tables[t].tHead.rows[0].cells);
                for (let c = 0; c < heads.length; c++) {
                  if (!heads[c].classList.contains('num')) continue;
                  const v = Array.from(tables[t].tBodies[0].rows).map(r => r.cells[c].textContent.trim());
                  const n = v.map(x => parseFloat(x.replace(/\\u2212/g, '-').replace(/,/g, '')));
                  if (n.some(isNaN) || new Set(n).size < 3) continue;
                  const byText = v.slice().sort(), byNum = v.slice().sort((a, b) =>
                    parseFloat(a.replace(/,/g, '')) - parseFloat(b.replace(/,/g, '')));
                  if (byText.join() !== byNum.join()) {
                    tables[t].setAttribute('data-under-test', '1');
                    return c;
                  }
                }
              }
              return -1;
            }""")
            assert found >= 0, "no table with a numeric column to sort"
            table = "table[data-under-test]"
            before = _column(page, table, found)
            first = _column(page, table, 0)
            rows = dict(zip(first, before)) if len(set(first)) == len(first) else None
            page.click(f"{table} thead th:nth-child({found + 1}) button")
            ascending = _column(page, table, found)
            assert [_as_number(x) for x in ascending] == sorted(_as_number(x) for x in before)
            assert page.get_attribute(f"{table} thead th:nth-child({found + 1})", "aria-sort") == "ascending"
            if rows:  # whole rows moved, not just the cells of one column
                assert all(rows[k] == v for k, v in zip(_column(page, table, 0), ascending))
            page.click(f"{table} thead th:nth-child({found + 1}) button")
            descending = _column(page, table, found)
            assert [_as_number(x) for x in descending] == sorted((_as_number(x) for x in before), reverse=True)
            assert page.get_attribute(f"{table} thead th:nth-child({found + 1})", "aria-sort") == "descending"
    finally:
        context.close()


def test_without_javascript_a_table_stays_a_plain_table(browser, server):
    context = new_context(browser, js=False, viewport=DESKTOP)
    try:
        with open_page(context, server.url("dataset.html"), "dataset") as (page, _):
            assert page.locator("main table").count() > 0
            assert page.locator("th button.sort-col, .scroll-cue, form.site-search:visible").count() == 0
            assert page.locator("main table tbody tr").first.is_visible()
    finally:
        context.close()


def _search(page: Any, query: str) -> list[tuple[str, str]]:
    page.fill("#site-search", query)
    page.wait_for_function("q => document.querySelector('#site-search').value === q && "
                           "!document.querySelector('form.site-search ol').hidden", arg=query)
    found = page.eval_on_selector_all("form.site-search ol a", "as => as.map(a => [a.textContent, a.getAttribute('href')])")
    return [tuple(hit) for hit in found]


def test_search_finds_benchmarks_models_runs_and_pages_offline(browser, server):
    context = new_context(browser, viewport=DESKTOP)
    try:
        with open_page(context, server.url(f"runs/{BLIND}.html"), "run") as (page, visit):
            assert page.locator("form.site-search").is_visible()
            assert not any("search-index" in url for url, _ in visit.responses)  # not before it is used
            hits = _search(page, "benchmarks")
            assert ("benchmarkBenchmarks", "../benchmarks.html") in hits, hits
            hits = _search(page, MODEL)
            assert hits[0][0] == "model" + MODEL and hits[0][1] == "../models.html", hits
            assert ("run" + f"Run {SIGHTED}", f"../runs/{SIGHTED}.html") in hits
            hits = _search(page, "faq")
            assert hits and hits[0][1] == "../faq.html", hits
            assert _search(page, "no such thing anywhere") == []
            page.fill("#site-search", "benchmarks")
            page.press("#site-search", "Enter")
            page.wait_for_url("**/benchmarks.html")
            loaded = [url for url, status in visit.responses if "search-index" in url]
            assert len(loaded) == 1 and visit.external == []
    finally:
        context.close()


def test_the_vega_bundle_loads_only_when_a_reader_uses_a_chart(browser, server):
    context = new_context(browser, viewport=DESKTOP)
    try:
        with open_page(context, server.url("dataset.html"), "dataset", settle=True) as (page, visit):
            assert page.locator("figure.chart").count() >= 1
            assert not any("vega-bundle" in url for url, _ in visit.responses)
            assert page.locator("figure.chart .chart-body > svg").first.is_visible()  # the static chart
            assert page.locator(".vega-embed").count() == 0
            page.locator("figure.chart .chart-body").first.hover()
            page.wait_for_selector("figure.chart .chart-body[data-chart='live'] .vega-embed svg")
            assert sum("vega-bundle" in url for url, _ in visit.responses) == 1
            assert visit.external == [] and not visit.console_errors and not visit.page_errors
    finally:
        context.close()


NAVIGATION_MS = "() => performance.getEntriesByType('navigation')[0].loadEventEnd"


def test_pages_load_within_3_seconds_with_4x_cpu_throttling(browser, server):
    context = new_context(browser, viewport=DESKTOP)
    slow = []
    try:
        for name in READER_PAGES:
            page = context.new_page()
            try:
                cdp = context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
                page.goto(server.url(name), wait_until="load")
                took = page.evaluate(NAVIGATION_MS)
                if took > LOAD_BUDGET_MS:
                    slow.append(f"{name}: {took:.0f} ms")
            finally:
                page.close()
    finally:
        context.close()
    assert not slow, f"pages over {LOAD_BUDGET_MS} ms at {THROTTLE}x CPU throttling: {slow}"
