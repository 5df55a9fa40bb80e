"""The "What's new" list and the newest run's date, from the runs' own headers (the build
date alone can precede the runs it shows)."""

from __future__ import annotations

from typing import Any

from builder.site.parts import RunBrief


def runs_by_date(runs: list[RunBrief]) -> list[dict[str, Any]]:
    """The "What's new" list: runs grouped by the day their own header says they were created
    (an imported run: its source file's commit date, when the import recorded it), newest day
    first (ids sorted within a day)."""
    days: dict[str, list[RunBrief]] = {}
    for run in runs:
        days.setdefault((run.source_date or run.created)[:10], []).append(run)
    out = []
    for day in sorted(days, reverse=True):
        runs_of_day = sorted(days[day], key=lambda r: r.run_id)
        out.append({"date": day, "runs": runs_of_day, "models": [r for r in runs_of_day if r.kind != "probe"],
                    "probes": [r for r in runs_of_day if r.kind == "probe"]})
    return out


def newest_run_date(runs: list[RunBrief]) -> str:
    """The creation date (UTC, from the run headers) of the newest run; "" with no runs. The
    build date alone can precede the runs it shows, e.g. when runs are added after a commit."""
    return max((run.created[:10] for run in runs), default="")
