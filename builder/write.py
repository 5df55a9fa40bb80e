"""Write stage: put the whole site in place at once.

The new site is written to a sibling folder and swapped in by renames, so a build
that fails at any point leaves the previous `site/` exactly as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

STAMP = ".buzzprobe-fingerprint"


def write_site(files: dict[str, bytes], out: Path, fingerprint: str) -> None:
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        for name in sorted(files):
            _write_file(staging, name, files[name])
        _write_file(staging, STAMP, (fingerprint + "\n").encode())
        os.chmod(staging, 0o755)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_file(root: Path, name: str, data: bytes) -> None:
    path = (root / name).resolve()
    if not path.is_relative_to(root.resolve()):
        raise ValueError(f"refusing to write outside the site: {name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _swap(staging: Path, out: Path) -> None:
    """Rename old away, new in, then delete old; a crash in between keeps one intact copy."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, old / out.name)
    os.rename(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def read_stamp(out: Path) -> str | None:
    try:
        return (out / STAMP).read_text().strip()
    except OSError:
        return None
