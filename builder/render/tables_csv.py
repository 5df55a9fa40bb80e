"""CSV downloads: full-precision numbers (pages round, downloads do not), and text that a
spreadsheet will not run: a text cell starting with = + - @ (or a tab or carriage return) is
a formula to Excel, LibreOffice and Google Sheets, so it gets a leading apostrophe (OWASP's
advice). Model names and run ids come from run files anyone can contribute."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence


def table_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([_cell(c) for c in columns])
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue().encode("utf-8")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return ""
    text = str(value)
    if isinstance(value, (int, bool)):
        return text
    return "'" + text if text.startswith(FORMULA_STARTS) else text
