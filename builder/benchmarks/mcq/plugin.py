"""Any multiple-choice benchmark described by a spec file (content/benchmarks/<name>.yaml): its
CLI (`buzzprobe audit SPEC`, and `buzzprobe probe --benchmark NAME` through the probe command),
and one site section per spec: a generated page `benchmarks/<name>.html` with the data set's
composition and findings, option lengths, the model-free audit, the models' sighted and blind
runs with their pairs and the categories, linked from the index through `mcq_benchmarks`.

No spec is committed (buzzprobe never ships a third party's data), so by default this plug-in
adds nothing to the site. Runs name their spec (`benchmark: <spec name>`); one run format
serves them all (run_format.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.benchmarks.base import (Benchmark, BuildSettings, DataSource, Files, PageSettings, RunBrief,
                                     SiteParts)
from builder.core.errors import InputError
from builder.core.factkeys import Section
from builder.core.facts import FactTable

if TYPE_CHECKING:
    from markupsafe import Markup

    from builder.benchmarks.mcq.analyses.compute import Computed
    from builder.benchmarks.mcq.analyses.index import Shelf
    from builder.benchmarks.mcq.loading import Loaded
    from builder.ranker.leak import LeakScores
    from builder.runs.schema import Run
    from builder.site.charts import Chart, SvgRenderer

PAGE_DIR = "benchmarks"
TEMPLATE = "benchmark.html"


class SpecBenchmarks(Benchmark[list["Loaded"], "Shelf"]):
    name = "mcq"
    title = "Multiple-choice benchmarks from spec files"
    run_format_module = "builder.benchmarks.mcq.run_format"
    probes = True
    harness_tasks = True

    def run_names(self, settings: BuildSettings) -> set[str]:
        """Every spec's name, skipped ones too: the runs of a benchmark left out of this build
        (BUZZPROBE_SKIP_BENCHMARKS) are set aside with it, not refused as unknown."""
        return {path.stem for path in (settings.content_dir / "benchmarks").glob("*.yaml")}

    def inputs(self, settings: BuildSettings) -> list[Path]:
        """The data files the specs name (a changed file changes the audit); a spec with a
        problem is reported by `load`."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.spec import load_spec, spec_files
        found: list[Path] = []
        for path in spec_files(settings.content_dir):
            try:
                files = load_spec(path).location.files()
            except InputError:
                continue
            found.extend(f for f in files if f.is_file())
        return found

    def start(self, settings: BuildSettings) -> None:
        """Each spec's data and audit in worker processes while the runs are read (audit_pool.py)."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.audit_pool import start
        from builder.benchmarks.mcq.spec import spec_files
        start(settings.content_dir, settings.cache_dir, spec_files(settings.content_dir))

    def load(self, settings: BuildSettings, runs: Sequence[Run]) -> list[Loaded]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.loading import load_specs
        return load_specs(settings.content_dir, settings.cache_dir, runs, settings.run_cache)

    def compute(self, loaded: list[Loaded], facts: FactTable, settings: BuildSettings) -> Shelf:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.analyses.index import Shelf, compute_index
        from builder.benchmarks.mcq.analyses.compute import compute_spec
        from builder.benchmarks.mcq.loading import spec_cache
        specs = [compute_spec(one, facts, spec_cache(one.benchmark, settings.run_cache, settings.kept_folder(),
                                                     settings.cache_dir)) for one in loaded]
        return Shelf(specs, compute_index(specs, facts, PAGE_DIR))

    def fact_sections(self) -> tuple[Section, ...]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.fact_keys import SECTIONS
        return SECTIONS

    def site(self, shelf: Shelf, facts: FactTable, svg: SvgRenderer | None) -> SiteParts:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.views.spec_tables import (INDEX_CHART, INDEX_TABLE, index_chart_rows, index_table,
                                                  leak_chart_id, spec_tables)
        from builder.site.charts import category_score_chart
        from builder.site.tables import FactCells
        cells = FactCells(facts)
        tables: dict[str, Any] = {}
        computed = shelf.specs
        for one in computed:
            tables.update(spec_tables(one, cells))
        charts = {}
        if computed:
            tables[INDEX_TABLE] = index_table(shelf.index, cells)
            if svg is not None:
                charts[INDEX_CHART] = category_score_chart(
                    index_chart_rows(shelf.index, facts), id=INDEX_CHART, renderer=svg,
                    title="Gain over chance from the options alone", value_title="Points over chance",
                    series_title="Probe", description="Per benchmark, the learned option-only probe's and the "
                    "strongest rule's accuracy minus chance, with 95% bootstrap intervals (seed 1111's shuffle).")
        for one in computed:
            if one.leak is not None and svg is not None:
                charts[leak_chart_id(one.name)] = _leak_chart(one, facts, svg)
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.views.summary import shelf_listing, strongest_splits
        listed = shelf_listing(computed, PAGE_DIR, facts)
        return SiteParts(
            tables=tables, charts=charts, context={"mcq_benchmarks": listed, "mcq_index": shelf.index,
                                                   "mcq_leak": strongest_splits(listed)},
            sources=[DataSource(c.loaded.benchmark.spec.title, c.loaded.benchmark.content_sha256, *_source(c))
                     for c in computed],
            runs=[_brief(c, r) for c in shelf.specs for r in c.loaded.runs])

    def run_rows(self, shelf: Any, facts: FactTable, settings: BuildSettings) -> Sequence[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.views.run_rows import run_rows
        return run_rows(shelf, facts, settings.run_cache, settings.cache_dir)

    def pages(self, shelf: Shelf, facts: FactTable, settings: PageSettings) -> Files:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.shuffle import SEEDS
        from builder.benchmarks.mcq.views.spec_tables import LEAK_DIR, leak_chart_id, leak_prose, spec_tables
        from builder.benchmarks.mcq.views.summary import page_summary
        from builder.site.tables import FactCells
        computed = shelf.specs
        files: Files = {}
        if not computed:
            return files
        template = settings.env.get_template(TEMPLATE)
        chart_module = settings.env.get_template("chart.html").make_module({**settings.common, "root": "../"})
        render_chart: Callable[[Any], Markup] = getattr(chart_module, "render")  # the template's macro (no stub names it)
        for one in computed:
            tables = spec_tables(one, FactCells(facts))
            spec = one.loaded.benchmark.spec
            chart = settings.charts.get(leak_chart_id(one.name))
            html = template.render(**settings.common, root="../", slug=PAGE_DIR, title=spec.title,
                                   leak_chart=render_chart(chart) if chart is not None else "",
                                   leak_prose=leak_prose(one, FactCells(facts)) if one.leak is not None else [],
                                   summary=page_summary(one, FactCells(facts)),
                                   description=f"Composition, option lengths, the model-free audit and model runs "
                                               f"of {spec.title}.",
                                   spec=spec, computed=one, tables=tables,
                                   prompts=_example_prompts(one) if spec.quote_items else {},
                                   seed=SEEDS[0])
            files[f"{PAGE_DIR}/{one.name}.html"] = html.encode("utf-8")
            files[f"{LEAK_DIR}/{one.name}.csv"] = _cached_leak_csv(one.loaded, settings.cache_folder)
            if one.strata:
                files[f"{LEAK_DIR}/{one.name}-strata.csv"] = strata_csv(one)
        return files

    def add_audit_options(self, parser: Any) -> Any:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.command import add_audit_options
        return add_audit_options(parser)

    def score_run(self, path: Path, settings: BuildSettings) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Scored against its spec (content/benchmarks/NAME.yaml), as `probe` scores it."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.choice_set import choice_set
        from builder.benchmarks.mcq.load import load_benchmark
        from builder.benchmarks.mcq.probe import spec_path
        from builder.benchmarks.mcq.probe_report import spec_probe_report
        from builder.runs.reader import read_run
        name = read_run(path).header.benchmark
        return spec_probe_report(path, choice_set(load_benchmark(spec_path(name, None, settings.content_dir))))

    def probe_names(self, content_dir: Path) -> list[str]:
        """Every spec file's name (content/benchmarks/NAME.yaml)."""
        return sorted(p.stem for p in (content_dir / "benchmarks").glob("*.yaml"))

    def fetch_data(self, content_dir: Path, names: Sequence[str] | None, log: Callable[[str], None]) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.fetch import fetch_specs
        fetch_specs(content_dir, names, log)

    def check_data(self, content_dir: Path, names: Sequence[str] | None, log: Callable[[str], None]) -> list[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.fetch import check_specs
        return check_specs(content_dir, names)

    def add_import_options(self, parser: Any) -> dict[str, Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.results.command import WORD, add_results_options, run_results_import
        add_results_options(parser)
        return {WORD: run_results_import}

    def add_probe_options(self, group: Any) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.command import add_data_option
        group.add_argument("--spec", type=Path, default=None, metavar="PATH",
                           help="a multiple-choice benchmark's spec file (instead of content/benchmarks/NAME.yaml)")
        add_data_option(group)

    def probe_plans(self, args: Any) -> list[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.probe import spec_plans
        return spec_plans(args)

    def harness_interop(self) -> Any:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mcq.interop.hooks import SpecHarness
        return SpecHarness()


def _brief(computed: Any, run: Any) -> RunBrief:
    """What the footer and What's new know of a run: the site writes its page (run_rows); an
    imported run is dated by its source's commit date, and a finished run of part of the items
    says so."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.site.run_catalogue import coverage_label, provenance_of
    source = provenance_of(run.header.source)
    return RunBrief(run.header.run_id, run.header.created, run.complete, has_page=True,
                    kind=str(run.header.subject.get("kind", "model")), source_date=source.date if source else "",
                    coverage=coverage_label(len(run.items), len(computed.loaded.data.items),
                                             run.complete or source is not None))


def _leak_chart(one: Computed, facts: FactTable, svg: SvgRenderer) -> Chart:
    """The leak split's gaps with their intervals, one row per model in strict-accuracy order."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.mcq.views.spec_tables import leak_chart_id, leak_chart_rows
    from builder.site.charts import category_score_chart
    return category_score_chart(
        leak_chart_rows(one, facts), id=leak_chart_id(one.name), renderer=svg, zero=True,
        title="Accuracy on the items the options give away minus on the rest", value_title="Gap (points)",
        series_title="Gap", description="Per model (by strict accuracy on all items), strict accuracy on the "
        "option-solvable items minus on the rest, crude (all items pooled) and adjusted (compared within strata, "
        "Mantel–Haenszel), each with its 95% bootstrap interval resampled within strata.")


def strata_csv(one: Computed) -> bytes:
    """The leak split within each stratum, a row per split run and stratum: the inputs of each
    run's adjusted gap (accuracies and gap in points, to six decimals; empty where a kind is absent)."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.site.tables_csv import table_csv
    from builder.stats.solvable_split import STRATA_COLUMNS
    labels = {r.header.run_id: r.header.subject_label for r in one.loaded.runs}

    def num(value: float | None) -> object:
        return "" if value is None else round(value, 6)
    return table_csv(STRATA_COLUMNS, [(rid, labels[rid], r.stratum, r.solvable_items, num(r.accuracy_solvable),
                                       r.rest_items, num(r.accuracy_rest), num(r.gap), num(r.weight))
                                      for rid, rows in one.strata for r in rows])


def _cached_leak_csv(loaded: Loaded, folder: Path | None) -> bytes:
    """leak_csv of the audit, cached in the build's cache `folder` (loading.spec_cached): 40,000
    rows cost 0.3 s per build."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.mcq.loading import spec_cache, spec_cached
    leak = loaded.audit.leak
    assert leak is not None  # every audit has one (audit.audit sets it; None is only the field's default)
    return spec_cached(loaded, spec_cache(loaded.benchmark, None, folder, folder), "leak-csv", lambda: leak_csv(leak), bytes)


def leak_csv(leak: LeakScores) -> bytes:
    """`id,leak_score,solvable` per audited item (probability to six decimals, solvable 0/1): the
    download the frontier split reads (builder.ranker.leak)."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.ranker.leak import CSV_COLUMNS
    from builder.site.tables_csv import table_csv
    return table_csv(CSV_COLUMNS, [(i, round(p, 6), int(s)) for i, p, s in leak.rows()])


def _source(computed: Computed) -> tuple[str | None, str | None]:
    """The upstream repository at the pinned commit, when the spec pins a GitHub download."""
    download = computed.loaded.benchmark.spec.location.download
    return download.source() if download is not None else (None, None)


def _example_prompts(computed: Computed) -> dict[str, str]:
    """The first audited item as each arm shows it under option seed 1111: what a model is asked."""
    # deferred: the registry imports every plug-in to list it; a stage loads its own modules
    from builder.benchmarks.mcq import shuffle
    from builder.benchmarks.mcq.prompts import BLIND, SIGHTED, render_prompt
    data = computed.loaded.data
    item = data.items[data.row_ids()[0]]
    shown = shuffle.order(shuffle.SEEDS[0], item.shuffle_key, len(item.choices))
    return {condition: render_prompt(data.benchmark.spec, item, shown, condition) for condition in (SIGHTED, BLIND)}


BENCHMARK = SpecBenchmarks()
