"""CIBuzzBench's build options (BuildSettings.options["cibuzzbench"]): a CSV and a shape given
on purpose, as tests give a small synthetic copy; by default neither, and the plug-in finds
the CSV itself (CIBUZZBENCH_CSV or the downloaded copy) and expects the official shape."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAME = "cibuzzbench"


@dataclass(frozen=True)
class BuildOptions:
    dataset: Path | None = None  # the CSV; None: CIBUZZBENCH_CSV or data/
    spec: Any = None  # a dataset.cibuzzbench.DatasetSpec; None: the official shape


def options(dataset: Path | None = None, spec: Any = None) -> dict[str, BuildOptions]:
    """`BuildConfig(options=...)` for a build over this CSV (and shape)."""
    return {NAME: BuildOptions(dataset, spec)}
