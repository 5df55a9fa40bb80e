"""Benchmarks plugged into the pipeline, one folder each.

A benchmark is a sub-package with a `plugin` module defining `BENCHMARK` (a
`builder.benchmarks.base.Benchmark`). Adding one means adding a folder: the registry finds
it here, and the pipeline and the CLI take it from the registry.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from builder.benchmarks.base import Benchmark


@cache
def registered() -> tuple["Benchmark", ...]:
    """Every benchmark, in name order (so builds do not depend on discovery order)."""
    from builder.benchmarks.base import Benchmark
    found = []
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        try:
            plugin = importlib.import_module(f"{__name__}.{module.name}.plugin")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{module.name}.plugin":
                continue  # a helper package, not a benchmark
            raise
        benchmark = getattr(plugin, "BENCHMARK", None)
        if not isinstance(benchmark, Benchmark):
            raise TypeError(f"{plugin.__name__}.BENCHMARK must be a Benchmark instance")
        found.append(benchmark)
    names = [b.name for b in found]
    if len(set(names)) != len(names):
        raise TypeError(f"two benchmarks share a name: {sorted(names)}")
    return tuple(sorted(found, key=lambda b: b.name))


def benchmark_names() -> tuple[str, ...]:
    return tuple(b.name for b in registered())
