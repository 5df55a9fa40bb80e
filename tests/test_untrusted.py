"""Hostile caches, names, templates, YAML and content pages (issue 25, items 1, 2, 3, 8, 9).

Each case plants what a pull request, a tarball or a shared folder could hold and checks that
the build neither runs it, nor crashes on it, nor publishes it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.core import cachefile
from builder.core.cachefile import MAGIC as SEAL, environment_key, read_sealed, write_sealed
from builder.runs import cache as run_cache
from tests.test_hardening import RUN, edit_run_lines, quick_build, refused, small, small_base, with_header  # noqa: F401

REPO = Path(__file__).resolve().parents[1]


class _Payload:
    """Unpickling this touches a file: the proof that a cache entry ran code."""

    def __init__(self, target: Path):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def _cached_small_build(work: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    from builder.core.errors import InputError
    from builder.pipeline import BuildConfig, build
    from tests.test_hardening import SMALL_SPEC
    config = BuildConfig(work / "data.csv", work / "runs", work / "content", work / "site", spec=SMALL_SPEC,
                         charts=False, force=True, cache_dir=cache)
    try:
        build(config)
    except InputError as exc:
        return subprocess.CompletedProcess([], 2, "", f"buzzprobe: {exc}")
    return subprocess.CompletedProcess([], 0, "built", "")


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ 1. caches are not code paths

def test_a_planted_run_cache_entry_is_never_unpickled(small: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _cached_small_build(small, cache).returncode == 0
    before = _tree(small / "site")
    entries = sorted((cache / "runs").glob("*.pickle"))
    assert entries
    pwned = tmp_path / "PWNED"
    for path in entries:  # what an attacker can compute: the entry's key from public inputs
        key = path.stem.split("-", 1)[1].encode()
        payload = run_cache.MAGIC + key + b"\n" + pickle.dumps(_Payload(pwned))
        forged_seal = SEAL + b"\0" * 32 + payload  # the seal's shape without the secret
        path.write_bytes(forged_seal if path == entries[0] else payload)
    assert _cached_small_build(small, cache).returncode == 0
    assert not pwned.exists()
    assert _tree(small / "site") == before
    assert all(read_sealed(p) is not None for p in entries), "the planted entries were rebuilt"


def test_a_planted_audit_cache_entry_is_recomputed_and_old_ones_pruned(tmp_path: Path) -> None:
    from bench.mcq_synthetic import write as write_synthetic
    from builder.benchmarks.mcq.audit_cache import cache_key, cached_audit
    from builder.benchmarks.mcq.load import load_benchmark
    benchmark = load_benchmark(write_synthetic(tmp_path / "spec", 60))
    folder = tmp_path / "cache" / "mcq-audit"
    folder.mkdir(parents=True)
    stale = folder / f"{benchmark.spec.name}-{'0' * 32}.pickle"
    write_sealed(stale, b"an audit of other inputs")
    other = folder / f"{benchmark.spec.name}-pro-{'0' * 32}.pickle"  # another spec whose name starts alike
    other.write_bytes(b"kept")
    path = folder / f"{benchmark.spec.name}-{cache_key(benchmark)}.pickle"
    pwned = tmp_path / "PWNED"
    path.write_bytes(pickle.dumps(_Payload(pwned)))
    audit = cached_audit(benchmark, tmp_path / "cache")
    assert not pwned.exists()
    assert read_sealed(path) is not None and pickle.loads(read_sealed(path)) == audit
    assert not stale.exists() and other.exists()
    assert cached_audit(benchmark, tmp_path / "cache") == audit


def test_a_sealed_entry_cannot_move_to_another_name(tmp_path: Path) -> None:
    write_sealed(tmp_path / "a.pickle", b"value of a")
    shutil.copy(tmp_path / "a.pickle", tmp_path / "b.pickle")
    assert read_sealed(tmp_path / "a.pickle") == b"value of a"
    assert read_sealed(tmp_path / "b.pickle") is None


def test_a_cache_file_git_tracks_is_never_read(tmp_path: Path) -> None:
    folder = tmp_path / "checkout" / ".cache"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder.parent)], check=True)
    write_sealed(folder / "kept.svg", b"<svg/>")
    write_sealed(folder / "force-added.svg", b"<svg/>")
    subprocess.run(["git", "-C", str(folder.parent), "add", "-f", ".cache/force-added.svg"], check=True)
    cachefile._tracked_in.cache_clear()
    assert read_sealed(folder / "kept.svg") == b"<svg/>"
    assert read_sealed(folder / "force-added.svg") is None


def test_without_a_usable_secret_the_caches_are_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside = REPO / ".cache" / "secret-in-the-checkout"
    monkeypatch.setenv(cachefile.SECRET_ENV, str(inside))
    write_sealed(tmp_path / "x.json", b"[]")
    assert not (tmp_path / "x.json").exists() and not inside.exists()
    monkeypatch.setenv(cachefile.SECRET_ENV, str(tmp_path / "fresh" / "secret"))
    write_sealed(tmp_path / "x.json", b"[]")
    assert read_sealed(tmp_path / "x.json") == b"[]"
    assert (tmp_path / "fresh" / "secret").stat().st_mode & 0o077 == 0
    monkeypatch.setenv(cachefile.SECRET_ENV, str(tmp_path / "other" / "secret"))  # another machine
    assert read_sealed(tmp_path / "x.json") is None


def test_a_planted_svg_never_reaches_a_page(tmp_path: Path) -> None:
    from builder.site.charts import SvgRenderer
    spec = {"data": {"values": [{"a": "x", "b": 1}]}, "mark": "bar",
            "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}
    renderer = SvgRenderer(tmp_path)
    real = renderer.vegalite(spec)
    (entry,) = tmp_path.glob("*.svg")
    entry.write_text("<svg><script>alert(1)</script></svg>", encoding="utf-8")
    assert renderer.vegalite(spec) == real


def test_a_changed_dependency_version_changes_every_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.mcq import audit_cache
    site = tmp_path / "site-packages"
    (site / "jinja2-3.1.6.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))

    def keys() -> tuple[str, str, str]:
        for f in (environment_key, run_cache.code_hash, audit_cache.code_hash):
            f.cache_clear()
        return environment_key(), run_cache.code_hash(), audit_cache.code_hash()

    try:
        before = keys()
        (site / "jinja2-3.1.6.dist-info").rename(site / "jinja2-3.1.7.dist-info")
        after = keys()
    finally:
        monkeypatch.undo()
        keys()
    assert all(a != b for a, b in zip(before, after))
