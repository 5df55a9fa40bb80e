"""Read a Mouse CSV or JSONL file into rows of text cells with line numbers.

Both layouts become one `Table`, so the schema checks are written once. A JSONL file
holds one object per line whose keys are the CSV column names. Rows are numbered as
the official scripts' pandas index (0-based, blank lines skipped), so answers and
judge scores written by those scripts line up with the dataset by position.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.textfiles import csv_records, decode_utf8, numbered_lines, read_input
from builder.runs.lines import LineError, load_line

MAX_PROBLEMS = 200
FORMATS = {".csv": "csv", ".jsonl": "jsonl"}


@dataclass(frozen=True)
class Row:
    index: int  # 0-based position among data rows (the official pandas index)
    line: int  # 1-based line where the record starts
    cells: Mapping[str, str]  # column -> text; "" for an empty cell or JSON null


@dataclass(frozen=True)
class Table:
    path: Path
    kind: str  # "csv" or "jsonl"
    sha256: str
    columns: tuple[str, ...]  # CSV header, or JSONL keys in first-seen order
    rows: tuple[Row, ...]


def read_table(path: str | Path) -> Table:
    """Decode and split a file; raises InputError naming every bad line."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        hint = " (export the judge workbook's 'data' sheet to CSV)" if path.suffix.lower() in (".xlsx", ".xls") else ""
        raise InputError.single(path, f"unsupported file type {path.suffix!r}: expected .csv or .jsonl{hint}")
    try:
        raw = read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read: {exc.strerror or exc}") from exc
    text = decode(path, raw)
    columns, rows = (_csv_rows if kind == "csv" else _jsonl_rows)(path, text)
    return Table(path, kind, hashlib.sha256(raw).hexdigest(), columns, tuple(rows))


def decode(path: Path, raw: bytes) -> str:
    return decode_utf8(path, raw)


def _csv_rows(path: Path, text: str) -> tuple[tuple[str, ...], list[Row]]:
    header, records = csv_records(path, text)  # a blank or repeating header is refused there
    problems: list[Problem] = []
    rows: list[Row] = []
    for line, cells in records:
        if len(cells) != len(header):
            problems.append(Problem(str(path), f"expected {len(header)} fields, found {len(cells)}"
                                    " (an unbalanced quote can swallow the lines after it)", line))
        rows.append(Row(len(rows), line, dict(zip(header, cells))))
    raise_problems(problems)
    return tuple(header), rows


def _jsonl_rows(path: Path, text: str) -> tuple[tuple[str, ...], list[Row]]:
    problems: list[Problem] = []
    rows: list[Row] = []
    columns: dict[str, None] = {}
    for number, line in numbered_lines(path, text):
        cells = _json_cells(str(path), number, line, problems)
        if cells is not None:
            columns.update(dict.fromkeys(cells))
            rows.append(Row(len(rows), number, cells))
    if not rows and not problems:
        problems.append(Problem(str(path), "file is empty", 1))
    raise_problems(problems)
    return tuple(columns), rows


def _json_cells(path: str, number: int, line: str, problems: list[Problem]) -> dict[str, str] | None:
    try:
        value = load_line(line)
    except LineError as exc:
        problems.append(Problem(path, str(exc), number))
        return None
    if not isinstance(value, dict):
        problems.append(Problem(path, f"expected a JSON object, got {type(value).__name__}", number))
        return None
    cells = {}
    for key, cell in value.items():
        text = _cell_text(cell)
        if text is None:
            problems.append(Problem(path, f"expected a string or an integer, got {json.dumps(cell, ensure_ascii=False)[:80]}", number, key))
        else:
            cells[key] = text
    return cells


def _cell_text(cell: Any) -> str | None:
    """Strings as they are, integers as digits (labels may be JSON numbers), null as ""."""
    if cell is None:
        return ""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, int) and not isinstance(cell, bool):
        return str(cell)
    return None


def require_columns(table: Table, names: list[str] | tuple[str, ...]) -> list[Problem]:
    """A CSV misses a column once (in its header); a JSONL row can miss a key on any line."""
    path = str(table.path)
    if table.kind == "csv":
        return [Problem(path, f"missing column (found: {', '.join(table.columns)})", 1, n)
                for n in names if n not in table.columns]
    return [Problem(path, "missing field", row.line, n) for row in table.rows for n in names if n not in row.cells]


def raise_problems(problems: list[Problem]) -> None:
    """Raise all problems at once (capped, so a wrong file does not print 10,000 lines)."""
    if not problems:
        return
    shown = problems[:MAX_PROBLEMS]
    extra = len(problems) - len(shown)
    if extra > 0:
        shown.append(Problem(shown[0].path, f"{extra} further problem(s) not listed"))
    raise InputError(shown)
