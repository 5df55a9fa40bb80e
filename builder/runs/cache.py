"""Per-run cache: everything one run alone determines, kept between builds.

Reading and validating a run, scoring it (bootstrap intervals included) and rendering its page
depend only on the run file, the dataset variants it may be checked against and the code, so
their results are kept under a key made of exactly those: the file's bytes and path, every
dataset variant's content hash and a hash of builder/'s source (any code change starts afresh).
Cross-run work (pairs, models, categories, pages) is always recomputed from these results.

It is a cache and nothing more: a missing, unreadable, corrupt or foreign entry is ignored and
rebuilt, and deleting the folder changes only the time a build takes. Format: one pickle file per
run (chosen by measurement, see docs/performance.md), sealed by builder.core.cachefile: an entry
is unpickled only when its HMAC tag, made with a per-machine secret kept outside the checkout,
is right, so a planted entry is ignored and rebuilt, never run. The key also covers the
installed distributions' versions (cachefile.environment_key).
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast, overload

from builder.core.cachefile import environment_key, read_sealed, unpickle, write_sealed
from builder.core.paths import PACKAGE_DIR
from builder.core.textfiles import read_input
from builder.runs.files import is_compressed
from builder.runs.schema import Run

T = TypeVar("T")
MAGIC = b"buzzprobe-run-cache/1\n"
_FOLDER = "runs"


@lru_cache(maxsize=1)
def code_hash() -> str:
    """sha256 of every module of the builder package (names and bytes) and of the installed
    distributions' versions."""
    digest = hashlib.sha256(environment_key().encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


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
        rows = [tuple(getattr(i, n) for n in names) for i in items]
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
        self.folder = folder / _FOLDER if folder is not None else None
        self._code = (code or code_hash())[:16]  # file name prefix: entries of other code are removed
        self._salt = hashlib.sha256(MAGIC + self._code.encode()).digest()
        self._entries: dict[str, tuple[str, dict[str, Any]]] = {}  # run path -> (key, entry)
        self._dirty: set[str] = set()
        self.hits = 0

    def run(self, path: Path, read: Callable[[bytes | None], Run]) -> Run:
        """The parsed run at `path`: from the cache when its bytes are known, else `read(raw)`
        (which raises located errors; failures are never cached)."""
        try:
            raw = read_input(path)  # a FIFO or device named like a run is refused, not waited on
        except OSError:
            return read(None)  # reports the file as unreadable
        # A run that may be being appended to means more than its bytes; a .jsonl.gz run is only
        # ever written whole, atomically, so its bytes say it all.
        if not raw.endswith(b"\n") and not is_compressed(path):
            return read(raw)
        key = hashlib.sha256(self._salt + str(path).encode() + b"\0" + raw).hexdigest()
        entry = self._read(key)
        if entry is not None:
            self.hits += 1
        else:
            run = read(raw)
            entry = {"run": replace(run, items=LazyItems.of(run.items)), "derived": {}}
            self._dirty.add(key)
        self._entries[entry["run"].path] = (key, entry)
        return entry["run"]

    def derived(self, run: Run, name: str, compute: Callable[[], T]) -> T:
        """A value computed from this run alone (and the code), e.g. its scores or its page;
        `name` must say everything else it depends on (datasets_key, a page context...)."""
        found = self._entries.get(run.path)
        if found is None or found[1]["run"] is not run:
            return compute()
        key, entry = found
        if name not in entry["derived"]:
            entry["derived"][name] = compute()
            self._dirty.add(key)
        return entry["derived"][name]

    def key(self, run: Run) -> str | None:
        """The cache key of a run this cache loaded (None for any other run)."""
        found = self._entries.get(run.path)
        return found[0] if found is not None and found[1]["run"] is run else None

    def save(self) -> int:
        """Write new and changed entries; returns how many."""
        if self.folder is None:
            return 0
        written = 0
        for key, entry in self._entries.values():
            if key in self._dirty:
                self._write(key, entry)
                written += 1
        self._dirty.clear()
        self._prune()
        return written

    def _prune(self) -> None:
        """Entries made by other code can never match again; without this the folder would
        grow by a full set of runs with every code change."""
        assert self.folder is not None
        for path in self.folder.glob("*.pickle"):
            if not path.name.startswith(f"{self._code}-"):
                path.unlink(missing_ok=True)

    def _read(self, key: str) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        entry = read_entry(self._path(key), key, _FOLDER)
        if not (isinstance(entry, dict) and isinstance(entry.get("run"), Run) and isinstance(entry.get("derived"), dict)):
            return None
        return entry

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        assert self.folder is not None
        write_entry(self._path(key), key, entry, _FOLDER)

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{self._code}-{key}.pickle"


def read_entry(path: Path, key: str, kind: str) -> Any | None:
    """The value of `kind` kept at `path` under `key`; None when missing, foreign or damaged."""
    data = read_sealed(path, kind)
    if data is None:
        return None
    head = MAGIC + key.encode() + b"\n"
    if not data.startswith(head):
        return None  # another key's entry, another format, or not ours at all: rebuilt
    try:
        return unpickle(memoryview(data)[len(head):])
    except Exception:  # any damage at all: the entry is rebuilt, never trusted
        return None


def write_entry(path: Path, key: str, value: Any, kind: str) -> None:
    write_sealed(path, MAGIC + key.encode() + b"\n" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), kind)


def cached(folder: Path | None, name: str, inputs: str, compute: Callable[[], T], kind: type[T]) -> T:
    """A value of `kind` computed from `inputs` (a text naming all of them) and the code, kept
    in `folder` as `name-<key>.pickle` (e.g. derived dataset variants)."""
    if folder is None:
        return compute()
    key = hashlib.sha256(MAGIC + code_hash().encode() + b"\0" + inputs.encode()).hexdigest()
    path = folder / f"{name}-{key[:32]}.pickle"
    value = read_entry(path, key, name)
    if isinstance(value, kind):
        return value
    value = compute()
    for stale in folder.glob(f"{name}-*.pickle"):  # made from other inputs or code: one is kept
        stale.unlink(missing_ok=True)
    write_entry(path, key, value, name)
    return value
