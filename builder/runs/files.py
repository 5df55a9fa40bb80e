"""Which files under a runs folder are runs (light: the no-change build check uses it too)."""

from __future__ import annotations

from pathlib import Path

RUN_SUFFIX = ".jsonl"
COMPRESSED_SUFFIX = ".jsonl.gz"  # a gzip-compressed run, read by the same strict reader


def is_run_file(path: Path) -> bool:
    """A run's name ends in .jsonl or .jsonl.gz, in any case (RUN.JSONL is a run too, not ignored)."""
    name = path.name.lower()
    return name.endswith(RUN_SUFFIX) or name.endswith(COMPRESSED_SUFFIX)


def is_compressed(path: Path) -> bool:
    return path.name.lower().endswith(COMPRESSED_SUFFIX)


def run_files(runs_dir: Path) -> list[Path]:
    """Every run under `runs_dir`."""
    if not runs_dir.exists():
        return []
    return sorted(p for p in runs_dir.rglob("*") if is_run_file(p) and p.is_file())
