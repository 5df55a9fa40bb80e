"""The build date is an input, never the wall clock, so identical inputs give identical sites.

Order: SOURCE_DATE_EPOCH (reproducible-builds convention), else the date of the
last git commit, else 1970-01-01 (shown on the site, so the fallback is visible).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path


def build_date(project: Path = Path(".")) -> dt.date:
    return dt.datetime.fromtimestamp(build_epoch(project), tz=dt.timezone.utc).date()


def build_epoch(project: Path = Path(".")) -> int:
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if value:
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"SOURCE_DATE_EPOCH must be an integer, got {value!r}") from None
    return _git_epoch(project)


def _git_epoch(project: Path) -> int:
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=project, capture_output=True,
                             text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return 0
    return int(out) if out.isdigit() else 0
