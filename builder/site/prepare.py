"""Preparation stage: what every page shares, made once from the checked content and the
benchmarks' parts — the template environment, the parts side by side and the site-wide context."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment

from builder import __version__
from builder.claims.engine import PredictionVerdict
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.site import tables as v
from builder.site.configuration import SiteContent
from builder.site.environment import located_template_error, make_environment
from builder.site.parts import PageSettings, SiteParts, id_clashes
from builder.site.run_catalogue import RunRow
from builder.site.whats_new import newest_run_date
from builder.site.catalogue_tables import catalogue_tables
from builder.site.model_names import RULE

if TYPE_CHECKING:
    from builder.site.charts import Chart

Files = dict[str, bytes]
CATALOGUE = "~site"  # the key of the site's own part among the benchmarks' (no benchmark name has "~")


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
        return templates_located(self.inputs.content_dir / "templates")


@dataclass(frozen=True)
class Merged:
    """The benchmarks' parts side by side; a table, chart or context name two of them use is an error."""

    tables: dict[str, v.Table]
    charts: dict[str, Chart]
    context: dict[str, Any]


def merge_parts(parts: dict[str, SiteParts]) -> Merged:
    """The parts side by side; the pipeline refuses clashing ids as it collects them, so a clash
    here (a caller that skipped that) is the same located error (site.parts.id_clashes)."""
    clashes = id_clashes(parts, {})
    if clashes:
        raise InputError(clashes)
    ordered = [part for _, part in sorted(parts.items())]
    return Merged({k: t for p in ordered for k, t in p.tables.items()},
                  {k: c for p in ordered for k, c in p.charts.items()},
                  {k: x for p in ordered for k, x in p.context.items()})


@contextmanager
def templates_located(templates: Path) -> Iterator[None]:
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
    with templates_located(inputs.content_dir / "templates"):
        env = make_environment(inputs.content_dir / "templates", inputs.cache_dir)
        return SiteStage(inputs, env, merge_parts(_with_catalogue(inputs)), _common_context(inputs, inputs.content.config))


def _with_catalogue(inputs: SiteInputs) -> dict[str, SiteParts]:
    """The benchmarks' parts and the site's own tables over every benchmark's runs."""
    shared = SiteParts(tables=catalogue_tables(inputs.catalogue, inputs.facts), context={"model_rule": RULE})
    return {**inputs.parts, CATALOGUE: shared}


def _common_context(inputs: SiteInputs, config: dict[str, Any]) -> dict[str, Any]:
    runs = [run for part in inputs.parts.values() for run in part.runs]
    return {
        "site": config, "version": __version__, "build_date": inputs.build_date.isoformat(),
        "data_sources": [s for _, part in sorted(inputs.parts.items()) for s in part.sources],
        "provenance": inputs.facts.provenance, "run_count": len(runs),
        "newest_run": newest_run_date(runs), "complete_run_count": sum(run.complete for run in runs),
        "run_ids": frozenset(run.run_id for run in runs if run.has_page),  # runs with a page to link
    }
