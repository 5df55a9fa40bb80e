"""Helpers for the headless-browser tests (tests/test_browser.py).

* ``make_inputs`` / ``build_site``: a small synthetic site (probe runs plus model runs written with the
  real run writer) into a folder, the same way tests/test_build.py does.
* ``SubPathServer``: a real HTTP server on 127.0.0.1 that serves the site under a sub-path
  (``/buzzprobe/``, like a GitHub Pages project site) and 404s everything else.
* ``launch_chromium``: Playwright driving the system Chromium, or a test failure (CI) / skip.
* ``open_page``: open one page and record everything the browser saw (a ``Visit``): console
  messages, uncaught exceptions, every response, failed requests, and requests that tried to
  leave the machine; it waits until the chart bundle has drawn (or given up on) every chart.

Nothing here contacts any host but 127.0.0.1: the browser is given a dead proxy for every
other host, and every request to another host is recorded and aborted before it is sent.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, DatasetSpec, load_dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Footer, Header, usage_totals
from builder.runs.writer import write_run
from tests.synthetic import write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
CREATED = "2026-01-01T00:00:00Z"
PREFIX = "/buzzprobe/"
LOOPBACK = "127.0.0.1"

CHROMIUM = os.environ.get("BUZZPROBE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Every host but loopback goes to a closed local port, so even a request the page routes did
# not see (a browser-internal one) cannot leave the machine. Chromium never proxies loopback.
DEAD_PROXY = {"server": "http://127.0.0.1:9", "bypass": "127.0.0.1,localhost"}


# --- building ----------------------------------------------------------------------------


def spec_for(rows: int, test: int) -> DatasetSpec:
    return DatasetSpec(rows=rows, split_counts={"train": rows - test, "test": test})


def model_items(dataset: Dataset, seed: int, accuracy: float, rng_seed: int,
                response: Callable[[int, str], str | None] = lambda row_id, letter: f" {letter}.",
                unparsed: Iterable[int] = (), errors: dict[int, str] | None = None,
                split: str | None = None) -> list[Item]:
    """Task 2 items with the official letter maps: right with probability `accuracy`."""
    rng = random.Random(rng_seed)
    sets = option_sets(dataset, seed)
    unparsed, errors = set(unparsed), errors or {}
    items = []
    for row_id in dataset.row_ids(split):
        options = sets[row_id]
        gold = options.gold_letter
        letter = gold if rng.random() < accuracy else rng.choice([x for x in "ABCD" if x != gold])
        if row_id in errors:
            items.append(Item(row_id=row_id, prediction="", letter_map=options.letter_map, error=errors[row_id]))
        elif row_id in unparsed:
            items.append(Item(row_id=row_id, prediction="", letter_map=options.letter_map,
                              response=response(row_id, "?") or "I cannot tell."))
        else:
            items.append(Item(row_id=row_id, prediction=letter, letter_map=options.letter_map,
                              response=response(row_id, letter), latency_ms=12.5,
                              usage={"prompt_tokens": 80, "completion_tokens": 2}))
    return items


def model_header(dataset: Dataset, run_id: str, subject: str, condition: str, seed: int | None,
                 n: int, *, task: str = "equivalent_selection", split: str | None = None,
                 parameters: dict[str, Any] | None = None, tool: dict[str, Any] | None = None) -> Header:
    selection = {"selection": "split", "split": split} if split else {"selection": "all"}
    return Header(
        run_id=run_id, benchmark="cibuzzbench", task=task, condition=condition,
        subject={"kind": "model", "name": subject, "parameters": parameters or {"temperature": 0}},
        option_seed=seed, items={**selection, "n": n},
        dataset={"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
        created=CREATED, tool=tool or {"name": "buzzprobe", "version": "0.1.0"})


def write_model_run(runs_dir: Path, header: Header, items: list[Item],
                    extra_usage: dict[str, int] | None = None) -> Path:
    """A finished run; `extra_usage` is added to the first item's token counts, and the footer
    holds the sum over the items, as a probe writes it (the reader checks that they agree)."""
    if extra_usage:
        items = [replace(items[0], usage={**(items[0].usage or {}), **extra_usage}), *items[1:]]
    path = runs_dir / "models" / f"{header.run_id}.jsonl"
    write_run(path, header, items, Footer(len(items), CREATED, usage_totals(items)))
    return path


def make_inputs(root: Path, rows: list[dict[str, str]], spec: DatasetSpec,
                keep_probe: Callable[[str], bool], variants: tuple[str, ...] = ()) -> tuple[Path, Path, Dataset]:
    """The CSV, a runs/ folder holding the chosen probe runs (also on the named option-set
    variants, e.g. "gold_pool"), and the loaded dataset."""
    csv_path = write_synthetic_csv(root / "data.csv", rows)
    dataset = load_dataset(csv_path, spec)
    every = root / "every"
    generate_probe_runs(dataset, every, CREATED, derive_variants(dataset, variants) if variants else None)
    runs = root / "runs"
    (runs / "probes").mkdir(parents=True)
    for path in sorted(every.glob("*.jsonl")):
        if keep_probe(path.stem):
            shutil.copy(path, runs / "probes" / path.name)
    return csv_path, runs, dataset


# The published address the browser tests pretend to be at; only its path (/buzzprobe/) is
# used by the site (404.html's <base>), matching SubPathServer's prefix.
SITE_URL = "https://example.invalid/buzzprobe/"


def build_site(csv_path: Path, runs: Path, spec: DatasetSpec, out: Path, charts: bool = True) -> Path:
    previous = os.environ.get("BUZZPROBE_SITE_URL")
    os.environ["BUZZPROBE_SITE_URL"] = SITE_URL
    try:
        build(BuildConfig(runs, CONTENT, out, options=cibuzzbench_options(csv_path, spec), force=True, charts=charts))
    finally:
        if previous is None:
            os.environ.pop("BUZZPROBE_SITE_URL", None)
        else:
            os.environ["BUZZPROBE_SITE_URL"] = previous
    return out


def html_pages(site: Path) -> list[str]:
    """Every HTML page of a built site, as a path relative to the site root (posix)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


# --- serving -----------------------------------------------------------------------------


class SubPathServer:
    """Serve `root` at http://127.0.0.1:PORT/buzzprobe/ on a thread; anything else is a 404.

    Like GitHub Pages, a missing file under the prefix answers 404 with the site's own
    404.html as its body (when `pages_404` and the file exists); a directory serves its
    index.html; /buzzprobe redirects to /buzzprobe/.
    """

    def __init__(self, root: Path, prefix: str = PREFIX, pages_404: bool = True):
        self.root, self.prefix, self.pages_404 = Path(root), prefix, pages_404
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any):
                super().__init__(*args, directory=str(server.root), **kwargs)

            def translate_path(self, path: str) -> str:
                clean = urlsplit(path).path
                if clean + "/" == server.prefix:
                    return str(server.root / ".no-such-file")  # handled by do_GET as a redirect
                if not clean.startswith(server.prefix):
                    return str(server.root / ".outside-the-sub-path")
                return super().translate_path("/" + clean[len(server.prefix):])

            def do_GET(self) -> None:
                if urlsplit(self.path).path + "/" == server.prefix:
                    self.send_response(301)
                    self.send_header("Location", server.prefix)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                super().do_GET()

            def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
                page = server.root / "404.html"
                under = urlsplit(self.path).path.startswith(server.prefix)
                if code == 404 and server.pages_404 and under and page.is_file() and self.command == "GET":
                    body = page.read_bytes()
                    self.send_response(404)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                super().send_error(code, message, explain)

            def end_headers(self) -> None:
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="site-server", daemon=True)

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def url(self, relative: str = "") -> str:
        return f"{self.origin}{self.prefix}{relative}"

    def relative(self, url: str) -> str | None:
        """The site path a loopback URL points at, or None when it is outside the sub-path."""
        parts = urlsplit(url)
        if parts.hostname != LOOPBACK or parts.port != self.port or not parts.path.startswith(self.prefix):
            return None
        return unquote(parts.path[len(self.prefix):])

    def __enter__(self) -> "SubPathServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


# --- the browser -------------------------------------------------------------------------


def browser_unavailable(reason: str) -> None:
    """Same policy as the real-data tests: CI must run these tests, elsewhere they may skip."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {reason} "
                    "(pip install -e '.[test]' for playwright; apt-get install chromium)", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


@contextmanager
def launch_chromium() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        browser_unavailable(f"playwright is not installed ({exc})")
    if not Path(CHROMIUM).is_file():
        browser_unavailable(f"no Chromium at {CHROMIUM} (set BUZZPROBE_CHROMIUM)")
    manager = sync_playwright()
    playwright = manager.start()
    try:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                 headless=True, proxy=DEAD_PROXY)
        except Exception as exc:  # noqa: BLE001 - any launch failure means "no usable browser"
            browser_unavailable(f"Chromium at {CHROMIUM} did not start: {exc}")
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@dataclass
class Visit:
    """What the browser saw while loading one page."""

    page_name: str
    console: list[tuple[str, str, str]] = field(default_factory=list)  # (type, text, url:line)
    page_errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)  # requests that tried to leave loopback
    responses: list[tuple[str, int]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, failure)

    @property
    def console_errors(self) -> list[str]:
        return [f"{text} (at {where})" for kind, text, where in self.console if kind == "error"]

    @property
    def bad_responses(self) -> list[str]:
        return [f"{status} {url}" for url, status in self.responses if status >= 400]


def guard_page(page: Any, current: Callable[[], Visit]) -> None:
    """Let only loopback requests through; record and abort every other one, into the visit
    `current` returns at the time (a reused tab's current one)."""

    def handle(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).hostname == LOOPBACK:
            route.continue_()
        else:
            current().external.append(url)
            route.abort("blockedbyclient")

    page.route("**/*", handle)


def watch(page: Any, current: Callable[[], Visit]) -> None:
    """Record what the page reports into the visit `current` returns at the time."""
    page.on("console", lambda m: current().console.append(
        (m.type, m.text, f"{m.location.get('url', '')}:{m.location.get('lineNumber', '')}")))
    page.on("pageerror", lambda e: current().page_errors.append(str(e)))
    page.on("response", lambda r: current().responses.append((r.url, r.status)))
    page.on("requestfailed", lambda r: current().failed.append((r.url, r.failure or "")))
    page.on("websocket", lambda ws: current().external.append(ws.url))


class Tab:
    """A context's reusable page. Opening a page costs more than loading one in it (0.1-0.2 s
    against 0.05-0.15 s here), so visits made one after another share this one; each visit ends
    on about:blank at the context's own viewport, so nothing of one page (a late request or
    console line, a viewport a test set) reaches the next one's record. A visit opened while
    another holds the tab gets a page of its own (open_page)."""

    def __init__(self, context: Any):
        self.page = context.new_page()
        self.viewport = self.page.viewport_size
        self.visit: Visit | None = None
        self.broken = False  # set when the page could not leave a visit: _free_tab makes a new one
        self._idle = Visit("(between visits)")
        watch(self.page, lambda: self.visit or self._idle)
        guard_page(self.page, lambda: self.visit or self._idle)

    def take(self, visit: Visit) -> Any:
        self.visit = visit
        return self.page

    def release(self) -> None:
        """End the visit; a page that cannot leave it (crashed, closed) is closed and not reused."""
        self.visit = None
        try:
            self.page.goto("about:blank")
            if self.viewport is not None and self.page.viewport_size != self.viewport:
                self.page.set_viewport_size(self.viewport)
        except Exception:  # noqa: BLE001 - the test's own failure, if any, is the one to report
            self.broken = True
            self.page.close()
        self._idle = Visit("(between visits)")


def _free_tab(context: Any) -> Tab | None:
    """The context's tab when no visit holds it (made on first use), else None."""
    tab = getattr(context, "buzz_tab", None)
    if tab is None or tab.broken:
        tab = context.buzz_tab = Tab(context)
    return tab if tab.visit is None else None


# Charts stay static until a reader interacts with one (assets/chart-loader.js); a chart that was
# woken is settled once the bundle has drawn it ("live") or given up ("static").
CHARTS_SETTLED = """() => Array.from(document.querySelectorAll('script.vl-spec[data-target]')).every(s => {
  const t = document.getElementById(s.getAttribute('data-target'));
  return !t || t.getAttribute('data-chart') !== 'loading';
})"""
WAKE_CHARTS = """() => Array.from(document.querySelectorAll('script.vl-spec[data-target]')).forEach(s => {
  const t = document.getElementById(s.getAttribute('data-target'));
  if (t) t.dispatchEvent(new PointerEvent('pointerenter'));
})"""


def new_context(browser: Any, *, js: bool = True, **kwargs: Any) -> Any:
    context = browser.new_context(java_script_enabled=js, **kwargs)
    context.buzz_js = js
    return context


@contextmanager
def open_page(context: Any, url: str, name: str, *, chart_wait_ms: int = 8000,
              settle: bool = False, wake: bool = False) -> Iterator[tuple[Any, Visit]]:
    """Load a page with everything recorded; with `wake`, interact with every chart (as a reader
    pointing at it) and wait for the chart bundle to finish its work."""
    visit = Visit(name)
    tab = _free_tab(context)
    if tab is not None:
        page = tab.take(visit)
    else:
        page = context.new_page()
        watch(page, lambda: visit)
        guard_page(page, lambda: visit)
    try:
        page.goto(url, wait_until="load")
        if getattr(context, "buzz_js", True) and page.locator("script.vl-spec").count():
            if wake:
                page.evaluate(WAKE_CHARTS)
            try:
                page.wait_for_function(CHARTS_SETTLED, timeout=chart_wait_ms)
            except Exception:  # noqa: BLE001 - a chart that never settles is reported by the tests
                pass
        if settle:
            page.wait_for_load_state("networkidle")
        yield page, visit
    finally:
        if tab is not None:
            tab.release()
        else:
            page.close()


# --- links -------------------------------------------------------------------------------


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value is not None:
                self.ids.add(value)


@functools.lru_cache(maxsize=8)
def element_ids(html: str) -> frozenset[str]:
    """The ids a link may point at: the page's own, plus the item rows its item browser draws
    (`item-<row_id>` for every item in the run's embedded JSON: the rows' permalinks). Kept for
    the last few pages: a run page links to its own items hundreds of times, and parsing the
    page again for each link was most of the link test's time."""
    parser = _Ids()
    parser.feed(html)
    found = re.search(r'<script type="application/json" id="run-items">(.*?)</script>', html, re.S)
    if found:
        parser.ids |= {f"item-{row[0]}" for row in json.loads(found.group(1))["items"]}
    return frozenset(parser.ids)
