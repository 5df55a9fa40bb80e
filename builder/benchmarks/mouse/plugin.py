"""Mouse (Chinese "Chouxiang" internet language) as a plug-in: the paper's reported tables,
figures derived from them, the check of its statements, and the Mouse runs under runs/ that
buzzprobe scored itself, shown beside the reported leaderboard and marked as measured.

The item data is gated: measured runs are scored only when the build is given the folder of
the data files (MOUSE_DATA); without Mouse runs the page shows the reported figures alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.benchmarks.base import Benchmark, BuildSettings, DataSource, RunBrief, SiteParts
from builder.core.factkeys import Section
from builder.core.facts import FactTable
from builder.runs.schema import Run

if TYPE_CHECKING:
    from builder.benchmarks.mouse.analyses.reported_figures import MouseComputed


@dataclass(frozen=True)
class MouseLoaded:
    content_dir: Path
    runs: list[Run]  # checked against their data files
    datasets: list[Any]  # MouseSet: the data files the runs were made on


@dataclass(frozen=True)
class MouseState:
    computed: "MouseComputed"
    measured: list[Any]  # analyses.measured_runs.Measured: the page's rows, one per finished run
    datasets: list[Any]
    runs: list[Run]


class Mouse(Benchmark[MouseLoaded, MouseState]):
    name = "mouse"
    title = "Mouse"
    run_format_module = "builder.benchmarks.mouse.run_format"

    def inputs(self, settings: BuildSettings) -> list[Path]:
        """The data files in MOUSE_DATA, when given (a changed file changes the scores)."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.analyses.measured_runs import data_folder
        folder = data_folder()
        return sorted(p for p in folder.iterdir() if p.is_file()) if folder is not None and folder.is_dir() else []

    def load(self, settings: BuildSettings, runs: Sequence[Run]) -> MouseLoaded:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.analyses.measured_runs import check_runs, data_folder, load_mouse_data
        datasets = load_mouse_data(data_folder()) if runs else []
        return MouseLoaded(settings.content_dir, check_runs(list(runs), datasets), datasets)

    def add_commands(self, subcommands: Any) -> None:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.command import add_mouse_parser
        add_mouse_parser(subcommands)

    def score_run(self, path: Path, settings: BuildSettings) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """`buzzprobe mouse score`'s metrics at the site's bootstrap (MOUSE_DATA's files; tr runs need none)."""
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.analyses.measured_runs import data_folder, load_mouse_data
        from builder.benchmarks.mouse.probe_score import figures
        return figures(path, load_mouse_data(data_folder()))

    def fact_sections(self) -> tuple[Section, ...]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.fact_keys import SECTIONS
        return SECTIONS

    def compute(self, loaded: MouseLoaded, facts: FactTable, settings: BuildSettings) -> MouseState:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.analyses.measured_runs import add_measured_facts
        from builder.benchmarks.mouse.analyses.reported_figures import compute_mouse
        computed = compute_mouse(facts, loaded.content_dir)
        measured = add_measured_facts(facts, loaded.runs, loaded.datasets,
                                      reported_models=tuple(computed.reported.main.rows))
        used = {run.header.dataset["content_sha256"] for run in loaded.runs}
        return MouseState(computed, measured, [d for d in loaded.datasets if d.content_sha256 in used], loaded.runs)

    def site(self, state: MouseState, facts: FactTable, svg: Any) -> SiteParts:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.views.measured_table import MEASURED_TABLE, measured_table
        from builder.benchmarks.mouse.views.reported_tables import mouse_tables
        from builder.benchmarks.mouse.views.scale_chart import mouse_charts
        from builder.site.tables import FactCells
        computed = state.computed
        tables = mouse_tables(facts, computed)
        if state.measured:
            tables[MEASURED_TABLE] = measured_table(FactCells(facts), state.measured, computed.reported)
        charts = mouse_charts(facts, computed, svg) if svg is not None else {}
        return SiteParts(tables=tables, charts=charts, context={"mouse_verdicts": computed.verdicts},
                         sources=[DataSource(f"{self.title} {d.path.stem}", d.content_sha256) for d in state.datasets],
                         runs=[RunBrief(r.header.run_id, r.header.created, r.complete, has_page=True) for r in state.runs])

    def run_rows(self, state: MouseState, facts: FactTable, settings: BuildSettings) -> Sequence[Any]:
        # deferred: the registry imports every plug-in to list it; a stage loads its own modules
        from builder.benchmarks.mouse.views.run_rows import run_rows
        return run_rows(state.runs, facts)


BENCHMARK = Mouse()
