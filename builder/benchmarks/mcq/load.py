"""A spec plus its data file -> a validated SpecData (the spec, its file and its items; named
apart from the plug-in contract's Benchmark): per item an id, split, category, stem, choices
and the gold's index. Every bad record is reported (file, line or record, rule)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from builder.benchmarks.mcq import fields
from builder.benchmarks.mcq.answers import VALUE as _VALUE, gold_set
from builder.benchmarks.mcq.spec_extras import keeps
from builder.benchmarks.mcq.text_options import KIND
from builder.benchmarks.mcq.records import DataFile, Record, read_records
from builder.benchmarks.mcq.spec import Spec, load_spec
from builder.core.errors import InputError, Problem
from builder.core.redact import excerpt
from builder.core.yamlfile import line_of, load_mapping
from builder.site.render_budget import BudgetSpent
from builder.core.names import did_you_mean


# The most records a spec may have: `make bench` measures 1,000,000 items audited within 10
# minutes and 4 GB on 2 cores (docs/audit.md); past it the work and memory were never measured,
# so a larger file is refused before any record is rendered or audited.
R = TypeVar("R")
MAX_RECORDS = 1_000_000
COUNT_EVERY = 1024  # records between two updates of a progress bar (an update per record costs seconds at 1,000,000)


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
    strata: tuple[str, ...] = ()  # the spec's `strata` values, in its order (the leak split's adjusted gap)
    group: str | None = None  # the spec's `group` value: items sharing it stay in one fold
    shuffle_by: str | None = None  # the spec's `shuffle_key` value (None: the id)
    golds: tuple[int, ...] = ()  # every correct option when there are several (then `gold` is the first); () : one
    option_letters: tuple[str, ...] = ()  # options_from_text: the letters as written before the options

    @property
    def answers(self) -> frozenset[int]:
        """The set of correct options: an answer is right when it names all of them and no other."""
        return frozenset(self.golds or (self.gold,))

    @property
    def multiple_answers(self) -> bool:
        return len(self.golds) > 1

    @property
    def stratum(self) -> str:
        """The item's stratum for the leak split: its `strata` values joined, else its category."""
        return " / ".join(self.strata) if self.strata else str(self.category)

    @property
    def shuffle_key(self) -> str:
        """What the option shuffle is seeded with after the seed (shuffle.order): the spec's key, else the id."""
        return self.id if self.shuffle_by is None else self.shuffle_by


@dataclass(frozen=True)
class Skipped:
    """A record the spec's `filter` skipped: where it is (the audit counts and lists them)."""

    id: str
    number: int
    line: int | None


@dataclass(frozen=True)
class SpecData:
    spec: Spec
    data: DataFile  # the files' facts (path, sha256); its records are dropped once they are items
    items: tuple[Item, ...]
    content_sha256: str  # of the parsed items: a re-encoded copy of the same data matches
    filtered: tuple[Skipped, ...] = ()  # the records the spec's `filter` skipped, in file order


def load_benchmark(spec_path: str | Path, *, root: Path | None = None, given: Path | None = None,
                   progress: Callable[[int], Any] | None = None) -> SpecData:
    """The spec at `spec_path` with its items; `given` is the data copy named on the command line
    (`--data`), which wins over the spec's variable. `progress(total)`, when given, returns a
    bar (builder.probing.progress) the records are counted on, for a command at a terminal."""
    spec = load_spec(spec_path, root=root, given=given)
    data = read_records(spec)
    bar = progress(len(data.records)) if progress is not None else None
    if len(data.records) > MAX_RECORDS:
        raise InputError.single(spec.path, f"the data holds {len(data.records):,} records; buzzprobe audits at most "
                                f"{MAX_RECORDS:,} (docs/audit.md): split the benchmark, or audit a sample of it",
                                line=line_of(load_mapping(spec.path)[1], ("dataset_path",)), field="dataset_path")
    problems: list[Problem] = []
    items, filtered = [], []
    failed: list[tuple[Record, _Located]] = []
    with fields.spec_budget(len(data.records), data_size(data)):
        for number, record in enumerate(data.records, 1):
            if bar is not None and (number % COUNT_EVERY == 0 or number == len(data.records)):
                bar.update(number - bar.n)
            try:
                if spec.filter is not None and not _kept(spec, record):
                    filtered.append(Skipped(_skipped_id(spec, record), record.number, record.line))
                    continue
                items.append(_item(spec, record))
            except _Located as exc:
                if isinstance(exc.__cause__, BudgetSpent):
                    raise _spent(spec, data, record, exc.key, exc.__cause__) from None
                failed.append((record, exc))
    if bar is not None:
        bar.close()
    problems += _spec_level(spec, data, failed) or [
        Problem(str(record.file or data.path), str(exc.__cause__), record.line, f"record {record.number}, {exc.key}")
        for record, exc in failed]
    seen: dict[str, Item] = {}
    for item in items:
        if item.id in seen:
            first = seen[item.id]
            problems.append(Problem(str(item.file or data.path),
                                    f"id {excerpt(item.id)} repeats record {first.number}'s", item.line,
                                    f"record {item.number}, id"))
        seen.setdefault(item.id, item)
    if not items and filtered and not problems:
        problems.append(Problem(str(spec.path), f"the filter skipped all {len(filtered):,} records", None, "filter"))
    if problems:
        raise InputError(problems)
    # The items are what is kept: the records (a dict and a context each) would be held twice
    # over, and a million of them cost gigabytes under the audit (docs/audit.md).
    return SpecData(spec, replace(data, records=()), tuple(items), _content_hash(items), tuple(filtered))


def _spec_level(spec: Spec, data: DataFile, failed: list[tuple[Record, "_Located"]]) -> list[Problem]:
    """One problem at the spec's line, not one per record, when every record fails one rule the
    same way (a field no record has, a template that fails on all): the fix is in the spec. A
    missing field gets the closest fields the records do have."""
    records = data.records
    if len(records) < 2 or len(failed) != len(records):
        return []
    first = failed[0][1]
    message = str(first.__cause__)
    if any(exc.key != first.key or str(exc.__cause__) != message for _, exc in failed):
        return []
    missing = message.removeprefix("field ").removesuffix(" is missing")
    if missing != message and missing[:1] in "'\"":
        known = sorted({str(k) for record in records[:100] for k in record.data})
        message += did_you_mean(missing[1:-1], known, "Fields of the records")
    _, lines = load_mapping(spec.path)
    return [Problem(str(spec.path), f"every one of the {len(records)} records fails it: {message}",
                    line_of(lines, (first.key,)), first.key)]


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


def _run(key: str, fn: Callable[..., R], *args: Any) -> R:
    """fn(*args), a record's problem raised as located under `key`."""
    try:
        return fn(*args)
    except (fields.RecordProblem, BudgetSpent) as exc:  # BudgetSpent: the spec's, named by the loader
        raise _Located(key) from exc


def _kept(spec: Spec, record: Record) -> bool:
    assert spec.filter is not None
    return keeps(_run("filter", spec.filter.raw, record.data, record.context))


def _skipped_id(spec: Spec, record: Record) -> str:
    """The skipped record's id when its id rule reads (a filtered record may lack fields), else its number."""
    try:
        return fields.text_value(spec.id.raw(record.data, record.context), "the id") if spec.id else str(record.number)
    except fields.RecordProblem:
        return str(record.number)


def _item(spec: Spec, record: Record) -> Item:
    doc, context = record.data, record.context
    stem, choices, keys, letters = _question(spec, record)
    golds = _run("doc_to_target", gold_set, spec.doc_to_target, doc, choices, keys, context, spec.target_kind)
    extra: dict[str, str | None] = {}
    for key, rule in (("id", spec.id), ("category", spec.category), ("split", spec.split_rule), ("group", spec.group),
                      ("shuffle_key", spec.shuffle_key)):
        extra[key] = None if rule is None else _run(key, lambda r=rule, k=key: fields.text_value(r.raw(doc, context),
                                                                                                f"the {k}"))
    strata = tuple(_run("strata", lambda r=rule, n=name: fields.text_value(r.raw(doc, context), f"stratum {n}"))
                   for name, rule in spec.strata)
    item_id = extra["id"] if extra["id"] is not None else str(record.number)
    return Item(id=item_id, number=record.number, line=record.line, split=extra["split"], category=extra["category"],
                stem=stem, choices=choices, gold=golds[0], file=record.file, strata=strata, group=extra["group"],
                shuffle_by=extra["shuffle_key"], golds=golds if len(golds) > 1 else (), option_letters=letters)


def _question(spec: Spec, record: Record) -> tuple[str, tuple[str, ...], tuple[str, ...] | None, tuple[str, ...]]:
    """The stem, the choices, their keys (letters a target may name) and, with options_from_text,
    the letters as written; an omitted doc_to_text/doc_to_choice takes options_from_text's split."""
    doc, context = record.data, record.context
    split = None
    if spec.options_from_text is not None:
        split = _run("options_from_text", spec.options_from_text.split, doc, context)
    if spec.doc_to_text.kind == KIND and split is not None:
        stem = split.stem
    else:
        stem = _run("doc_to_text", lambda: fields.text_value(spec.doc_to_text.raw(doc, context), "the text"))
    if spec.doc_to_choice.kind == KIND and split is not None:
        choices = _run("options_from_text", fields.labelled_choices, _VALUE, {"value": list(split.options)})[0]
        return stem, choices, split.letters, split.letters
    choices, keys = _run("doc_to_choice", fields.labelled_choices, spec.doc_to_choice, doc, context)
    return stem, choices, keys, split.letters if split is not None else ()


def _content_hash(items: list[Item]) -> str:
    rows = [[i.id, i.split, i.category, i.stem, list(i.choices), i.gold, *([list(i.golds)] if i.golds else [])]
            for i in items]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()
