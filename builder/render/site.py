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

import yaml
from jinja2 import Environment
from markupsafe import Markup

from builder import __version__
from builder.claims.engine import PredictionVerdict
from builder.compute import Computed
from builder.content.pages import Page, load_pages
from builder.content.reported import ReportedTable
from builder.dataset.cibuzzbench import Dataset
from builder.render import views as v
from builder.render.environment import make_environment
from builder.render.markdown_pages import FactUse, fact_anchor, page_functions, render_page_body, source_notes
from builder.render.run_pages import render_run_pages, tables_as_csv
from builder.render.tables_csv import table_csv
from builder.render.structured import faq_jsonld, sitemap

Files = dict[str, bytes]


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


def load_site_config(content_dir: Path) -> dict[str, Any]:
    return yaml.safe_load((content_dir / "site.yaml").read_text(encoding="utf-8"))


def render_site(inputs: SiteInputs) -> Files:
    env = make_environment(inputs.content_dir / "templates")
    config = load_site_config(inputs.content_dir)
    if inputs.site_url:
        config["url"] = inputs.site_url
    tables = {**_tables(inputs), **inputs.extra_tables}
    common = _common_context(inputs, config)
    files: Files = {}
    pages = load_pages(inputs.content_dir / "pages")
    used = FactUse()
    for page in pages:
        files[f"{page.slug}.html"] = _markdown_page(env, page, inputs, tables, common, used)
    files.update(render_run_pages(env, inputs, common))
    files["provenance.html"] = _provenance_page(env, inputs, common, used)
    files.update(_data_files(inputs, tables))
    files["sitemap.xml"] = sitemap([p.slug for p in pages if p.slug != "404"] + ["provenance"], config.get("url", ""))
    files["assets/style.css"] = (inputs.content_dir / "static" / "style.css").read_bytes()
    files.update(inputs.assets)
    return files


def _common_context(inputs: SiteInputs, config: dict[str, Any]) -> dict[str, Any]:
    facts = inputs.computed.facts
    return {
        "site": config, "version": __version__, "build_date": inputs.build_date.isoformat(),
        "dataset": {"file_sha256": inputs.dataset.file_sha256, "content_sha256": inputs.dataset.content_sha256},
        "provenance": facts.provenance, "run_count": len(inputs.computed.scores), "canonical": "",
        "complete_run_count": sum(s.run.complete for s in inputs.computed.scores.values()),
    }


def _tables(inputs: SiteInputs) -> dict[str, v.Table]:
    cells = v.FactCells(inputs.computed.facts)
    facts = inputs.computed.facts
    probes = [p for p in v.PROBE_LABELS if f"leak.{p}.macro_f1.mean" in facts]
    tables = [v.composition_table(cells), v.category_table(cells), v.longest_table(cells),
              v.length_table(cells, "all"), v.length_table(cells, "test"), v.audit_table(cells),
              v.runs_table(cells, inputs.computed.scores)]
    if probes:
        tables += [v.heuristic_table(cells, probes, "all"), v.heuristic_table(cells, probes, "test"),
                   v.heuristic_interval_table(cells, probes, "all", 1111),
                   v.heuristic_interval_table(cells, probes, "test", 1111),
                   v.category_scores_table(cells, probes), v.category_interval_table(cells, probes)]
    if "harm.always_non_harmful.macro_f1" in facts and "harm.always_non_harmful.test.macro_f1" in facts:
        tables.append(v.harm_table(cells))
    if any(k.startswith("variant.gold_pool.leak.") and k.endswith(".macro_f1.mean") for k in facts.values):
        tables.append(v.variant_table(cells, probes))
    tables += [t for t in (v.importance_table(cells, "permutation"), v.importance_table(cells, "coef")) if t]
    triples = inputs.computed.pair_triples()
    optional = [v.model_runs_table(cells, inputs.computed.scores), v.model_pairs_table(cells, triples),
                v.pair_category_table(cells, triples), v.blind_error_table(cells, triples)]
    tables += [t for t in optional if t is not None]
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

    def block(name: str, **params: Any) -> Markup:
        template = env.get_template(f"blocks/{name}.html")
        return _block_html(template.render(**common, **params, root=root, tables=tables, inputs=inputs,
                                           table=table, chart=chart, **functions))

    context = {**functions, "table": table, "chart": chart, "block": block, "facts_table": inputs.computed.facts,
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
        files[f"tables/chart-{chart.id}.csv"] = table_csv(chart.columns, chart.rows)
    return files


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _json_lines_object(data: dict[str, object]) -> bytes:
    """A JSON object with one entry per line: small, and diffs stay readable."""
    entries = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
               for k, v in sorted(data.items())]
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")
