"""The cold-build budget's fixes (issue 35): one located error for a missing pinned data copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.benchmarks.mcq.loading import _check_data_file
from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
CHEMBENCH = REPO / "content" / "benchmarks" / "chembench.yaml"


def _problems(environ: dict[str, str]) -> list[str]:
    with pytest.raises(InputError) as caught:
        _check_data_file(load_spec(CHEMBENCH, root=REPO, environ=environ))
    return [str(p) for p in caught.value.problems]


def test_missing_chembench_copy_is_one_located_error(tmp_path: Path) -> None:
    """A copy that is not there was 2,791 errors (one per pinned question file and glob)."""
    gone = tmp_path / "no-such-copy"
    problems = _problems({"BUZZPROBE_DATA_CHEMBENCH": str(gone)})
    assert len(problems) == 1
    text = problems[0]
    assert text.startswith("content/benchmarks/chembench.yaml:") or str(CHEMBENCH) in text
    assert "[data_dir]" in text and f"no folder {gone}" in text
    assert "BUZZPROBE_DATA_CHEMBENCH" in text and "src/data/chem-bench-main/data/" in text
    assert "github.com/lamalab-org/chembench-paper/tree/8fe22914" in text


def test_missing_default_copy_says_how_to_get_it(tmp_path: Path) -> None:
    """Without the variable the spec's own data_dir is meant: fetch it, or name a copy."""
    spec = tmp_path / "benchmarks" / "chembench.yaml"
    spec.parent.mkdir()
    spec.write_bytes(CHEMBENCH.read_bytes())
    with pytest.raises(InputError) as caught:
        _check_data_file(load_spec(spec, root=tmp_path, environ={}))
    (problem,) = caught.value.problems
    assert "buzzprobe data fetch --benchmark chembench" in str(problem)
    assert f"no folder {tmp_path / 'data' / 'chembench'}" in str(problem)


def test_half_copy_counts_what_is_missing(tmp_path: Path) -> None:
    """A copy holding some of the pinned files names how many are missing and the first one."""
    spec = load_spec(CHEMBENCH, root=REPO, environ={})
    assert spec.location.download is not None
    kept = spec.location.download.files[:3]
    for relative, _ in kept:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("{}", encoding="utf-8")
    total = len(spec.location.download.files)
    (problem,) = _problems({"BUZZPROBE_DATA_CHEMBENCH": str(tmp_path)})
    assert f"{total - 3:,} of its {total:,} pinned files are not in {tmp_path}" in problem


# ---------------------------------------------------------------- the audits in worker processes

def _content(tmp_path: Path, *fixtures: str) -> Path:
    from tests.test_mcq_site import content_with
    for fixture in fixtures:
        content = content_with(tmp_path, fixture)
    return content


def test_worker_audits_equal_the_main_process_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Serial and parallel give the same data and audits, and with workers the main process audits nothing."""
    from builder.benchmarks.mcq import audit_pool
    from builder.benchmarks.mcq.analyses import audit_cache
    from builder.benchmarks.mcq.loading import load_specs
    from builder.benchmarks.mcq.spec import spec_files
    content = _content(tmp_path, "columns.yaml", "list_options.yaml")
    serial = load_specs(content, tmp_path / "serial-cache", [])
    calls: list[str] = []
    real = audit_cache.run_audit
    monkeypatch.setattr(audit_cache, "run_audit", lambda b: calls.append(b.spec.name) or real(b))
    monkeypatch.setenv(audit_pool.WORKERS_ENV, "2")
    audit_pool.start(content, tmp_path / "cache", spec_files(content))
    parallel = load_specs(content, tmp_path / "cache", [])
    assert calls == []  # the workers audited (what they append stays in their own process)
    assert audit_pool.taken(content, tmp_path / "cache") is None  # handed over once, then closed
    assert [s.audit.as_json() for s in serial] == [p.audit.as_json() for p in parallel]
    assert [s.benchmark.items for s in serial] == [p.benchmark.items for p in parallel]
    assert ([audit_cache.cache_key(s.benchmark, tmp_path / "serial-cache") for s in serial]
            == [audit_cache.cache_key(p.benchmark, tmp_path / "cache") for p in parallel])


def test_a_failing_worker_leaves_the_located_error_to_the_main_process(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.mcq import audit_pool
    from builder.benchmarks.mcq.loading import load_specs
    from builder.benchmarks.mcq.spec import spec_files
    content = _content(tmp_path, "columns.yaml")
    spec = content / "benchmarks" / "synthetic-columns.yaml"
    data = tmp_path / "broken.csv"
    data.write_text("not,the,columns\n1,2,3\n", encoding="utf-8")
    text = spec.read_text(encoding="utf-8")
    spec.write_text("\n".join(f"dataset_path: {data}" if line.startswith("dataset_path:") else line
                              for line in text.splitlines()) + "\n", encoding="utf-8")
    monkeypatch.setenv(audit_pool.WORKERS_ENV, "1")
    with pytest.raises(InputError) as serial:
        load_specs(content, tmp_path / "serial-cache", [])
    audit_pool.start(content, tmp_path / "cache", spec_files(content))
    with pytest.raises(InputError) as parallel:
        load_specs(content, tmp_path / "cache", [])
    assert str(parallel.value) == str(serial.value) and str(spec) in str(parallel.value)


def test_no_workers_when_told_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.mcq import audit_pool
    from builder.benchmarks.mcq.spec import spec_files
    content = _content(tmp_path, "columns.yaml")
    monkeypatch.setenv(audit_pool.WORKERS_ENV, "0")
    audit_pool.start(content, tmp_path / "cache", spec_files(content))
    assert audit_pool.taken(content, tmp_path / "cache") is None


# ---------------------------------------------------------------- memory

def test_resample_draws_are_kept_within_a_byte_budget() -> None:
    """Sixteen kept 2,000 x n index sets were most of a cold build's 2 GB; same draws, fewer kept."""
    import numpy as np
    from builder.stats import bootstrap
    kept = bootstrap.KeptDraws(limit=3 * 2000 * 1010 * 4)  # three sets of about 1,000 items (int32)
    first = kept(1000, 2000, 7, bootstrap._CHUNK_CELLS)
    for n in (1001, 1002, 1003, 1004):
        kept(n, 2000, 7, bootstrap._CHUNK_CELLS)
    assert sum(c.nbytes for v in kept.kept.values() for c in v) <= kept.limit and len(kept.kept) == 3
    again = kept(1000, 2000, 7, bootstrap._CHUNK_CELLS)  # evicted, drawn again: the same numbers
    assert kept.cache_info().misses == 6
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    huge = kept(5000, 2000, 7, bootstrap._CHUNK_CELLS)  # bigger than the budget alone: kept alone
    assert list(kept.kept) == [(5000, 2000, 7, bootstrap._CHUNK_CELLS)] and kept(5000, 2000, 7, bootstrap._CHUNK_CELLS) is huge


def test_items_share_equal_letter_maps_and_have_no_dict() -> None:
    from builder.benchmarks.mcq.run_format import read_item
    from builder.runs.reader import Collector
    checker = Collector("run.jsonl")
    items = [read_item(checker, line, {"type": "item", "row_id": line, "id": str(line), "prediction": "A",
                                       "letter_map": {"A": 0, "B": 1, "C": 2, "D": 3}}, {}) for line in (1, 2)]
    first, second = items
    assert first is not None and second is not None
    assert first.letter_map == second.letter_map and first.letter_map is second.letter_map
    assert not hasattr(first, "__dict__")


# ---------------------------------------------------------------- independent work in worker processes

def test_ordered_map_keeps_input_order_and_runs_serially_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """Results come back in input order however the work was shared out; a closure is fine (forked)."""
    import os
    from builder.core import workers
    offset = 7
    items = list(range(40))
    parallel = workers.ordered_map(lambda i: (i + offset, os.getpid()), items, workers=2)
    assert [r for r, _ in parallel] == [i + offset for i in items]
    assert os.getpid() not in {pid for _, pid in parallel}
    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    assert {pid for _, pid in workers.ordered_map(lambda i: (i, os.getpid()), items)} == {os.getpid()}


def _blas_threads(_: object) -> list[int]:
    from threadpoolctl import threadpool_info
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_a_worker_runs_blas_on_one_thread_whatever_its_parent_does() -> None:
    """A worker per core, each with a BLAS thread per core, made a cold build spend 89 s of CPU
    where 77 s do (docs/performance.md): the workers run BLAS on one thread."""
    import numpy  # noqa: F401 - loads the BLAS library threadpoolctl limits
    from threadpoolctl import threadpool_limits
    from builder.core import workers
    with threadpool_limits(limits=2):  # the suite's own processes run on one (conftest)
        if set(_blas_threads(None)) != {2}:
            pytest.skip("BLAS here runs on one thread at most (one core, or its library started with one)")
        assert {n for found in workers.ordered_map(_blas_threads, range(4), workers=2) for n in found} == {1}
        assert set(_blas_threads(None)) == {2}  # the parent keeps its own


def test_a_build_spaces_the_collectors_young_collections_and_restores_the_callers(
        small_inputs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build runs with a first threshold of at least BUILD_THRESHOLD (0.45 s of collections
    over kept objects otherwise) and leaves the caller's thresholds as they were."""
    import gc

    import builder.pipeline as pipeline
    from builder.benchmarks.cibuzzbench.build_options import options
    from builder.core.collector import BUILD_THRESHOLD
    from tests.shared_builds import CONTENT, SMALL_SPEC
    seen = []
    real = pipeline._load
    monkeypatch.setattr(pipeline, "_load", lambda *a, **k: (seen.append(gc.get_threshold()), real(*a, **k))[1])
    before = gc.get_threshold()
    csv_path, runs = small_inputs
    pipeline.build(pipeline.BuildConfig(runs, CONTENT, tmp_path / "site", options=options(csv_path, SMALL_SPEC),
                                        cache_dir=tmp_path / "cache"))
    assert seen and seen[0][0] >= BUILD_THRESHOLD and seen[0][1:] == before[1:]
    assert gc.get_threshold() == before
