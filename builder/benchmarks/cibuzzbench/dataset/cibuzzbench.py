"""Read and validate the CIBuzzBench CSV.

Validation is by content, not checksum: a re-download may differ in line endings
while holding the same data, so runs refer to the dataset by a hash of its parsed
content (`content_sha256`) and the file's own sha256 is only recorded.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from builder.core.errors import InputError, Problem
from builder.core.redact import excerpt
from builder.core.textfiles import csv_records, decode_utf8, read_input
from builder.benchmarks.cibuzzbench.tasks import HARMFULNESS_DETECTION, TASK_LABELS

COLUMNS: tuple[str, ...] = (
    "row_id", "split", "term_zh", "explanation_zh", "meaning_en", "equivalent_en",
    "distractor_literal_en", "distractor_cultural_mismatch_en",
    "distractor_pragmatic_neighbor_en", "harmful_label", "category_label",
)
HARM_LABELS: tuple[str, ...] = TASK_LABELS[HARMFULNESS_DETECTION]  # one label set per task
CATEGORIES: tuple[str, ...] = (
    "Experience", "Quotation", "Stylistic device", "Homophonic pun", "Slang", "Abbreviation",
)
SPLITS: tuple[str, ...] = ("train", "test")
MAX_PROBLEMS = 200


@dataclass(frozen=True)
class DatasetSpec:
    """The shape a valid file must have; tests substitute a smaller one."""

    rows: int = 3001
    split_counts: dict[str, int] = field(default_factory=lambda: {"train": 2401, "test": 600})


OFFICIAL_SPEC = DatasetSpec()


@dataclass(frozen=True)
class Dataset:
    path: Path
    file_sha256: str
    content_sha256: str
    frame: pd.DataFrame  # one row per item, indexed by row_id, columns as in COLUMNS

    @property
    def rows(self) -> int:
        return len(self.frame)

    def column(self, name: str) -> dict[int, str]:
        """row_id -> value; plain dict lookups are far cheaper than pandas indexing per item."""
        return dict(zip(self.frame.index.tolist(), self.frame[name].tolist()))

    def row_ids(self, split: str | None = None) -> list[int]:
        frame = self.frame if split is None else self.frame[self.frame["split"] == split]
        return [int(i) for i in frame.index]


def load_dataset(path: str | Path, spec: DatasetSpec = OFFICIAL_SPEC) -> Dataset:
    """Load and fully validate; raises InputError listing every problem found."""
    path = Path(path)
    try:
        raw = read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read dataset: {exc.strerror or exc}") from exc
    return parse_dataset(path, raw, spec)


def parse_dataset(path: Path, raw: bytes, spec: DatasetSpec = OFFICIAL_SPEC) -> Dataset:
    """Validate CSV bytes; `path` only names them in errors (derived variants have no file).
    Bytes that passed under the same spec are not checked again in this process (a build and its
    variants read one file several times): their parse is kept, and each caller gets its own frame."""
    sha = hashlib.sha256(raw).hexdigest()
    key = (sha, spec.rows, tuple(sorted(spec.split_counts.items())))
    parsed = _PARSED.pop(key, None) or _parse(path, raw, spec)
    _PARSED[key] = parsed  # the most recently used last
    while len(_PARSED) > PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]
    content, frame = parsed
    return Dataset(path, sha, content, frame.copy())


PARSED_KEPT = 8  # distinct files (a full-size frame is a few megabytes)
_PARSED: dict[tuple[str, int, tuple[tuple[str, int], ...]], tuple[str, pd.DataFrame]] = {}


def _parse(path: Path, raw: bytes, spec: DatasetSpec) -> tuple[str, pd.DataFrame]:
    """(content hash, frame) of valid bytes; an InputError naming every problem otherwise."""
    text = decode_utf8(path, raw)
    header, records = csv_records(path, text)
    rows = _validate(path, header, records, spec)
    frame = pd.DataFrame([dict(zip(COLUMNS, r)) for r in rows], columns=list(COLUMNS))
    frame["row_id"] = frame["row_id"].astype(int)
    frame = frame.set_index("row_id", drop=False)
    frame.index.name = None
    return content_hash(rows), frame


def content_hash(rows: list[list[str]]) -> str:
    """Hash of the parsed cells, independent of line endings, quoting and BOM."""
    payload = json.dumps([list(COLUMNS)] + rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _validate(path: Path, header: list[str], records: list[tuple[int, list[str]]],
              spec: DatasetSpec) -> list[list[str]]:
    problems = _check_header(path, header)
    if problems:
        raise InputError(problems)
    rows: list[list[str]] = []
    first_line: dict[tuple[str, ...], int] = {}  # row -> line it first appears on
    position = 0  # the row_id this record should have
    for line, cells in records:
        if len(cells) != len(COLUMNS):
            position += 1
            problems.append(Problem(str(path), f"expected {len(COLUMNS)} fields, found {len(cells)}"
                                    " (an unbalanced quote can swallow the lines after it)", line))
            continue
        row = [cells[header.index(c)] for c in COLUMNS]
        if tuple(row) in first_line:  # named once; the rows after it keep their expected positions
            problems.append(Problem(str(path), f"duplicate of the row on line {first_line[tuple(row)]} "
                                    f"(row_id {excerpt(row[0])}): delete one of them", line, "row_id"))
            continue
        first_line[tuple(row)] = line
        problems.extend(_check_row(path, line, position, row))
        rows.append(row)
        position += 1
    problems.extend(_check_shape(path, rows, spec))
    if problems:
        raise InputError(problems[:MAX_PROBLEMS] + _overflow(path, problems))
    return rows


def _overflow(path: Path, problems: list[Problem]) -> list[Problem]:
    extra = len(problems) - MAX_PROBLEMS
    return [Problem(str(path), f"{extra} further problem(s) not listed")] if extra > 0 else []


def _check_header(path: Path, header: list[str]) -> list[Problem]:
    problems = []
    missing = [c for c in COLUMNS if c not in header]
    unknown = [c for c in header if c not in COLUMNS]
    for c in missing:
        problems.append(Problem(str(path), "required column is missing", 1, c))
    for c in unknown:
        problems.append(Problem(str(path), "unknown column", 1, c))
    return problems


_ALLOWED = {"split": SPLITS, "harmful_label": HARM_LABELS, "category_label": CATEGORIES}


def _check_row(path: Path, line: int, position: int, row: list[str]) -> list[Problem]:
    problems = []
    for name, value in zip(COLUMNS, row):
        if not value.strip():
            problems.append(Problem(str(path), "empty cell", line, name))
        elif name in _ALLOWED and value not in _ALLOWED[name]:
            allowed = ", ".join(_ALLOWED[name])
            problems.append(Problem(str(path), f"unknown label {excerpt(value)} (expected one of: {allowed})", line, name))
    row_id = row[0]
    if row_id.strip() and row_id != str(position):
        problems.append(Problem(str(path), f"row_id {excerpt(row_id)} breaks the contiguous 0-based sequence (expected {position})", line, "row_id"))
    return problems


def _check_shape(path: Path, rows: list[list[str]], spec: DatasetSpec) -> list[Problem]:
    problems = []
    if len(rows) != spec.rows:
        problems.append(Problem(str(path), f"expected {spec.rows} data rows, found {len(rows)}"))
    counts = Counter(r[1] for r in rows)
    for split, expected in spec.split_counts.items():
        if counts.get(split, 0) != expected:
            problems.append(Problem(str(path), f"expected {expected} {split!r} rows, found {counts.get(split, 0)}", field="split"))
    return problems
