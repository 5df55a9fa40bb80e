"""Shared fixtures: a synthetic full-size dataset, and the real CSV when available."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset
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
# The committed specs (content/benchmarks/) audit real third-party benchmarks: builds of the
# committed content in tests leave them out (their pages would put dataset text into the golden
# files); the tests of those specs (test_shelf.py) build them from the shared copies.
SHIPPED_SPECS = tuple(sorted(p.stem for p in (REPO / "content" / "benchmarks").glob("*.yaml")))
os.environ.setdefault("BUZZPROBE_SKIP_BENCHMARKS", ",".join(SHIPPED_SPECS))


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
