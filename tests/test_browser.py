"""The built site in a real browser (headless Chromium through Playwright).

A small synthetic site is built, served by a real HTTP server under a GitHub Pages-style
sub-path (/buzzprobe/), and every HTML page is opened: no console errors or uncaught
exceptions, no request leaves 127.0.0.1, no request fails, every chart is drawn by the Vega
bundle once a reader interacts with it (and without JavaScript its static SVG shows), every
internal link resolves, the item browser works, nothing from the data or the runs can execute,
and at 390 px nothing but the table wrappers scrolls sideways and every chart fits its column.

Needs `playwright` (the `test` extra) and a Chromium at /usr/bin/chromium (Debian package
`chromium`; override with BUZZPROBE_CHROMIUM). When either is missing the tests fail under CI
(CI set) and skip elsewhere. `playwright install` is never needed.
"""

from __future__ import annotations

import random
import re
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, replace as dc_replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.dataset.variants import GOLD_POOL, derive_variants
from builder.benchmarks.cibuzzbench.wording import option_set_label
from builder.benchmarks.cibuzzbench.probes.generate import CONSTANT_PROBES, OPTION_PROBES, SCOPES, run_id
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION
from tests.browser_support import (
    CONTENT,
    LOOPBACK,
    SubPathServer,
    build_site,
    element_ids,
    html_pages,
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

# --- the site under test -----------------------------------------------------------------

ROWS, TEST_ROWS = 260, 52  # more than the browser's page of 200 items on the "all" runs
SEED, SEED2 = 1111, 2222  # a second seed on all items: seed means need a standard deviation
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Injection payloads: the site carries them in dataset text (terms, options, explanations)
# and in runs (subject names, responses, errors, header fields), and every page is checked.
P_SCRIPT = "<script>window.__pwned=1</script>"
P_IMG = '<img src=x onerror="window.__pwned=1">'
P_JS_URL = "javascript:window.__pwned=1"
P_ATTR = '"><svg onload=window.__pwned=1>'
PAYLOADS = (P_SCRIPT, P_IMG, P_JS_URL, P_ATTR)
EVIL_SUBJECT = " ".join(PAYLOADS)


GOLD_POOL_PROBE = run_id("random", EQUIVALENT_SELECTION, "all", SEED, "gold_pool")  # one run on another option set


def _keep_probe(stem: str) -> bool:
    if "gold_pool" in stem:
        return stem == GOLD_POOL_PROBE
    return "-t3-" in stem or f"-s{SEED}-" in stem or stem.endswith(f"-s{SEED2}-all")


PROBE_RUNS = sorted(
    [run_id(p.name, EQUIVALENT_SELECTION, scope, SEED) for p in OPTION_PROBES for scope in SCOPES]
    + [run_id(p.name, EQUIVALENT_SELECTION, "all", SEED2) for p in OPTION_PROBES]
    + [run_id(p.name, HARMFULNESS_DETECTION, scope, None) for p in CONSTANT_PROBES for scope in SCOPES]
    + [GOLD_POOL_PROBE])
SIGHTED, BLIND, HARM = "toy-sighted-t2-s1111-all", "toy-blind-t2-s1111-all", "toy-sighted-t3-test"
EVIL_SIGHTED, EVIL_BLIND, EVIL_HARM = "evil-sighted-t2-s1111-all", "evil-blind-t2-s1111-all", "evil-t3-all"
POOL_BLIND = "toy-blind-t2-s1111-all-gold_pool"  # the same model on the article's gold-pool options
MODEL_RUNS = [SIGHTED, BLIND, HARM, EVIL_SIGHTED, EVIL_BLIND, EVIL_HARM, POOL_BLIND]
UNPARSED = (5, 17, 33, 250)
ERRORS = {41: "timeout after 60 s", 201: "HTTP 500 from the endpoint"}

MD_PAGES = sorted(f"{p.stem}.html" for p in (CONTENT / "pages").glob("*.md"))
PAGES = sorted(MD_PAGES + ["provenance.html"] + [f"runs/{rid}.html" for rid in PROBE_RUNS + MODEL_RUNS])

KNOWN_BUGS: dict[tuple[str, str], str] = {}
RUN_CSV_LINK = re.compile(r"^\.\./tables/run-.+\.csv$")


def pages_for(check: str) -> list[Any]:
    return [pytest.param(name, id=name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[(check, name)])])
            if (check, name) in KNOWN_BUGS else pytest.param(name, id=name) for name in PAGES]


def sighted_response(row_id: int, letter: str) -> str:
    return f"The answer is {letter} (item {row_id})."


def evil_response(row_id: int, letter: str) -> str:
    return f"{PAYLOADS[row_id % len(PAYLOADS)]} answer {letter}"


def site_rows() -> list[dict[str, str]]:
    rows = synthetic_rows(n=ROWS, test=TEST_ROWS, seed=3)
    for i, payload in enumerate(PAYLOADS):
        rows[i].update(term_zh=payload, explanation_zh=payload, meaning_en=payload,
                       equivalent_en=f"{payload} gold {i}", distractor_literal_en=payload,
                       distractor_cultural_mismatch_en=f"{payload} cul",
                       distractor_pragmatic_neighbor_en=f"{payload} pra")
    rows[4].update(term_zh=EVIL_SUBJECT, equivalent_en=f"gold {EVIL_SUBJECT}")
    return rows


@dataclass
class Site:
    root: Path
    dataset: Dataset
    runs: dict[str, list[Item]]


def _write_model_runs(dataset: Dataset, runs_dir: Path) -> dict[str, list[Item]]:
    runs: dict[str, list[Item]] = {}

    def write(header: Any, items: list[Item], usage: dict[str, int] | None = None) -> None:
        write_model_run(runs_dir, header, items, usage)
        runs[header.run_id] = items

    rng = random.Random(3)
    sighted = model_items(dataset, SEED, 0.7, 1, sighted_response, UNPARSED, ERRORS)
    write(model_header(dataset, SIGHTED, "toy-model", "sighted", SEED, len(sighted)), sighted,
          {"reasoning_tokens": 480})
    blind = model_items(dataset, SEED, 0.5, 2, lambda r, letter: f"Blind guess: {letter}")
    write(model_header(dataset, BLIND, "toy-model", "blind", SEED, len(blind)), blind)
    harm = [Item(row_id=r, prediction=rng.choice(["harmful", "non-harmful"]), response=f"label for {r}")
            for r in dataset.row_ids("test")]
    write(model_header(dataset, HARM, "toy-model", "sighted", None, len(harm), task=HARMFULNESS_DETECTION,
                       split="test"), harm)
    # The same payloads in every free-text field a run has.
    evil = model_items(dataset, SEED, 0.7, 4, evil_response, unparsed=(20, 21),
                       errors={10 + i: p for i, p in enumerate(PAYLOADS)})
    write(model_header(dataset, EVIL_SIGHTED, EVIL_SUBJECT, "sighted", SEED, len(evil),
                       parameters={"system_prompt": EVIL_SUBJECT, P_ATTR: P_SCRIPT},
                       tool={"name": P_IMG, "version": P_ATTR}), evil, {P_IMG: 7, P_SCRIPT: 1})
    evil_blind = model_items(dataset, SEED, 0.5, 5, evil_response)
    write(model_header(dataset, EVIL_BLIND, EVIL_SUBJECT, "blind", SEED, len(evil_blind)), evil_blind)
    pool = derive_variants(dataset, [GOLD_POOL])[GOLD_POOL]
    pool_blind = model_items(dataset, SEED, 0.3, 6)
    header = model_header(dataset, POOL_BLIND, "toy-model", "blind", SEED, len(pool_blind))
    write(dc_replace(header, dataset={**header.dataset, "variant": GOLD_POOL, "content_sha256": pool.content_sha256}),
          pool_blind)
    evil_harm = [Item(row_id=r, prediction="harmful" if r % 3 else "", response=PAYLOADS[r % 4])
                 for r in dataset.row_ids()]
    write(model_header(dataset, EVIL_HARM, P_ATTR, "sighted", None, len(evil_harm), task=HARMFULNESS_DETECTION),
          evil_harm)
    return runs


# --- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def site(browser, tmp_path_factory) -> Site:
    root = tmp_path_factory.mktemp("browser-site")
    csv_path, runs, dataset = make_inputs(root, site_rows(), spec_for(ROWS, TEST_ROWS), _keep_probe, ("gold_pool",))
    models = _write_model_runs(dataset, runs)
    out = build_site(csv_path, runs, spec_for(ROWS, TEST_ROWS), root / "site", charts=True)
    return Site(out, dataset, models)


@pytest.fixture(scope="module")
def server(site):
    with SubPathServer(site.root) as running:
        yield running


@dataclass
class Loaded:
    """One page as the browser saw it with JavaScript on, at a desktop width."""

    visit: Any
    charts: list[dict[str, Any]]
    links: list[tuple[str, str]]  # (href as written, resolved URL)
    resources: list[str]  # src / link href as written
    safety: dict[str, Any]  # what an injected payload would have left behind (see SAFETY)
    layout: dict[str, Any]  # after narrowing the same page to a 390 px viewport


CHART_STATE = """() => Array.from(document.querySelectorAll('figure.chart')).map(fig => {
  const body = fig.querySelector('.chart-body');
  const live = body && body.querySelector('.chart-live');
  const drawn = live && live.querySelector('svg, canvas');
  const r = drawn ? drawn.getBoundingClientRect() : null;
  return {id: fig.id, body: !!body, state: body ? body.getAttribute('data-chart') : null,
          spec: !!fig.querySelector('script.vl-spec'),
          embed: !!(body && body.querySelector('.vega-embed')), drawn: !!drawn,
          marks: drawn ? drawn.querySelectorAll('path, rect, line, text, symbol').length : 0,
          visible: !!(r && r.width > 0 && r.height > 0 && !live.hidden),
          fallback_left: !!(body && Array.from(body.children).some(c => c.tagName.toLowerCase() === 'svg'))};
})"""
LINKS = "() => Array.from(document.querySelectorAll('a[href]')).map(a => [a.getAttribute('href'), a.href])"
RESOURCES = """() => Array.from(document.querySelectorAll('[src], link[href]'))
  .map(e => e.getAttribute('src') !== null ? e.getAttribute('src') : e.getAttribute('href'))"""
LAYOUT = """() => {
  const de = document.documentElement, vw = de.clientWidth;
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('.scroll, pre')) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1) {
      wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') +
                ' right=' + Math.round(r.right));
    }
  }
  const tables = Array.from(document.querySelectorAll('table')).map(t => {
    const wrap = t.parentElement ? t.parentElement.closest('.scroll') : null;
    const wr = wrap ? wrap.getBoundingClientRect() : null;
    const first = t.querySelector('tbody td, thead th');
    return {id: t.id || (t.closest('figure') ? t.closest('figure').id : ''), wrapped: !!wrap,
            overflow: wrap ? getComputedStyle(wrap).overflowX : null,
            sticky: first ? getComputedStyle(first).position : null,
            right: wr ? wr.right : 0, shown: !!(wr && wr.width > 0),
            wider: wrap ? wrap.scrollWidth > wrap.clientWidth + 1 : false};
  });
  const charts = Array.from(document.querySelectorAll('figure.chart .chart-body svg')).map(svg => {
    const r = svg.getBoundingClientRect(), col = svg.closest('figure').getBoundingClientRect();
    return {id: svg.closest('figure').id, width: r.width, right: r.right, column: col.right,
            shown: r.width > 0 && r.height > 0};
  });
  return {scrollWidth: de.scrollWidth, clientWidth: vw, wide: wide.slice(0, 8), tables: tables, charts: charts};
}"""


@pytest.fixture(scope="module")
def loaded(browser, server, site):
    """Each page loaded once (lazily) with JavaScript; several tests read the result.

    After the desktop checks the same page is narrowed to a phone's 390 px and its layout
    measured, which saves a second load of every page."""
    context = new_context(browser, viewport=DESKTOP)
    cache: dict[str, Loaded] = {}

    def get(name: str) -> Loaded:
        if name not in cache:
            with open_page(context, server.url(name), name, wake=True) as (page, visit):
                charts, links, resources = page.evaluate(CHART_STATE), page.evaluate(LINKS), page.evaluate(RESOURCES)
                safety = page.evaluate(SAFETY)
                page.set_viewport_size(PHONE)
                cache[name] = Loaded(visit, charts, links, resources, safety, page.evaluate(LAYOUT))
        return cache[name]

    yield get
    context.close()


@pytest.fixture(scope="module")
def fetch(server):
    """GET a loopback URL directly (no proxy from the environment): (status, body)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    cache: dict[str, tuple[int, bytes]] = {}

    def get(url: str) -> tuple[int, bytes]:
        assert urlsplit(url).hostname == LOOPBACK, url
        if url not in cache:
            try:
                with opener.open(url, timeout=10) as response:
                    cache[url] = (response.status, response.read())
            except urllib.error.HTTPError as exc:
                cache[url] = (exc.code, exc.read())
        return cache[url]

    return get


# --- every page --------------------------------------------------------------------------


def test_every_built_page_is_checked(site):
    assert html_pages(site.root) == PAGES, "pages added or removed: update PAGES in tests/test_browser.py"


def test_server_serves_only_the_sub_path(server, fetch):
    assert fetch(server.url("index.html"))[0] == 200
    assert fetch(server.url(""))[0] == 200  # the folder serves its index.html
    assert fetch(f"{server.origin}/buzzprobe")[0] == 200  # redirected to /buzzprobe/
    assert fetch(f"{server.origin}/index.html")[0] == 404
    assert fetch(f"{server.origin}/assets/style.css")[0] == 404


@pytest.mark.parametrize("name", pages_for("loads"))
def test_page_loads_cleanly(loaded, name):
    visit = loaded(name).visit
    problems = ([f"console error: {e}" for e in visit.console_errors]
                + [f"uncaught exception: {e}" for e in visit.page_errors]
                + [f"request off 127.0.0.1: {u}" for u in visit.external]
                + [f"HTTP {r}" for r in visit.bad_responses]
                + [f"request failed: {u} ({why})" for u, why in visit.failed])
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_charts_are_drawn_by_vega(loaded):
    found, problems = 0, []
    for name in PAGES:
        for chart in loaded(name).charts:
            found += 1
            if not (chart["spec"] and chart["state"] == "live" and chart["embed"] and chart["drawn"]
                    and chart["marks"] > 0 and chart["visible"] and not chart["fallback_left"]):
                problems.append(f"{name} #{chart['id']}: {chart}")
    assert found >= 2, f"expected the dataset and categories charts, found {found} chart(s)"
    assert not problems, "charts not drawn by the Vega bundle:\n" + "\n".join(problems)


FALLBACKS = """() => Array.from(document.querySelectorAll('figure.chart')).map(fig => {
  const svg = fig.querySelector('.chart-body > svg');
  const r = svg ? svg.getBoundingClientRect() : null;
  const style = svg ? getComputedStyle(svg) : null;
  return {id: fig.id, svg: !!svg, width: r ? r.width : 0, height: r ? r.height : 0,
          display: style ? style.display : null, visibility: style ? style.visibility : null,
          title: svg && svg.querySelector('title') ? svg.querySelector('title').textContent : ''};
})"""


def test_chart_fallbacks_show_without_javascript(browser, server, site):
    context = new_context(browser, js=False, viewport=DESKTOP)
    found, problems = 0, []
    with_charts = [n for n in PAGES if 'class="chart"' in (site.root / n).read_text(encoding="utf-8")]
    try:
        for name in with_charts:
            with open_page(context, server.url(name), name) as (page, visit):
                assert page.locator(".chart-live, .vega-embed").count() == 0, "JavaScript ran"
                for chart in page.evaluate(FALLBACKS):
                    found += 1
                    svg = page.locator(f"#{chart['id']} .chart-body > svg")
                    if not (chart["svg"] and chart["width"] > 100 and chart["height"] > 50 and chart["title"]
                            and chart["display"] != "none" and chart["visibility"] == "visible"
                            and svg.is_visible()):
                        problems.append(f"{name} #{chart['id']}: {chart}")
                problems += [f"{name}: HTTP {r}" for r in visit.bad_responses]
                problems += [f"{name}: request off 127.0.0.1: {u}" for u in visit.external]
    finally:
        context.close()
    assert found >= 2, f"expected the dataset and categories charts, found {found} chart(s)"
    assert not problems, "static chart fallbacks missing or hidden without JavaScript:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", pages_for("links"))
def test_links_are_relative_and_resolve(loaded, server, fetch, name):
    page = loaded(name)
    problems = []
    for raw in [href for href, _ in page.links] + page.resources:
        if raw.startswith("/"):
            problems.append(f"root-relative or protocol-relative URL {raw!r} breaks under a sub-path")
    for raw, resolved in page.links:
        parts = urlsplit(resolved)
        if parts.scheme in ("http", "https") and parts.hostname != LOOPBACK:
            if not raw.startswith(("http://", "https://")):
                problems.append(f"{raw!r} leaves the site ({resolved})")
            continue  # an explicit external citation: never followed
        if parts.scheme == "mailto":
            continue
        if parts.scheme != "http":
            problems.append(f"{raw!r}: unexpected scheme {parts.scheme!r}")
            continue
        target = server.relative(resolved)
        if target is None:
            problems.append(f"{raw!r} escapes the /buzzprobe/ sub-path ({resolved})")
            continue
        status, body = fetch(resolved.split("#", 1)[0])
        if status != 200:
            problems.append(f"{raw!r} -> HTTP {status} ({target})")
            continue
        fragment = unquote(parts.fragment)
        if fragment and (target == "" or target.endswith(".html")):
            if fragment not in element_ids(body.decode("utf-8")):
                problems.append(f"{raw!r}: no element with id {fragment!r} in {target or 'index.html'}")
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_run_page_table_csv_links_resolve(loaded, fetch):
    broken, seen = [], 0
    for name in PAGES:
        if not name.startswith("runs/"):
            continue
        for raw, resolved in loaded(name).links:
            if RUN_CSV_LINK.match(raw):
                seen += 1
                if fetch(resolved)[0] != 200:
                    broken.append(f"{name}: {raw}")
    assert seen, "run pages link no table CSVs any more: drop this test and RUN_CSV_LINK"
    assert not broken, f"{len(broken)} broken table CSV links, e.g.:\n" + "\n".join(broken[:8])


def test_missing_page_at_top_level_shows_the_404_page(browser, server):
    context = new_context(browser)
    try:
        with open_page(context, server.url("no-such-page.html"), "404") as (page, visit):
            assert "Page not found" in page.title()
            assert [r for r in visit.responses if r[1] == 404] == [(server.url("no-such-page.html"), 404)]
            own = f"(at {server.url('no-such-page.html')}:"  # Chromium logs the document's own 404
            assert [e for e in visit.console_errors if own not in e] == []
            assert not visit.page_errors and not visit.external
            assert page.locator("main a[href='index.html']").count() == 1
    finally:
        context.close()


def test_missing_page_in_a_subfolder_shows_a_working_404_page(browser, server, fetch):
    missing = server.url("runs/no-such-run.html")
    context = new_context(browser)
    try:
        with open_page(context, missing, "404") as (page, visit):
            assert "Page not found" in page.title()
            failed = [f"{status} {url}" for url, status in visit.responses if status >= 400 and url != missing]
            links = [href for _, href in page.evaluate(LINKS)]
            broken = [href for href in links if urlsplit(href).hostname == LOOPBACK
                      and fetch(href.split("#", 1)[0])[0] != 200]
            assert not failed and not broken, (failed, broken)
    finally:
        context.close()


# --- responsive --------------------------------------------------------------------------




@pytest.fixture(scope="module")
def phone(browser):
    context = new_context(browser, viewport=PHONE, device_scale_factor=2,
                          is_mobile=True, has_touch=True)
    yield context
    context.close()


@pytest.mark.parametrize("name", pages_for("narrow"))
def test_no_horizontal_overflow_at_390px(loaded, name):
    layout = loaded(name).layout
    assert layout["clientWidth"] == PHONE["width"]
    problems = []
    if layout["scrollWidth"] > layout["clientWidth"] + 1:
        problems.append(f"page is {layout['scrollWidth']} px wide in a {layout['clientWidth']} px viewport; "
                        f"too wide: {layout['wide']}")
    for table in layout["tables"]:
        if not table["wrapped"]:
            problems.append(f"table {table['id']!r} is not inside a .scroll wrapper")
        elif table["overflow"] not in ("auto", "scroll"):
            problems.append(f"table {table['id']!r}: its .scroll wrapper has overflow-x {table['overflow']}")
        elif table["shown"] and table["right"] > layout["clientWidth"] + 1:
            problems.append(f"table {table['id']!r}: its wrapper ends at {table['right']} px")
        elif table["wider"] and table["sticky"] != "sticky":
            problems.append(f"table {table['id']!r} scrolls but its first column is {table['sticky']}, not sticky")
    for chart in layout["charts"]:  # the live chart, redrawn at the column's width
        if chart["shown"] and (chart["right"] > chart["column"] + 1 or chart["width"] < 200):
            problems.append(f"chart {chart['id']!r} does not fit its column: {chart}")
    assert not problems, f"{name} at 390 px:\n" + "\n".join(problems)


def test_wide_tables_scroll_inside_their_wrapper_at_390px(phone, server):
    with open_page(phone, server.url(f"runs/{SIGHTED}.html"), SIGHTED) as (page, _):
        page.wait_for_selector("#browser-table tbody tr")
        wrapper = page.locator("#browser .scroll")
        sizes = wrapper.evaluate("w => [w.scrollWidth, w.clientWidth]")
        assert sizes[0] > sizes[1], f"the item table should be wider than a phone: {sizes}"
        moved = wrapper.evaluate("w => { w.scrollLeft = 120; return w.scrollLeft; }")
        assert moved > 0
        assert page.evaluate("() => [window.scrollX, document.documentElement.scrollWidth"
                             " <= document.documentElement.clientWidth + 1]") == [0, True]


# --- the item browser --------------------------------------------------------------------

ROWS_JS = "trs => trs.map(tr => Array.from(tr.cells, td => td.textContent))"


class Browser:
    """The item browser on one open run page."""

    def __init__(self, page: Any):
        self.page = page
        page.wait_for_selector("#browser-table tbody tr")
        self.columns = page.eval_on_selector_all("#browser-table thead th", "ths => ths.map(th => th.textContent)")

    def rows(self) -> list[dict[str, str]]:
        cells = self.page.eval_on_selector_all("#browser-table tbody tr", ROWS_JS)
        return [dict(zip(self.columns, row)) for row in cells]

    def count(self) -> str:
        return self.page.text_content("#browser-count") or ""

    def more_visible(self) -> bool:
        return self.page.locator("#browser-more").is_visible()

    def sort(self, column: str) -> None:
        self.page.locator("#browser-table thead").get_by_role("button", name=column, exact=True).click()


@pytest.fixture(scope="module")
def desktop(browser):
    """The desktop context site_page opens pages in: one per module, since opening and closing
    a context per test cost about 0.3 s, and the site keeps nothing in the browser (no cookies,
    no storage) that one test could leave for the next."""
    context = new_context(browser, viewport=DESKTOP)
    yield context
    context.close()


@pytest.fixture()
def site_page(desktop, server):
    """Open pages of the site; each must load without errors."""
    opened = []

    def open_one(name: str) -> Any:
        manager = open_page(desktop, server.url(name), name)
        page, visit = manager.__enter__()
        opened.append((manager, visit))
        return page

    yield open_one
    problems = []
    for manager, visit in opened:
        problems += [f"{visit.page_name}: {p}" for p in
                     visit.console_errors + visit.page_errors + visit.external + visit.bad_responses]
        manager.__exit__(None, None, None)
    assert not problems, problems


@pytest.fixture()
def run_page(site_page):
    return lambda rid: Browser(site_page(f"runs/{rid}.html"))


def test_item_browser_shows_rows_and_more(run_page, site):
    b = run_page(SIGHTED)
    assert b.columns == ["Row", "Term", "Category", "Options", "Gold", "Prediction", "Result", "Response"]
    rows = b.rows()
    assert len(rows) == 200 and b.count() == f"200 of {ROWS} items shown"
    assert [int(r["Row"]) for r in rows] == list(range(200))
    assert rows[0]["Term"] == site.dataset.frame.loc[0, "term_zh"]
    assert rows[10]["Response"] == sighted_response(10, rows[10]["Prediction"])
    assert rows[5]["Prediction"] == "(unparsed)" and rows[5]["Result"] == "unparsed"
    assert rows[41]["Response"] == f"error: {ERRORS[41]}" and rows[41]["Result"] == "failed"
    assert rows[41]["Prediction"] == "(failed request)"
    assert all(r["Options"].count("\n") == 3 and "[gold]" in r["Options"] for r in rows)
    assert b.more_visible()
    b.page.click("#browser-more")
    assert len(b.rows()) == ROWS and b.count() == f"{ROWS} of {ROWS} items shown"
    assert not b.more_visible()


def test_item_browser_names_other_items_golds_on_a_gold_pool_run(run_page, site):
    """On the gold pool the slots keep the distractors' names, but hold other items' golds: the
    browser says so, and still says "[literal]" on the original options."""
    from builder.benchmarks.cibuzzbench.views.run_pages import replaced_slots
    pool = derive_variants(site.dataset, [GOLD_POOL])[GOLD_POOL]
    replaced = replaced_slots(pool, site.dataset)
    rows = run_page(POOL_BLIND).rows()
    assert len(rows) == 200
    for r in rows:
        assert r["Options"].count("[another item's gold]") == len(replaced.get(int(r["Row"]), ()))
        assert r["Options"].count("[gold]") == 1
        assert pool.frame.loc[int(r["Row"]), "distractor_literal_en"] in r["Options"]
    assert sum(r["Options"].count("[another item's gold]") for r in rows) > 0
    original = run_page(BLIND).rows()
    assert all("[literal]" in r["Options"] and "another item's gold" not in r["Options"] for r in original)


def test_item_browser_has_no_more_button_for_200_items_or_fewer(run_page):
    b = run_page(HARM)
    assert b.columns == ["Row", "Term", "Category", "Gold", "Prediction", "Result", "Response"]
    assert len(b.rows()) == TEST_ROWS and b.count() == f"{TEST_ROWS} of {TEST_ROWS} items shown"
    assert not b.more_visible()


def test_item_browser_search_filters(run_page, site):
    b = run_page(SIGHTED)
    b.page.fill("#browser-search", "(item 123)")
    assert [r["Row"] for r in b.rows()] == ["123"] and b.count() == "1 of 1 items shown"
    term = site.dataset.frame.loc[42, "term_zh"]
    b.page.fill("#browser-search", term)
    assert [r["Row"] for r in b.rows()] == ["42"]
    b.page.fill("#browser-search", "THE ANSWER IS")  # case-insensitive, over the responses
    expected = sum(1 for item in site.runs[SIGHTED] if item.response and "the answer is" in item.response.lower())
    assert b.count() == f"{min(expected, 200)} of {expected} items shown"
    b.page.fill("#browser-search", "no such text anywhere")
    assert b.rows() == [] and b.count() == "0 of 0 items shown" and not b.more_visible()
    b.page.fill("#browser-search", "")
    assert len(b.rows()) == 200 and b.more_visible()


def test_item_browser_category_filter(run_page, site):
    b = run_page(SIGHTED)
    categories = Counter(site.dataset.frame["category_label"])
    options = b.page.eval_on_selector_all("#browser-category option", "os => os.map(o => o.value)")
    assert options == [""] + sorted(categories)
    for category, n in sorted(categories.items()):
        b.page.select_option("#browser-category", category)
        rows = b.rows()
        assert len(rows) == n and {r["Category"] for r in rows} == {category}
        assert b.count() == f"{n} of {n} items shown"
    b.page.select_option("#browser-category", "")
    assert b.count() == f"200 of {ROWS} items shown"


def test_item_browser_result_filter(run_page, site):
    b = run_page(SIGHTED)
    gold = {r: s.gold_letter for r, s in option_sets(site.dataset, SEED).items()}
    items = site.runs[SIGHTED]
    expected = {"unparsed": sum(1 for i in items if i.prediction == "" and i.error is None),
                "failed": sum(1 for i in items if i.error is not None),
                "right": sum(1 for i in items if i.prediction == gold[i.row_id]),
                "wrong": sum(1 for i in items if i.prediction not in ("", gold[i.row_id]))}
    assert (expected["unparsed"], expected["failed"]) == (len(UNPARSED), len(ERRORS))
    for status, n in expected.items():
        b.page.select_option("#browser-filter", status)
        rows = b.rows()
        assert len(rows) == min(n, 200) and {r["Result"] for r in rows} == {status}, status
        assert b.count() == f"{min(n, 200)} of {n} items shown"


def test_item_browser_sorts_by_column(run_page, site):
    b = run_page(SIGHTED)
    terms = [str(t) for t in site.dataset.frame["term_zh"]]
    b.sort("Term")
    assert [r["Term"] for r in b.rows()] == sorted(terms)[:200]
    b.sort("Term")
    assert [r["Term"] for r in b.rows()] == sorted(terms, reverse=True)[:200]
    b.sort("Category")
    frame = site.dataset.frame
    by_category = sorted(range(ROWS), key=lambda r: (frame.loc[r, "category_label"], r))
    assert [int(r["Row"]) for r in b.rows()] == by_category[:200]
    b.sort("Row")
    assert [int(r["Row"]) for r in b.rows()] == list(range(200))
    b.sort("Row")
    assert [int(r["Row"]) for r in b.rows()] == list(range(ROWS - 1, ROWS - 201, -1))


# --- injection ---------------------------------------------------------------------------

SAFETY = """() => {
  const executable = s => !s.type || /^(text|application)\\/(java|ecma)script$|^module$/i.test(s.type.trim());
  const scripts = Array.from(document.scripts);
  const data = scripts.filter(s => !executable(s));
  const bad_data = data.filter(s => /json/.test(s.type)).filter(s => {
    try { JSON.parse(s.textContent); return false; } catch (e) { return true; } }).map(s => s.outerHTML.slice(0, 120));
  const handlers = [], js_urls = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of Array.from(el.attributes)) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on')) handlers.push(el.tagName + ' ' + n + '=' + a.value);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].includes(n)
          && /^\\s*javascript:/i.test(a.value)) js_urls.push(el.tagName + ' ' + n + '=' + a.value);
    }
  }
  return {pwned: typeof window.__pwned !== 'undefined',
          evil_scripts: scripts.filter(executable).filter(s => s.textContent.includes('__pwned')).map(s => s.outerHTML),
          bad_data: bad_data, handlers: handlers, js_urls: js_urls,
          js_links: document.querySelectorAll('a[href^="javascript:" i]').length};
}"""


def _unsafe(state: dict[str, Any]) -> list[str]:
    problems = []
    if state["pwned"]:
        problems.append("window.__pwned is set: a payload executed")
    problems += [f"executable <script> with the payload: {s}" for s in state["evil_scripts"]]
    problems += [f"JSON data block does not parse (broken out of?): {s}" for s in state["bad_data"]]
    problems += [f"event-handler attribute: {h}" for h in state["handlers"]]
    problems += [f"javascript: URL: {u}" for u in state["js_urls"]]
    if state["js_links"]:
        problems.append(f"{state['js_links']} a[href^=javascript:]")
    return problems


@pytest.mark.parametrize("name", pages_for("inject"))
def test_page_runs_no_injected_code(loaded, name):
    """Payloads in the data and the runs reach these pages; none may become markup or code."""
    page = loaded(name)
    problems = _unsafe(page.safety)
    problems += [f"request for an injected resource: {u}" for u, status in page.visit.responses
                 if urlsplit(u).path.endswith("/x")]
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_payloads_are_searchable_text_in_the_item_browser(run_page):
    for rid in (EVIL_SIGHTED, EVIL_HARM):
        b = run_page(rid)
        for payload in PAYLOADS:
            b.page.fill("#browser-search", payload)
            rows = b.rows()
            assert rows, f"{rid}: searching {payload!r} found nothing"
            assert any(payload == r["Term"] or payload in r["Response"] or payload in r.get("Options", "")
                       for r in rows), (rid, payload)
            cell = b.page.locator("#browser-table tbody td", has_text=payload).first
            assert cell.is_visible(), (rid, payload)
            assert not _unsafe(b.page.evaluate(SAFETY)), (rid, payload)
        b.page.fill("#browser-search", "")
        for column in ("Term", "Response"):
            b.sort(column)
        b.page.select_option("#browser-filter", "unparsed")
        b.page.select_option("#browser-filter", "all")
        if b.more_visible():
            b.page.click("#browser-more")
        b.page.wait_for_load_state("networkidle")  # an injected <img src=x> would have failed by now
        assert not _unsafe(b.page.evaluate(SAFETY)), rid
        subject = P_ATTR if rid == EVIL_HARM else EVIL_SUBJECT
        assert b.page.text_content("dl.header strong") == subject


def test_subject_names_and_run_headers_are_text(site_page):
    page = site_page(f"runs/{EVIL_SIGHTED}.html")
    subject = page.locator("dl.header strong")
    assert subject.text_content() == EVIL_SUBJECT and subject.is_visible()
    header = page.text_content("dl.header") or ""
    assert P_IMG in header and P_ATTR in header  # tool name and version
    page.click("main details summary")  # the full header, as JSON text (the footer has a details too)
    full = page.locator("main details pre")
    assert full.is_visible() and P_SCRIPT in (full.text_content() or "")
    page = site_page("runs.html")
    for rid in (EVIL_SIGHTED, EVIL_BLIND, EVIL_HARM):
        row = page.locator("tr", has=page.locator(f"a[href='runs/{rid}.html']")).first
        cells = row.locator("td").all_text_contents()
        expected = P_ATTR if rid == EVIL_HARM else EVIL_SUBJECT
        assert expected in cells, ("runs.html", rid, cells)
        assert row.locator("td", has_text=expected).first.is_visible()
    page = site_page("models.html")  # one row per model summary (sighted and blind), not per run
    for condition in ("sighted", "blind"):
        row = page.locator("#models-t2 tr", has=page.locator("td", has_text=condition)).first
        cells = row.locator("td").all_text_contents()
        assert EVIL_SUBJECT in cells, ("models.html", condition, cells)
        assert row.locator("td", has_text=EVIL_SUBJECT).first.is_visible()


# --- finding your way: run filters, paired runs, permalinks ------------------------------


def _paired_effects(site: Site) -> dict[int, str]:
    """What seeing the term did on each item of the toy pair, recomputed from the written runs."""
    gold = {r: s.gold_letter for r, s in option_sets(site.dataset, SEED).items()}
    blind = {i.row_id: i.prediction == gold[i.row_id] for i in site.runs[BLIND]}
    sighted = {i.row_id: i.prediction == gold[i.row_id] for i in site.runs[SIGHTED]}
    return {r: "fixed" if sighted[r] else "broken" for r in blind.keys() & sighted.keys() if blind[r] != sighted[r]}


def test_runs_list_filters_by_model_task_condition_and_option_set(site_page, site):
    page = site_page("runs.html")  # every run of every benchmark, filterable by benchmark
    page.wait_for_selector("#all-runs .filters select")
    labels = page.eval_on_selector_all("#all-runs .filters label", "ls => ls.map(l => l.firstChild.textContent.trim())")
    assert labels[0] == "Benchmark"
    page = site_page("cibuzzbench-runs.html")  # CIBuzzBench's runs with their task and option set
    page.wait_for_selector("#runs .filters select")
    labels = page.eval_on_selector_all("#runs .filters label", "ls => ls.map(l => l.firstChild.textContent.trim())")
    assert labels == ["Subject", "Task", "Condition", "Option set"]
    header = page.eval_on_selector_all("#runs thead th", "ths => ths.map(th => th.textContent.trim())")
    column = {name: header.index(name) for name in labels}

    def shown() -> list[list[str]]:
        return page.eval_on_selector_all("#runs tbody tr:not([hidden])", ROWS_JS)

    headers = [read_run(path).header for path in sorted((site.root.parent / "runs").rglob("*.jsonl"))]
    total = len(shown())
    assert total == len(headers)
    page.select_option("#runs select[data-column='%d']" % column["Condition"], "blind")
    rows = shown()
    assert rows and {r[column["Condition"]] for r in rows} == {"blind"}
    assert {r[0] for r in rows} == {BLIND, EVIL_BLIND, POOL_BLIND}
    page.select_option("#runs select[data-column='%d']" % column["Subject"], "toy-model")
    assert {r[0] for r in shown()} == {BLIND, POOL_BLIND}  # the same model on both option sets
    page.select_option("#runs select[data-column='%d']" % column["Task"], "harmfulness detection")
    assert shown() == [] and page.text_content("#runs .filters [aria-live]") == f"0 of {total} rows shown"
    for name in ("Subject", "Task", "Condition"):
        page.select_option("#runs select[data-column='%d']" % column[name], "")
    options = page.eval_on_selector_all("#runs select[data-column='%d'] option" % column["Option set"],
                                        "os => os.map(o => o.value)")
    shown_as = {h.run_id: option_set_label(h.variant) if h.option_seed is not None else "–" for h in headers}
    variants = sorted(set(shown_as.values()))
    assert options == ["", *variants] and len({h.variant for h in headers}) > 1
    pool = option_set_label("gold_pool")
    page.select_option("#runs select[data-column='%d']" % column["Option set"], pool)
    assert {r[0] for r in shown()} == {rid for rid, label in shown_as.items() if label == pool}
    page.select_option("#runs select[data-column='%d']" % column["Option set"], "")
    assert len(shown()) == total


def test_run_page_links_its_paired_run_and_names_its_rule(site_page):
    page = site_page(f"runs/{SIGHTED}.html")
    assert page.get_attribute("#paired-run", "href") == f"{BLIND}.html"
    blind = site_page(f"runs/{BLIND}.html")
    assert blind.get_attribute("#paired-run", "href") == f"{SIGHTED}.html"
    assert site_page(f"runs/{HARM}.html").locator("#paired-run").count() == 0
    probe = site_page(f"runs/{run_id('longest_chars', EQUIVALENT_SELECTION, 'all', SEED)}.html")
    assert "longest option by characters" in (probe.text_content("#probe-rule") or "")


def test_item_browser_filters_what_seeing_the_term_fixed_and_broke(run_page, site):
    effects = _paired_effects(site)
    for rid in (SIGHTED, BLIND):
        b = run_page(rid)
        for effect in ("fixed", "broken"):
            expected = sorted(r for r, e in effects.items() if e == effect)
            assert expected, effect
            b.page.select_option("#browser-filter", effect)
            rows = b.rows()
            assert [int(r["Row"]) for r in rows] == expected[:200], (rid, effect)
            assert b.count() == f"{min(len(expected), 200)} of {len(expected)} items shown"
    assert run_page(HARM).page.locator("#browser-filter option[value='fixed']").count() == 0


def test_items_have_permalinks(site_page, server):
    page = site_page(f"runs/{SIGHTED}.html#item-250")  # beyond the first page of 200 rows
    row = page.wait_for_selector("#item-250.target")
    assert row.is_visible()
    assert page.get_attribute("#item-12 td:first-child a", "href") == "#item-12"
    page.fill("#browser-search", "(item 7)")
    page.click("#item-7 td:first-child a")
    page.wait_for_selector("#item-7.target")
    assert page.evaluate("() => location.hash") == "#item-7"
    assert page.locator("tr.target").count() == 1
