"""CSV downloads: full-precision numbers (pages round, downloads do not)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence


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
