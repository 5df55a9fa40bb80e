"""Mouse (Chinese "Chouxiang" internet language) as a plug-in: the paper's reported tables,
figures derived from them and the check of its statements. The item data is gated, so
nothing here is measured unless runs are added."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from builder.benchmarks.base import Benchmark, BuildSettings, SiteParts
from builder.benchmarks.mouse.fact_keys import SECTIONS
from builder.benchmarks.mouse.site_parts import MouseComputed, compute_mouse, mouse_charts, mouse_tables
from builder.core.errors import InputError, Problem
from builder.core.factkeys import Section
from builder.core.facts import FactTable


class Mouse(Benchmark):
    name = "mouse"
    title = "Mouse"

    def load(self, settings: BuildSettings, runs: Sequence[Any]) -> Path:
        if runs:
            raise InputError([Problem(r.path, "Mouse runs are not read by the build yet", 1, "benchmark")
                              for r in runs])
        return settings.content_dir

    def compute(self, loaded: Path, facts: FactTable, settings: BuildSettings) -> MouseComputed:
        return compute_mouse(facts, loaded)

    def fact_sections(self) -> tuple[Section, ...]:
        return SECTIONS

    def site(self, computed: MouseComputed, facts: FactTable, svg: Any) -> SiteParts:
        charts = mouse_charts(facts, computed, svg) if svg is not None else {}
        return SiteParts(tables=mouse_tables(facts, computed), charts=charts,
                         context={"mouse_verdicts": computed.verdicts})


BENCHMARK = Mouse()
