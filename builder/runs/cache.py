"""Per-run cache: everything one run alone determines, kept between builds.

Reading and validating a run, scoring it (bootstrap intervals included) and rendering its page
depend only on the run file, the dataset variants it may be checked against and the code, so
their results are kept under a key made of exactly those: the file's bytes and path, every
dataset variant's content hash and a hash of builder/'s source (any code change starts afresh).
Cross-run work (pairs, models, categories, pages) is always recomputed from these results.

It is a cache and nothing more: a missing, unreadable, corrupt or foreign entry is ignored and
rebuilt, and deleting the folder changes only the time a build takes. Format: one pickle file per
run (chosen by measurement, see docs/performance.md) on the `runs` shelf of the build's one
cache (builder/core/cache.py: its keys, sealing, pruning and folder layout): an entry is
unpickled only when its seal is right, so a planted entry is ignored and rebuilt, never run.
The key also covers the installed distributions' versions (cache.code_hash).
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar, cast, overload

from builder.core.cache import ENTRY_MAGIC, CacheFolder, code_hash
from builder.core.cachefile import unpickle
from builder.core.fileio import file_sha256
from builder.core.textfiles import read_input
from builder.runs.files import is_compressed
from builder.runs.schema import Run

T = TypeVar("T")
MAGIC = ENTRY_MAGIC


class LazyItems(Sequence[T]):
    """A run's items as one pickled blob of field tuples, unpacked on first use: a build from
    the cache reads the items only of runs it pairs or re-renders, and unpickling 300,000 items
    costs seconds. Any benchmark's item type will do, if it is one frozen dataclass per run."""

    __slots__ = ("_blob", "row_ids", "_items", "_kind")

    def __init__(self, blob: bytes, row_ids: tuple[int, ...], kind: type[T], items: tuple[T, ...] | None = None):
        self._blob, self.row_ids, self._kind, self._items = blob, row_ids, kind, items

    @classmethod
    def of(cls, items: Sequence[T]) -> "LazyItems[T] | tuple[T, ...]":
        """Items packed; a mix of types, or items that are not dataclasses, are kept as they are."""
        kinds = {type(i) for i in items}
        kind = kinds.pop() if len(kinds) == 1 else None
        if kind is None or not dataclasses.is_dataclass(kind):
            return tuple(items)
        names = [f.name for f in dataclasses.fields(kind)]
        row = operator.attrgetter(*names) if len(names) > 1 else (lambda i: (getattr(i, names[0]),))
        rows = [row(i) for i in items]  # attrgetter builds the tuple in C: 5x the generator's speed
        return cls(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL), tuple(i.row_id for i in items),  # type: ignore[attr-defined]  # run items have row_ids
                   kind, tuple(items))

    def _unpacked(self) -> tuple[T, ...]:
        if self._items is None:
            kind = self._kind
            rows = cast("list[tuple[Any, ...]]", unpickle(self._blob))  # what `of` pickled
            self._items = tuple(kind(*row) for row in rows)
        return self._items

    def __len__(self) -> int:
        return len(self.row_ids)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self._unpacked()[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self._unpacked())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(self._unpacked())

    def __reduce__(self) -> tuple[Any, ...]:
        return (LazyItems, (self._blob, self.row_ids, self._kind))

    def __repr__(self) -> str:
        return f"LazyItems({len(self.row_ids)} items)"


def datasets_key(datasets: Mapping[str, Any]) -> str:
    """Names and content hashes of the datasets a derived value was computed against: part of
    the name of every value that depends on them (validation, scores, pairs, pages)."""
    text = "".join(f"{name}={getattr(d, 'content_sha256', '')}\n" for name, d in sorted(datasets.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class RunCache:
    """Entries by run path for one build; `folder` None keeps nothing between builds. An entry
    holds the parsed run (keyed by the file's bytes and path and the code) and values derived
    from it, each under a name that says what else it depends on."""

    def __init__(self, folder: Path | None, code: str | None = None):
        self._shelf = CacheFolder(folder).shelf("runs")
        self.folder = self._shelf.folder
        self._code = (code or code_hash())[:16]  # file name prefix: entries of other code are removed
        self._salt = hashlib.sha256(MAGIC + self._code.encode()).digest()
        self._entries: dict[str, tuple[str, dict[str, Any]]] = {}  # run path -> (key, entry)
        self._dirty: set[str] = set()
        self._used: dict[str, set[str]] = {}  # entry key -> the derived names this build asked for
        self.hits = 0

    def run(self, path: Path, read: Callable[[bytes | None], Run]) -> Run:
        """The parsed run at `path`: from the cache when its bytes are known, else `read(raw)`
        (which raises located errors; failures are never cached)."""
        run, raw, key = self.peek(path)
        return run if run is not None else self.keep(key, read(raw))

    def peek(self, path: Path) -> tuple[Run | None, bytes | None, str | None]:
        """(the cached run or None, the file's bytes when the cache does not know them (None when
        unreadable), its key or None when its bytes do not say it all): `run` in two halves, so
        the misses of many files can be read elsewhere (runs.load reads them in worker processes)
        and kept here. A known file is not read again: its digest is the one the build's
        fingerprint took (core.fileio.file_sha256 keeps it for the process)."""
        try:
            digest = bytes.fromhex(file_sha256(path))  # a FIFO or device is refused, not waited on
        except OSError:
            return None, None, None  # the reader reports the file as unreadable
        key = self._key(path, digest)
        entry = self._read(key)
        if entry is not None:
            self.hits += 1
            self._entries[entry["run"].path] = (key, entry)
            return entry["run"], None, key
        try:
            raw = read_input(path)
        except OSError:
            return None, None, None
        # A run that may be being appended to means more than its bytes; a .jsonl.gz run is only
        # ever written whole, atomically, so its bytes say it all. The key is of the bytes read
        # (the file may have changed since its digest was taken).
        if not raw.endswith(b"\n") and not is_compressed(path):
            return None, raw, None
        return None, raw, self._key(path, hashlib.sha256(raw).digest())

    def _key(self, path: Path, digest: bytes) -> str:
        """An entry's key: this code's salt, the run's path and its bytes' sha256."""
        return hashlib.sha256(self._salt + str(path).encode() + b"\0" + digest).hexdigest()

    def keep(self, key: str | None, run: Run, derived: Mapping[str, Any] | None = None) -> Run:
        """A run just read, kept under `key` (peek's; None keeps nothing) with its items packed,
        and values already derived from it (by their `derived` names)."""
        if key is None:
            return run
        packed = run if isinstance(run.items, LazyItems) else replace(run, items=LazyItems.of(run.items))
        entry = {"run": packed, "derived": dict(derived or {})}
        self._used.setdefault(key, set()).update(derived or {})
        self._dirty.add(key)
        self._entries[packed.path] = (key, entry)
        return packed

    def derived(self, run: Run, name: str, compute: Callable[[], T]) -> T:
        """A value computed from this run alone (and the code), e.g. its scores or its page;
        `name` must say everything else it depends on (datasets_key, a page context...)."""
        found = self._entries.get(run.path)
        if found is None or found[1]["run"] is not run:
            return compute()
        key, entry = found
        self._used.setdefault(key, set()).add(name)
        if name not in entry["derived"]:
            entry["derived"][name] = compute()
            self._dirty.add(key)
        return entry["derived"][name]

    def has(self, run: Run, name: str) -> bool:
        """Whether `derived(run, name, ...)` would answer without computing."""
        found = self._entries.get(run.path)
        return found is not None and found[1]["run"] is run and name in found[1]["derived"]

    def key(self, run: Run) -> str | None:
        """The cache key of a run this cache loaded (None for any other run)."""
        found = self._entries.get(run.path)
        return found[0] if found is not None and found[1]["run"] is run else None

    def save(self) -> int:
        """Write new and changed entries, each with only the derived values this build asked
        for: a value is named by what else it depends on (a page by its templates and context),
        so without this every edit of a template would add another copy of every kept page to
        every entry, and each build would read them all. Returns how many were written."""
        if self.folder is None:
            return 0
        written = 0
        for key, entry in self._entries.values():
            if key in self._dirty:
                used = self._used.get(key, set())
                self._write(key, {**entry, "derived": {k: v for k, v in entry["derived"].items() if k in used}})
                written += 1
        self._dirty.clear()
        self._prune()
        return written

    def _prune(self) -> None:
        """Entries made by other code can never match again; without this the folder would
        grow by a full set of runs with every code change."""
        self._shelf.prune("*.pickle", lambda path: path.name.startswith(f"{self._code}-"))

    def _read(self, key: str) -> dict[str, Any] | None:
        entry = self._shelf.read_keyed(self._name(key), key)
        if not (isinstance(entry, dict) and isinstance(entry.get("run"), Run) and isinstance(entry.get("derived"), dict)):
            return None
        return entry

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        self._shelf.write_keyed(self._name(key), key, entry)

    def _name(self, key: str) -> str:
        return f"{self._code}-{key}.pickle"
