"""The pages every run gets from its row (run_catalogue.RunRow), whatever its benchmark: its own
page (header, provenance, scores, the leak split, and an item browser paged like any long table,
builder.site.paging) where its plug-in writes none, and its per-item table as CSV and JSONL.

The item browser shows ids, gold, answer, correctness and leak score only: never a data set's
text (licences differ, and most forbid copying it); the page links to where the text is
published instead. Rows are written as plain HTML without a script, so it reads offline and
without JavaScript."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import replace
from functools import lru_cache
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from markupsafe import Markup, escape

from builder.core.workers import ordered_map
from builder.site import paging
from builder.site.incremental import Kept, context_key, filled, keepable, reusable_context
from builder.runs.writer import compact_json
from builder.site.parts import Files, PageSettings
from builder.site.run_catalogue import ItemRow, RunRow
from builder.site.tables import tables_as_csv
from builder.site.tables_csv import cells_csv, text_cell

TEMPLATE = "catalogue_run.html"
ITEMS_TABLE = "items"  # the item browser's id (and its part pages' infix: runs/<id>-items-<n>.html)
DOWNLOADS = "downloads/runs"  # per-run item tables: <id>.csv and <id>.jsonl
ITEM_COLUMNS = ("item_id", "gold", "answer", "correct", "leak_score")
CSV, JSONL = "catalogue-csv", "catalogue-jsonl"  # their run-cache names
ITEM_ROWS = "item-rows"  # the browser's rows, made by workers for the pages rendered afresh
PAGES = "catalogue-pages"  # the run-cache name of a run's kept pages (with what they read)
T = TypeVar("T")
Made = dict[tuple[int, str], Any]  # values of runs' items by (id of the row, cache name)


def item_downloads(row: RunRow) -> dict[str, str]:
    """The site paths of a run's per-item downloads, by format."""
    return {"csv": f"{DOWNLOADS}/{row.run_id}.csv", "jsonl": f"{DOWNLOADS}/{row.run_id}.jsonl"}


def items_csv(items: Iterable[ItemRow]) -> bytes:
    """`item_id,gold,answer,correct,leak_score` per answered item (correct 0/1; leak score to six
    decimals, empty where the benchmark has none): table_csv's cells, each column written by its type."""
    return cells_csv(ITEM_COLUMNS, [(text_cell(str(i)), text_cell(str(g)), text_cell(str(a)), "1" if c else "0",
                                     "" if s is None else repr(round(s, 6))) for i, g, a, c, s in items])


def items_jsonl(items: Iterable[ItemRow]) -> bytes:
    """The same rows as JSON lines (leak_score null where the benchmark has none); each line what
    json.dumps of the row's object writes (compact, UTF-8), its strings encoded once per process."""
    lines = (f'{{"item_id":{_json_text(i)},"gold":{_json_text(g)},"answer":{_json_text(a)},'
             f'"correct":{_json_value(c)},"leak_score":{_json_value(None if s is None else round(s, 6))}}}\n'
             for i, g, a, c, s in items)
    return "".join(lines).encode("utf-8")


_json_text = lru_cache(maxsize=1 << 16)(compact_json)  # item ids and letters recur in every run of a benchmark
_JSON_CONSTANTS = {True: "true", False: "false", None: "null"}


def _json_value(value: object) -> str:
    """compact_json(value) for a flag, None or a number, without the encoder's per-call set-up."""
    if value is None or value is True or value is False:
        return _JSON_CONSTANTS[value]
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)  # what the encoder writes for a finite float
    return compact_json(value)


def _item_rows(items: Sequence[ItemRow]) -> tuple[str, ...]:
    """One `<tr>` line per item (escaped text; built directly: 12,000 rows per MMLU-Pro run)."""
    rows = []
    for item_id, gold, answer, correct, leak in items:
        shown = _escaped(answer) if answer else "(none)"
        score = "–" if leak is None else f"{leak:.3f}"
        rows.append(f'<tr><td>{_escaped(item_id)}</td><td>{_escaped(gold)}</td><td>{shown}</td>'
                    f'<td>{"yes" if correct else "no"}</td><td class="num">{score}</td></tr>\n')
    return tuple(rows)


@lru_cache(maxsize=1 << 16)
def _escaped(text: str) -> str:
    """escape(text) as plain text, kept per process: ids and letters recur in every run of a benchmark."""
    return str(escape(text))


def _item_table(row: RunRow, made: Made) -> paging.Split:
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
    rows = made.get((id(row), ITEM_ROWS))  # rendered afresh only: the kept pages hold them
    return paging.Split(head, _item_rows(row.items_of()) if rows is None else rows, tail)


def run_page_files(settings: PageSettings, row: RunRow, made: Made | None = None) -> Files:
    """runs/<id>.html with the first part of its items, and one page per further part; `made`:
    values of the run's items already computed (catalogue_pages' workers)."""
    if not row.has_items:
        return _page(settings, row, 1, Markup("<p>This benchmark's answers are not one letter per item, so the "
                                               "run has no item table here; its metrics are above.</p>"))
    split = _item_table(row, made or {})
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
    """Every run's downloads, and a page for every run whose plug-in writes none: kept in the
    run cache between builds (builder/site/incremental.py) under a name of all they read."""
    files: Files = {}
    context = context_key(settings.common, settings.env)
    pages = {id(row): _pages_name(row, settings.common, context) for row in rows if not row.page}
    made = _made_in_workers(rows, pages)
    for row in rows:
        links = item_downloads(row)
        if row.has_items:
            files[links["csv"]] = _value(row, CSV, made, lambda: items_csv(row.items_of()))
            files[links["jsonl"]] = _value(row, JSONL, made, lambda: items_jsonl(row.items_of()))
        if not row.page:
            files.update(_kept_run_pages(settings, row, pages[id(row)], made))
    return files


def _kept_run_pages(settings: PageSettings, row: RunRow, name: str, made: Made) -> Files:
    """run_page_files, rendered with placeholders for the values any build may change (the
    footer's) and only its tables' facts readable, kept cut at the placeholders, and filled."""
    own = _fact_keys(row)

    def render() -> Kept:
        return keepable(run_page_files(replace(settings, common=reusable_context(settings.common, own)), row, made))
    return filled(row.derived(name, render), settings.common)


def _pages_name(row: RunRow, common: Mapping[str, Any], context: str) -> str:
    """The run-cache name of a run's kept pages: besides the templates and the site's stable
    context (`context`), every value of its row (its tables, tie group, provenance...) and the
    computation of each fact its tables show (the cells' tooltips)."""
    provenance = common.get("provenance", {})
    fields = [(f.name, getattr(row, f.name)) for f in dataclasses.fields(row) if f.compare]
    computations = [(key, provenance[key].computation) for key in sorted(_fact_keys(row)) if key in provenance]
    digest = hashlib.sha256(repr((fields, computations)).encode("utf-8")).hexdigest()[:32]
    return f"{PAGES}:{context}:{digest}"


def _fact_keys(row: RunRow) -> frozenset[str]:
    return frozenset(cell.key for table in row.tables for cells in table.rows for cell in cells if cell.key)


class _Absent(Exception):
    """Raised by the probe of a value the run cache does not hold."""


def _absent() -> Any:
    raise _Absent


def _lacks(row: RunRow, name: str) -> bool:
    """Whether the row's cache lacks `name` (asked with a computation that raises: nothing is kept)."""
    try:
        row.derived(name, _absent)
    except _Absent:
        return True
    return False


def _made_in_workers(rows: Sequence[RunRow], pages: Mapping[int, str]) -> Made:
    """The item downloads, and the browser rows of pages to render, that the run cache lacks
    (every run's, on a cold build: 12,000 rows per MMLU-Pro run, three ways), made in worker
    processes (builder.core.workers), each a function of its row alone; by (row, name)."""
    todo = [(row, names) for row in rows if row.has_items and (names := _lacking(row, pages.get(id(row))))]
    made: Made = {}
    for (row, _), values in zip(todo, ordered_map(_item_values, todo)):
        made.update(((id(row), name), value) for name, value in values.items())
    return made


def _lacking(row: RunRow, page: str | None) -> tuple[str, ...]:
    """What of the row's item values a build must make: downloads the cache lacks, and the
    browser rows when its pages are to be rendered afresh (`page`: their name, None if none)."""
    return (*(name for name in (CSV, JSONL) if _lacks(row, name)),
            *((ITEM_ROWS,) if page is not None and _lacks(row, page) else ()))


def _item_values(task: tuple[RunRow, tuple[str, ...]]) -> dict[str, Any]:
    row, names = task
    items = row.items_of()
    makers = {CSV: items_csv, JSONL: items_jsonl, ITEM_ROWS: _item_rows}
    return {name: makers[name](items) for name in names}


def _value(row: RunRow, name: str, made: Made, compute: Callable[[], T]) -> T:
    """row.derived(name, compute), with the value a worker made when there is one."""
    found = made.get((id(row), name))
    return row.derived(name, compute if found is None else lambda: found)


def download_listing(rows: Sequence[RunRow], files: Mapping[str, Any]) -> dict[str, Any]:
    """What downloads.html lists beyond the tables: every leak CSV the build wrote (`leak/`) and
    each run's item tables, grouped by benchmark."""
    leak = sorted(name for name in files if name.startswith("leak/") and name.endswith(".csv"))
    by_benchmark: dict[str, list[dict[str, str]]] = {}
    for row in sorted((r for r in rows if r.has_items), key=lambda r: (r.benchmark_title, r.run_id)):
        by_benchmark.setdefault(row.benchmark_title, []).append({"run_id": row.run_id, "href": row.href,
                                                                 **item_downloads(row)})
    return {"leak_files": leak, "run_files": sorted(by_benchmark.items())}
