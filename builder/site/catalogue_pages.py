"""The pages every run gets from its row (run_catalogue.RunRow), whatever its benchmark: its own
page (header, provenance, scores, the leak split, and an item browser paged like any long table,
builder.site.paging) where its plug-in writes none, and its per-item table as CSV and JSONL.

The item browser shows ids, gold, answer, correctness and leak score only: never a data set's
text (licences differ, and most forbid copying it); the page links to where the text is
published instead. Rows are written as plain HTML without a script, so it reads offline and
without JavaScript."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from builder.site import paging
from builder.site.parts import Files, PageSettings
from builder.site.run_catalogue import ItemRow, RunRow
from builder.site.tables import tables_as_csv
from builder.site.tables_csv import table_csv

TEMPLATE = "catalogue_run.html"
ITEMS_TABLE = "items"  # the item browser's id (and its part pages' infix: runs/<id>-items-<n>.html)
DOWNLOADS = "downloads/runs"  # per-run item tables: <id>.csv and <id>.jsonl
ITEM_COLUMNS = ("item_id", "gold", "answer", "correct", "leak_score")


def item_downloads(row: RunRow) -> dict[str, str]:
    """The site paths of a run's per-item downloads, by format."""
    return {"csv": f"{DOWNLOADS}/{row.run_id}.csv", "jsonl": f"{DOWNLOADS}/{row.run_id}.jsonl"}


def _leak(value: float | None) -> object:
    return "" if value is None else round(value, 6)


def items_csv(items: Iterable[ItemRow]) -> bytes:
    """`item_id,gold,answer,correct,leak_score` per answered item (correct 0/1; leak score to six
    decimals, empty where the benchmark has none)."""
    return table_csv(ITEM_COLUMNS, [(i, g, a, int(c), _leak(s)) for i, g, a, c, s in items])


def items_jsonl(items: Iterable[ItemRow]) -> bytes:
    """The same rows as JSON lines (leak_score null where the benchmark has none)."""
    lines = (json.dumps(dict(zip(ITEM_COLUMNS, (i, g, a, c, None if s is None else round(s, 6)))),
                        ensure_ascii=False, separators=(",", ":")) for i, g, a, c, s in items)
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _item_rows(items: Sequence[ItemRow]) -> tuple[str, ...]:
    """One `<tr>` line per item (escaped text; built directly: 12,000 rows per MMLU-Pro run)."""
    rows = []
    for item_id, gold, answer, correct, leak in items:
        shown = escape(answer) if answer else "(none)"
        score = "–" if leak is None else f"{leak:.3f}"
        rows.append(f'<tr><td>{escape(item_id)}</td><td>{escape(gold)}</td><td>{shown}</td>'
                    f'<td>{"yes" if correct else "no"}</td><td class="num">{score}</td></tr>\n')
    return tuple(rows)


def _item_table(row: RunRow) -> paging.Split:
    """The item browser as a table cut at its rows (the paging module's Split)."""
    links = item_downloads(row)
    head = ('<figure class="table" id="items"><figcaption><a class="anchor" href="#items" title="Link to this '
            f'table">#</a> Items answered, in item order <a class="download" href="../{links["csv"]}">CSV</a> '
            f'<a class="download" href="../{links["jsonl"]}">JSONL</a></figcaption>\n<div class="scroll">\n<table>\n'
            '<thead><tr><th scope="col">Item id</th><th scope="col">Gold</th><th scope="col">Answer</th>'
            '<th scope="col">Correct</th><th scope="col" class="num">Leak score</th></tr></thead>\n<tbody>\n')
    tail = ('</tbody>\n</table>\n</div>\n<p class="note">Gold and answer are letters in the order the run showed '
            'the options; leak score: the probability the benchmark\'s cross-fitted choices-only probe gives the '
            'gold (– where the benchmark has none). No item text is shown here.</p>\n</figure>\n')
    return paging.Split(head, row.derived("catalogue-item-rows", lambda: _item_rows(row.items_of())), tail)


def run_page_files(settings: PageSettings, row: RunRow) -> Files:
    """runs/<id>.html with the first part of its items, and one page per further part."""
    if not row.has_items:
        return _page(settings, row, 1, Markup("<p>This benchmark's answers are not one letter per item, so the "
                                               "run has no item table here; its metrics are above.</p>"))
    split = _item_table(row)
    bounds = paging.part_bounds(split) if split.rows else [(0, 0)]
    files: Files = {}
    for number, (start, stop) in enumerate(bounds, 1):
        pager = paging.pager(row.run_id, ITEMS_TABLE, bounds, number) if len(bounds) > 1 else Markup("")
        files.update(_page(settings, row, number, pager + Markup(split.part(start, stop)) + pager))
    return files


def _page(settings: PageSettings, row: RunRow, number: int, items: Markup) -> Files:
    """Part `number` of a run's page (part 1 is runs/<id>.html, with the header and scores)."""
    name = paging.part_file(row.run_id, ITEMS_TABLE, number)
    title = f"Run {row.run_id}" + ("" if number == 1 else f": items, part {number}")
    html = settings.env.get_template(TEMPLATE).render(
        **settings.common, root="../", slug="runs", title=title, row=row, part=number, items=items,
        description=f"{row.benchmark_title}: {row.subject}'s run {row.run_id}: provenance, scores with intervals, "
                    "the leak split and its answers item by item.",
        tables=row.tables if number == 1 else (), downloads=item_downloads(row) if row.has_items else {})
    return {f"runs/{name}": html.encode("utf-8"), **(tables_as_csv(list(row.tables)) if number == 1 else {})}


def catalogue_pages(settings: PageSettings, rows: Sequence[RunRow]) -> Files:
    """Every run's downloads, and a page for every run whose plug-in writes none."""
    files: Files = {}
    for row in rows:
        links = item_downloads(row)
        if row.has_items:
            files[links["csv"]] = row.derived("catalogue-csv", lambda: items_csv(row.items_of()))
            files[links["jsonl"]] = row.derived("catalogue-jsonl", lambda: items_jsonl(row.items_of()))
        if not row.page:
            files.update(run_page_files(settings, row))
    return files


def download_listing(rows: Sequence[RunRow], files: Mapping[str, Any]) -> dict[str, Any]:
    """What downloads.html lists beyond the tables: every leak CSV the build wrote (`leak/`) and
    each run's item tables, grouped by benchmark."""
    leak = sorted(name for name in files if name.startswith("leak/") and name.endswith(".csv"))
    by_benchmark: dict[str, list[dict[str, str]]] = {}
    for row in sorted((r for r in rows if r.has_items), key=lambda r: (r.benchmark_title, r.run_id)):
        by_benchmark.setdefault(row.benchmark_title, []).append({"run_id": row.run_id, "href": row.href,
                                                                 **item_downloads(row)})
    return {"leak_files": leak, "run_files": sorted(by_benchmark.items())}
