"""Reading text inputs with errors that name the line: shared by every dataset reader."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from builder.core.errors import InputError


def decode_utf8(path: Path, raw: bytes) -> str:
    """UTF-8 text without a BOM; a bad byte is reported with its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.single(
            path, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
            line=line) from exc
    return text.removeprefix("\ufeff")


def csv_records(path: Path, text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (first line number, cells) for every non-blank record.

    Line numbers are where a record starts, so a quoted cell spanning lines does not shift
    the numbers of the records after it.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError.single(path, "file is empty", line=1) from None
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=1) from exc
    if not any(h.strip() for h in header):
        raise InputError.single(path, "first line is blank: expected the header row", line=1)
    records: list[tuple[int, list[str]]] = []
    start = reader.line_num + 1
    try:
        for cells in reader:
            if cells:
                records.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=start) from exc
    return header, records
