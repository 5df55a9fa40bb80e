"""Reading a benchmark's data file (JSON, JSONL, CSV or TSV) into records that know where they are.

A record is a mapping of field names to values plus its position: 1-based record number and,
for JSONL and CSV, the line it starts on (JSON has no cheap line numbers: the record number
locates it). The file is the user's own download; nothing here writes or copies it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.spec import Spec
from builder.core.errors import InputError
from builder.core.archives import open_zip, read_member
from builder.core.textfiles import MAX_LINES, csv_records, decode_utf8, numbered_lines, read_input, too_many_lines
from builder.runs.lines import load_document


@dataclass(frozen=True)
class Record:
    number: int  # 1-based position among all the records (over every file, in order)
    line: int | None
    data: dict[str, Any]
    file: Path | None = None  # the data file it came from
    context: dict[str, Any] = field(default_factory=dict)  # file_name, file_stem, file_record, parent


@dataclass(frozen=True)
class DataFile:
    path: Path  # the first file (what messages name when there is one)
    sha256: str  # of the bytes read (several files: of their names and hashes, in order)
    records: tuple[Record, ...]
    paths: tuple[Path, ...] = ()


def read_records(spec: Spec) -> DataFile:
    """Every record of every data file, numbered in order over all of them."""
    files = spec.location.files()
    if not files:
        raise InputError.single(spec.location.patterns[0], f"no data file matches ({_where(spec)})")
    records: list[Record] = []
    digests = []
    for path in files:
        raw = _read(spec, path)
        digests.append((path.name, hashlib.sha256(raw).hexdigest()))
        member, raw = _unzipped(path, raw, lines=spec.dataset_format != "json")
        text = decode_utf8(path, raw)
        reader = {"json": _json, "jsonl": _jsonl, "csv": _csv, "tsv": _csv}[spec.dataset_format]
        found = reader(member, text, spec)
        if not found:
            raise InputError.single(path, "no records: the file holds no items")
        plain = path.name[:-4] if path.suffix.lower() == ".zip" else path.name
        context = {"file_name": path.name, "file_stem": Path(plain).stem, "file_folder": path.parent.name}
        base = len(records)
        records.extend(Record(base + i + 1, r.line, r.data, path, {**context, "file_record": i + 1, **r.context})
                       for i, r in enumerate(found))
    if spec.labels is not None:
        records, digest = _labelled(spec, records)
        digests.append(digest)
    return DataFile(files[0], data_sha256(digests), tuple(records), tuple(files))


def _labelled(spec: Spec, records: list[Record]) -> tuple[list[Record], tuple[str, str]]:
    """Each record with its line of the `labels` file as a field (the file's name and sha256 for
    the data's hash); as many non-blank lines as records, or a located error."""
    assert spec.labels is not None
    path, name = spec.labels.path, spec.labels.field
    raw = _read(spec, path)
    text = decode_utf8(path, raw)
    if text.count("\n") > MAX_LINES:
        raise too_many_lines(path)
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # `\n` only, blank lines kept: they align
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != len(records):
        raise InputError.single(path, f"the labels file has {len(lines):,} lines for {len(records):,} records: "
                                "one label per record, in order", line=min(len(lines), len(records)) + 1,
                                field="labels")
    for number, label in enumerate(lines, start=1):
        if name in records[number - 1].data:
            raise InputError.single(path, f"record {number} already has a field {name!r}; name the labels "
                                    "another field", line=number, field="labels")
    labelled = [replace(r, data={**r.data, name: label.strip()}) for r, label in zip(records, lines)]
    return labelled, (path.name, hashlib.sha256(raw).hexdigest())


def input_files(spec: Spec) -> list[Path]:
    """The files the items are read from, in the order their hashes enter the data's: the data
    files, then the labels file."""
    return [*spec.location.files(), *([spec.labels.path] if spec.labels is not None else [])]


def data_sha256(digests: list[tuple[str, str]]) -> str:
    """One file: its sha256; several: the sha256 of their (name, sha256) list, in order."""
    if len(digests) == 1:
        return digests[0][1]
    return hashlib.sha256(json.dumps(digests, separators=(",", ":")).encode()).hexdigest()


def _where(spec: Spec) -> str:
    if spec.dataset_override:
        return f"set by {spec.dataset_override}"
    return f"dataset_path in {spec.path}; {spec.env_var} can name another copy"


def _read(spec: Spec, path: Path) -> bytes:
    try:
        return read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read the data file ({_where(spec)}): {exc.strerror or exc}") from None


def _unzipped(path: Path, raw: bytes, *, lines: bool) -> tuple[Path, bytes]:
    """A `.zip` holds exactly one data file (MMLU-Pro's published outputs do): its bytes, inflated
    within the input caps (builder.core.archives: a zip bomb is refused, not expanded; with
    `lines`, a bomb of newlines too)."""
    if path.suffix.lower() != ".zip":
        return path, raw
    with open_zip(path, raw) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            raise InputError.single(path, f"a zipped data file must hold exactly one file, found {len(members)}")
        return path, read_member(f"{path}!{members[0].filename}", archive, members[0], lines=lines)


def _json(path: Path, text: str, spec: Spec) -> list[Record]:
    data = json_list(path, text, spec.records)
    return _nested([_record(path, i + 1, None, item) for i, item in enumerate(data)], path, spec)


def json_list(path: Path | str, text: str, key: str | None) -> list[Any]:
    """The list a JSON file holds (under `key` when it is an object), read by the one bounded
    JSON loader; a located error otherwise."""
    data = load_document(path, text)
    if key is not None:
        if not isinstance(data, dict) or key not in data:
            raise InputError.single(path, f"expected an object with the key {key!r} (the spec's records)")
        data = data[key]
    if not isinstance(data, list):
        hint = "" if key else "; if the list is inside an object, name its key with `records` in the spec"
        raise InputError.single(path, f"expected a list of records, found {type(data).__name__}{hint}")
    return data


def _jsonl(path: Path, text: str, spec: Spec) -> list[Record]:
    records: list[Record] = []
    for line, content in numbered_lines(path, text):
        records.append(_record(path, len(records) + 1, line, load_document(path, content, line)))
    return _nested(records, path, spec)


def _csv(path: Path, text: str, spec: Spec) -> list[Record]:
    header, rows = csv_records(path, text, header=spec.csv_columns is None, delimiter=spec.delimiter or ",")
    if spec.csv_columns is not None:  # no header row: the first row is a record
        rows, header = [(1, header), *rows], list(spec.csv_columns)
    names = [h.strip() for h in header]
    records: list[Record] = []
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


def _nested(documents: list[Record], path: Path, spec: Spec) -> list[Record]:
    """Each document's list under `nested` as records of their own, the document as `parent`
    (a passage with its questions): every element must be an object."""
    key = spec.nested
    if spec.nested_lists:
        return _parallel(documents, path, spec.nested_lists)
    if key is None:
        return documents
    records: list[Record] = []
    for doc in documents:
        items = doc.data.get(key)
        if not isinstance(items, list):
            raise InputError.single(path, f"expected a list under {key!r} (the spec's nested), found "
                                    f"{type(items).__name__}", line=doc.line, field=f"record {doc.number}")
        parent = {k: v for k, v in doc.data.items() if k != key}
        for j, item in enumerate(items):
            if not isinstance(item, dict):
                raise InputError.single(path, f"element {j + 1} under {key!r} must be an object, found "
                                        f"{type(item).__name__}", line=doc.line, field=f"record {doc.number}")
            records.append(Record(len(records) + 1, doc.line, item, context={"parent": parent}))
    return records


def _parallel(documents: list[Record], path: Path, keys: tuple[str, ...]) -> list[Record]:
    """`nested: [questions, answers]`: one record per position of the parallel lists, holding each
    list's element under its key, the rest of the document as `parent` (a passage with its
    questions and their answers side by side); the lists must be equally long."""
    records: list[Record] = []
    for doc in documents:
        lists = {key: doc.data.get(key) for key in keys}
        wrong = [key for key, value in lists.items() if not isinstance(value, list)]
        if wrong:
            raise InputError.single(path, f"expected a list under {wrong[0]!r} (the spec's nested), found "
                                    f"{type(lists[wrong[0]]).__name__}", line=doc.line, field=f"record {doc.number}")
        checked = {key: value for key, value in lists.items() if isinstance(value, list)}  # every one, now
        lengths = {key: len(value) for key, value in checked.items()}
        if len(set(lengths.values())) != 1:
            sizes = ", ".join(f"{key}: {n}" for key, n in lengths.items())
            raise InputError.single(path, f"the nested lists differ in length ({sizes}): one element per question "
                                    "in each", line=doc.line, field=f"record {doc.number}")
        parent = {k: v for k, v in doc.data.items() if k not in keys}
        for j in range(next(iter(lengths.values()))):
            records.append(Record(len(records) + 1, doc.line, {key: checked[key][j] for key in keys},
                                  context={"parent": parent}))
    return records
