"""A hash of every build input, so a no-change rebuild can stop before any heavy import."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from builder.core.fileio import file_sha256
from builder.core.paths import PACKAGE_DIR
from builder.core.build_date import build_epoch

ENV_INPUTS = ("SOURCE_DATE_EPOCH", "BUZZPROBE_SITE_URL", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL")


def _files(root: Path, patterns: Iterable[str]) -> list[Path]:
    if not root.exists():
        return []
    found = {p for pattern in patterns for p in root.rglob(pattern) if p.is_file()}
    return sorted(found)


def build_fingerprint(runs_dir: Path, runs: Iterable[Path], content_dir: Path, inputs: Iterable[Path] = ()) -> str:
    """`runs`: the run files under `runs_dir` (the run store lists them; core knows no run
    layout); `inputs`: data files the benchmarks read besides content/ and runs/. Names are
    taken relative to their folder (data files by position) so moving the project keeps the hash."""
    digest = hashlib.sha256()
    groups = {
        "code": (PACKAGE_DIR, _files(PACKAGE_DIR, ["*.py"])),
        "content": (content_dir, _files(content_dir, ["*"])),
        "runs": (runs_dir, list(runs)),
        "data": (None, list(inputs)),
    }
    for group, (root, paths) in groups.items():
        for i, path in enumerate(paths):
            name = f"input{i}" if root is None else path.relative_to(root).as_posix()
            digest.update(f"{group}\0{name}\0".encode())
            digest.update(bytes.fromhex(file_sha256(path)))  # streamed: a huge file costs no memory
    from builder.core.cachefile import environment_key  # a changed dependency is a changed input
    digest.update(f"deps\0{environment_key()}\0".encode())
    for name in ENV_INPUTS:
        digest.update(f"env\0{name}={os.environ.get(name, '')}\0".encode())
    digest.update(f"date\0{build_epoch()}\0".encode())
    return digest.hexdigest()
