"""The pipeline, in one direction: load -> validate -> compute -> render -> write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.fingerprint import build_fingerprint
from builder.write import read_stamp


@dataclass(frozen=True)
class BuildConfig:
    dataset: Path
    runs_dir: Path = Path("runs")
    content_dir: Path = Path("content")
    out: Path = Path("site")
    force: bool = False
    spec: object | None = None  # a DatasetSpec; None means the official shape


@dataclass(frozen=True)
class BuildResult:
    skipped: bool
    files: int
    facts: int
    runs: int


def build(config: BuildConfig) -> BuildResult:
    """Build the site; skip all work when no input changed since the last build."""
    fingerprint = build_fingerprint(config.dataset, config.runs_dir, config.content_dir)
    if not config.force and read_stamp(config.out) == fingerprint:
        return BuildResult(skipped=True, files=0, facts=0, runs=0)
    # Heavy imports only once we know there is work to do.
    from builder.compute import compute
    from builder.dataset.cibuzzbench import load_dataset
    from builder.render.pages import SiteInputs, render_site
    from builder.runs.load import load_runs
    from builder.write import write_site

    dataset = load_dataset(config.dataset, config.spec) if config.spec else load_dataset(config.dataset)
    runs = load_runs(config.runs_dir, dataset)
    computed = compute(dataset, runs)
    files = render_site(SiteInputs(dataset, computed, config.content_dir))
    write_site(files, config.out, fingerprint)
    return BuildResult(skipped=False, files=len(files), facts=len(computed.facts.values), runs=len(runs))
