"""The build date is an input, never the wall clock, so identical inputs give identical sites.

Order: SOURCE_DATE_EPOCH (reproducible-builds convention), else the date of the
last git commit, else 1970-01-01 (shown on the site, so the fallback is visible).
Also the one format of a moment in run files (`created`, `finished`): "2026-01-01T00:00:00Z".
No input may be dated after the build (`latest_moment`, `future_problem`): a run stamped
9999-12-31 would head "What's new", a prediction registered after the build would be open.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

from builder.core.errors import InputError
from builder.core.redact import excerpt


# The last moment Python's datetime (and so a shown date) can hold.
_LAST = dt.datetime(9999, 12, 31, tzinfo=dt.timezone.utc)


def build_date(project: Path = Path(".")) -> dt.date:
    return moment(build_epoch(project)).date()


def moment(epoch: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch, tz=dt.timezone.utc)


def utc_stamp(when: dt.datetime) -> str:
    """A moment as run files record it: UTC, whole seconds, a "Z" suffix."""
    return when.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now() -> str:
    """The wall clock as a stamp: for what a live probe or an import records, never the site."""
    return utc_stamp(dt.datetime.now(dt.timezone.utc))


def created_stamp() -> str:
    """Deterministic probes take their date from SOURCE_DATE_EPOCH (the Makefile pins it)."""
    epoch = env_epoch()
    if epoch is None:
        raise InputError.single("SOURCE_DATE_EPOCH", "not set: probe runs must be reproducible; "
                                "use `make runs` or set SOURCE_DATE_EPOCH")
    return utc_stamp(moment(epoch))


def build_epoch(project: Path = Path(".")) -> int:
    epoch = env_epoch()
    return _git_epoch(project) if epoch is None else epoch


def env_epoch() -> int | None:
    """SOURCE_DATE_EPOCH as whole seconds since 1970 (None when unset or blank); anything
    else (text, a fraction, a date past year 9999) is a located error, never a traceback."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    if not value.isascii() or not value.isdigit():
        raise InputError.single("SOURCE_DATE_EPOCH", f"must be whole seconds since 1970-01-01 UTC "
                                f"(digits only), got {value[:40]!r}")
    if len(value) > 15 or int(value) > int(_LAST.timestamp()):  # 15 digits: int() is always safe
        raise InputError.single("SOURCE_DATE_EPOCH", f"{value[:40]} seconds is after the year 9999")
    return int(value)


def latest_moment(project: Path = Path(".")) -> dt.datetime:
    """The latest moment an input can truly carry: when this build runs, which is the build's
    own date or, when that is earlier (a run probed after the last commit), the clock. The
    clock only ever refuses an input dated in the future; it never changes what is built."""
    return max(moment(build_epoch(project)), dt.datetime.now(dt.timezone.utc))


def future_problem(value: str, latest: dt.datetime) -> str | None:
    """Why a recorded moment (a run's `created`, `finished`) cannot be true; None when it can."""
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return f"{excerpt(value, 40)} is not a moment (expected UTC such as 2026-01-01T00:00:00Z)"
    when = when if when.tzinfo is not None else when.replace(tzinfo=dt.timezone.utc)
    if when > latest:
        return (f"{excerpt(value, 40, quoted=False)} is after this build ({utc_stamp(latest)}): nothing can be "
                "dated in the future")
    return None


def _git_epoch(project: Path) -> int:
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=project, capture_output=True,
                             text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return 0
    return int(out) if out.isdigit() else 0
