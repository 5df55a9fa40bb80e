"""Values computed once per build: a build asks for some things several times (each spec's data
files are listed by the fingerprint, the audit pool, the cache key and the loader: ChemBench's
2,788 files, each checked against the spec's confinement, four times over), and between builds in
one process (the tests, a library caller) the files may change, so nothing is kept past the build.

`pipeline.build` opens the scope; outside one, `once` computes every time, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")
_MEMO: ContextVar[dict[Hashable, Any] | None] = ContextVar("build_scope", default=None)


@contextmanager
def build_scope() -> Iterator[None]:
    """Keep what `once` computes until the block ends (a scope inside a scope shares it)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def once(key: Hashable, compute: Callable[[], T]) -> T:
    """compute(), kept under `key` for the rest of the build (an exception is not kept: the next
    call raises it again, located as before)."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]
