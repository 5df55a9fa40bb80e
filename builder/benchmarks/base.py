"""The contract between the pipeline and a benchmark.

The pipeline (builder/pipeline.py) runs its stages over every registered benchmark and
names none of them: a benchmark is a folder under builder/benchmarks/ whose `plugin.py`
defines `BENCHMARK`, an instance of a `Benchmark` subclass. The stages, in order:

1. `inputs`   files the benchmark reads beyond content/ and runs/ (for the no-change check);
2. `load`     read and validate its data, and validate the runs whose header names it (the
              pipeline reads every run once, with the one run reader);
3. `compute`  add every fact it publishes to the build's one FactTable; return what its
              views need (compute is the only stage that writes facts);
4. `measures` register the measures the falsification tracker may quote;
5. `site`     tables, charts and the names its pages and blocks may read (a page context);
6. `pages`    whole generated files (e.g. one page per run), rendered with the shared
              template environment.

Plus `add_commands`, which registers the benchmark's CLI subcommands, and `fact_sections`,
the patterns of every fact key its compute adds (builder.core.factkeys): docs/facts.md is
generated from them, and a test checks every key a build produces against them.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from builder.claims.engine import MeasureRegistry
from builder.core.factkeys import Section
from builder.core.facts import FactTable

if TYPE_CHECKING:
    import argparse

    from jinja2 import Environment

    from builder.runs.schema import Run
    from builder.site.charts import SvgRenderer

Files = dict[str, bytes]
# Given the page's recording fact reader (`value(key)`), a benchmark's page functions.
PageFunctions = Callable[[Callable[[str], float]], dict[str, Callable[..., Any]]]


@dataclass(frozen=True)
class BuildSettings:
    """What the stages may read of the build's configuration."""

    dataset: Path | None  # the CIBuzzBench CSV; None: its plug-in finds it (CIBUZZBENCH_CSV or data/)
    content_dir: Path
    cache_dir: Path
    spec: object | None = None  # a CIBuzzBench DatasetSpec for tests; None: the official shape
    charts: bool = True  # False skips drawing charts (tests of other parts)
    run_cache: Any = None  # a builder.runs.cache.RunCache: results derived from one run, kept between builds


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


@dataclass
class SiteParts:
    """A benchmark's contribution to the site, all read from its computed state."""

    tables: dict[str, Any] = field(default_factory=dict)  # id -> site.tables.Table
    charts: dict[str, Any] = field(default_factory=dict)  # id -> site.charts.Chart
    context: dict[str, Any] = field(default_factory=dict)  # names pages and blocks may read
    page_functions: PageFunctions | None = None  # functions whose facts count as the page's
    sources: list[DataSource] = field(default_factory=list)
    runs: list[RunBrief] = field(default_factory=list)


@dataclass(frozen=True)
class PageSettings:
    """What generated pages share: the template environment and the site-wide context."""

    env: "Environment"
    common: Mapping[str, Any]
    build_date: dt.date


class Benchmark(ABC):
    """One benchmark. Subclasses set `name` (a slug: run headers' `benchmark` field) and `title`."""

    name: ClassVar[str]
    title: ClassVar[str]

    def run_names(self, settings: BuildSettings) -> set[str]:
        """The `benchmark` values of the run headers this plug-in reads (a plug-in that serves
        several benchmarks, e.g. one per spec file, names each)."""
        return {self.name}

    def inputs(self, settings: BuildSettings) -> list[Path]:
        """Files read besides content/, runs/ and the code (those are always fingerprinted)."""
        return []

    @abstractmethod
    def load(self, settings: BuildSettings, runs: Sequence["Run"]) -> Any:
        """Read and validate the data, and validate these runs against it (all declare this
        benchmark); raise InputError with every problem found."""

    @abstractmethod
    def compute(self, loaded: Any, facts: FactTable, settings: BuildSettings) -> Any:
        """Add this benchmark's facts; return the computed state its views read."""

    def measures(self, computed: Any, facts: FactTable, registry: MeasureRegistry) -> None:
        """Register tracker measures (content/predictions.yaml may quote them)."""

    @abstractmethod
    def site(self, computed: Any, facts: FactTable, svg: "SvgRenderer | None") -> SiteParts:
        """Tables, charts (drawn with `svg`; None: no charts) and the page context."""

    def pages(self, computed: Any, facts: FactTable, settings: PageSettings) -> Files:
        """Whole generated files, by site path."""
        return {}

    def fact_sections(self) -> tuple[Section, ...]:
        """The patterns of every fact key `compute` adds, under docs/facts.md headings."""
        return ()

    def add_commands(self, subcommands: "argparse._SubParsersAction") -> None:
        """Register CLI subcommands; each sets `func` (args -> exit code)."""
