"""Reading a published results file into answers that know where they are.

Three formats: MMLU-Pro's `model_outputs_*.json` (zipped or not: one list of records),
Every Eval Ever's instance-level JSONL (`<uuid>_samples.jsonl`), and any JSON / JSONL / CSV
whose fields the spec's `results` mapping names. Each answer keeps its place (line or element)
so every later check can say where the problem is; elements that are not records are not
answers: they are returned as notes, located, and the import reports them.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.archives import open_zip, read_member
from builder.core.textfiles import csv_records, decode_utf8, numbered_lines, read_input
import hashlib
from builder.runs.lines import LineError, load_line

FORMATS = ("mmlu-pro", "eee", "mapped", "lawbench", "chembench")
MMLU_PRO_RESPONSE = ("model_outputs", "generated_text")  # the README names the first; most files use the second


@dataclass(frozen=True)
class Element:
    """One element of the file: a record (a mapping) or not, and where it is."""

    path: str  # the file, or `archive.zip!member.json`
    line: int | None  # JSONL / CSV
    number: int  # 1-based position among the file's elements
    value: Any

    def where(self) -> tuple[str, int | None, str]:
        """(path, line, field prefix) for a Problem."""
        return self.path, self.line, f"element {self.number}"

    def problem(self, message: str, field: str | None = None) -> Problem:
        path, line, prefix = self.where()
        return Problem(path, message, line, prefix + (f", {field}" if field else ""))


@dataclass(frozen=True)
class Answer:
    """What the file says about one item: its id, the model's answer (a raw response, a letter,
    or both) and, when the file carries them, the item's question, options and gold."""

    element: Element
    id: str
    response: str | None
    prediction: str | None
    question: str | None = None
    options: tuple[str, ...] | None = None
    gold: int | None = None  # 0-based index into `options` (or into the reference's)
    note: str | None = None  # something odd about the record that is reported, not refused
    gold_field: str | None = None  # the field the gold was read from, for a problem about it


@dataclass(frozen=True)
class Source:
    path: Path
    sha256: str  # of the file's bytes as given (the zip, not its member)
    member: str | None  # the zip member read
    elements: tuple[Element, ...]


def read_source(path: Path, fmt: str, records_key: str | None = None) -> Source:
    """The file's elements: JSON lists (a zip's single .json member too), JSONL lines, CSV rows."""
    try:
        raw = read_input(path)  # a FIFO, /dev/zero or a file over the cap is refused, not read
    except OSError as exc:
        raise InputError.single(path, f"cannot read the results file: {exc.strerror or exc}") from None
    digest = hashlib.sha256(raw).hexdigest()
    member, shown = None, str(path)
    if zipfile.is_zipfile(io.BytesIO(raw)):
        member, raw = _zip_member(path, raw)
        shown = f"{path}!{member}"
    name = (member or path.name).lower()
    text = decode_utf8(Path(shown), raw)
    if name.endswith((".jsonl", ".ndjson")) or fmt == "eee":
        elements = _jsonl(shown, text)
    elif name.endswith(".csv"):
        elements = _csv(shown, text)
    else:
        elements = _json(shown, text, records_key)
    if not elements:
        raise InputError.single(shown, "no records: the file holds no answers")
    return Source(path, digest, member, tuple(elements))


def _zip_member(path: Path, raw: bytes) -> tuple[str, bytes]:
    """The archive's one data file, inflated within the input caps (a damaged, encrypted or
    oddly compressed member is a located error: builder.core.archives)."""
    with open_zip(path, raw) as archive:
        infos = [i for i in archive.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
        data = [i for i in infos if i.filename.lower().endswith((".json", ".jsonl", ".ndjson", ".csv"))]
        if len(data) != 1:
            raise InputError.single(path, f"expected one .json, .jsonl or .csv file in the archive, found "
                                    f"{len(data)} ({', '.join(i.filename[:80] for i in infos[:5]) or 'none'})")
        lines = not data[0].filename.lower().endswith(".json")  # JSON Lines or CSV: lines counted as it inflates
        return data[0].filename, read_member(f"{path}!{data[0].filename}", archive, data[0], lines=lines)


def _json(shown: str, text: str, key: str | None) -> list[Element]:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mcq.records import json_list
    return [Element(shown, None, n, value) for n, value in enumerate(json_list(shown, text, key), start=1)]


def _jsonl(shown: str, text: str) -> list[Element]:
    out: list[Element] = []
    for line, content in numbered_lines(shown, text):
        try:
            value = load_line(content)
        except LineError as exc:
            raise InputError.single(shown, str(exc), line=line) from None
        out.append(Element(shown, line, len(out) + 1, value))
    return out


def _csv(shown: str, text: str) -> list[Element]:
    header, rows = csv_records(Path(shown), text)
    names = [h.strip() for h in header]
    out: list[Element] = []
    for line, cells in rows:
        if len(cells) != len(names):
            raise InputError.single(shown, f"expected {len(names)} cells, found {len(cells)}", line=line)
        out.append(Element(shown, line, len(out) + 1, dict(zip(names, cells))))
    return out


def records(source: Source) -> Iterator[tuple[Element, Mapping[str, Any]]]:
    """The elements that are records (objects); the others are the caller's to report."""
    for element in source.elements:
        if isinstance(element.value, dict):
            yield element, element.value
