"""The per-run cache and incremental builds: faster, never different.

Every test compares whole site trees: a build from the cache, after the cache is deleted, with
damaged or foreign entries, or after one more run appears must give the bytes a forced build
without any cache gives.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
from builder.core.cachefile import read_sealed, write_sealed
from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.runs.cache import MAGIC, LazyItems, RunCache, datasets_key
from builder.runs.reader import read_run
from builder.site.write import STAMP
from tests.test_build import CONTENT, SMALL_SPEC, tree, write_synthetic_model_pair

ENTRIES = "runs"


def cached_build(small_inputs, out: Path, cache: Path, runs: Path | None = None, *, force: bool = True):
    csv_path, default_runs = small_inputs
    return build(BuildConfig(runs or default_runs, CONTENT, out, options=cibuzzbench_options(csv_path, SMALL_SPEC), force=force, cache_dir=cache))


def entries(cache: Path) -> list[Path]:
    return sorted((cache / ENTRIES).glob("*.pickle"))


def key_of(entry: Path) -> bytes:
    """An entry file is named <code hash prefix>-<key>.pickle and starts with its key."""
    return entry.stem.split("-", 1)[1].encode()


def test_stale_code_entries_are_removed(small_inputs, tmp_path):
    cache = tmp_path / "cache"
    cached_build(small_inputs, tmp_path / "site", cache)
    stale = cache / ENTRIES / ("0" * 16 + "-" + "1" * 64 + ".pickle")
    stale.write_bytes(b"entry of other code")
    cached_build(small_inputs, tmp_path / "site", cache)
    assert not stale.exists() and entries(cache)


def test_cache_makes_no_difference(small_inputs, tmp_path):
    cache = tmp_path / "cache"
    cached_build(small_inputs, tmp_path / "cold", cache)
    assert entries(cache), "the first build fills the per-run cache"
    cached_build(small_inputs, tmp_path / "warm", cache)
    shutil.rmtree(cache)
    cached_build(small_inputs, tmp_path / "deleted", cache)
    cold = tree(tmp_path / "cold")
    assert tree(tmp_path / "warm") == cold
    assert tree(tmp_path / "deleted") == cold


def test_damaged_and_foreign_entries_are_ignored_and_rebuilt(small_inputs, tmp_path):
    cache = tmp_path / "cache"
    cached_build(small_inputs, tmp_path / "first", cache)
    paths = entries(cache)
    assert len(paths) >= 3
    originals = {p: p.read_bytes() for p in paths}
    paths[0].write_bytes(originals[paths[0]][: len(originals[paths[0]]) // 2])  # torn pickle
    paths[1].write_bytes(originals[paths[2]])  # another run's entry under this key
    head = MAGIC + key_of(paths[2]) + b"\n"
    write_sealed(paths[2], head + pickle.dumps({"run": "not a run", "derived": {}}), "runs")  # right key and seal, wrong shape
    cached_build(small_inputs, tmp_path / "second", cache)
    assert tree(tmp_path / "second") == tree(tmp_path / "first")
    for path in paths[:3]:  # rebuilt: each holds its own entry again
        data = read_sealed(path, "runs")
        assert data is not None and data.startswith(MAGIC + key_of(path) + b"\n")
        assert pickle.loads(data[len(MAGIC) + len(key_of(path)) + 1:])["run"].header.run_id


def test_incremental_build_equals_forced_build(small_inputs, tmp_path):
    """One more run: the incremental build (cache and previous site kept) gives the same
    tree as a forced build without a cache, and re-uses the unchanged files by hard link."""
    csv_path, runs = small_inputs
    mine = tmp_path / "runs"
    shutil.copytree(runs, mine)
    cache, site = tmp_path / "cache", tmp_path / "site"
    cached_build(small_inputs, site, cache, mine, force=False)
    write_synthetic_model_pair(load_dataset(csv_path, SMALL_SPEC), mine / "added", seed=2222, name="added-demo")
    before = {p.relative_to(site): p.stat().st_ino for p in site.rglob("*.csv")}
    assert not cached_build(small_inputs, site, cache, mine, force=False).skipped
    cached_build(small_inputs, tmp_path / "forced", tmp_path / "no-cache", mine)
    assert tree(site) == tree(tmp_path / "forced")
    linked = [p for p, inode in before.items() if (site / p).exists() and (site / p).stat().st_ino == inode]
    assert linked, "unchanged files are hard-linked from the previous site"
    assert (site / STAMP).exists()


def test_entries_are_keyed_by_content_and_code_and_values_by_datasets(small_inputs, tmp_path, monkeypatch):
    import builder.benchmarks.cibuzzbench.run_checks as load
    csv_path, runs = small_inputs
    dataset = load_dataset(csv_path, SMALL_SPEC)
    path = next(runs.rglob("*.jsonl"))
    reads, checks = [], []

    def read(raw):
        reads.append(1)
        return read_run(path, raw)

    for code, expected in (("a", 1), ("a", 1), ("b", 2)):
        cache = RunCache(tmp_path / "cache", code=code)
        cache.run(path, read)
        cache.save()
        assert len(reads) == expected
    real = load.validate_run
    monkeypatch.setattr(load, "validate_run", lambda run, data: (checks.append(1), real(run, data)))
    cache = RunCache(tmp_path / "cache", code="b")
    run = cache.run(path, read)
    for datasets, expected in (({"original": dataset}, 1), ({"original": dataset}, 1),
                               ({"original": dataset, "gold_pool": dataset}, 2)):
        load.validate_runs([run], datasets, cache)
        assert len(checks) == expected, "validation is kept per set of datasets"
    assert datasets_key({"original": dataset}) != datasets_key({"original": dataset, "gold_pool": dataset})


def test_lazy_items_round_trip(small_inputs):
    _, runs = small_inputs
    run = read_run(next(runs.rglob("*.jsonl")))
    lazy = pickle.loads(pickle.dumps(LazyItems.of(run.items)))
    assert len(lazy) == len(run.items)
    assert tuple(lazy) == run.items and lazy[3] == run.items[3]


def test_a_compressed_run_is_cached_like_any_other(small_inputs, tmp_path):
    """A .jsonl.gz run is written whole (never appended to), so its bytes decide it: the next
    build reads it from the cache instead of parsing it again (the 29 imported MMLU-Pro runs)."""
    from builder.runs.writer import write_run
    _, runs = small_inputs
    plain = sorted(runs.rglob("*.jsonl"))[0]
    run = read_run(plain)
    packed = tmp_path / "runs" / f"{plain.stem}.jsonl.gz"
    packed.parent.mkdir()
    write_run(packed, run.header, run.items, run.footer)
    first = RunCache(tmp_path / "cache")
    assert tuple(first.run(packed, lambda raw: read_run(packed, raw)).items) == tuple(run.items)
    assert first.hits == 0 and first.save() == 1
    second = RunCache(tmp_path / "cache")
    again = second.run(packed, lambda raw: read_run(packed, raw))
    assert second.hits == 1 and tuple(again.items) == tuple(run.items)


def test_an_entry_written_keeps_only_the_values_its_build_asked_for(small_inputs, tmp_path):
    """A kept page is named by its templates and context: each template edit names it anew.
    Values the writing build did not ask for are dropped, so the entry does not grow with
    every edit (before: 52 MB more of kept pages in the run cache per edit of base.html)."""
    _, runs = small_inputs
    path = sorted(runs.rglob("*.jsonl"))[0]

    def build(*names: str) -> RunCache:
        cache = RunCache(tmp_path / "cache", code="a")
        run = cache.run(path, lambda raw: read_run(path, raw))
        for name in names:
            cache.derived(run, name, lambda: name.encode() * 1000)
        cache.save()
        return cache

    build("failed", "page:templates-1")
    build("failed", "page:templates-2")
    last = build()
    run = last.run(path, lambda raw: read_run(path, raw))
    assert last.has(run, "page:templates-2") and last.has(run, "failed")
    assert not last.has(run, "page:templates-1"), "the value of the templates before the edit was dropped"


def test_a_known_run_is_not_read_again(small_inputs, tmp_path, monkeypatch):
    """A hit is decided by the file's digest, which the build's fingerprint already took
    (core.fileio.file_sha256 keeps it): the run file's bytes are read only on a miss."""
    import builder.runs.cache as run_cache
    _, runs = small_inputs
    path = sorted(runs.rglob("*.jsonl"))[0]
    first = RunCache(tmp_path / "cache")
    first.run(path, lambda raw: read_run(path, raw))
    first.save()
    reads = []
    real = run_cache.read_input
    monkeypatch.setattr(run_cache, "read_input", lambda p, *a: (reads.append(p), real(p, *a))[1])
    second = RunCache(tmp_path / "cache")
    assert second.run(path, lambda raw: read_run(path, raw)).header.run_id
    assert second.hits == 1 and reads == []
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(path.read_bytes())
    run, raw, key = second.peek(changed)
    assert run is None and raw == path.read_bytes() and key and reads == [changed], "a miss reads the bytes"
