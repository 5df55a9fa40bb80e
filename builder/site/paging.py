"""Long tables split over pages, so that no page outgrows what a browser loads comfortably.

A table whose HTML is at most SPLIT_ABOVE characters is shown whole, exactly as before
(the committed corpus's largest, the runs index, is about 240,000); a longer one shows its
first part where the page places it, with a pager, and every further part gets a page of its
own (`<page>-<table>-<n>.html`, beside the page, so every link stays relative). Parts hold
whole rows and about PART_SIZE characters each; the header, caption, note and full CSV
download stay on every part, so every row (and every run it links) is reachable by links and
no value loses its provenance. The split works on the rendered HTML (rows are `<tr>` lines),
so a table is rendered once however it is paged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup

SPLIT_ABOVE = 256_000  # characters of table HTML: longer tables are split
PART_SIZE = 100_000  # characters of rows per part (whole rows; at least one)
_ROW = re.compile(r"(?=<tr[ >])")


@dataclass(frozen=True)
class Split:
    """A rendered table cut at its rows: head + rows[a:b] + tail is the table's part."""

    head: str
    rows: tuple[str, ...]
    tail: str

    def part(self, start: int, stop: int) -> str:
        return self.head + "".join(self.rows[start:stop]) + self.tail


def split_table(html: str) -> Split | None:
    """The table's rows, or None when it is short enough to show whole."""
    html = str(html)  # plain text: Markup would escape the pieces joined back
    if len(html) <= SPLIT_ABOVE:
        return None
    start, stop = html.find("<tbody>\n"), html.rfind("</tbody>")
    if start < 0 or stop < start:
        return None
    start += len("<tbody>\n")
    first = html.find("<tr", start, stop)
    if first < 0 or html[start:first].strip():
        return None
    rows = tuple(r for r in _ROW.split(html[first:stop]) if r)  # cell text is escaped: "<tr" only opens rows
    if len(rows) < 2:
        return None
    start = first
    return Split(html[:start], rows, html[stop:])


def part_bounds(split: Split) -> list[tuple[int, int]]:
    """[(first row, end row)] of each part: whole rows, each part about PART_SIZE characters."""
    bounds, start, size = [], 0, 0
    for i, row in enumerate(split.rows):
        if i > start and size + len(row) > PART_SIZE:
            bounds.append((start, i))
            start, size = i, 0
        size += len(row)
    bounds.append((start, len(split.rows)))
    return bounds


def part_file(page_slug: str, table_id: str, number: int) -> str:
    """Part 1 is on the page itself; part n > 1 has its own page beside it."""
    return f"{page_slug}.html" if number == 1 else f"{page_slug}-{table_id}-{number}.html"


def pager(page_slug: str, table_id: str, bounds: list[tuple[int, int]], current: int, anchor: bool = True) -> Markup:
    """Links to every part of the table (to the table's own anchor on part 1 if `anchor`), the
    current one marked; plain links, no script."""
    total = bounds[-1][1]
    links = []
    for number, (start, stop) in enumerate(bounds, 1):
        label = f"rows {start + 1:,}–{stop:,}"
        if number == current:
            links.append(Markup('<li aria-current="page">{}</li>').format(label))
        else:
            href = part_file(page_slug, table_id, number) + (f"#{table_id}" if number == 1 and anchor else "")
            links.append(Markup('<li><a href="{}">{}</a></li>').format(href, label))
    return Markup('<nav class="pager" aria-label="Parts of the table {id}"><p>This table has {total} rows '
                  'in {parts} parts; the CSV link holds all of them.</p><ul>{links}</ul></nav>').format(
        id=table_id, total=f"{total:,}", parts=len(bounds), links=Markup("").join(links))


__all__ = ["PART_SIZE", "SPLIT_ABOVE", "Split", "pager", "part_bounds", "part_file", "split_table"]
