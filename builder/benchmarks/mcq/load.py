"""A spec plus its data file -> a validated SpecData (the spec, its file and its items; named
apart from the plug-in contract's Benchmark): per item an id, split, category, stem, choices
and the gold's index. Every bad record is reported (file, line or record, rule)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from builder.benchmarks.mcq import fields
from builder.benchmarks.mcq.records import DataFile, Record, read_records
from builder.benchmarks.mcq.spec import Spec, load_spec
from builder.core.errors import InputError, Problem
from builder.core.yamlfile import line_of, load_mapping
from builder.site.render_budget import BudgetSpent


# The most records a spec may have: `make bench` measures 1,000,000 items audited within 10
# minutes and 4 GB on 2 cores (docs/audit.md); past it the work and memory were never measured,
# so a larger file is refused before any record is rendered or audited.
MAX_RECORDS = 1_000_000


@dataclass(frozen=True)
class Item:
    id: str
    number: int  # 1-based record number in the data file
    line: int | None  # where the record starts (JSONL, CSV)
    split: str | None
    category: str | None
    stem: str
    choices: tuple[str, ...]  # in the published order
    gold: int  # 0-based index into `choices`
    file: Path | None = field(default=None, compare=False)  # the data file it came from


@dataclass(frozen=True)
class SpecData:
    spec: Spec
    data: DataFile  # the files' facts (path, sha256); its records are dropped once they are items
    items: tuple[Item, ...]
    content_sha256: str  # of the parsed items: a re-encoded copy of the same data matches


def load_benchmark(spec_path: str | Path, *, root: Path | None = None) -> SpecData:
    spec = load_spec(spec_path, root=root)
    data = read_records(spec)
    if len(data.records) > MAX_RECORDS:
        raise InputError.single(spec.path, f"the data holds {len(data.records):,} records; buzzprobe audits at most "
                                f"{MAX_RECORDS:,} (docs/audit.md): split the benchmark, or audit a sample of it",
                                line=line_of(load_mapping(spec.path)[1], ("dataset_path",)), field="dataset_path")
    problems: list[Problem] = []
    items = []
    with fields.spec_budget(len(data.records), data_size(data)):
        for record in data.records:
            try:
                items.append(_item(spec, record))
            except _Located as exc:
                if isinstance(exc.__cause__, BudgetSpent):
                    raise _spent(spec, data, record, exc.key, exc.__cause__) from None
                problems.append(Problem(str(record.file or data.path), str(exc.__cause__), record.line,
                                        f"record {record.number}, {exc.key}"))
    seen: dict[str, Item] = {}
    for item in items:
        if item.id in seen:
            first = seen[item.id]
            problems.append(Problem(str(item.file or data.path), f"id {item.id!r} repeats record {first.number}'s", item.line,
                                    f"record {item.number}, id"))
        seen.setdefault(item.id, item)
    if problems:
        raise InputError(problems)
    # The items are what is kept: the records (a dict and a context each) would be held twice
    # over, and a million of them cost gigabytes under the audit (docs/audit.md).
    return SpecData(spec, replace(data, records=()), tuple(items), _content_hash(items))


def data_size(data: DataFile) -> int:
    """Bytes of the data files as stored (a zip's compressed size)."""
    return sum(p.stat().st_size for p in data.paths or (data.path,))


def _spent(spec: Spec, data: DataFile, record: Record, key: str, exc: BudgetSpent) -> InputError:
    """The spec's templates spent their one budget: located at the template (spec file, line,
    key), naming the record it ran out on; the rest are not tried (each would fail the same)."""
    where = f"{(record.file or data.path).name}" + (f":{record.line}" if record.line else "")
    return InputError.single(spec.path, f"{exc}; ran out at record {record.number} ({where}) of {len(data.records):,}",
                             line=line_of(load_mapping(spec.path)[1], (key,)), field=key)


class _Located(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _item(spec: Spec, record: Record) -> Item:
    def run(key: str, fn, *args):  # type: ignore[no-untyped-def]
        try:
            return fn(*args)
        except (fields.RecordProblem, BudgetSpent) as exc:
            raise _Located(key) from exc

    doc, context = record.data, record.context
    stem = run("doc_to_text", lambda: fields.text_value(spec.doc_to_text.raw(doc, context), "the text"))
    choices, keys = run("doc_to_choice", fields.labelled_choices, spec.doc_to_choice, doc, context)
    gold = run("doc_to_target", fields.target, spec.doc_to_target, doc, choices, keys, context)
    extra: dict[str, str | None] = {}
    for key, rule in (("id", spec.id), ("category", spec.category)):
        extra[key] = None if rule is None else run(key, lambda r=rule, k=key: fields.text_value(r.raw(doc, context),
                                                                                               f"the {k}"))
    extra["split"] = None if spec.split is None else run("split", _field, doc, spec.split, "split")
    return Item(id=extra["id"] if extra["id"] is not None else str(record.number), number=record.number,
                line=record.line, split=extra["split"], category=extra["category"], stem=stem,
                choices=choices, gold=gold, file=record.file)


def _field(doc: dict, name: str, key: str) -> str:
    if name not in doc:
        raise fields.RecordProblem(f"field {name!r} is missing")
    return fields.text_value(doc[name], f"the {key}")


def _content_hash(items: list[Item]) -> str:
    rows = [[i.id, i.split, i.category, i.stem, list(i.choices), i.gold] for i in items]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()
