"""What the site is built from, as the site defines it: each benchmark's contribution (tables,
charts, page-context names, page functions, data sources, run briefs) and what generated pages
share. The plug-in contract (builder.benchmarks.base) re-exports these for plug-ins; the site
imports them from here, so it depends on no benchmark and on no contract."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.core.errors import Problem

if TYPE_CHECKING:
    from jinja2 import Environment

    from builder.runs.cache import RunCache
    from builder.site.charts import Chart
    from builder.site.tables import Table

Files = dict[str, bytes]
# Given the page's recording fact reader (`value(key)`), a benchmark's page functions.
PageFunctions = Callable[[Callable[[str], float]], dict[str, Callable[..., Any]]]


@dataclass(frozen=True)
class DataSource:
    """A data set the site was built from, as the footer names it."""

    title: str
    content_sha256: str
    url: str | None = None  # where the data is published, at the pinned commit when there is one
    commit: str | None = None  # the upstream commit the data is pinned to (`make data` fetches it)


@dataclass(frozen=True)
class RunBrief:
    """What the site-wide footer and the tracker need to know of any run."""

    run_id: str
    created: str  # ISO 8601 UTC, from the run header
    complete: bool
    has_page: bool = False  # True when the plug-in's `pages` writes runs/<run_id>.html (links go there)
    kind: str = "model"  # the header's subject kind: "model", or "probe" for a model-free probe
    source_date: str = ""  # an imported run's source file commit date (What's new lists it there)
    coverage: str = ""  # "partial (N of M items)" for a finished run of part of the items ("": not said)


@dataclass
class SiteParts:
    """A benchmark's contribution to the site, all read from its computed state."""

    tables: dict[str, Table] = field(default_factory=dict)  # by id, unique across the plug-ins
    charts: dict[str, Chart] = field(default_factory=dict)  # by id, unique across the plug-ins
    context: dict[str, Any] = field(default_factory=dict)  # names pages and blocks may read (any template value)
    page_functions: PageFunctions | None = None  # functions whose facts count as the page's
    sources: list[DataSource] = field(default_factory=list)
    runs: list[RunBrief] = field(default_factory=list)


def id_clashes(parts: Mapping[str, SiteParts], where: Mapping[str, str]) -> list[Problem]:
    """Every table, chart or page-context name that a second plug-in gives again (each names one
    thing on the site), located at that plug-in (`where`: its module file, by plug-in name): a
    spec'd benchmark's name can make an id, so a clash is reported like bad input, all at once."""
    owner: dict[tuple[str, str], str] = {}
    problems: list[Problem] = []
    for name, part in sorted(parts.items()):
        for kind, attr, ids in (("table", "tables", part.tables), ("chart", "charts", part.charts),
                                ("page context name", "context", part.context)):
            for key in ids:
                first = owner.setdefault((kind, key), name)
                if first != name:
                    problems.append(Problem(where.get(name, name), f"{kind} {key!r} is defined by both {first} "
                                            f"and {name}: an id names one thing on the site", None,
                                            f"site().{attr}[{key!r}]"))
    return problems


@dataclass(frozen=True)
class PageSettings:
    """What generated pages share: the template environment and the site-wide context."""

    env: "Environment"
    common: Mapping[str, Any]
    build_date: dt.date
    charts: Mapping[str, Chart] = field(default_factory=dict)  # every part's charts by id, for pages that show one
    # The build's caches, as context (builder.benchmarks.base.BuildSettings): its per-run cache
    # and the folder values of the data are kept in; None outside a build or when nothing is kept.
    run_cache: "RunCache | None" = None
    cache_folder: Path | None = None
