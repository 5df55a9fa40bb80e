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

Plus `assets`, files it ships as they are (e.g. a script its pages load); `add_commands`, which
registers CLI subcommands only this benchmark has; its parts of the shared commands, which
builder/commands/ defines once (so no plug-in hosts another's command or calls another):
`fetch_data`, `check_data` and `add_data_actions` (`buzzprobe data`), `add_import_options`
(`buzzprobe import`), `add_export_options` (`buzzprobe export`), `add_audit_options`
(`buzzprobe audit`), `add_probe_options`, `probe_names` and `probe_plans` for a benchmark that
`buzzprobe probe --benchmark NAME` asks, `score_run` (`buzzprobe score RUN`); and `fact_sections`,
the patterns of every fact key its compute adds (builder.core.factkeys): docs/facts.md is
generated from them, and a test checks every key a build produces against them; and
`eee_evaluation`, one of its runs as Every Eval Ever's instances and metrics (`buzzprobe export
eee`; builder/runs/eee.py writes the files); `harness_interop`, its tasks for
lm-evaluation-harness and Inspect, out and back (builder/interop/); and `run_rows`, every run it
read as the site's shared pages show it (runs.html, the models across benchmarks, each run's
page and downloads).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from builder.claims.engine import MeasureRegistry
from builder.core.errors import InputError
from builder.core.factkeys import Section
from builder.core.facts import FactTable
# The site's input types, re-exported: a plug-in names them through its contract.
from builder.site.parts import DataSource, Files, PageFunctions, PageSettings, RunBrief, SiteParts  # noqa: F401
from builder.site.run_catalogue import ItemRow, Measure, Provenance, RunRow  # noqa: F401

if TYPE_CHECKING:
    import argparse

    from builder.core.reported import ReportedTable
    from builder.runs.cache import RunCache
    from builder.runs.formats import RunFormat
    from builder.interop.harness import HarnessInterop
    from builder.runs.eee import Evaluation
    from builder.runs.schema import Run
    from builder.site.charts import SvgRenderer

T = TypeVar("T")
LoadedT = TypeVar("LoadedT")  # what a plug-in's `load` returns and its `compute` takes
ComputedT = TypeVar("ComputedT")  # what its `compute` returns and its views take
# `buzzprobe import WORD PATH …`: (the parsed options, the created stamp) -> exit code.
ImportHandler = Callable[["argparse.Namespace", str], int]
# The word of `buzzprobe import PATH …` given without an importer's word (at most one plug-in claims it).
IMPORT_DEFAULT = ""
# `buzzprobe export WORD …` and `buzzprobe audit NAME`: (the parsed options) -> exit code.
CommandHandler = Callable[["argparse.Namespace"], int]



@dataclass(frozen=True)
class BuildSettings:
    """What the stages may read of the build's configuration."""

    content_dir: Path
    cache_dir: Path
    charts: bool = True  # False skips drawing charts (tests of other parts)
    # The build's context, never a domain object's: results derived from one run, kept between
    # builds (None outside a build); a stage reads it from here when it computes or renders.
    run_cache: "RunCache | None" = None
    # Each plug-in's own build options by its name (e.g. a data file given on purpose, in tests);
    # a plug-in reads only its own entry, and none means its defaults.
    options: Mapping[str, Any] = field(default_factory=dict)
    # content/reported.yaml as the site read and checked it before any plug-in loads (None when
    # a caller builds settings by hand: a plug-in that needs it reads it then).
    reported: "ReportedTable | None" = None

    def kept_folder(self) -> Path | None:
        """The cache folder values derived from the data are kept in (builder/core/cache.py), or
        None when this build keeps nothing between builds."""
        return self.cache_dir if self.run_cache is not None and self.run_cache.folder is not None else None

    def options_for(self, name: str, kind: type[T]) -> T:
        """The options of plug-in `name` (an instance of `kind`), or `kind()` when none were given."""
        given = self.options.get(name)
        if given is None:
            return kind()
        if not isinstance(given, kind):
            raise TypeError(f"options for {name!r} must be a {kind.__name__}, not {type(given).__name__}")
        return given


class Benchmark(ABC, Generic[LoadedT, ComputedT]):
    """One benchmark. Subclasses set `name` (a slug: run headers' `benchmark` field) and `title`,
    and name their loaded and computed state: `class Mine(Benchmark[MyLoaded, MyState])`."""

    name: ClassVar[str]
    title: ClassVar[str]
    # The module whose `FORMAT` (a builder.runs.formats.RunFormat) reads this plug-in's runs;
    # None: it reads none. Imported on first use, so the registry stays cheap to load.
    run_format_module: ClassVar[str | None] = None
    probes: ClassVar[bool] = False  # `buzzprobe probe --benchmark NAME` asks it (probe_plans)
    probe_default: ClassVar[bool] = False  # asked by `probe` without --benchmark (one plug-in)
    # It writes tasks for the harnesses (`harness_interop` is not None): the CLI reads this to
    # build `import`/`export`, so `buzzprobe --help` imports no plug-in's interop modules.
    harness_tasks: ClassVar[bool] = False

    def run_format(self) -> "RunFormat":
        """This plug-in's run format (only when `run_format_module` is set)."""
        return _format(self.run_format_module)

    def run_names(self, settings: BuildSettings) -> set[str]:
        """The `benchmark` values of the run headers this plug-in reads (a plug-in that serves
        several benchmarks, e.g. one per spec file, names each)."""
        return {self.name}

    def inputs(self, settings: BuildSettings) -> list[Path]:
        """Files read besides content/, runs/ and the code (those are always fingerprinted)."""
        return []

    def start(self, settings: BuildSettings) -> None:
        """Begin work that needs no run in the background (worker processes), once the build knows
        it has work; `load` collects it. By default nothing: everything happens in `load`."""

    @abstractmethod
    def load(self, settings: BuildSettings, runs: Sequence["Run"]) -> LoadedT:
        """Read and validate the data, and validate these runs against it (all declare this
        benchmark); raise InputError with every problem found."""

    @abstractmethod
    def compute(self, loaded: LoadedT, facts: FactTable, settings: BuildSettings) -> ComputedT:
        """Add this benchmark's facts; return the computed state its views read."""

    def measures(self, computed: ComputedT, facts: FactTable, registry: MeasureRegistry) -> None:
        """Register tracker measures (content/predictions.yaml may quote them)."""

    @abstractmethod
    def site(self, computed: ComputedT, facts: FactTable, svg: "SvgRenderer | None") -> SiteParts:
        """Tables, charts (drawn with `svg`; None: no charts) and the page context."""

    def pages(self, computed: ComputedT, facts: FactTable, settings: PageSettings) -> Files:
        """Whole generated files, by site path."""
        return {}

    def run_rows(self, computed: ComputedT, facts: FactTable, settings: BuildSettings) -> Sequence[RunRow]:
        """Every run this plug-in read, one row each (builder.site.run_catalogue): runs.html lists
        them, the models page follows each model across benchmarks, and the site writes a page
        (header, provenance, scores, leak split, items) and per-item CSV/JSONL for each run
        whose row names no page of the plug-in's own. A plug-in that reads runs supplies them."""
        return ()

    def fact_sections(self) -> tuple[Section, ...]:
        """The patterns of every fact key `compute` adds, under docs/facts.md headings."""
        return ()

    def add_probe_options(self, group: Any) -> None:
        """Options of `buzzprobe probe` that only this benchmark reads, added to its own group
        (`group.add_argument`); the shared ones (benchmark, condition, items, seeds, model and
        client) are the command's. Another benchmark's probe refuses them."""

    def probe_plans(self, args: "argparse.Namespace") -> list[Any]:
        """One builder.probing.runner.RunPlan per run to ask, from `buzzprobe probe`'s options."""
        raise NotImplementedError(f"{self.name} is not probed by `buzzprobe probe`")

    def add_commands(self, subcommands: "argparse._SubParsersAction") -> None:
        """Register CLI subcommands; each sets `handler` (args -> exit code)."""

    def eee_evaluation(self, run: "Run", settings: BuildSettings) -> "Evaluation":
        """`run` (read, not yet checked) as Every Eval Ever's instances and metrics, checked
        against this benchmark's data; raise InputError with every problem found. By default
        the `evaluation(run, settings)` of the plug-in package's `eee` module, found the way the
        registry finds `plugin`: a benchmark exports once its folder has one."""
        package = type(self).__module__.rpartition(".")[0]
        try:
            module = importlib.import_module(f"{package}.eee")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.eee":
                raise
            raise InputError.single(run.path, f"runs of {self.title} cannot be exported to Every Eval Ever yet "
                                    f"(no {package}.eee mapping)", line=1, field="benchmark") from None
        return module.evaluation(run, settings)

    def fetch_data(self, content_dir: Path, names: Sequence[str] | None, log: Callable[[str], None]) -> None:
        """`buzzprobe data fetch`: get this plug-in's pinned data unless a local copy is named.
        `names`: the `--benchmark` values given (None: everything), which a plug-in that serves
        names checks; `log` takes progress lines."""

    def harness_interop(self) -> "HarnessInterop | None":
        """`buzzprobe export|import lm-eval|inspect`: this plug-in's tasks for lm-evaluation-harness
        and Inspect, out and back (builder/interop/harness.py); None when it writes none (a
        plug-in that returns one sets `harness_tasks`)."""
        return None

    def add_import_options(self, parser: "argparse.ArgumentParser") -> Mapping[str, ImportHandler]:
        """`buzzprobe import WORD PATH`: add the options this plug-in's imports read to the import
        command's `parser`, and return its words, each with the handler that imports PATH
        (IMPORT_DEFAULT: the handler of `buzzprobe import PATH`, no word)."""
        return {}

    def check_data(self, content_dir: Path, names: Sequence[str] | None,
                   log: Callable[[str], None]) -> list[dict[str, Any]]:
        """`buzzprobe data check`: validate this plug-in's local data copy (`names` as for
        `fetch_data`); one report (a flat JSON-able dict with `benchmark`, `path` and `text`, the
        line shown) per copy checked."""
        return []

    def add_data_actions(self, actions: "argparse._SubParsersAction") -> None:
        """`buzzprobe data ACTION`: actions only this plug-in's data has; each sets `handler`."""

    def add_export_options(self, parser: "argparse.ArgumentParser") -> Mapping[str, CommandHandler]:
        """`buzzprobe export WORD`: add the options this plug-in's exports read (in a group of
        its own) and return its words, each with its handler (Every Eval Ever's `eee` is shared)."""
        return {}

    def add_audit_options(self, parser: "argparse.ArgumentParser") -> CommandHandler | None:
        """`buzzprobe audit NAME`: the handler of a plug-in that audits benchmarks without a model,
        after adding its options to `parser` (at most one plug-in audits); None: it audits none."""
        return None

    def probe_names(self, content_dir: Path) -> list[str]:
        """The names `buzzprobe probe --benchmark` takes for this plug-in (only when it `probes`),
        for the command's did-you-mean: by default its own name."""
        return [self.name]

    def score_run(self, path: Path, settings: BuildSettings) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """`buzzprobe score RUN`: one finished run's scores, each metric with its 95% interval
        (`{metric: {"value", "low", "high"}, "items", "failed"}` in points, or with `"unit": "0-1"`;
        builder.probing.summary), and the paired gaps with the runs beside it, as `buzzprobe probe`
        ends with them."""
        raise InputError.single(path, f"runs of {self.title} cannot be scored by `buzzprobe score` yet", line=1,
                                field="benchmark")

    def assets(self, settings: BuildSettings) -> Mapping[str, Path]:
        """Files the site ships as they are, by site path (e.g. "assets/x.js"), each with the
        file it is read from; two plug-ins may ship one site path only from the same file."""
        return {}


@cache
def _format(module: str | None) -> "RunFormat":
    if module is None:
        raise TypeError("this benchmark declares no run format")
    return importlib.import_module(module).FORMAT
