"""Worker processes for work that is independent per input (reading run files, one spec's audit):
both cores of a 2-core machine, while the output stays a function of the inputs alone.

`ordered_map` hands back results in input order, whichever worker finished first, so nothing
downstream can tell how the work was split; with one worker (or BUZZPROBE_WORKERS=0) it is a
plain loop in this process. Workers are forked: they start in milliseconds with this process's
modules and data, so the function and its inputs need not be picklable (only the results are).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

WORKERS_ENV = "BUZZPROBE_WORKERS"  # how many worker processes (0: none, everything in the main process)
MAX_WORKERS = 4

_task: tuple[Callable[[Any], Any], Sequence[Any]] | None = None  # what the forked workers run
_live: "weakref.WeakSet[ProcessPoolExecutor]" = weakref.WeakSet()  # every pool `pool` made, for stop_all


def worker_count() -> int:
    """BUZZPROBE_WORKERS when set, else one per core (at most MAX_WORKERS)."""
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given.isdigit():
        return int(given)
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def fork_context() -> Any:
    """Fork where the platform has it (fast, shares the loaded modules), else spawn."""
    return multiprocessing.get_context("fork" if can_fork() else "spawn")


def ordered_map(function: Callable[[T], R], items: Sequence[T], workers: int | None = None) -> list[R]:
    """[function(item) for item in items], the items shared out among forked workers. An
    exception in a worker is raised here, as the loop would raise it (so `function` should turn
    the errors it reports into results when they must reach the caller intact)."""
    global _task
    count = min(worker_count() if workers is None else workers, len(items))
    if count < 2 or not can_fork() or _task is not None:  # nested: a worker runs its share itself
        return [function(item) for item in items]
    _task = (function, items)
    gc.freeze()  # the workers' collector leaves this process's objects alone: their pages stay shared
    pool = new_pool(count, multiprocessing.get_context("fork"))
    try:
        return list(pool.map(_run_one, range(len(items))))
    except BaseException:  # a failure or Ctrl-C: only the items already started are waited for
        pool.shutdown(wait=True, cancel_futures=True)  # (terminating workers makes 3.11's pool thread fail noisily)
        raise
    finally:
        pool.shutdown(wait=True)
        gc.unfreeze()
        _task = None


def new_pool(count: int, context: Any = None) -> ProcessPoolExecutor:
    """A process pool the main process alone ends. Its workers ignore SIGINT: a Ctrl-C at a
    terminal reaches the whole process group, and a worker that took it would report the item
    as failed and go on to the next (an audit of a minute), while the main process, leaving,
    waited for them. The main process decides instead and ends them all (`stop_all`)."""
    executor = ProcessPoolExecutor(max_workers=count, mp_context=context or fork_context(),
                                   initializer=_start_worker)
    _live.add(executor)
    return executor


def stop_all() -> None:
    """End every pool still working (the CLI calls it as it leaves: after a Ctrl-C or a failed
    build, nobody will read what the workers are computing)."""
    for executor in list(_live):
        stop(executor)


def _start_worker() -> None:
    """Ignore SIGINT (new_pool), and run BLAS on one thread: there is a worker per core, so a
    BLAS thread per core in each only waits for cores the other workers hold."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from threadpoolctl import threadpool_limits  # deferred: only a worker needs it (13 ms to import)
    threadpool_limits(limits=1)


def stop(executor: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers (a failed or interrupted build must not
    wait for work whose result nobody will read)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def _run_one(index: int) -> Any:
    assert _task is not None  # set before the fork
    function, items = _task
    return function(items[index])
