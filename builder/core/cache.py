"""The build's one cache: keys, sealing, pruning and the folder layout of everything kept
between builds.

Every cached thing is a shelf of one cache folder (BuildConfig.cache_dir: BUZZPROBE_CACHE, by
default .cache/), named by its kind; LAYOUT says where each kind lives:

    runs/                  one entry per run file: the parsed run and what it alone decides
    svg/                   drawn charts (by spec) and remembered chart objects (by rows and code)
    chart-png/             each chart's PNG download (by its SVG and the drawing library's version)
    jinja/<environment>/   compiled templates
    mcq-audit/ mcq-kept/ mcq-items/      a spec's audit, kept records and loaded items
    mcq-<kind>/<spec>/     values of one spec's data and audit alone (facts, leak table)
    (the folder itself)    the chart bundle, derived dataset variants, the leak fit,
                           the learned probe's feature importance, the mcq code hash

An entry is sealed (builder/core/cachefile.py: an HMAC with a per-machine secret over the
entry's kind, its file name and its bytes; never a file git tracks), so a planted, foreign or
moved entry is ignored and rebuilt, never unpickled or shown. Keys (`key`) hash each part
first, so no two lists of parts collide; `code_hash` makes any change of builder/ or of an
installed distribution start afresh. A cache never changes output: deleting the folder, or
building with none, costs only time (tests/test_one_cache.py builds warm against cold).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast

from builder.core.cachefile import environment_key, read_sealed, read_sealed_pickle, read_sealed_view, unpickle, write_sealed, write_sealed_pickle  # noqa: F401 (environment_key: a key part callers take from here)
from builder.core.paths import PACKAGE_DIR

T = TypeVar("T")
ENTRY_MAGIC = b"buzzprobe-run-cache/1\n"  # the header of a keyed entry (Shelf.read_keyed)

# Where each kind of entry lives, relative to the cache folder ("" is the folder itself).
LAYOUT: dict[str, str] = {
    "runs": "runs", "svg": "svg", "chart": "svg", "jinja": "jinja", "chart-png": "chart-png",
    "mcq-audit": "mcq-audit", "mcq-kept": "mcq-kept", "mcq-items": "mcq-items",
    "vega-bundle": "", "variants": "", "t2-leak": "", "feature-importance": "", "mcq-code": "",
}
SPEC_PREFIX = "mcq-"  # spec_shelf: mcq-<kind>/<spec>/, one folder per spec and kind


def key(*parts: bytes | str, size: int = 32) -> str:
    """A hex key over `parts`, each hashed first (so ("ab", "c") and ("a", "bc") differ)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part.encode("utf-8") if isinstance(part, str) else part).digest())
    return digest.hexdigest()[:size]


@lru_cache(maxsize=1)
def code_hash() -> str:
    """sha256 of every module of the builder package (names and bytes) and of the installed
    distributions' versions: part of the key of everything the code computes."""
    digest = hashlib.sha256(environment_key().encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class Shelf:
    """One kind of entry in its folder; `folder` None keeps nothing (reads miss, writes vanish)."""

    folder: Path | None
    kind: str  # the seal's kind: an entry of one shelf never reads as another's

    def path(self, name: str) -> Path | None:
        return None if self.folder is None else self.folder / name

    def sub(self, name: str) -> Shelf:
        """The same kind in a subfolder (e.g. one per template environment)."""
        return Shelf(None if self.folder is None else self.folder / name, self.kind)

    def read(self, name: str) -> bytes | None:
        path = self.path(name)
        return None if path is None else read_sealed(path, self.kind)

    def read_view(self, name: str) -> memoryview | None:
        """read(name) as a view of the file's bytes (for unpickling: no copy of the entry)."""
        path = self.path(name)
        return None if path is None else read_sealed_view(path, self.kind)

    def write(self, name: str, data: bytes) -> None:
        path = self.path(name)
        if path is not None:
            write_sealed(path, data, self.kind)

    def read_pickle(self, name: str, of: type) -> Any | None:
        path = self.path(name)
        return None if path is None else read_sealed_pickle(path, self.kind, of)

    def write_pickle(self, name: str, value: object) -> None:
        path = self.path(name)
        if path is not None:
            write_sealed_pickle(path, value, self.kind)

    def read_keyed(self, name: str, entry_key: str) -> Any | None:
        """A pickled value written under `entry_key`; None when missing, foreign or damaged."""
        data = self.read_view(name)  # unpickled from the file's bytes, not from a copy of them
        head = ENTRY_MAGIC + entry_key.encode() + b"\n"
        if data is None or data[:len(head)] != head:
            return None  # another key's entry, another format, or not ours at all: rebuilt
        try:
            return unpickle(data[len(head):])
        except Exception:  # any damage at all: the entry is rebuilt, never trusted
            return None

    def write_keyed(self, name: str, entry_key: str, value: object) -> None:
        self.write(name, ENTRY_MAGIC + entry_key.encode() + b"\n" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def prune(self, pattern: str, keep: Callable[[Path], bool]) -> None:
        """Remove the entries matching `pattern` that `keep` refuses: made from other inputs or
        code, they can never be read again, and the folder would grow with every change."""
        if self.folder is None:
            return
        for path in self.folder.glob(pattern):
            if not keep(path):
                path.unlink(missing_ok=True)

    def used(self, name: str) -> None:
        """Mark an entry as just read (its modification time), so `keep_newest` keeps it."""
        path = self.path(name)
        try:
            if path is not None:
                os.utime(path)
        except OSError:  # a read-only or vanished cache costs only time
            pass

    def keep_newest(self, pattern: str, count: int) -> None:
        """Remove all but the `count` entries matching `pattern` most recently written or used."""
        if self.folder is None:
            return
        def age(path: Path) -> float:
            try:
                return path.stat().st_mtime
            except OSError:
                return float("-inf")
        for path in sorted(self.folder.glob(pattern), key=lambda p: (age(p), p.name), reverse=True)[count:]:
            path.unlink(missing_ok=True)


class CacheFolder:
    """The build's cache folder (None: a build that keeps nothing); hands out the shelves."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def shelf(self, kind: str) -> Shelf:
        if kind not in LAYOUT:
            raise KeyError(f"no cache kind {kind!r} in builder/core/cache.py LAYOUT")
        return Shelf(None if self.root is None else self.root / LAYOUT[kind], kind)

    def spec_shelf(self, kind: str, spec: str) -> Shelf:
        """Values of one spec's data and audit alone, a folder per spec and kind (so the sweep
        of one spec's stale entries never meets another's)."""
        return Shelf(None if self.root is None else self.root / f"{SPEC_PREFIX}{kind}" / spec, kind)


# Entries of one `cached` kind made from different inputs (another dataset: the real one, a
# synthetic copy, a small one) kept side by side, least recently used removed first: one entry
# made every switch between data sets (and the test suite's parallel workers) compute afresh.
KEPT_INPUTS = 6


def cached(shelf: Shelf, inputs: str, compute: Callable[[], T], kind: type) -> T:
    """A value of type `kind` computed from `inputs` (a text naming all of them) and the code,
    kept on `shelf` as `<shelf kind>-<key>.pickle`, beside at most KEPT_INPUTS - 1 others of
    the kind (made from other inputs, or by other code: those age out)."""
    if shelf.folder is None:
        return compute()
    entry_key = hashlib.sha256(ENTRY_MAGIC + code_hash().encode() + b"\0" + inputs.encode()).hexdigest()
    name = f"{shelf.kind}-{entry_key[:32]}.pickle"
    stored = shelf.read_keyed(name, entry_key)
    if isinstance(stored, kind):
        shelf.used(name)
        return cast(T, stored)
    value = compute()
    shelf.write_keyed(name, entry_key, value)
    shelf.keep_newest(f"{shelf.kind}-*.pickle", KEPT_INPUTS)
    return value
