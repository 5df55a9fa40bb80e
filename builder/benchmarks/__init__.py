"""Benchmarks plugged into the pipeline, one folder each.

A benchmark is a sub-package with a `plugin` module defining `BENCHMARK` (a
`builder.benchmarks.base.Benchmark`). Adding one means adding a folder: the registry finds
it here, and the pipeline, the CLI and the run reader take it from the registry. A plugin
module imports only the contract at its top (its stages import their own modules), so reading
runs, which asks the registry for run formats, stays cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

from builder.runs import formats

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from builder.benchmarks.base import Benchmark
    from builder.runs.formats import RunFormat


@cache
def registered() -> tuple["Benchmark", ...]:
    """Every benchmark, in name order (so builds do not depend on discovery order)."""
    # deferred: the run reader installs this registry; the contract loads once plug-ins are listed
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


@cache
def run_format_names() -> tuple[str, ...]:
    """The plug-ins that declare a run format, in name order."""
    return tuple(b.name for b in registered() if b.run_format_module is not None)


@cache
def run_owner(name: str, task: object = None) -> "Benchmark | None":
    """The one rule for who reads a run: the plug-in called `name`, if it declares a run format;
    else the plug-in whose format serves any name and lists the run's `task`; else None. The
    reader takes the run format from this owner and the pipeline hands the run to it."""
    readers = [b for b in registered() if b.run_format_module is not None]
    return _named_or_any_name(readers, name, lambda b: task in b.run_format().tasks)


def probe_owner(name: str) -> "Benchmark | None":
    """Who plans `buzzprobe probe --benchmark NAME`: the probing plug-in called `name`, else the
    probing plug-in that serves any name (the spec'd benchmarks; it checks the name itself)."""
    return _named_or_any_name([b for b in registered() if b.probes], name, lambda b: True)


def _named_or_any_name(plugins: list["Benchmark"], name: str,
                       accepts: "Callable[[Benchmark], bool]") -> "Benchmark | None":
    """The plug-in called `name`, else the first whose run format serves any name and `accepts`."""
    named = [b for b in plugins if b.name == name]
    if named:
        return named[0]
    return next((b for b in plugins if b.run_format_module is not None and b.run_format().any_name
                 and accepts(b)), None)


class RegistryFormats:
    """The registry as the run reader's `FormatLookup` (builder.runs.formats): the reader is
    given it, and names no plug-in itself."""

    def format_for(self, benchmark: str, task: str | None) -> "RunFormat | None":
        owner = run_owner(benchmark, task)
        return owner.run_format() if owner is not None else None

    def names(self) -> tuple[str, ...]:
        return run_format_names()


FORMATS = RegistryFormats()
formats.install(FORMATS)  # the default of every reader: runs are read by this registry's rule


def probe_choices(content_dir: "Path") -> dict[str, str]:
    """Every name `buzzprobe probe --benchmark` takes, with the plug-in that probes it (each
    probing plug-in's `probe_names`: its own name, or one per spec file)."""
    return {name: b.name for b in registered() if b.probes for name in b.probe_names(content_dir)}
