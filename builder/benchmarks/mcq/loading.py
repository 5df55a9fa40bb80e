"""The load stage of the spec'd benchmarks: each spec in content/benchmarks/ with its data (its
items cached by content), its audit (cached) and the runs that name it, every run checked
(run_checks.py) before anything is computed, every problem reported at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from builder.benchmarks.mcq.analyses.audit import Audit
from builder.benchmarks.mcq.analyses.audit_cache import cache_key, cached_audit, cached_benchmark, cached_choice_set
from builder.benchmarks.mcq.load import SpecData
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.run_checks import run_problems
from builder.benchmarks.mcq.spec import Spec, load_spec, spec_files
from builder.core.cache import CacheFolder, cached
from builder.core.errors import InputError, Problem, gather
from builder.core.yamlfile import line_of, load_mapping
from builder.runs.cache import RunCache
from builder.runs.schema import Run
from builder.benchmarks.mcq.analyses.reconcile import load_reconciliation
from builder.benchmarks.mcq.fetch import missing_problems
from builder.benchmarks.mcq.audit_pool import taken

if TYPE_CHECKING:
    from builder.benchmarks.mcq.audit_pool import AuditPool

T = TypeVar("T")


@dataclass(frozen=True)
class Loaded:
    benchmark: SpecData
    data: ChoiceSet
    audit: Audit
    runs: tuple[Run, ...]  # checked against the data, in run-id order
    reconciliation: Any = None  # reconcile.Reconciliation: the upstream's reported figures, when a file names them


@dataclass(frozen=True)
class SpecCache:
    """The build's caches as one spec's compute and views use them: context made from the build's
    settings at each stage (spec_cache), never kept in Loaded or Computed."""

    runs: RunCache | None = None  # the build's per-run cache (run_summary.py, the run rows' memo)
    folder: Path | None = None  # the build's cache folder (spec-level facts, the leak download), if any
    key: str = ""  # audit_cache.cache_key: what the audit and each run's summary are computed from


def spec_cache(benchmark: SpecData, runs: RunCache | None, folder: Path | None, cache_dir: Path | None) -> SpecCache:
    """The caches of one spec; its key (read from the spec and data as the load stage read them,
    `cache_dir` keeping the code's hash) only when there is a cache to use it."""
    if runs is None and folder is None:
        return SpecCache()
    return SpecCache(runs, folder, cache_key(benchmark, cache_dir))


def spec_cached(loaded: Loaded, cache: SpecCache, kind: str, compute: Callable[[], T], value_type: type) -> T:
    """A value of one spec's data and audit alone, kept in the cache folder under the
    benchmark's key (a folder per spec and kind, so the stale-entry sweep of one never meets
    another spec's entry); computed afresh without a cache folder."""
    if cache.folder is None or not cache.key:
        return compute()
    return cached(CacheFolder(cache.folder).spec_shelf(kind, loaded.benchmark.spec.name), cache.key, compute,
                  value_type)


def spec_name_problem(path: Path, name: str) -> Problem | None:
    """The file is named after its benchmark, so `probe --benchmark NAME` finds it."""
    if path.stem == name:
        return None
    _, lines = load_mapping(path)
    return Problem(str(path), f"the spec of {name!r} must be named {name}.yaml", line_of(lines, ("name",)), "name")


def load_specs(content_dir: Path, cache_dir: Path, runs: Sequence[Run], run_cache: RunCache | None = None) -> list[Loaded]:
    """Every spec, its data, its audit (cached) and its runs; every problem at once."""
    by_name: dict[str, list[Run]] = {}
    for run in runs:
        by_name.setdefault(run.header.benchmark, []).append(run)
    pool = taken(content_dir, cache_dir)
    try:
        return gather(spec_files(content_dir), lambda path: replace(
            load_spec_runs(path, cache_dir, by_name, run_cache, pool),
            reconciliation=load_reconciliation(content_dir, path.stem)))
    finally:
        if pool is not None:
            pool.close()


def load_spec_runs(path: Path, cache_dir: Path, by_name: dict[str, list[Run]],
                   run_cache: RunCache | None = None, pool: "AuditPool | None" = None) -> Loaded:
    """One spec with its data, audit and the runs named for it (by benchmark name), checked.
    The data and audit come from `pool`'s workers when they prepared them (audit_pool.py)."""
    spec = load_spec(path)
    if (problem := spec_name_problem(path, spec.name)) is not None:
        raise InputError([problem])
    _check_data_file(spec)
    prepared = pool.take(path) if pool is not None else None
    benchmark = prepared[0] if prepared is not None else cached_benchmark(path, cache_dir)
    data = cached_choice_set(benchmark, cache_dir)
    mine = sorted(by_name.get(spec.name, []), key=lambda r: r.header.run_id)
    key = cache_key(benchmark, cache_dir)
    found = [p for run in mine for p in _checked(run, benchmark, data, run_cache, key)]
    if found:
        raise InputError(found)
    audit = prepared[1] if prepared is not None else cached_audit(benchmark, cache_dir)
    return Loaded(benchmark, data, audit, tuple(mine))


def _checked(run: Run, benchmark: SpecData, data: ChoiceSet, run_cache: RunCache | None, key: str) -> list[Problem]:
    """run_problems, kept in the run cache by the benchmark's key (spec, data, audit code)."""
    if run_cache is None:
        return run_problems(run, benchmark, data)
    return run_cache.derived(run, f"mcq-problems:{key}", lambda: run_problems(run, benchmark, data))


def _check_data_file(spec: Spec) -> None:
    missing = spec.location.missing()
    if missing:
        raise InputError(missing_problems(spec, missing))

