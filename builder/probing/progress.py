"""Progress of a probe: a live bar on a terminal, plain lines elsewhere.

tqdm redraws its bar with carriage returns, which a log file or CI console keeps as one long
garbled line; when stderr is not a terminal the same counts are written as whole lines, at
each tenth of the run and at the end, so a log shows how far a run got and nothing else.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

STEPS = 10  # lines per run when not on a terminal (plus the first and the last)


class LineProgress:
    """The part of tqdm's interface the probe engine uses, as whole lines."""

    def __init__(self, total: int, initial: int, desc: str, stream: TextIO):
        self.total, self.n, self.desc, self.stream = total, initial, desc, stream
        self.postfix: dict[str, Any] = {}
        self._next = self._step_after(initial)
        self._say()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.n != self._said:
            self._say()

    def set_postfix(self, refresh: bool = True, **values: Any) -> None:
        self.postfix = values

    def update(self, count: int = 1) -> None:
        self.n += count
        if self.n >= self._next or self.n == self.total:
            self._say()
            self._next = self._step_after(self.n)

    def _step_after(self, done: int) -> int:
        step = max(1, self.total // STEPS)
        return (done // step + 1) * step

    def _say(self) -> None:
        extra = "".join(f", {k}={v}" for k, v in self.postfix.items())  # as tqdm writes them
        print(f"{self.desc}: {self.n}/{self.total} items{extra}", file=self.stream, flush=True)
        self._said = self.n


def progress_bar(total: int, initial: int, desc: str, enabled: bool, stream: TextIO | None = None) -> Any:
    """tqdm on a terminal; LineProgress when `stream` (stderr) is not one; a silent bar when not `enabled`."""
    # deferred: a heavy library, loaded only when this runs
    from tqdm import tqdm
    stream = stream or sys.stderr
    if enabled and not stream.isatty():
        return LineProgress(total, initial, desc, stream)
    return tqdm(total=total, initial=initial, unit="item", desc=desc, file=stream, disable=not enabled,
                mininterval=0.25, smoothing=0.1, dynamic_ncols=True)
