"""The build's audit of a spec, cached by what decides it: the spec's bytes, the data file's
bytes and the code of the audit. A 1,000-item audit costs about a second and a 10,000-item one
several (docs/audit.md), and a site build repeats it for every change of a run or a page.

The loaded items are cached the same way (the spec's bytes, each data file's sha256, the code):
parsing 40,000 records through their templates costs seconds on every build, and a forced build
with a warm cache must stay near the import floor (issue 23). The items are what
`load_benchmark` returns; only the raw records are not kept (nothing reads them after loading).

The cache is the build's cache folder (BuildConfig.cache_dir, safe to delete); an entry is a
pickle, written atomically, and an unreadable entry is recomputed.
"""

from __future__ import annotations

import hashlib
import pickle
from functools import cache
from pathlib import Path

from builder.benchmarks.mcq.audit import Audit, run_audit
from builder.benchmarks.mcq.load import Benchmark, load_benchmark
from builder.benchmarks.mcq.records import DataFile, data_sha256
from builder.benchmarks.mcq.spec import load_spec
from builder.core.fileio import atomic_write, file_sha256

_PACKAGES = ("benchmarks/mcq", "stats", "ranker")  # what run_audit's result depends on


@cache
def code_hash() -> str:
    """sha256 over the source of the audit's modules (names and bytes, in name order)."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for package in _PACKAGES:
        for path in sorted((root / package).glob("*.py")):
            digest.update(f"{package}/{path.name}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(benchmark: Benchmark) -> str:
    return _key(benchmark.spec.path.read_bytes(), benchmark.data.sha256)


def _key(spec_bytes: bytes, data_sha: str) -> str:
    digest = hashlib.sha256()
    for part in (spec_bytes, data_sha.encode(), code_hash().encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


def _read(path: Path, kind: type) -> object | None:
    try:
        value = pickle.loads(path.read_bytes())
        return value if isinstance(value, kind) else None
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None


def cached_audit(benchmark: Benchmark, cache_dir: Path) -> Audit:
    path = cache_dir / "mcq-audit" / f"{benchmark.spec.name}-{cache_key(benchmark)}.pickle"
    audit = _read(path, Audit)
    if isinstance(audit, Audit):
        return audit
    audit = run_audit(benchmark)
    atomic_write(path, pickle.dumps(audit, protocol=pickle.HIGHEST_PROTOCOL))
    return audit


def cached_benchmark(spec_path: Path, cache_dir: Path) -> Benchmark:
    """`load_benchmark(spec_path)`, its items read back from the cache when the spec, every data
    file and the code are unchanged (a bad record is reported as load_benchmark reports it)."""
    spec = load_spec(spec_path)
    files = spec.location.files()
    data_sha = data_sha256([(f.name, file_sha256(f)) for f in files])
    path = cache_dir / "mcq-items" / f"{spec.name}-{_key(spec_path.read_bytes(), data_sha)}.pickle"
    stored = _read(path, tuple)
    if stored is not None and len(stored) == 2:
        items, content = stored
        return Benchmark(spec, DataFile(files[0], data_sha, (), tuple(files)), items, content)
    benchmark = load_benchmark(spec_path)
    atomic_write(path, pickle.dumps((benchmark.items, benchmark.content_sha256), protocol=pickle.HIGHEST_PROTOCOL))
    return benchmark
