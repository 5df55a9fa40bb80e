"""One error type for bad input, so every stage reports problems the same way."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from builder.core.redact import safe_message

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as we can."""

    path: str
    message: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.field is not None:
            where += f" [{self.field}]"
        return safe_message(f"{where}: {self.message}")  # never a secret variable's value, never a whole file


class InputError(Exception):
    """Raised with every problem found, so a user fixes them all in one pass."""

    def __init__(self, problems: list[Problem]):
        if not problems:
            raise ValueError("InputError needs at least one problem")
        self.problems = problems
        super().__init__(self.render())

    @classmethod
    def single(cls, path: str | Path, message: str, *, line: int | None = None,
               field: str | None = None) -> "InputError":
        return cls([Problem(str(path), message, line, field)])

    def render(self, limit: int = 50) -> str:
        shown = [str(p) for p in self.problems[:limit]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        head = f"{len(self.problems)} problem(s) in input:" if len(self.problems) > 1 else "bad input:"
        return head + "\n  " + "\n  ".join(shown)


def gather(items: Iterable[T], read: Callable[[T], R]) -> list[R]:
    """`read` of every item, or one InputError with the problems of every item that failed:
    a build names all the bad files at once, not the first."""
    results: list[R] = []
    problems: list[Problem] = []
    for item in items:
        try:
            results.append(read(item))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return results


class DownloadError(Exception):
    """A data set could not be obtained (network, checksum); the message says where, why and
    what to do. The CLI reports it without a traceback, with its own exit code."""
