"""Any multiple-choice benchmark described by a spec file (content/benchmarks/<name>.yaml):
for now its CLI (`buzzprobe audit SPEC`); its site section and runs come next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builder.benchmarks.base import Benchmark, BuildSettings, SiteParts
from builder.core.facts import FactTable


class SpecBenchmarks(Benchmark):
    name = "mcq"
    title = "Multiple-choice benchmarks from spec files"

    def run_names(self, settings: BuildSettings) -> set[str]:
        return set()

    def load(self, settings: BuildSettings, runs: Sequence[Any]) -> None:
        return None

    def compute(self, loaded: None, facts: FactTable, settings: BuildSettings) -> None:
        return None

    def site(self, computed: None, facts: FactTable, svg: Any) -> SiteParts:
        return SiteParts()

    def add_commands(self, subcommands: Any) -> None:
        from builder.benchmarks.mcq.command import add_audit_parser
        add_audit_parser(subcommands)


BENCHMARK = SpecBenchmarks()
