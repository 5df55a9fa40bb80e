"""The findings on a phone (issue 32 item 3): at 390 × 844 px the front page's headline and its
findings are on the first screen, below a folded menu, and a benchmark page's summary is too.
Built from test_reader_findings' site (the real content plus a SYNTHETIC spec'd benchmark with
two models), served under a sub-path; skips without playwright or Chromium, fails under CI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import SubPathServer, launch_chromium, new_context, open_page
from tests.test_mcq_probe import NAME
from tests.test_reader_findings import two_models  # noqa: F401 (the module's site fixture)

PHONE = {"width": 390, "height": 844}

FIRST_SCREEN = """(selectors) => {
  const header = document.querySelector('header.site').getBoundingClientRect();
  const found = selectors.map(s => {
    const el = document.querySelector(s);
    if (!el) return {selector: s, missing: true};
    const r = el.getBoundingClientRect();
    return {selector: s, top: r.top, bottom: r.bottom, height: r.height};
  });
  return {header: header.height, viewport: window.innerHeight, found,
          sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1};
}"""


@pytest.fixture(scope="module")
def browser() -> Any:
    with launch_chromium() as chromium:
        yield chromium


def _first_screen(browser: Any, site: Path, name: str, selectors: list[str]) -> dict[str, Any]:
    with SubPathServer(site) as server:
        context = new_context(browser, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        try:
            with open_page(context, server.url(name), name) as (page, visit):
                layout: dict[str, Any] = page.evaluate(FIRST_SCREEN, selectors)
                assert not visit.external and not visit.page_errors, (visit.external, visit.page_errors)
        finally:
            context.close()
    return layout


def _assert_on_first_screen(layout: dict[str, Any]) -> None:
    assert layout["header"] < 110, layout  # the menu is folded: the navigation does not eat the screen
    assert not layout["sideways"], layout
    for el in layout["found"]:
        assert not el.get("missing"), el
        assert 0 <= el["top"] and el["bottom"] <= layout["viewport"], el


def test_phone_index_shows_the_headline_and_findings_on_the_first_screen(two_models: Path, browser: Any) -> None:  # noqa: F811
    _assert_on_first_screen(_first_screen(browser, two_models, "index.html",
                                          ["main h1", "p.headline", "ol.findings"]))


def test_phone_benchmark_page_shows_its_findings_on_the_first_screen(two_models: Path, browser: Any) -> None:  # noqa: F811
    _assert_on_first_screen(_first_screen(browser, two_models, f"benchmarks/{NAME}.html",
                                          ["main h1", "section.findings"]))
