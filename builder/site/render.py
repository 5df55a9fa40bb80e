"""Assemble every file of the site in memory; the writer puts them on disk atomically.

Pages are Markdown from content/pages (with facts, tables, charts and blocks as
shortcodes) plus pages generated per run; nothing here computes a metric.
"""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import urlsplit
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from builder import __version__
from builder.claims.engine import PredictionVerdict
from builder.benchmarks.cibuzzbench.compute import Computed
from builder.site.pages import Page, load_pages
from builder.benchmarks.cibuzzbench.reported import ReportedTable
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
from builder.core.errors import InputError, Problem
from builder.core.names import fact_anchor, name_problem
from builder.benchmarks.cibuzzbench.views import model_views as mv
from builder.site import views as v
from builder.site.environment import located_template_error, make_environment, plain_datum
from builder.benchmarks.cibuzzbench.views.fidelity_view import fidelity_table
from builder.site.markdown_pages import FactUse, page_functions, render_page_body, source_notes
from builder.benchmarks.cibuzzbench.views.run_pages import render_run_pages, tables_as_csv
from builder.site.tables_csv import FULL_PRECISION, table_csv
from builder.site.structured import faq_jsonld, sitemap
from builder.core.yamlfile import line_of, load_mapping, web_link_problem

Files = dict[str, bytes]
SITE_FIELDS = ("title", "tagline", "url", "nav")
PROVENANCE = "provenance"  # the generated page every fact links to
GENERATED_PAGES = (PROVENANCE,)


@dataclass(frozen=True)
class SiteInputs:
    dataset: Dataset
    computed: Computed
    content_dir: Path
    reported: ReportedTable
    verdicts: list[PredictionVerdict]
    build_date: dt.date
    site_url: str = ""
    charts: dict[str, Any] = field(default_factory=dict)  # id -> Chart
    extra_tables: dict[str, v.Table] = field(default_factory=dict)
    assets: dict[str, bytes] = field(default_factory=dict)  # extra files, e.g. the chart bundle
    mouse_verdicts: list[Any] = field(default_factory=list)  # the Mouse claims check (StatementVerdict)
    variants: dict[str, Dataset] = field(default_factory=dict)  # derived dataset variants, by name
    article_figures: list[Any] = field(default_factory=list)  # ArticleStatement: the probe's figures vs ours


def load_site_config(content_dir: Path, site_url: str = "") -> dict[str, Any]:
    """site.yaml, checked: every problem is reported with its line, all at once."""
    path = content_dir / "site.yaml"
    config, lines = load_mapping(path)
    problems = [Problem(str(path), f"unknown field (known: {', '.join(SITE_FIELDS)})", line_of(lines, (k,)), str(k))
                for k in config if k not in SITE_FIELDS]
    for key in ("title", "tagline"):
        if not isinstance(config.get(key), str):
            problems.append(Problem(str(path), "expected text", line_of(lines, (key,)), key))
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
    return config


def render_site(inputs: SiteInputs) -> Files:
    """Every file of the site; an error inside a template is reported with its file and line."""
    templates = inputs.content_dir / "templates"
    try:
        return _render_site(inputs, make_environment(templates))
    except InputError:
        raise
    except Exception as exc:
        located = located_template_error(exc, templates)
        if located is None:
            raise
        raise located from exc


def _render_site(inputs: SiteInputs, env: Environment) -> Files:
    config = load_site_config(inputs.content_dir, inputs.site_url)
    tables = {**_tables(inputs), **inputs.extra_tables}
    common = _common_context(inputs, config)
    files: Files = {}
    pages = load_pages(inputs.content_dir / "pages")
    _check_page_names(pages)
    used = FactUse()
    for page in pages:
        files[f"{page.slug}.html"] = _markdown_page(env, page, inputs, tables, common, used)
    files.update(render_run_pages(env, inputs, common))
    files[f"{PROVENANCE}.html"] = _provenance_page(env, inputs, common, used)
    files.update(_data_files(inputs, tables))
    files["sitemap.xml"] = sitemap([p.slug for p in pages if p.slug != "404"] + [PROVENANCE], config.get("url", ""))
    files["assets/style.css"] = (inputs.content_dir / "static" / "style.css").read_bytes()
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
    facts = inputs.computed.facts
    return {
        "site": config, "version": __version__, "build_date": inputs.build_date.isoformat(),
        "dataset": {"file_sha256": inputs.dataset.file_sha256, "content_sha256": inputs.dataset.content_sha256},
        "provenance": facts.provenance, "run_count": len(inputs.computed.scores), "canonical": "",
        "newest_run": newest_run_date(inputs.computed),
        "complete_run_count": sum(s.run.complete for s in inputs.computed.scores.values()),
    }


def newest_run_date(computed: Computed) -> str:
    """The creation date (UTC, from the run headers) of the newest run; "" with no runs. The
    build date alone can precede the runs it shows, e.g. when runs are added after a commit."""
    return max((s.run.header.created[:10] for s in computed.scores.values()), default="")


def _tables(inputs: SiteInputs) -> dict[str, v.Table]:
    cells = v.FactCells(inputs.computed.facts)
    facts = inputs.computed.facts
    probes = [p for p in v.PROBE_LABELS if K.PROBE_SPREAD.key(probe=p, scope="all", metric="macro_f1", stat="mean") in facts]
    tables = [v.composition_table(cells), v.category_table(cells), v.longest_table(cells),
              v.length_table(cells, "all"), v.length_table(cells, "test"), v.audit_table(cells),
              v.runs_table(cells, inputs.computed.scores)]
    if probes:
        tables += [v.heuristic_table(cells, probes, "all"), v.heuristic_table(cells, probes, "test"),
                   v.heuristic_interval_table(cells, probes, "all", DEFAULT_SEED),
                   v.heuristic_interval_table(cells, probes, "test", DEFAULT_SEED),
                   v.category_scores_table(cells, probes), v.category_interval_table(cells, probes)]
    if all(K.HARM_PROBE.key(probe="always_non_harmful", scope=s, metric="macro_f1") in facts for s in ("all", "test")):
        tables.append(v.harm_table(cells))
    if any((found := K.PROBE_SPREAD.values(k)) and found.get("variant") == "gold_pool" and found["metric"] == "macro_f1"
           and found["stat"] == "mean" for k in facts.values):
        tables += [v.option_sets_table(cells, probes, "test"), v.option_sets_table(cells, probes, "all")]
    if K.GOLD_LONGEST_SHARE.key("gold_pool", scope="all") in facts:
        tables.append(v.option_sets_length_table(cells))
    tables += [t for t in (v.importance_table(cells, "permutation"), v.importance_table(cells, "coef")) if t]
    triples = inputs.computed.pair_triples()
    models, summaries = inputs.computed.models, inputs.computed.pair_summaries
    optional = [v.model_runs_table(cells, inputs.computed.scores), v.model_pairs_table(cells, triples),
                v.pair_category_table(cells, triples), v.blind_error_table(cells, triples),
                mv.model_summary_table(cells, models, "equivalent_selection"),
                mv.model_summary_table(cells, models, "harmfulness_detection"),
                mv.pair_summary_table(cells, summaries), mv.pair_category_summary_table(cells, summaries),
                mv.pair_brief_table(cells, summaries)]
    tables += [t for t in optional if t is not None]
    fidelity = fidelity_table(cells, inputs.article_figures, inputs.reported)
    tables += [fidelity] if fidelity else []
    return {t.id: t for t in tables}


def _markdown_page(env: Environment, page: Page, inputs: SiteInputs, tables: dict[str, v.Table],
                   common: dict[str, Any], used: FactUse) -> bytes:
    root = ""
    use = FactUse()
    charts_used: list[str] = []
    functions = page_functions(inputs.computed.facts, inputs.reported, root, use)
    table_macro = env.get_template("table.html").make_module({**common, "root": root})
    chart_macro = env.get_template("chart.html").make_module({**common, "root": root})

    def table(table_id: str) -> Markup:
        if table_id not in tables:
            raise KeyError(f"unknown table {table_id!r} (known: {', '.join(sorted(tables))})")
        return _block_html(table_macro.render(tables[table_id]))

    def chart(chart_id: str) -> Markup:
        if chart_id not in inputs.charts:
            raise KeyError(f"unknown chart {chart_id!r} (known: {', '.join(sorted(inputs.charts))})")
        charts_used.append(chart_id)
        return _block_html(chart_macro.render(inputs.charts[chart_id]))

    def per_model(pattern: str) -> dict[str, str]:
        """{model name: key} over the paired model summaries whose `pattern` key exists (`{}`
        stands for the summary id), for sentences that name the model with the extreme value. Only
        pairs on the original option set: a gold-pool pair answers another question (prediction 1)."""
        summaries = [s for s in inputs.computed.pair_summaries if s.blind.variant == "original"]
        names = [s.model for s in summaries]
        found = {(s.model if names.count(s.model) == 1 else f"{s.model} ({mv.selection_label(s.blind.selection)})"):
                 pattern.format(s.id) for s in summaries}
        return {name: key for name, key in found.items() if key in inputs.computed.facts}

    functions["per_model"] = per_model

    def block(name: str, **params: Any) -> Markup:
        template = env.get_template(f"blocks/{name}.html")
        return _block_html(template.render(**common, **params, root=root, tables=tables, inputs=inputs,
                                           table=table, chart=chart, **functions))

    context = {**functions, "table": table, "chart": chart, "block": block, "facts_table": inputs.computed.facts,
               "pair_summaries": inputs.computed.pair_summaries,
               "has_table": lambda t: t in tables, "has_chart": lambda c: c in inputs.charts}
    body = render_page_body(env, page, context)
    used.facts |= use.facts
    jsonld = faq_jsonld(str(body)) if page.meta.get("jsonld") == "faq" else ""
    html = env.get_template(page.meta.get("template", "page.html")).render(
        **common, root=root, slug=page.slug, title=page.title, description=page.meta["description"],
        body=body, sources=source_notes(use), jsonld=Markup(jsonld), has_charts=bool(charts_used),
        base_href=_not_found_base(page, common["site"]))
    return html.encode("utf-8")


def _not_found_base(page: Page, config: dict[str, Any]) -> str:
    """GitHub Pages serves 404.html at the missing address, at any depth, so its relative
    links need a <base>: the site's path, known when the published URL is configured."""
    url = str(config.get("url") or "")
    if page.slug != "404" or not url:
        return ""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"


def _block_html(html: str) -> Markup:
    """Wrap shortcode output so Markdown passes it through as one raw HTML block."""
    return Markup('<div class="shortcode">{}</div>').format(Markup(html.strip()))


def _provenance_page(env: Environment, inputs: SiteInputs, common: dict[str, Any], used: FactUse) -> bytes:
    facts = inputs.computed.facts
    rows = [(key, fact_anchor(key), facts[key], facts.provenance[key]) for key in sorted(used.facts)]
    html = env.get_template("provenance.html").render(
        **common, root="", slug="provenance", title="Provenance of figures",
        description="How each figure quoted in the prose of this site was computed, and from which runs.",
        rows=rows, runs=inputs.computed.scores)
    return html.encode("utf-8")


def _data_files(inputs: SiteInputs, tables: dict[str, v.Table]) -> Files:
    facts = inputs.computed.facts
    files: Files = {
        "facts.json": _json(facts.as_json()),
        "provenance.json": _json_lines_object(facts.provenance_json()),
    }
    files.update(tables_as_csv(list(tables.values())))
    for chart in inputs.charts.values():
        files[f"tables/chart-{chart.id}.csv"] = table_csv(chart.columns, [[plain_datum(x) for x in row] for row in chart.rows])
        files[f"{FULL_PRECISION}chart-{chart.id}.csv"] = table_csv(chart.columns, chart.rows)
    return files


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _json_lines_object(data: dict[str, object]) -> bytes:
    """A JSON object with one entry per line: small, and diffs stay readable."""
    entries = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
               for k, v in sorted(data.items())]
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")
