"""Shared fixtures: a synthetic full-size dataset, the real CSV when available, and the
whole-site builds tests read (each built once per session: a build is the suite's costliest step)."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset
from tests.shared_builds import CREATED, cli, make_small_inputs, once_per_run, shipped_build, small_build
from tests.synthetic import write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]

# The build date is an input of every build; pin it so golden files do not follow the
# date of the latest commit (tests of the date logic set their own value).
os.environ["SOURCE_DATE_EPOCH"] = "1767225600"  # 2026-01-01
# GitHub Actions sets these in every workflow; the site then names the workflow's repository
# (builder/site/reuse.py). Golden files are built without them, on CI as anywhere else.
for _name in ("GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
    os.environ.pop(_name, None)
# Every test build (in-process or through the CLI) shares one chart cache: generating the
# Vega bundle takes seconds and is keyed by its content, so sharing cannot mix results.
os.environ["BUZZPROBE_CACHE"] = str(REPO / ".cache")
# Under pytest-xdist every core already runs a test worker, so a build's own forked workers
# (builder/core/workers.py) only compete with it for the same cores and pay for their forks
# (docs/performance.md, "Builds in the suite run serially"): builds in an xdist worker run in
# their own process. The forked paths keep their own tests, which set BUZZPROBE_WORKERS
# (test_cold_build_budget.py; test_every_run_citizen.py compares a parallel site with a serial one).
# For the same reason each test worker, and what it starts, runs BLAS on one thread: with a
# thread per core in every worker, the threads of one spun waiting for a core the other worker
# (or Chromium) held. Measured in a whole run: the feature-importance test took 15.1 s and 6.8 s
# of CPU beside the browser tests, against 1.4 s alone. The ranker's fits run on one thread
# anyway (ranker.evaluate.single_threaded), and no figure depends on the count (the golden and
# the committed-runs tests would fail).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("BUZZPROBE_WORKERS", "0")
    for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_blas, "1")
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1)  # numpy is loaded by now (the imports above): limit its pool too
# The committed specs (content/benchmarks/) audit real third-party benchmarks: builds of the
# committed content in tests leave them out (their pages would put dataset text into the golden
# files); the tests of those specs (test_shelf.py) build them from the shared copies.
SHIPPED_SPECS = tuple(sorted(p.stem for p in (REPO / "content" / "benchmarks").glob("*.yaml")))
os.environ.setdefault("BUZZPROBE_SKIP_BENCHMARKS", ",".join(SHIPPED_SPECS))
_TWO_RUNS = ("probe-longest_chars-t2-s1111-test.jsonl", "probe-always_non_harmful-t3-test.jsonl")


@pytest.fixture(scope="session")
def synthetic_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_csv(tmp_path_factory.mktemp("data") / "synthetic.csv")


@pytest.fixture(scope="session")
def synthetic_dataset(synthetic_csv: Path) -> Dataset:
    return load_dataset(synthetic_csv)


@pytest.fixture(scope="session")
def real_csv() -> Path:
    """The real CSV: required in CI (CI=true), skipped elsewhere when absent."""
    value = os.environ.get("CIBUZZBENCH_CSV")
    if value and Path(value).is_file():
        return Path(value)
    shared = REPO.parent / "shared" / "data" / "cibuzzbench" / "cibuzzbench.csv"
    if not value and shared.is_file():
        return shared
    if os.environ.get("CI"):
        pytest.fail("CI must set CIBUZZBENCH_CSV to the real CIBuzzBench CSV; real-data tests may not be skipped")
    pytest.skip("real CIBuzzBench CSV not available (set CIBUZZBENCH_CSV)")


@pytest.fixture(scope="session")
def real_dataset(real_csv: Path) -> Dataset:
    return load_dataset(real_csv)


@pytest.fixture(scope="session")
def small_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The golden site's inputs: a 60-row dataset, probe runs of seeds 1111 and 2222, a model pair."""
    return make_small_inputs(tmp_path_factory.mktemp("small"))


@pytest.fixture(scope="session")
def small_site(small_inputs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden site, built once: tests read it and never change it (shared_builds.own_copy
    gives a test a copy to build over or break)."""
    def make(folder: Path) -> Path:
        small_build(small_inputs, folder / "site")
        return folder / "site"
    return once_per_run(tmp_path_factory, "small-site", make)


@pytest.fixture(scope="session")
def every_run(tmp_path_factory: pytest.TempPathFactory, synthetic_dataset: Dataset) -> Path:
    """Every probe run of the full-size synthetic dataset (tests copy the few they need)."""
    from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
    def make(folder: Path) -> Path:
        generate_probe_runs(synthetic_dataset, folder, CREATED)
        return folder
    return once_per_run(tmp_path_factory, "every-run", make)


@pytest.fixture(scope="session")
def shipped_site(real_csv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site `make site` publishes, the shipped specs included (each reading its shared copy),
    built once; test_shelf, test_every_run_citizen, test_fact_keys and test_site_prose read it."""
    return once_per_run(tmp_path_factory, "shipped-site", lambda folder: shipped_build(real_csv, folder))


@pytest.fixture(scope="session")
def built_project(tmp_path_factory: pytest.TempPathFactory, synthetic_csv: Path, every_run: Path) -> Path:
    """A user's folder: the full-size synthetic CSV, two runs and the site `buzzprobe build` made."""
    def make(folder: Path) -> Path:
        work = folder / "work"
        work.mkdir()
        shutil.copy(synthetic_csv, work / "data.csv")
        (work / "runs").mkdir()
        for name in _TWO_RUNS:
            shutil.copy(every_run / name, work / "runs" / name)
        result = cli(work, "build")
        assert result.returncode == 0, result.stderr
        return work
    return once_per_run(tmp_path_factory, "built-project", make)


@pytest.fixture()
def project(tmp_path: Path, built_project: Path) -> Path:
    """A private copy of the built project, for a test to break."""
    work = tmp_path / "work"
    shutil.copytree(built_project, work, symlinks=True)
    return work


@pytest.fixture(scope="session")
def base_project(tmp_path_factory: pytest.TempPathFactory, synthetic_csv: Path, every_run: Path) -> Path:
    """Full-size synthetic CSV, two runs and a copy of content/, as a user's checkout has
    (tests copy it before they change anything: test_hardening.project)."""
    root = tmp_path_factory.mktemp("hardening") / "work"
    root.mkdir()
    shutil.copy(synthetic_csv, root / "data.csv")
    (root / "runs").mkdir()
    for name in _TWO_RUNS:
        shutil.copy(every_run / name, root / "runs" / name)
    shutil.copytree(REPO / "content", root / "content")
    return root


@pytest.fixture(scope="session")
def small_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same layout with a 60-row dataset, for in-process builds (copied by test_hardening.small)."""
    from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
    from tests.shared_builds import SMALL_SPEC
    from tests.synthetic import synthetic_rows
    root = tmp_path_factory.mktemp("hardening-small") / "work"
    root.mkdir()
    csv_path = write_synthetic_csv(root / "data.csv", synthetic_rows(n=60, test=12, seed=3))
    every = root.parent / "every"
    generate_probe_runs(load_dataset(csv_path, SMALL_SPEC), every, CREATED)
    (root / "runs").mkdir()
    for name in _TWO_RUNS:
        shutil.copy(every / name, root / "runs" / name)
    shutil.copytree(REPO / "content", root / "content")
    return root


# The modules that take longest (`pytest --durations`), collected first, in this order: `make
# test` hands pytest-xdist's workers whole modules in collection order (--dist loadfile
# --no-loadscope-reorder), first one each in turn, so the longest start at once, side by side,
# and none starts last while the other core idles. The other modules that read the shipped site,
# which test_every_run_citizen builds first (about 80 s), come last, where the site is ready,
# instead of holding the other worker idle while it waits.
SLOW_FIRST = ("test_every_run_citizen.py", "test_interop_roundtrip.py", "test_harness_any_spec.py",
              "test_browser.py", "test_trust3_sanitise.py", "test_variants.py", "test_probes.py",
              "test_learned_probe.py", "test_run_checks.py", "test_reader_site.py")
SHIPPED_SITE_LAST = ("test_fact_keys.py", "test_shelf.py", "test_site_prose.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    rank |= {name: len(SLOW_FIRST) + 1 for name in SHIPPED_SITE_LAST}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))  # stable: the rest keep their order


# A test process keeps what its session fixtures and the build's in-process caches hold (sites,
# datasets, bootstrap draws, parsed specs): hundreds of thousands of objects that every full
# collection of Python's cyclic collector scans again. Measured over a whole two-worker run, the
# collector took 21-25 s per worker, 17-20 s of it in 48 full collections. Every FREEZE_EVERY
# tests, what survives a collection moves to the permanent generation (gc.freeze), which later
# collections skip. Frozen objects still go when their last reference does; a frozen cycle
# stays until the test process ends, which costs memory, not results.
# With the freeze, the collector still took 11-12 s per worker (1,550 middle and 106-139 full
# collections: after a freeze the old generation is small, so the rule that waits for it to grow
# by a quarter no longer holds full collections back). Collecting the young generation every
# 20,000 net allocations instead of 700, the middle one every 20 young collections and the old
# one at most every 100 middle ones (besides the freeze's own) took it to 5 s per worker; the
# largest process's peak memory grew from 1.56 to 1.63 GB.
FREEZE_EVERY = 50
GC_THRESHOLDS = (20_000, 20, 100)
gc.set_threshold(*GC_THRESHOLDS)
_finished = [0]


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _finished[0] += 1
    if _finished[0] % FREEZE_EVERY == 0:
        gc.collect()
        gc.freeze()
