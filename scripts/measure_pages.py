"""Measure a built site as a reader's browser sees it (issue 32): for each page, at 1280 and
390 px, the tables wider than their box (and those cut with no scroll cue), the charts clipped
by their column, and whether the page itself scrolls sideways; then, at 4x CPU throttling
(Chrome DevTools' "4x slowdown"), the load time (loadEventEnd) and the bytes the page loaded.

    python scripts/measure_pages.py SITE [--shots DIR] [PAGE ...]

Without PAGE, every page outside runs/ is measured and the totals are printed. Needs
playwright and Chromium, as the browser tests do (tests/browser_support.py); the site is served
on 127.0.0.1 under /buzzprobe/ and every other host is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser_support import SubPathServer, Visit, guard_page, launch_chromium, new_context  # noqa: E402

WIDTHS = ((1280, 900), (390, 844))
COUNT = """() => {
  const de = document.documentElement;
  const tables = Array.from(document.querySelectorAll('table'));
  let overflow = 0, cut = 0, clipped = 0, charts = 0;
  for (const t of tables) {
    const box = t.closest('.scroll') || t.parentElement;
    if (t.getBoundingClientRect().width === 0) continue;
    const wide = t.scrollWidth > box.clientWidth + 1;
    if (wide || t.getBoundingClientRect().right > de.clientWidth + 1) overflow++;
    if (wide && !box.matches('[data-scroll]')) cut++;  // wider than its box, and no cue
  }
  for (const svg of document.querySelectorAll('figure.chart .chart-body svg')) {
    const r = svg.getBoundingClientRect();
    if (r.width === 0 || svg.parentElement.closest('.chart-pending')) continue;
    charts++;
    const col = svg.closest('figure').getBoundingClientRect();
    if (r.right > col.right + 1 || r.left < col.left - 1 || r.right > de.clientWidth + 1) clipped++;
  }
  return {tables: tables.length, overflow, cut, charts, clipped,
          pageScroll: de.scrollWidth > de.clientWidth + 1 ? 1 : 0};
}"""
LOAD = "() => performance.getEntriesByType('navigation')[0].loadEventEnd"


def layout(browser: Any, server: SubPathServer, pages: list[str], shots: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for width, height in WIDTHS:
        context = new_context(browser, viewport={"width": width, "height": height})
        for name in pages:
            page = context.new_page()
            guard_page(page, Visit(name))
            page.goto(server.url(name), wait_until="load")
            page.wait_for_timeout(500)
            out.setdefault(name, {})[width] = page.evaluate(COUNT)
            if shots:
                page.screenshot(path=str(shots / f"{name.replace('/', '_')}-{width}.png"))
            page.close()
        context.close()
    return out


def throttled(browser: Any, server: SubPathServer, pages: list[str], out: dict[str, Any]) -> None:
    context = new_context(browser, viewport={"width": 1280, "height": 900})
    for name in pages:
        page = context.new_page()
        visit = Visit(name)
        guard_page(page, visit)
        responses: list[Any] = []
        page.on("response", lambda response: responses.append(response))
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
        page.goto(server.url(name), wait_until="load")
        out[name]["load_ms"] = round(page.evaluate(LOAD))
        out[name]["weight_kb"] = round(sum(len(r.body()) for r in responses if r.ok) / 1024)
        out[name]["external"] = visit.external
        page.close()
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("pages", nargs="*")
    parser.add_argument("--shots", type=Path)
    args = parser.parse_args()
    pages = args.pages or sorted(p.relative_to(args.site).as_posix() for p in args.site.rglob("*.html")
                                 if p.relative_to(args.site).parts[0] != "runs")
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    with SubPathServer(args.site) as server, launch_chromium() as browser:
        out = layout(browser, server, pages, args.shots)
        if args.pages:
            throttled(browser, server, pages, out)
    for name, row in out.items():
        print(name, json.dumps(row))
    if not args.pages:
        totals = {w: {k: sum(row[w][k] for row in out.values()) for k in out[pages[0]][w]} for w, _ in WIDTHS}
        print("total over", len(pages), "pages:", json.dumps(totals))


if __name__ == "__main__":
    main()
