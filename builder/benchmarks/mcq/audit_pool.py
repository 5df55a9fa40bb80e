"""The specs' data and audits, prepared in worker processes while the build reads its runs.

A cold build (empty cache: a fresh clone, CI) audits every shipped spec, and the audits need no
run: they are a function of the spec, its data and the code alone (audit_cache.py). The build
starts them here as soon as it knows it has work (`start`, from the plug-in's `start` hook), and
the load stage collects each spec's result (`take`) after the main process has read the runs and
loaded the other benchmarks: on two cores the two halves overlap.

Nothing here decides a figure: a worker runs the same cached_benchmark/cached_audit the main
process would (same seeds, same inputs) and hands back the values, which also land in the cache
as before. A worker that fails (a bad spec, missing data) hands back nothing: the load stage then
computes in the main process, which reports the located error as it always did. Results are
looked up by spec path, so the order the workers finish in changes nothing.
"""

from __future__ import annotations

import atexit
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from builder.benchmarks.mcq.analyses.audit import Audit
from builder.benchmarks.mcq.load import SpecData
from builder.benchmarks.mcq.analyses.audit_cache import cached_audit, cached_benchmark, is_cached
from builder.benchmarks.mcq.spec import load_spec
from builder.core.workers import WORKERS_ENV, new_pool, stop, worker_count  # noqa: F401 - WORKERS_ENV: its tests set it here

_running: dict[tuple[Path, Path], "AuditPool"] = {}


def workers() -> int:
    """builder.core.workers' count: one per core unless BUZZPROBE_WORKERS says. On 2 cores two:
    the audits (about 45 s of CPU, MMLU-Pro's a third of it) are longer than the main process's
    reading and loading, so with one worker the build waited for it; with two the processes
    share both cores until the audits are done."""
    return worker_count()


class AuditPool:
    """Futures of (SpecData, Audit) by spec path, from a process pool that is shut down once taken."""

    def __init__(self, executor: ProcessPoolExecutor, futures: dict[Path, Future[tuple[SpecData, Audit]]]):
        self.executor, self.futures = executor, futures

    def take(self, path: Path) -> tuple[SpecData, Audit] | None:
        """This spec's data and audit, or None when the worker failed (the caller recomputes)."""
        future = self.futures.pop(path.resolve(), None)
        if future is None:
            return None
        try:
            return future.result()
        except Exception:  # noqa: BLE001 - the main process recomputes and reports it, located
            return None

    def close(self) -> None:
        """Cancel what has not started and end the workers (a failed build must not wait for audits)."""
        stop(self.executor)


def start(content_dir: Path, cache_dir: Path, specs: list[Path]) -> None:
    """Begin preparing `specs` (largest data first, so the longest audit is not last) in workers;
    those whose items and audit are cached are left to the load stage, which reads them back
    faster than a worker could start (a warm build starts no worker)."""
    if workers() < 1 or (content_dir, cache_dir) in _running:
        return
    specs = [path for path in specs if not is_cached(path, cache_dir)]
    count = min(workers(), len(specs))
    if count < 1:
        return
    # deferred: the audits fit with scikit-learn; loaded here, before the fork, the workers share
    # it instead of each importing it (about 1 s each), and a warm build, which forks none, never loads it
    import builder.ranker.plain  # noqa: F401
    executor = new_pool(count)
    ordered = sorted(specs, key=_data_size, reverse=True)
    futures = {p.resolve(): executor.submit(prepare, p, cache_dir) for p in ordered}
    _running[(content_dir, cache_dir)] = AuditPool(executor, futures)


def taken(content_dir: Path, cache_dir: Path) -> AuditPool | None:
    """The pool `start` began for this build, handed over once (the caller closes it)."""
    return _running.pop((content_dir, cache_dir), None)


def prepare(path: Path, cache_dir: Path) -> tuple[SpecData, Audit]:
    """In a worker: what the load stage would compute for this spec without runs."""
    benchmark = cached_benchmark(path, cache_dir)
    return benchmark, cached_audit(benchmark, cache_dir)


def _data_size(path: Path) -> int:
    """Bytes of the spec's data files (0 when they cannot be listed: the worker will fail anyway)."""
    try:
        return sum(f.stat().st_size for f in load_spec(path).location.files() if f.is_file())
    except Exception:  # noqa: BLE001 - ordering only; the load stage reports the problem
        return 0


@atexit.register
def _close_all() -> None:
    while _running:
        _running.popitem()[1].close()
