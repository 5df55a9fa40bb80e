"""Reading a benchmark's data file (JSON, JSONL or CSV) into records that know where they are.

A record is a mapping of field names to values plus its position: 1-based record number and,
for JSONL and CSV, the line it starts on (JSON has no cheap line numbers: the record number
locates it). The file is the user's own download; nothing here writes or copies it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.spec import Spec
from builder.core.errors import InputError
from builder.core.textfiles import csv_records, decode_utf8


@dataclass(frozen=True)
class Record:
    number: int  # 1-based position among the records
    line: int | None
    data: dict[str, Any]


@dataclass(frozen=True)
class DataFile:
    path: Path
    sha256: str  # of the bytes read
    records: tuple[Record, ...]


def read_records(spec: Spec) -> DataFile:
    path = spec.dataset_path
    try:
        raw = path.read_bytes()
    except OSError as exc:
        where = f"set by {spec.dataset_override}" if spec.dataset_override else \
            f"dataset_path in {spec.path}; {spec.env_var} can name another copy"
        raise InputError.single(path, f"cannot read the data file ({where}): {exc.strerror or exc}") from None
    text = decode_utf8(path, raw)
    reader = {"json": _json, "jsonl": _jsonl, "csv": _csv}[spec.dataset_format]
    records = reader(path, text, spec.records)
    if not records:
        raise InputError.single(path, "no records: the file holds no items")
    return DataFile(path, hashlib.sha256(raw).hexdigest(), tuple(records))


def _json(path: Path, text: str, key: str | None) -> list[Record]:
    return [_record(path, i + 1, None, item) for i, item in enumerate(json_list(path, text, key))]


def json_list(path: Path | str, text: str, key: str | None) -> list[Any]:
    """The list a JSON file holds (under `key` when it is an object); a located error otherwise."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.single(path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except RecursionError:
        raise InputError.single(path, "not valid JSON: nested too deeply") from None
    if key is not None:
        if not isinstance(data, dict) or key not in data:
            raise InputError.single(path, f"expected an object with the key {key!r} (the spec's records)")
        data = data[key]
    if not isinstance(data, list):
        hint = "" if key else "; if the list is inside an object, name its key with `records` in the spec"
        raise InputError.single(path, f"expected a list of records, found {type(data).__name__}{hint}")
    return data


def _jsonl(path: Path, text: str, key: str | None) -> list[Record]:
    records = []
    for line, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            item = json.loads(content)
        except json.JSONDecodeError as exc:
            raise InputError.single(path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=line) from None
        except RecursionError:
            raise InputError.single(path, "not valid JSON: nested too deeply", line=line) from None
        records.append(_record(path, len(records) + 1, line, item))
    return records


def _csv(path: Path, text: str, key: str | None) -> list[Record]:
    header, rows = csv_records(path, text)
    names = [h.strip() for h in header]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError.single(path, f"repeated column name(s): {', '.join(map(repr, repeated))}", line=1)
    records = []
    for line, cells in rows:
        if len(cells) != len(names):
            raise InputError.single(path, f"expected {len(names)} cells, found {len(cells)}", line=line)
        records.append(Record(len(records) + 1, line, dict(zip(names, cells))))
    return records


def _record(path: Path, number: int, line: int | None, item: object) -> Record:
    if not isinstance(item, dict):
        raise InputError.single(path, f"a record must be an object, found {type(item).__name__}", line=line,
                                field=f"record {number}")
    return Record(number, line, item)
