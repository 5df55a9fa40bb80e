"""Pages rendered once and reused: what lets a build re-render only what changed.

A run's page depends on its run alone, except for the site-wide footer (build date, run count,
newest run), which every build may change. Such a page is rendered with a placeholder in
place of each of those values and kept (in the per-run cache) under a key of everything else
it reads: the templates, the site configuration, the version and the datasets. Each build
then only fills the placeholders in, which gives the same bytes as a fresh rendering: the
values are plain numbers and ISO dates, which HTML escaping leaves as they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jinja2 import Environment

# Context values every page shows and any build may change; they must print as plain text.
VOLATILE = ("build_date", "run_count", "newest_run", "complete_run_count")
# Context values that change with other runs and that a kept page must not read: the set of
# run ids, and the provenance of every fact (a run page may read its own run's facts only).
_GUARDED = ("run_ids", "provenance")


def _placeholder(name: str) -> str:
    return f"@@buzzprobe-volatile-{name}@@"


class _OwnFactsOnly(Mapping[str, Any]):
    """The provenance a kept run page may read: its own run's facts (keys starting with
    `own`, or the keys in `own` when it is a set its key covers); reading any other fails the
    build loudly instead of keeping a page that would go stale."""

    def __init__(self, provenance: Mapping[str, Any], own: str | frozenset[str]):
        self._provenance = provenance
        self._owns: Callable[[str], bool] = (lambda key: key.startswith(own)) if isinstance(own, str) else own.__contains__

    def __getitem__(self, key: str) -> Any:
        if not self._owns(key):
            raise KeyError(f"a kept run page read the fact {key!r}, which is not its run's "
                           "(builder/site/incremental.py: its page would not be rebuilt when it changes)")
        return self._provenance[key]

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a kept run page may not list every fact")

    def __len__(self) -> int:
        raise TypeError("a kept run page may not count every fact")


class _Unavailable:
    """Stands for a context value a kept page must not read."""

    def __init__(self, name: str):
        self._name = name

    def _refuse(self, *args: object) -> Any:
        raise TypeError(f"a kept run page read {self._name!r}, which changes with other runs "
                        "(builder/site/incremental.py)")

    __contains__ = __iter__ = __len__ = __bool__ = __getitem__ = __str__ = _refuse


def reusable_context(common: Mapping[str, Any], own_facts: str | frozenset[str]) -> dict[str, Any]:
    """`common` with every volatile value replaced by its placeholder and what a kept page
    must not read guarded; `own_facts`: the key prefix of the page's own facts, or the set of
    fact keys the page's key covers."""
    out = {**common, **{name: _placeholder(name) for name in VOLATILE if name in common}}
    if "provenance" in common:
        out["provenance"] = _OwnFactsOnly(common["provenance"], own_facts)
    if "run_ids" in common:
        out["run_ids"] = _Unavailable("run_ids")
    return out


def context_key(common: Mapping[str, Any], env: Environment) -> str:
    """What a kept page was rendered from besides its run: the stable context and every
    template the environment can load."""
    digest = hashlib.sha256()
    stable = {k: v for k, v in common.items() if k not in VOLATILE and k not in _GUARDED}
    digest.update(json.dumps(stable, sort_keys=True, default=repr).encode())
    assert env.loader is not None
    for name in sorted(env.loader.list_templates()):
        source, _, _ = env.loader.get_source(env, name)
        digest.update(name.encode() + b"\0" + hashlib.sha256(source.encode()).digest())
    return digest.hexdigest()[:32]


_VOLATILE_AT = re.compile(rb"@@buzzprobe-volatile-(" + b"|".join(n.encode() for n in VOLATILE) + rb")@@")
Kept = dict[str, "bytes | tuple[bytes, ...]"]  # a kept page's files, each page cut at its placeholders


def keepable(files: Mapping[str, bytes]) -> Kept:
    """Files rendered with placeholders (reusable_context), as they are kept: each page cut at
    its placeholders (text, name, text, ...), so a long page (a run's item tables) is filled by
    one join instead of a search per value."""
    return {path: tuple(_VOLATILE_AT.split(data)) if path.endswith(".html") else data
            for path, data in files.items()}


def filled(kept: Kept, common: Mapping[str, Any]) -> dict[str, bytes]:
    """Kept files with this build's volatile values in place of the placeholders (a value the
    context lacks keeps its placeholder)."""
    values = {name.encode(): str(common[name]).encode() for name in VOLATILE if name in common}

    def join(parts: tuple[bytes, ...]) -> bytes:
        return b"".join(part if i % 2 == 0 else values.get(part, _placeholder(part.decode()).encode())
                        for i, part in enumerate(parts))
    return {path: join(data) if isinstance(data, tuple) else data for path, data in kept.items()}
