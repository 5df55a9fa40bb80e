"""The build's audit of a spec, cached by what decides it: the spec's bytes, the data file's
bytes and the code of the audit. A 1,000-item audit costs about a second and a 10,000-item one
several (docs/audit.md), and a site build repeats it for every change of a run or a page.

The cache is the build's cache folder (BuildConfig.cache_dir, safe to delete); an entry is a
pickle of the Audit, written atomically, and an unreadable entry is recomputed.
"""

from __future__ import annotations

import hashlib
import pickle
from functools import cache
from pathlib import Path

from builder.benchmarks.mcq.audit import Audit, run_audit
from builder.benchmarks.mcq.load import Benchmark
from builder.core.fileio import atomic_write

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
    digest = hashlib.sha256()
    for part in (benchmark.spec.path.read_bytes(), benchmark.data.sha256.encode(), code_hash().encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


def cached_audit(benchmark: Benchmark, cache_dir: Path) -> Audit:
    path = cache_dir / "mcq-audit" / f"{benchmark.spec.name}-{cache_key(benchmark)}.pickle"
    try:
        audit = pickle.loads(path.read_bytes())
        if isinstance(audit, Audit):
            return audit
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    audit = run_audit(benchmark)
    atomic_write(path, pickle.dumps(audit, protocol=pickle.HIGHEST_PROTOCOL))
    return audit
