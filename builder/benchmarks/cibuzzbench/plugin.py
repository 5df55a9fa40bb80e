"""CIBuzzBench (Chinese internet buzzwords -> English) as a plug-in: the CSV and its derived
option-set variants, model and probe runs, the learned probe's feature importance and the
published probe's figures set against ours."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.benchmarks.base import Benchmark, BuildSettings, DataSource, PageSettings, RunBrief, SiteParts
from builder.claims.engine import MeasureRegistry
from builder.core.factkeys import Section
from builder.core.facts import FactTable
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.dataset.fetch import PINNED_COMMIT, UPSTREAM_REPO

if TYPE_CHECKING:
    from builder.runs.cache import RunCache

UPSTREAM_TREE = f"https://github.com/{UPSTREAM_REPO}/tree/{PINNED_COMMIT}"


@dataclass(frozen=True)
class Loaded:
    dataset: Any  # Dataset
    variants: dict[str, Any]  # derived dataset variants by name
    runs: list[Run]
    reported: Any  # ReportedTable (content/reported.yaml)
    statements: list[Any]  # builder.claims.figure_statements.FigureStatement (content/article-figures.yaml)
    protocols: dict[str, Any] | None = None  # prompt protocols by id (content/protocols/cibuzzbench.yaml)


@dataclass(frozen=True)
class State:
    loaded: Loaded
    computed: Any  # compute.Computed
    leak_split: Any = None  # analyses.leak_split.LeakSplit: which runs were split, which set aside and why


class CIBuzzBench(Benchmark[Loaded, State]):
    name = "cibuzzbench"
    title = "CIBuzzBench"
    run_format_module = "builder.benchmarks.cibuzzbench.run_format"
    probes = True
    probe_default = True  # `buzzprobe probe` without --benchmark asks CIBuzzBench, as it always has
    harness_tasks = True

    def inputs(self, settings: BuildSettings) -> list[Path]:
        return [_dataset(settings)]

    def load(self, settings: BuildSettings, runs: Sequence[Run]) -> Loaded:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.claims.figure_statements import load_figure_statements
        from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
        from builder.core.reported import load_reported
        from builder.benchmarks.cibuzzbench.run_checks import validate_runs
        from builder.benchmarks.cibuzzbench.prompts import load_protocols

        path = _dataset(settings)
        spec = _options(settings).spec
        dataset = load_dataset(path, spec) if spec else load_dataset(path)
        variants = _variants(dataset, settings)
        valid = validate_runs(runs, {"original": dataset, **variants}, settings.run_cache)
        reported = settings.reported or load_reported(settings.content_dir / "reported.yaml")
        statements = load_figure_statements(settings.content_dir / "article-figures.yaml", reported)
        protocols_file = settings.content_dir / "protocols" / "cibuzzbench.yaml"
        protocols = load_protocols(protocols_file) if protocols_file.is_file() else {}
        return Loaded(dataset, variants, valid, reported, statements, protocols)

    def compute(self, loaded: Loaded, facts: FactTable, settings: BuildSettings) -> State:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.analyses.fidelity import add_article_fidelity_facts
        from builder.benchmarks.cibuzzbench.analyses.leak_split import add_leak_split
        from builder.benchmarks.cibuzzbench.compute import compute

        computed = compute(loaded.dataset, loaded.runs, loaded.variants, facts=facts, **_cached_steps(loaded, settings.run_cache))
        _add_importance(computed, loaded.dataset, settings.cache_dir)
        add_article_fidelity_facts(facts, loaded.statements, loaded.reported)
        split = add_leak_split(facts, computed.scores, loaded.dataset, settings.kept_folder())
        return State(loaded, computed, split)

    def add_commands(self, subcommands: Any) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.commands import add_commands
        add_commands(subcommands)

    def add_data_actions(self, actions: Any) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.commands import add_data_actions
        add_data_actions(actions)

    def check_data(self, content_dir: Path, names: Sequence[str] | None,
                   log: Callable[[str], None]) -> list[dict[str, Any]]:
        """The CSV, unless `--benchmark` asks only for other data."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.commands import check_data
        return [] if names else check_data(log)

    def add_import_options(self, parser: Any) -> dict[str, Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.commands import add_import_options
        return add_import_options(parser)

    def add_export_options(self, parser: Any) -> dict[str, Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.interop.command import add_export_options
        return add_export_options(parser)

    def score_run(self, path: Path, settings: BuildSettings) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Scored on the option set the run names (a gold-pool run on its derived variant)."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
        from builder.benchmarks.cibuzzbench.probes.report import probe_report
        from builder.runs.reader import read_run
        variant = read_run(path).header.variant
        dataset = load_dataset(_dataset(settings))
        return probe_report(path, dataset if variant == "original" else _variants(dataset, settings)[variant])

    def assets(self, settings: BuildSettings) -> dict[str, Path]:
        """The item browser its run pages load (content/templates/run.html)."""
        return {"assets/item-browser.js": settings.content_dir / "static" / "item-browser.js"}

    def fetch_data(self, content_dir: Path, names: Sequence[str] | None, log: Callable[[str], None]) -> None:
        """The CSV, unless `--benchmark` asks only for other data."""
        if not names:
            # deferred: the registry imports every plug-in to list it; a stage loads its own modules
            from builder.benchmarks.cibuzzbench.commands import fetch_csv
            fetch_csv(log)

    def add_probe_options(self, group: Any) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.probes.command import add_probe_options
        add_probe_options(group)

    def probe_plans(self, args: Any) -> list[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.probes.command import probe_plans
        return probe_plans(args)

    def harness_interop(self) -> Any:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.interop.hooks import CIBuzzBenchHarness
        return CIBuzzBenchHarness()

    def measures(self, state: State, facts: FactTable, registry: MeasureRegistry) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.measures import register_run_measures
        computed = state.computed
        register_run_measures(registry, computed.scores.values(), facts, computed.pair_triples())

    def fact_sections(self) -> tuple[Section, ...]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.fact_keys import SECTIONS
        return SECTIONS

    def site(self, state: State, facts: FactTable, svg: Any) -> SiteParts:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.views.chart_set import build_charts, finding_chart
        from builder.benchmarks.cibuzzbench.views.site_tables import site_tables

        computed, loaded = state.computed, state.loaded
        runs = [RunBrief(rid, s.run.header.created, s.run.complete, has_page=True,
                         kind=str(s.run.header.subject.get("kind", "model"))) for rid, s in computed.scores.items()]
        return SiteParts(
            tables=site_tables(computed, loaded.statements, loaded.reported, state.leak_split),
            charts={**build_charts(computed, svg), **finding_chart(computed, loaded.reported, svg)} if svg is not None else {},
            context={"pair_summaries": computed.pair_summaries},
            page_functions=lambda value: _page_functions(computed, value),
            sources=[DataSource(self.title, loaded.dataset.content_sha256, UPSTREAM_TREE, PINNED_COMMIT)], runs=runs)

    def run_rows(self, state: State, facts: FactTable, settings: BuildSettings) -> Sequence[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.views.run_rows import run_rows
        from builder.runs.cache import datasets_key
        loaded = state.loaded
        data = datasets_key({"original": loaded.dataset, **loaded.variants})
        return run_rows(state.computed, facts, settings.run_cache, data,
                        state.leak_split.leak if state.leak_split is not None else None)

    def pages(self, state: State, facts: FactTable, settings: PageSettings) -> dict[str, bytes]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.cibuzzbench.views.run_pages import render_run_pages
        loaded = state.loaded
        return render_run_pages(settings.env, state.computed, {"original": loaded.dataset, **loaded.variants},
                                settings.common, settings.run_cache, loaded.protocols or {})


def _variants(dataset: Any, settings: BuildSettings) -> dict[str, Any]:
    """Derived dataset variants, kept in the cache folder by the original's content (deriving
    costs seconds), not its path; without a run cache, derived afresh."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants, named_after
    from builder.core.cache import CacheFolder, cached
    shelf = CacheFolder(settings.kept_folder()).shelf("variants")
    inputs = f"{dataset.file_sha256}\0{dataset.content_sha256}\0{dataset.rows}"
    return named_after(cached(shelf, inputs, lambda: derive_variants(dataset), dict), dataset)


def _cached_steps(loaded: Loaded, cache: "RunCache | None") -> dict[str, Callable[..., Any]]:
    """Scoring a run and analysing a blind/sighted pair through the per-run cache: a score
    depends on its run and the datasets, a pair on its two runs and the datasets (kept with
    run a, under run b's key)."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.analyses.paired import analyse_pair
    from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
    from builder.runs.cache import datasets_key
    if cache is None:
        return {}
    data = datasets_key({"original": loaded.dataset, **loaded.variants})

    def score(run: Run, dataset: Any) -> Any:
        return cache.derived(run, f"score:{data}", lambda: score_run(run, dataset))

    def pair(run_a: Run, run_b: Run, dataset: Any) -> Any:
        key_b = cache.key(run_b)
        if key_b is None:
            return analyse_pair(run_a, run_b, dataset)
        return cache.derived(run_a, f"pair:{data}:{key_b}", lambda: analyse_pair(run_a, run_b, dataset))

    return {"score": score, "pair": pair}


def _dataset(settings: BuildSettings) -> Path:
    """The CSV the build was given, else CIBUZZBENCH_CSV or the downloaded copy (never the network)."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    given = _options(settings).dataset
    return given if given is not None else dataset_path()


def _options(settings: BuildSettings) -> Any:
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.build_options import NAME, BuildOptions
    return settings.options_for(NAME, BuildOptions)


def _add_importance(computed: Any, dataset: Any, cache_dir: Path) -> None:
    """Feature importance of the learned probe, shown only when its runs are in the build."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.analyses.importance import add_importance_facts, feature_importance
    learned = tuple(rid for rid, s in computed.scores.items()
                    if s.run.header.subject_name == "learned_options" and s.run.header.variant == "original")
    if learned:
        add_importance_facts(computed.facts, feature_importance(dataset, cache_dir), learned)


def _page_functions(computed: Any, value: Callable[[str], float]) -> dict[str, Callable[..., Any]]:
    """Functions CIBuzzBench's pages call besides the site's own."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES
    from builder.benchmarks.cibuzzbench.views import model_views as mv
    facts = computed.facts

    def by_category(pattern: str) -> dict[str, str]:
        """{category: key} for the categories, in dataset order, whose `pattern` key exists
        (`{}` in the pattern stands for the category label)."""
        return {c: pattern.format(c) for c in CATEGORIES if pattern.format(c) in facts}

    def per_model(pattern: str) -> dict[str, str]:
        """{model name: key} over the paired model summaries whose `pattern` key exists (`{}`
        stands for the summary id), for sentences that name the model with the extreme value. Only
        pairs on the original option set: a gold-pool pair answers another question (prediction 1)."""
        summaries = [s for s in computed.pair_summaries if s.blind.variant == "original"]
        names = [s.model for s in summaries]
        found = {(s.model if names.count(s.model) == 1 else f"{s.model} ({mv.selection_label(s.blind.selection)})"):
                 pattern.format(s.id) for s in summaries}
        return {name: key for name, key in found.items() if key in facts}

    return {"by_category": by_category, "per_model": per_model}


BENCHMARK = CIBuzzBench()
