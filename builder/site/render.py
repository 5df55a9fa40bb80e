"""Rendering stage: every file of the site in memory, from the prepared stage — the Markdown
pages (with facts, tables, charts and blocks as shortcodes), the benchmarks' generated pages,
the provenance pages, the data files and the assets; the writer puts them on disk atomically.
Nothing here computes a metric.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment
from markupsafe import Markup

from builder.core.errors import InputError
from builder.core.reported import ReportedTable
from builder.core.textfiles import MAX_DOCUMENT_BYTES, read_input
from builder.site import paging
from builder.site import tables as v
from builder.site.canonical import with_canonical
from builder.site.configuration import PROVENANCE
from builder.site.data_files import data_files
from builder.site.markdown_pages import FactUse, page_functions, render_page_body, source_notes
from builder.site.pages import Page
from builder.site.prepare import Files, Merged, SiteInputs, SiteStage, templates_located
from builder.site.provenance import provenance_pages, relink_facts
from builder.site.reuse import citation_cff
from builder.site.search_index import search_index
from builder.site.shortcodes import Shortcodes, block_html
from builder.site.structured import dataset_jsonld, faq_jsonld, sitemap
from builder.site.whats_new import runs_by_date
from builder.site.catalogue_pages import download_listing


def render_site(stage: SiteStage, generated: Files) -> Files:
    """Every file of the site: the Markdown pages, the benchmarks' `generated` pages, the
    provenance pages, the data files and the assets."""
    with templates_located(stage.inputs.content_dir / "templates"):
        return _render_site(stage, generated)


def _render_site(stage: SiteStage, generated: Files) -> Files:
    inputs, env, merged, common = stage.inputs, stage.env, stage.merged, stage.common
    config, pages, reported = inputs.content.config, inputs.content.pages, inputs.content.reported
    files: Files = {}
    used = FactUse()
    merged = replace(merged, context={**merged.context, "run_downloads": download_listing(inputs.catalogue, generated)})
    for page in pages:
        for name, data in _markdown_page(env, page, inputs, merged, reported, common, used).items():
            if name in files:
                raise InputError.single(page.path, f"{name} is also a part of a long table on another page; "
                                        "give the page another file name")
            files[name] = data
    files.update(generated)
    provenance, moved = provenance_pages(env, inputs, common, used)
    if moved:  # facts whose row is on a later part of the provenance page: their links follow
        for page in pages:
            files[f"{page.slug}.html"] = relink_facts(files[f"{page.slug}.html"], moved)
    for name, data in provenance.items():
        if name in files:
            raise InputError.single(inputs.content_dir / "pages", f"{name} is a part of the provenance page; "
                                    "give the page of that name another file name")
        files[name] = data
    files.update(data_files(inputs, merged))
    files["sitemap.xml"] = sitemap([p.slug for p in pages if p.slug != "404"] + [PROVENANCE], config.get("url", ""))
    for asset in ("style.css", "table-filter.js", "table-sort.js", "site-search.js", "chart-loader.js"):
        files[f"assets/{asset}"] = read_input(inputs.content_dir / "static" / asset, MAX_DOCUMENT_BYTES)
    files["assets/search-index.js"] = search_index(files, config.get("title", ""))
    files["CITATION.cff"] = citation_cff(config, common["version"], common["build_date"])
    files.update(inputs.assets)
    return with_canonical(files, config.get("url") or "")


def _markdown_page(env: Environment, page: Page, inputs: SiteInputs, merged: Merged, reported: ReportedTable,
                   common: dict[str, Any], used: FactUse) -> Files:
    """A page's context: the site's functions and what each benchmark offers pages (its page
    functions, bound to this page's record of the facts it shows, and its context names).
    Returns the page and the further parts of any table too long for it (see paging)."""
    root, use, codes = "", FactUse(), Shortcodes()  # codes: this render's tables, charts and blocks
    charts_used: list[str] = []
    split_tables: list[tuple[v.Table, paging.Split, list[tuple[int, int]]]] = []
    tables, charts = merged.tables, merged.charts
    functions = _functions(inputs, reported, root, use)
    macros = {name: env.get_template(f"{name}.html").make_module({**common, "root": root}) for name in ("table", "chart")}
    render_table: Callable[[Any], Markup] = getattr(macros["table"], "render")  # the template's macro (no stub names it)
    render_chart: Callable[[Any], Markup] = getattr(macros["chart"], "render")

    def table(table_id: str) -> Markup:
        if table_id not in tables:
            raise KeyError(f"unknown table {table_id!r} (known: {', '.join(sorted(tables))})")
        html = render_table(tables[table_id])
        split = paging.split_table(str(html).strip())
        if split is not None:
            bounds = paging.part_bounds(split)
            split_tables.append((tables[table_id], split, bounds))
            pager = paging.pager(page.slug, table_id, bounds, 1)
            html = pager + Markup(split.part(*bounds[0])) + pager
        return codes.add(html, f"table({table_id!r})")

    def chart(chart_id: str) -> Markup:
        if chart_id not in charts:
            raise KeyError(f"unknown chart {chart_id!r} (known: {', '.join(sorted(charts))})")
        charts_used.append(chart_id)
        return codes.add(render_chart(charts[chart_id]), f"chart({chart_id!r})")

    shared = {**merged.context, "prediction_verdicts": inputs.verdicts, "charts": charts}

    def block(name: str, **params: Any) -> Markup:
        template = env.get_template(f"blocks/{name}.html")
        return codes.add(template.render(**common, **shared, **_plain(params), root=root, tables=tables,
                                         table=table, chart=chart, **functions), f"block({name!r})")

    runs = [run for part in inputs.parts.values() for run in part.runs]
    context = {**shared, **functions, "table": table, "chart": chart, "block": block, "facts_table": inputs.facts,
               "runs_added": runs_by_date(runs), "runs_set_aside": inputs.set_aside, "build_date": common["build_date"],
               "has_table": lambda t: t in tables, "has_chart": lambda c: c in charts}
    body = render_page_body(env, page, context, codes)
    used.facts |= use.facts
    files = {f"{page.slug}.html": _page_html(env, page, common, body, use, bool(charts_used))}
    for table_def, split, bounds in split_tables:
        files.update(_table_parts(env, page, common, table_def, split, bounds))
    return files


def _functions(inputs: SiteInputs, reported: ReportedTable, root: str, use: FactUse) -> dict[str, Any]:
    """The site's page functions and each benchmark's, all bound to `use`, this page's record
    of the facts it shows (a benchmark's functions quote facts through the site's `value`)."""
    functions = page_functions(inputs.facts, reported, root, use)
    for part in inputs.parts.values():
        if part.page_functions is not None:
            functions.update(part.page_functions(functions["value"]))
    return functions


def _page_html(env: Environment, page: Page, common: dict[str, Any], body: Markup, use: FactUse,
               has_charts: bool) -> bytes:
    """The rendered body in the page's template, with the sources of its facts and the
    structured data (FAQ or data set) its front matter asks for."""
    kind = page.meta.get("jsonld", "")
    jsonld = (faq_jsonld(str(body)) if kind == "faq" else
              dataset_jsonld(common, page.meta["description"]) if kind == "dataset" else "")
    html = env.get_template(page.meta.get("template", "page.html")).render(
        **common, root="", slug=page.slug, title=page.title, description=page.meta["description"],
        body=body, sources=source_notes(use), jsonld=Markup(jsonld), has_charts=has_charts,
        has_filters="data-filter-columns=" in body,
        base_href=_not_found_base(page, common["site"]))
    return html.encode("utf-8")


def _plain(value: Any) -> Any:
    """A block's parameters as plain data: a block's output is the build's own and is not
    sanitised, so what a page hands it is text (escaped where printed: `|safe` and macro output
    lose their Markup), numbers, lists and mappings; an object (a namespace, a macro) is refused."""
    if isinstance(value, str):
        return str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    raise TypeError(f"a block's parameters are text, numbers, lists and mappings, not {type(value).__name__}")


def _table_parts(env: Environment, page: Page, common: dict[str, Any], table_def: v.Table, split: paging.Split,
                 bounds: list[tuple[int, int]]) -> Files:
    """Parts 2… of a split table, each a page of its own beside the page that shows part 1."""
    files = {}
    for number, (start, stop) in enumerate(bounds[1:], 2):
        name = paging.part_file(page.slug, table_def.id, number)
        pager = paging.pager(page.slug, table_def.id, bounds, number)
        back = Markup('<p>Part {n} of the table on <a href="{slug}.html#{id}">{title}</a>.</p>').format(
            n=number, slug=page.slug, id=table_def.id, title=page.title)
        body = back + block_html(pager + Markup(split.part(start, stop)) + pager)
        html = env.get_template("page.html").render(
            **common, root="", slug=name[:-len(".html")], title=f"{page.title}: {table_def.caption}, part {number}",
            description=f"{table_def.caption}, rows {start + 1:,} to {stop:,} of {bounds[-1][1]:,}.",
            body=body, sources=Markup(""), jsonld=Markup(""), has_charts=False, has_filters=False, base_href="")
        files[name] = html.encode("utf-8")
    return files


def _not_found_base(page: Page, config: dict[str, Any]) -> str:
    """GitHub Pages serves 404.html at the missing address, at any depth, so its relative
    links need a <base>: the site's path, known when the published URL is configured."""
    url = str(config.get("url") or "")
    if page.slug != "404" or not url:
        return ""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"
