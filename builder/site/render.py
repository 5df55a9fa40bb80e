"""Assemble every file of the site in memory; the writer puts them on disk atomically.

Pages are Markdown from content/pages (with facts, tables, charts and blocks as
shortcodes) plus pages generated per run; nothing here computes a metric.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from urllib.parse import urlsplit
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from builder import __version__
from builder.site.parts import PageSettings, RunBrief, SiteParts
from builder.site.run_catalogue import RunRow
from builder.claims.engine import PredictionVerdict
from builder.core.errors import InputError, Problem, gather
from builder.core.facts import FactTable
from builder.core.names import fact_anchor, name_problem
from builder.core.reported import ReportedTable, load_reported
from builder.core.textfiles import MAX_DOCUMENT_BYTES, read_input
from builder.site import paging
from builder.site import tables as v
from builder.site.environment import located_template_error, make_environment, plain_datum
from builder.site.markdown_pages import FactUse, page_functions, render_page_body, source_notes
from builder.site.pages import Page, load_pages
from builder.site.shortcodes import Shortcodes, block_html
from builder.site.tables import tables_as_csv
from builder.site.tables_csv import FULL_PRECISION, table_csv
from builder.site.structured import dataset_jsonld, faq_jsonld, sitemap
from builder.site.svg_file import standalone_svg
from builder.site.reuse import citation_cff, repository_url
from builder.site.search_index import search_index
from builder.core.yamlfile import line_of, load_mapping, web_link_problem

Files = dict[str, bytes]
SITE_FIELDS = ("title", "tagline", "url", "nav", "repository", "licence")
PROVENANCE = "provenance"  # the generated page every fact links to
GENERATED_PAGES = (PROVENANCE,)
CATALOGUE = "~site"  # the key of the site's own part among the benchmarks' (no benchmark name has "~")
# A fact drawn from more runs than this names them only in provenance.json, not on the
# provenance page (a fact over every run of a 1,000-run corpus would add 100 KB per fact).
# Above the committed corpus's run count, so its page lists every run, as it always did.
PROVENANCE_RUNS_LISTED = 200


@dataclass(frozen=True)
class SiteContent:
    """The site's own content, read and checked once, before anything is computed, so a
    problem in site.yaml, a page or reported.yaml stops the build before the heavy stages."""

    content_dir: Path
    config: dict[str, Any]  # site.yaml, checked
    pages: list[Page]  # content/pages, names checked
    reported: ReportedTable  # content/reported.yaml


def load_site_content(content_dir: Path, site_url: str = "") -> SiteContent:
    """site.yaml, the pages and reported.yaml; every problem of the three at once."""
    loaders = (lambda: load_site_config(content_dir, site_url), lambda: _checked_pages(content_dir / "pages"),
               lambda: load_reported(content_dir / "reported.yaml"))
    config, pages, reported = gather(loaders, lambda load: load())
    return SiteContent(content_dir, config, pages, reported)


def _checked_pages(folder: Path) -> list[Page]:
    pages = load_pages(folder)
    _check_page_names(pages)
    return pages


@dataclass(frozen=True)
class SiteInputs:
    facts: FactTable
    parts: dict[str, SiteParts]  # by benchmark name
    content: SiteContent
    verdicts: list[PredictionVerdict]  # the falsification tracker (content/predictions.yaml)
    build_date: dt.date
    assets: dict[str, bytes] = field(default_factory=dict)  # extra files, e.g. the chart bundle
    cache_dir: Path | None = None  # where compiled templates are kept between builds (None: nowhere)
    set_aside: tuple[Any, ...] = ()  # runs read but not scored (runs.load.SetAside: id, file, reason)
    catalogue: tuple[RunRow, ...] = ()  # every run of every benchmark (Benchmark.run_rows)

    @property
    def content_dir(self) -> Path:
        return self.content.content_dir


@dataclass(frozen=True)
class SiteStage:
    """What every page shares, prepared once: the template environment, the benchmarks' parts
    side by side and the site-wide context. The pipeline hands `page_settings` to each
    benchmark for its generated pages, then gives them to `render_site`: nothing here calls
    back into the pipeline."""

    inputs: SiteInputs
    env: Environment
    merged: "Merged"
    common: dict[str, Any]

    @property
    def page_settings(self) -> PageSettings:
        return PageSettings(self.env, self.common, self.inputs.build_date, self.merged.charts)

    def located(self) -> AbstractContextManager[None]:
        """Around rendering with this stage's templates: an error inside one is reported with
        its file and line (the benchmarks' generated pages are rendered under it too)."""
        return _located(self.inputs.content_dir / "templates")


@dataclass(frozen=True)
class Merged:
    """The benchmarks' parts side by side; a table, chart or context name two of them use is an error."""

    tables: dict[str, v.Table]
    charts: dict[str, Any]
    context: dict[str, Any]


def merge_parts(parts: dict[str, SiteParts]) -> Merged:
    merged = Merged({}, {}, {})
    owner: dict[tuple[str, str], str] = {}
    for name, part in sorted(parts.items()):
        for kind, source, target in (("table", part.tables, merged.tables), ("chart", part.charts, merged.charts),
                                     ("page context name", part.context, merged.context)):
            for key, value in source.items():
                if (kind, key) in owner:
                    raise ValueError(f"{kind} {key!r} is defined by both {owner[kind, key]} and {name}")
                owner[kind, key] = name
                target[key] = value
    return merged


def load_site_config(content_dir: Path, site_url: str = "") -> dict[str, Any]:
    """site.yaml, checked: every problem is reported with its line, all at once."""
    path = content_dir / "site.yaml"
    config, lines = load_mapping(path)
    problems = [Problem(str(path), f"unknown field (known: {', '.join(SITE_FIELDS)})", line_of(lines, (k,)), str(k))
                for k in config if k not in SITE_FIELDS]
    for key in ("title", "tagline"):
        if not isinstance(config.get(key), str):
            problems.append(Problem(str(path), "expected text", line_of(lines, (key,)), key))
    for key in ("repository", "licence"):
        value = config.setdefault(key, "") or ""
        if not isinstance(value, str) or (key == "repository" and value and web_link_problem(value)):
            problems.append(Problem(str(path), "expected text (repository: an http(s) link, or empty)",
                                    line_of(lines, (key,)), key))
    if site_url:
        config["url"] = site_url
    url = config.get("url") or ""
    if url and (not isinstance(url, str) or web_link_problem(url) or not urlsplit(url).netloc):
        where = "BUZZPROBE_SITE_URL" if site_url else str(path)
        problems.append(Problem(where, "the published address must be an absolute http(s) URL, or empty",
                                None if site_url else line_of(lines, ("url",)), "url"))
    nav = config.get("nav") or []
    if not isinstance(nav, list):
        problems.append(Problem(str(path), "expected a list of {page, label}", line_of(lines, ("nav",)), "nav"))
        nav = []
    for i, item in enumerate(nav):
        where = line_of(lines, ("nav", i))
        if not isinstance(item, dict) or set(item) != {"page", "label"} or not isinstance(item["label"], str):
            problems.append(Problem(str(path), "a menu entry is {page: <page name>, label: <text>}", where, f"nav[{i}]"))
        elif problem := name_problem(item["page"], "page name"):
            problems.append(Problem(str(path), problem, where, f"nav[{i}].page"))
    if problems:
        raise InputError(problems)
    config["repository"] = repository_url(config["repository"], os.environ)
    return config


@contextmanager
def _located(templates: Path) -> Iterator[None]:
    """An error inside a template is reported with its file and line."""
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        located = located_template_error(exc, templates)
        if located is None:
            raise
        raise located from exc


def prepare_site(inputs: SiteInputs) -> SiteStage:
    """The environment, the merged parts and the common context every page is rendered with."""
    with _located(inputs.content_dir / "templates"):
        env = make_environment(inputs.content_dir / "templates", inputs.cache_dir)
        return SiteStage(inputs, env, merge_parts(_with_catalogue(inputs)), _common_context(inputs, inputs.content.config))


def _with_catalogue(inputs: SiteInputs) -> dict[str, SiteParts]:
    """The benchmarks' parts and the site's own tables over every benchmark's runs."""
    from builder.site.catalogue_tables import catalogue_tables
    from builder.site.model_names import RULE
    shared = SiteParts(tables=catalogue_tables(inputs.catalogue, inputs.facts), context={"model_rule": RULE})
    return {**inputs.parts, CATALOGUE: shared}


def render_site(stage: SiteStage, generated: Files) -> Files:
    """Every file of the site: the Markdown pages, the benchmarks' `generated` pages, the
    provenance pages, the data files and the assets."""
    with _located(stage.inputs.content_dir / "templates"):
        return _render_site(stage, generated)


def _render_site(stage: SiteStage, generated: Files) -> Files:
    inputs, env, merged, common = stage.inputs, stage.env, stage.merged, stage.common
    config, pages, reported = inputs.content.config, inputs.content.pages, inputs.content.reported
    files: Files = {}
    used = FactUse()
    from builder.site.catalogue_pages import download_listing
    merged = replace(merged, context={**merged.context, "run_downloads": download_listing(inputs.catalogue, generated)})
    for page in pages:
        for name, data in _markdown_page(env, page, inputs, merged, reported, common, used).items():
            if name in files:
                raise InputError.single(page.path, f"{name} is also a part of a long table on another page; "
                                        "give the page another file name")
            files[name] = data
    files.update(generated)
    provenance, moved = _provenance_pages(env, inputs, common, used)
    if moved:  # facts whose row is on a later part of the provenance page: their links follow
        for page in pages:
            files[f"{page.slug}.html"] = _relink_facts(files[f"{page.slug}.html"], moved)
    for name, data in provenance.items():
        if name in files:
            raise InputError.single(inputs.content_dir / "pages", f"{name} is a part of the provenance page; "
                                    "give the page of that name another file name")
        files[name] = data
    files.update(_data_files(inputs, merged))
    files["sitemap.xml"] = sitemap([p.slug for p in pages if p.slug != "404"] + [PROVENANCE], config.get("url", ""))
    for asset in ("style.css", "table-filter.js", "table-sort.js", "site-search.js", "chart-loader.js"):
        files[f"assets/{asset}"] = read_input(inputs.content_dir / "static" / asset, MAX_DOCUMENT_BYTES)
    files["assets/search-index.js"] = search_index(files, config.get("title", ""))
    files["CITATION.cff"] = citation_cff(config, common["version"], common["build_date"])
    files.update(inputs.assets)
    return files


def _check_page_names(pages: list[Page]) -> None:
    """A page's file name is a name (it becomes a URL), and not one the build writes itself:
    content/pages/provenance.md would otherwise be replaced without a word."""
    problems = []
    for page in pages:
        problem = name_problem(page.slug, "page name")
        if problem is None and page.slug in GENERATED_PAGES:
            problem = f"{page.slug}.html is generated by the build; give the page another file name"
        if problem is not None:
            problems.append(Problem(str(page.path), problem, None, "file name"))
    if problems:
        raise InputError(problems)


def _common_context(inputs: SiteInputs, config: dict[str, Any]) -> dict[str, Any]:
    runs = [run for part in inputs.parts.values() for run in part.runs]
    return {
        "site": config, "version": __version__, "build_date": inputs.build_date.isoformat(),
        "data_sources": [s for _, part in sorted(inputs.parts.items()) for s in part.sources],
        "provenance": inputs.facts.provenance, "run_count": len(runs), "canonical": "",
        "newest_run": newest_run_date(runs), "complete_run_count": sum(run.complete for run in runs),
        "run_ids": frozenset(run.run_id for run in runs if run.has_page),  # runs with a page to link
    }


def runs_by_date(runs: list[RunBrief]) -> list[dict[str, Any]]:
    """The "What's new" list: runs grouped by the day their own header says they were created
    (an imported run: its source file's commit date, when the import recorded it), newest day
    first (ids sorted within a day)."""
    days: dict[str, list[RunBrief]] = {}
    for run in runs:
        days.setdefault((run.source_date or run.created)[:10], []).append(run)
    out = []
    for day in sorted(days, reverse=True):
        runs_of_day = sorted(days[day], key=lambda r: r.run_id)
        out.append({"date": day, "runs": runs_of_day, "models": [r for r in runs_of_day if r.kind != "probe"],
                    "probes": [r for r in runs_of_day if r.kind == "probe"]})
    return out


def newest_run_date(runs: list[RunBrief]) -> str:
    """The creation date (UTC, from the run headers) of the newest run; "" with no runs. The
    build date alone can precede the runs it shows, e.g. when runs are added after a commit."""
    return max((run.created[:10] for run in runs), default="")


def _markdown_page(env: Environment, page: Page, inputs: SiteInputs, merged: Merged, reported: ReportedTable,
                   common: dict[str, Any], used: FactUse) -> Files:
    """A page's context: the site's functions and what each benchmark offers pages (its page
    functions, bound to this page's record of the facts it shows, and its context names).
    Returns the page and the further parts of any table too long for it (see paging)."""
    root, use, codes = "", FactUse(), Shortcodes()  # codes: this render's tables, charts and blocks
    charts_used: list[str] = []
    split_tables: list[tuple[v.Table, paging.Split, list[tuple[int, int]]]] = []
    tables, charts = merged.tables, merged.charts
    functions = page_functions(inputs.facts, reported, root, use)
    for part in inputs.parts.values():
        if part.page_functions is not None:
            functions.update(part.page_functions(functions["value"]))
    table_macro = env.get_template("table.html").make_module({**common, "root": root})
    chart_macro = env.get_template("chart.html").make_module({**common, "root": root})

    def table(table_id: str) -> Markup:
        if table_id not in tables:
            raise KeyError(f"unknown table {table_id!r} (known: {', '.join(sorted(tables))})")
        html = table_macro.render(tables[table_id])
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
        return codes.add(chart_macro.render(charts[chart_id]), f"chart({chart_id!r})")

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
    kind = page.meta.get("jsonld", "")
    jsonld = (faq_jsonld(str(body)) if kind == "faq" else
              dataset_jsonld(common, page.meta["description"]) if kind == "dataset" else "")
    html = env.get_template(page.meta.get("template", "page.html")).render(
        **common, root=root, slug=page.slug, title=page.title, description=page.meta["description"],
        body=body, sources=source_notes(use), jsonld=Markup(jsonld), has_charts=bool(charts_used),
        has_filters="data-filter-columns=" in body,
        base_href=_not_found_base(page, common["site"]))
    files = {f"{page.slug}.html": html.encode("utf-8")}
    for table_def, split, bounds in split_tables:
        files.update(_table_parts(env, page, common, table_def, split, bounds))
    return files


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


def _provenance_pages(env: Environment, inputs: SiteInputs, common: dict[str, Any],
                     used: FactUse) -> tuple[Files, dict[str, str]]:
    """The provenance page, split into parts like a long table when it is long (see paging),
    and {anchor: part file} of every fact whose row is not on the first part."""
    facts = inputs.facts
    rows = [(key, fact_anchor(key), facts[key], facts.provenance[key]) for key in sorted(used.facts)]
    template = env.get_template("provenance.html")
    context = {**common, "root": "", "slug": PROVENANCE, "title": "Provenance of figures",
               "description": "How each figure quoted in the prose of this site was computed, and from which runs.",
               "runs_listed": PROVENANCE_RUNS_LISTED}
    html = template.render(**context, rows=rows, pager="")
    split = paging.split_table(html)
    if split is None:
        return {f"{PROVENANCE}.html": html.encode("utf-8")}, {}
    bounds = paging.part_bounds(split)
    files, moved = {}, {}
    for number, (start, stop) in enumerate(bounds, 1):
        name = paging.part_file(PROVENANCE, "facts", number)
        title = context["title"] + ("" if number == 1 else f", part {number}")
        pager = paging.pager(PROVENANCE, "facts", bounds, number, anchor=False)
        files[name] = template.render(**{**context, "title": title, "slug": name[:-len(".html")]},
                                      rows=rows[start:stop], pager=pager).encode("utf-8")
        moved.update({anchor: name for _, anchor, _, _ in rows[start:stop]} if number > 1 else {})
    return files, moved


_FACT_LINK = re.compile(rb'href="provenance\.html#([^"]+)"')


def _relink_facts(page: bytes, moved: dict[str, str]) -> bytes:
    """Point a page's fact links at the part of the provenance page that holds the fact."""
    def relink(match: re.Match[bytes]) -> bytes:
        part = moved.get(match.group(1).decode())
        return match.group(0) if part is None else f'href="{part}#{match.group(1).decode()}"'.encode()
    return _FACT_LINK.sub(relink, page)


def _data_files(inputs: SiteInputs, merged: Merged) -> Files:
    facts = inputs.facts
    files: Files = {
        "facts.json": _facts_json(facts),
        "provenance.json": _provenance_json(facts),
    }
    files.update(tables_as_csv(list(merged.tables.values())))
    for chart in merged.charts.values():
        files[f"tables/chart-{chart.id}.csv"] = table_csv(chart.columns, [[plain_datum(x) for x in row] for row in chart.rows])
        files[f"tables/chart-{chart.id}.svg"] = standalone_svg(chart.svg)
        files[f"{FULL_PRECISION}chart-{chart.id}.csv"] = table_csv(chart.columns, chart.rows)
    return files


_KEY = json.encoder.encode_basestring  # type: ignore[attr-defined]  # json's string encoder with ensure_ascii=False


def _facts_json(facts: FactTable) -> bytes:
    """`json.dumps(facts.as_json(), indent=1, ensure_ascii=False, sort_keys=True)`, byte for
    byte, written directly: a fact is a finite int or float, which json writes as its repr,
    and json's indenting encoder is pure Python (about 0.3 s at 1,000 runs)."""
    if not facts.values:
        return b"{}\n"
    entries = [f" {_KEY(k)}: {(float.__repr__ if isinstance(v, float) else int.__repr__)(v)}"
               for k, v in sorted(facts.values.items())]
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")


def _provenance_json(facts: FactTable) -> bytes:
    """A JSON object with one entry per line (small, and diffs stay readable): each fact's
    computation and runs, as `json.dumps(entry, ensure_ascii=False, separators=(",", ":"))`
    writes them; a run list many facts share is encoded once."""
    runs_text: dict[tuple[str, ...], str] = {}
    entries = []
    for key, p in sorted(facts.provenance.items()):
        runs = runs_text.get(p.runs)
        if runs is None:
            runs = runs_text[p.runs] = ",".join(map(_KEY, p.runs))
        entries.append(f'{_KEY(key)}:{{"computation":{_KEY(p.computation)},"runs":[{runs}]}}')
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")
