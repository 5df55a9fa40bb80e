"""Shared fixtures: a synthetic full-size dataset, and the real CSV when available."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builder.dataset.cibuzzbench import Dataset, load_dataset
from tests.synthetic import write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]


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
