"""CSV downloads: each table rounded as its page shows it, and a full-precision twin; and
text that a spreadsheet will not run: a text cell starting with = + - @ (or a tab or carriage
return) is a formula to Excel, LibreOffice and Google Sheets, so it gets a leading apostrophe
(OWASP's advice). Model names and run ids come from run files anyone can contribute. A number
already rounded to text ("-3.20") is still a number and is written as it is."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from functools import lru_cache

from builder.core.names import visible

FULL_PRECISION = "tables/full/"  # where the unrounded twin of every CSV goes


def table_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    return cells_csv([_cell(c) for c in columns], ([_cell(v) for v in row] for row in rows))


def cells_csv(header: Sequence[str], rows: Iterable[Sequence[str]]) -> bytes:
    """A CSV file of cells already written by `_cell` (or `text_cell`), the header first: for a
    caller that knows its columns' types and writes each cell the cheapest way."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return ""
    if isinstance(value, (int, bool)):
        return str(value)
    return text_cell(str(value))


@lru_cache(maxsize=1 << 16)
def text_cell(text: str) -> str:
    """A cell's text as written: a number as it is, anything else made visible and kept from
    reading as a formula. Kept per process: the same item ids and letters recur in every run's
    table (a cold build writes 424,000 rows)."""
    if _is_number(text):
        return text
    text = visible(text)  # as on the pages: a name cannot reorder a row or pass for another
    return "'" + text if text.startswith(FORMULA_STARTS) else text


# What float() can start on, after any whitespace: a sign, a digit, a point, inf or nan. Any other
# ASCII first character cannot make a number, so most names and ids skip the failing float() call.
_NUMBER_STARTS = frozenset("0123456789+-.iInN")


def _is_number(text: str) -> bool:
    first = text[:1]
    if first.isascii() and first not in _NUMBER_STARTS and not first.isspace():
        return False
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text and text.lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")
