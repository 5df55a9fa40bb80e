"""The build's audit of a spec, cached by what decides it: the spec's bytes, the data file's
bytes and the code of the audit. A 1,000-item audit costs about a second and a 10,000-item one
several (docs/audit.md), and a site build repeats it for every change of a run or a page.

So are the record numbers the findings rules keep (probe.choice_set). The loaded items are cached the same way (the spec's bytes, each data file's sha256, the code):
parsing 40,000 records through their templates costs seconds on every build, and a forced build
with a warm cache must stay near the import floor (issue 23). The items are what
`load_benchmark` returns; only the raw records are not kept (nothing reads them after loading).

The entries are shelves of the build's one cache (builder/core/cache.py, which owns their
folders, sealing and pruning; safe to delete): a sealed pickle is unpickled only when its tag,
made with a per-machine secret, is right (a planted entry is recomputed, never run). One entry
is kept per spec and kind: writing one removes that spec's entries of other inputs.
"""

from __future__ import annotations

import hashlib
from functools import cache, lru_cache
from pathlib import Path

from builder.benchmarks.mcq.analyses.audit import Audit, run_audit
from builder.benchmarks.mcq.load import SpecData, load_benchmark
from builder.benchmarks.mcq.choice_set import ChoiceSet, choice_set
from builder.benchmarks.mcq.records import DataFile, data_sha256, input_files
from builder.benchmarks.mcq.spec import Spec, load_spec
from builder.core.cache import CacheFolder, cached, environment_key
from builder.core.fileio import file_sha256
from builder.core.paths import PACKAGE_DIR
from builder.core.textfiles import MAX_DOCUMENT_BYTES, read_input
from builder.core.import_graph import reachable

# What the cached values are computed by: the audit, the loader and the findings rules, with
# every module they may import (read from the source); an edit elsewhere (a page, a run's
# facts) keeps the audits, which cost about 45 s of CPU for the shipped specs.
_ROOTS = ("builder.benchmarks.mcq.analyses.audit", "builder.benchmarks.mcq.load", "builder.benchmarks.mcq.analyses.findings",
          "builder.benchmarks.mcq.analyses.audit_cache")


@cache
def code_hash(cache_dir: Path | None = None) -> str:
    """sha256 over the source of the modules the cached values depend on (names and bytes, in
    name order) and the installed distributions' versions; kept in `cache_dir` under the whole
    package's hash, since finding those modules means parsing them (0.2 s of every build)."""
    environment = environment_key()
    return cached(CacheFolder(cache_dir).shelf("mcq-code"), "", lambda: _closure_hash(environment), str)


@lru_cache(maxsize=4)
def _closure_hash(environment: str) -> str:
    """Once per process and set of installed versions, as code_hash per cache folder (the code
    does not change under a running build; a process that builds into many cache folders, as the
    tests do, parsed the modules again for each)."""
    root = PACKAGE_DIR.parent
    digest = hashlib.sha256(environment.encode())
    for path in sorted(root.joinpath(*name.split(".")) for name in reachable(root, _ROOTS)):
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(benchmark: SpecData, cache_dir: Path | None = None) -> str:
    """What an audit, a spec's kept items and its runs' summaries are computed from."""
    return _key(read_input(benchmark.spec.path, MAX_DOCUMENT_BYTES), benchmark.data.sha256, cache_dir)


def _key(spec_bytes: bytes, data_sha: str, cache_dir: Path | None) -> str:
    digest = hashlib.sha256()
    for part in (spec_bytes, data_sha.encode(), code_hash(cache_dir).encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


def _read(cache_dir: Path, kind: str, name: str, key: str, of: type) -> object | None:
    return CacheFolder(cache_dir).shelf(kind).read_pickle(f"{name}-{key}.pickle", of)


def _write(cache_dir: Path, kind: str, name: str, key: str, value: object) -> None:
    """Seal `value` as the spec's `kind` entry and remove its entries of other inputs (never read again)."""
    shelf = CacheFolder(cache_dir).shelf(kind)
    own = f"{name}-{key}.pickle"
    shelf.prune(f"{name}-*.pickle", lambda path: path.name == own or not path.name[len(name) + 1:-len(".pickle")].isalnum())
    shelf.write_pickle(own, value)


def cached_audit(benchmark: SpecData, cache_dir: Path) -> Audit:
    name, key = benchmark.spec.name, cache_key(benchmark, cache_dir)
    audit = _read(cache_dir, "mcq-audit", name, key, Audit)
    if isinstance(audit, Audit):
        return audit
    audit = run_audit(benchmark)
    _write(cache_dir, "mcq-audit", name, key, audit)
    return audit


def cached_choice_set(benchmark: SpecData, cache_dir: Path) -> ChoiceSet:
    """`choice_set(benchmark)`, the record numbers its findings rules keep read back from the
    cache under the audit's key (examining 40,000 items costs most of a second per build)."""
    name, key = benchmark.spec.name, cache_key(benchmark, cache_dir)
    kept = _read(cache_dir, "mcq-kept", name, key, tuple)
    if isinstance(kept, tuple) and all(type(row_id) is int for row_id in kept):
        return choice_set(benchmark, kept)
    data = choice_set(benchmark)
    _write(cache_dir, "mcq-kept", name, key, tuple(sorted(data.items)))
    return data


def cached_benchmark(spec_path: Path, cache_dir: Path) -> SpecData:
    """`load_benchmark(spec_path)`, its items read back from the cache when the spec, every data
    file and the code are unchanged (a bad record is reported as load_benchmark reports it)."""
    spec = load_spec(spec_path)
    files = spec.location.files()
    data_sha, key = _spec_key(spec, cache_dir)
    stored = _read(cache_dir, "mcq-items", spec.name, key, tuple)
    if isinstance(stored, tuple) and len(stored) == 3 and isinstance(stored[0], tuple) and isinstance(stored[1], str):
        items, content, filtered = stored
        return SpecData(spec, DataFile(files[0], data_sha, (), tuple(files)), items, content, filtered)
    benchmark = load_benchmark(spec_path)
    _write(cache_dir, "mcq-items", spec.name, key, (benchmark.items, benchmark.content_sha256, benchmark.filtered))
    return benchmark


def _spec_key(spec: Spec, cache_dir: Path | None) -> tuple[str, str]:
    """(the data's sha256, the cache key) of a spec as cached_benchmark keys it."""
    data_sha = data_sha256([(f.name, file_sha256(f)) for f in input_files(spec)])
    return data_sha, _key(read_input(spec.path, MAX_DOCUMENT_BYTES), data_sha, cache_dir)


def is_cached(spec_path: Path, cache_dir: Path) -> bool:
    """Whether the spec's items and audit both have an entry under its current key: a build
    whose audits are all cached starts no worker for them (audit_pool.start). An entry that
    exists but does not read back is recomputed by the load stage, as it would be anyway."""
    try:
        spec = load_spec(spec_path)
        key = _spec_key(spec, cache_dir)[1]
    except Exception:  # noqa: BLE001 - the load stage reports a bad spec, located
        return False
    folder = CacheFolder(cache_dir)
    paths = [folder.shelf(kind).path(f"{spec.name}-{key}.pickle") for kind in ("mcq-items", "mcq-audit")]
    return all(path is not None and path.is_file() for path in paths)
