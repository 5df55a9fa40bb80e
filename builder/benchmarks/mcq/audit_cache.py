"""The build's audit of a spec, cached by what decides it: the spec's bytes, the data file's
bytes and the code of the audit. A 1,000-item audit costs about a second and a 10,000-item one
several (docs/audit.md), and a site build repeats it for every change of a run or a page.

The cache is the build's cache folder (BuildConfig.cache_dir, safe to delete); an entry is a
pickle of the Audit sealed by builder.core.cachefile (unpickled only when its tag, made with a
per-machine secret, is right: a planted entry is recomputed, never run). One entry is kept per
spec: writing one removes that spec's entries of other inputs.
"""

from __future__ import annotations

import hashlib
import pickle
from functools import cache
from pathlib import Path

from builder.benchmarks.mcq.audit import Audit, run_audit
from builder.benchmarks.mcq.load import Benchmark
from builder.core.cachefile import environment_key, read_sealed, write_sealed

_PACKAGES = ("benchmarks/mcq", "stats", "benchmarks/cibuzzbench/probes")  # what run_audit's result depends on


@cache
def code_hash() -> str:
    """sha256 over the source of the audit's modules (names and bytes, in name order) and the
    installed distributions' versions."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(environment_key().encode())
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
    folder = cache_dir / "mcq-audit"
    path = folder / f"{benchmark.spec.name}-{cache_key(benchmark)}.pickle"
    data = read_sealed(path)
    if data is not None:
        try:
            audit = pickle.loads(data)
            if isinstance(audit, Audit):
                return audit
        except Exception:  # sealed by us yet unreadable (e.g. a class since renamed): recomputed
            pass
    audit = run_audit(benchmark)
    for stale in folder.glob(f"{benchmark.spec.name}-*.pickle"):  # other inputs or code: never read again
        if stale != path and stale.name[len(benchmark.spec.name) + 1:-len(".pickle")].isalnum():
            stale.unlink(missing_ok=True)
    write_sealed(path, pickle.dumps(audit, protocol=pickle.HIGHEST_PROTOCOL))
    return audit
