"""Get the CIBuzzBench CSV onto disk, or find a copy the user already has.

The project reads the dataset by path; this module only decides *which* path and,
when there is none, downloads the pinned upstream file with the shared downloader
(builder.core.download: retries, atomic replace). Content validation is the loader's job:
the download only refuses bodies that clearly are not the CSV (empty, an HTML error page).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from builder.core.download import FetchError, FetchResult, download
from builder.core.errors import InputError, Problem

UPSTREAM_REPO = "SuperYFan/CIBuzzBench"
PINNED_COMMIT = "b9b13f860bb0459fdcac914e647e0f946a517f72"
UPSTREAM_URL = (
    f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{PINNED_COMMIT}/data/cibuzzbench.csv"
)
EXPECTED_SHA256 = "4b6b3fac65dd85183addc2bb6438ffb36776371d791d0c5a11f72f2d18bc60b0"
DEFAULT_DEST = Path("data/cibuzzbench.csv")

ENV_CSV = "CIBUZZBENCH_CSV"
ENV_URL = "CIBUZZBENCH_URL"
HEADER_PREFIX = b"row_id,split,term_zh"
HINT = f"download the file elsewhere and set {ENV_CSV}=/path/to/cibuzzbench.csv"


class DatasetPathError(FetchError, InputError):
    """CIBUZZBENCH_CSV names a missing file; catchable as FetchError or InputError."""

    def __init__(self, path: str | Path):
        self.reason = f"{ENV_CSV} is set to {str(path)!r}, but no file exists there"
        self.url = None
        self.hint = f"point {ENV_CSV} at a local copy of cibuzzbench.csv, or unset it to download"
        InputError.__init__(
            self, [Problem(str(path), f"{self.reason}; {self.hint}", field=ENV_CSV)]
        )


def resolve_dataset_path(
    env: Mapping[str, str] = os.environ, dest: Path = DEFAULT_DEST
) -> Path | None:
    """Return the CSV to use without touching the network, or None if there is none yet.

    An explicit CIBUZZBENCH_CSV wins and must exist: silently falling back to
    another copy would hide a typo in the user's configuration.
    """
    explicit = env.get(ENV_CSV)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise DatasetPathError(path)
        return path
    return dest if dest.is_file() else None


def dataset_path() -> Path:
    """CIBUZZBENCH_CSV, else the downloaded copy, else a located error; never touches the network."""
    path = resolve_dataset_path(os.environ)
    if path is None:
        raise InputError.single(DEFAULT_DEST, "dataset not found: run `make data` (downloads it) "
                                "or set CIBUZZBENCH_CSV to a local copy")
    return path


def ensure_dataset(
    env: Mapping[str, str] = os.environ,
    dest: Path = DEFAULT_DEST,
    log: Callable[[str], None] = print,
) -> Path:
    """Entry point for `buzzprobe data fetch` / `make data`: find the CSV, downloading only if needed."""
    path = resolve_dataset_path(env, dest)
    if path is not None:
        source = f"{ENV_CSV}={path}" if env.get(ENV_CSV) else f"existing {path}"
        log(f"using {source} (no download)")
        return path
    return fetch_dataset(dest, url=env.get(ENV_URL) or UPSTREAM_URL, log=log).path


def fetch_dataset(dest: Path = DEFAULT_DEST, *, url: str | None = None, expected_sha256: str = EXPECTED_SHA256,
                  log: Callable[[str], None] = print, **options: Any) -> FetchResult:
    """Download the CSV (from `url`, else CIBUZZBENCH_URL, else the pinned upstream file) to dest.

    A sha256 different from the pin is only a warning, because a re-download may differ in line
    endings but not in data; the body must start with the CSV's header. `options`: the
    downloader's (timeout, retries, backoff, sleep: builder.core.download.download).
    """
    return download(dest, url or os.environ.get(ENV_URL) or UPSTREAM_URL, expected_sha256=expected_sha256,
                    header=HEADER_PREFIX, hint=HINT, log=log, **options)
