"""One render budget shared by every render of one thing: a page, or a spec's templates over all
of its records.

A limit per render is no limit for a spec: its templates run once per record, so twenty seconds
a render let two nested loops over 1,000 records run for hours, and a megabyte a render filled
the machine one record at a time. So a spec's templates share one budget of time and of
characters made (output, plus every string, list or range an operator, filter, method or global
built on the way), opened by whoever renders them all (`render_budget`); a render with no budget
open (a page, a site template) gets one of its own. Spending it stops the render where it
stands (so the error names the template's line) with BudgetSpent.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


class TemplateLimit(Exception):
    """A template went over a limit (of one operation, one render, or a budget)."""


class BudgetSpent(TemplateLimit):
    """A render budget is spent: every later render under it would fail too."""


@dataclass
class RenderBudget:
    what: str  # whose budget, for the error: "this page", "the spec's templates"
    seconds: float
    chars: int
    spent: float = 0.0  # seconds of finished renders
    made: int = 0  # characters (or items) made so far
    started: float | None = None  # time.monotonic() when the running render began

    def elapsed(self) -> float:
        return self.spent + (0.0 if self.started is None else time.monotonic() - self.started)

    def charge(self, size: int) -> None:
        """Count `size` characters made; the clock is checked too, so a thread without SIGALRM
        still stops once it builds anything past its time."""
        self.made += size
        if self.made > self.chars:
            raise BudgetSpent(f"{self.what} made more than {self.chars:,} characters in all "
                              "(output and the strings built on the way)")
        if self.started is not None and self.elapsed() > self.seconds:
            raise self.out_of_time()

    def out_of_time(self) -> BudgetSpent:
        return BudgetSpent(f"rendering took longer than {self.seconds:g} s ({self.what} in all; a loop too long?)")


class _Current(threading.local):
    budget: RenderBudget | None = None


_CURRENT = _Current()


def current() -> RenderBudget | None:
    return _CURRENT.budget


def charge(size: int) -> None:
    """Count `size` against the open budget (none is open while Jinja folds constants)."""
    budget = _CURRENT.budget
    if budget is not None:
        budget.charge(size)


@contextmanager
def render_budget(what: str, seconds: float, chars: int) -> Iterator[RenderBudget]:
    """Open a budget for every render inside; inside an open one, that one is shared."""
    with spending(RenderBudget(what, seconds, chars)) as budget:
        yield budget


@contextmanager
def spending(budget: RenderBudget) -> Iterator[RenderBudget]:
    """Render under `budget`, opened earlier (renders that come one at a time, such as a probe's
    prompts, share it); inside an open budget, that one is shared."""
    if _CURRENT.budget is not None:
        yield _CURRENT.budget
        return
    _CURRENT.budget = budget
    try:
        yield budget
    finally:
        _CURRENT.budget = None


@contextmanager
def running(budget: RenderBudget) -> Iterator[None]:
    """Time one render against `budget`: interrupted (SIGALRM, main thread only) when the budget's
    time runs out; a nested render runs inside the outer one's time."""
    if budget.started is not None:
        yield
        return
    left = budget.seconds - budget.spent
    if left <= 0:
        raise budget.out_of_time()
    alarm = threading.current_thread() is threading.main_thread()
    if alarm:
        previous = signal.signal(signal.SIGALRM, lambda signum, frame: _on_alarm(budget))
        signal.setitimer(signal.ITIMER_REAL, left)
    budget.started = time.monotonic()
    try:
        yield
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        budget.spent += time.monotonic() - budget.started
        budget.started = None


def _on_alarm(budget: RenderBudget) -> Any:
    raise budget.out_of_time()
