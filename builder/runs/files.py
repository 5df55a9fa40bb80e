"""Which files under a runs folder are runs (light: the no-change build check uses it too)."""

from __future__ import annotations

from pathlib import Path

RUN_SUFFIX = ".jsonl"


def run_files(runs_dir: Path) -> list[Path]:
    """Every run under `runs_dir`; the suffix in any case (RUN.JSONL is a run too, not ignored)."""
    if not runs_dir.exists():
        return []
    return sorted(p for p in runs_dir.rglob("*") if p.suffix.lower() == RUN_SUFFIX and p.is_file())
