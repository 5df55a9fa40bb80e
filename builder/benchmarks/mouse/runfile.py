"""Mouse run files (`buzzprobe.mouse-run/1`): one JSONL file per model and task.

Separate from the CIBuzzBench run schema (builder/runs) on purpose: Mouse answers are
digits, letters, component triples and judged translations, and Mouse items are
addressed by row position, not row_id. Like CIBuzzBench runs, items never copy dataset
text or gold, so runs can be kept while the gated data is not; the raw answers (model
output) are kept verbatim so a different parser can be applied later. Format: docs/mouse.md.
"""

from __future__ import annotations

import os
import tempfile
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder import __version__
from builder.core.errors import Problem
from builder.core.fileio import atomic_file
from builder.benchmarks.mouse import metrics as m
from builder.benchmarks.mouse.dataset import MouseSet
from builder.benchmarks.mouse.importer import ChoiceResults, MainResults, TaskResult, TranslationResult
from builder.benchmarks.mouse.labels import CC, IR, IR_LABELS, JUDGE_LABELS, MS, MS_LABELS, RC, RC_COMPONENTS, TASKS, TD, TR
from builder.benchmarks.mouse.table import decode, raise_problems
from builder.core.names import name_problem, slug
from builder.runs.lines import LineError, load_line
from builder.runs.schema import MOUSE_SCHEMA, SCHEMA as CIBUZZBENCH_SCHEMA
from builder.runs.writer import dump_line

SCHEMA = MOUSE_SCHEMA
BENCHMARK = "mouse"
_DIGITS = {IR: IR_LABELS, TD: (0, 1), RC: (0, 1)}


@dataclass(frozen=True)
class MouseRunHeader:
    run_id: str
    task: str  # tr, rc, ir, td, ms, cc
    subject: dict[str, Any]  # {"kind": "model", "name": ..., "parameters": {...}}
    dataset: dict[str, Any]  # {"file": ..., "content_sha256": ...} of the instances scored
    source: dict[str, Any]  # {"file": ..., "sha256": ...} of the imported output file
    n: int
    created: str
    tool: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": "header", "schema": SCHEMA, "run_id": self.run_id, "benchmark": BENCHMARK,
                "task": self.task, "subject": self.subject, "dataset": self.dataset, "source": self.source,
                "items": {"n": self.n}, "created": self.created, "tool": self.tool}


@dataclass(frozen=True)
class MouseRunItem:
    """`raw`/`parsed` are a value (None = empty / unparsed), or per-component dicts for RC.
    For TR, `raw` is the translation, `parsed` the final 0/1/2 score, and the judge fields
    say how it was reached."""

    index: int
    raw: Any
    parsed: Any
    judge_raw: str | None = None
    judge: int | None = None
    copied: bool | None = None

    def to_json(self, task: str) -> dict[str, Any]:
        record: dict[str, Any] = {"type": "item", "index": self.index, "raw": self.raw, "parsed": self.parsed}
        if task == TR:
            record.update(judge_raw=self.judge_raw, judge=self.judge, copied=self.copied)
        return record


@dataclass(frozen=True)
class MouseRun:
    path: str | None
    header: MouseRunHeader
    items: tuple[MouseRunItem, ...]

    @property
    def unparsed(self) -> int:
        if self.header.task == TR:
            return sum(1 for i in self.items if i.judge is None)
        if self.header.task == RC:
            return sum(1 for i in self.items for v in i.parsed.values() if v is None)
        return sum(1 for i in self.items if i.parsed is None)


# ---------------------------------------------------------------- building runs

def make_runs(subject: dict[str, Any], created: str, *, main: MainResults | None = None,
              judge: TranslationResult | None = None, ms: ChoiceResults | None = None,
              cc: ChoiceResults | None = None, dataset_content: str | None = None) -> list[MouseRun]:
    """One run per task present, with run ids `mouse-<model>-<task>`. `dataset_content`
    is the main dataset's content_sha256 for the TR run (a judge file lacks the gold)."""
    base = f"mouse-{slug(subject['name'])}"
    tool = {"name": "buzzprobe", "version": __version__}

    def header(task: str, n: int, data: dict[str, Any], path: Path, sha: str) -> MouseRunHeader:
        return MouseRunHeader(f"{base}-{task}", task, subject, data, {"file": path.name, "sha256": sha},
                              n, created, tool)

    runs = []
    if main is not None:
        data = {"file": "main_eval", "content_sha256": main.instances.content_sha256}
        for result in (main.td, main.ir):
            runs.append(MouseRun(None, header(result.task, len(result.answers), data, main.path, main.sha256),
                                 _plain_items(result)))
        runs.append(MouseRun(None, header(RC, len(main.instances), data, main.path, main.sha256), _rc_items(main)))
    if judge is not None:
        data = {"file": "main_eval", "content_sha256": dataset_content}
        runs.append(MouseRun(None, header(TR, len(judge.items), data, judge.path, judge.sha256), _tr_items(judge)))
    for choice, name in ((ms, "single_choice"), (cc, "icc")):
        if choice is not None:
            data = {"file": name, "content_sha256": choice.instances.content_sha256}
            runs.append(MouseRun(None, header(choice.result.task, len(choice.result.answers), data,
                                              choice.path, choice.sha256), _plain_items(choice.result)))
    return runs


def _plain_items(result: TaskResult) -> tuple[MouseRunItem, ...]:
    return tuple(MouseRunItem(a.index, a.raw, a.parsed) for a in result.answers)


def _rc_items(main: MainResults) -> tuple[MouseRunItem, ...]:
    per = {c: main.rc[c].answers for c in RC_COMPONENTS}
    return tuple(MouseRunItem(i.index, {c: per[c][k].raw for c in RC_COMPONENTS},
                              {c: per[c][k].parsed for c in RC_COMPONENTS})
                 for k, i in enumerate(main.instances))


def _tr_items(judge: TranslationResult) -> tuple[MouseRunItem, ...]:
    return tuple(MouseRunItem(i.index, i.translation, i.score, i.judge_raw, i.judge, i.copied) for i in judge.items)


# ---------------------------------------------------------------- writing

def write_mouse_run(path: str | Path, run: MouseRun) -> None:
    """Write the whole run atomically (temporary file, then rename), with a footer."""
    with atomic_file(path, text=True) as handle:
        handle.write(dump_line(run.header.to_json()))
        for item in run.items:
            handle.write(dump_line(item.to_json(run.header.task)))
        handle.write(dump_line({"type": "footer", "items": len(run.items), "unparsed": run.unparsed}))


# ---------------------------------------------------------------- reading

_HEADER = {"type": str, "schema": str, "run_id": str, "benchmark": str, "task": str, "subject": dict,
           "dataset": dict, "source": dict, "items": dict, "created": str, "tool": dict}
_ITEM = {"type", "index", "raw", "parsed", "judge_raw", "judge", "copied"}


def read_mouse_run(path: str | Path) -> MouseRun:
    """Strict reader: every problem is reported with file, line and field."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise_problems([Problem(str(path), f"cannot read run: {exc.strerror or exc}")])
    lines = [(n, t) for n, t in enumerate(decode(path, raw).split("\n"), start=1) if t.strip()]
    reader = _Reader(str(path))
    records = [(n, reader.json(n, t)) for n, t in lines]
    if not records:
        reader.add("empty run file", 1)
        raise_problems(reader.problems)
    header = reader.header(*records[0])
    items, footer_seen = [], False
    for n, record in records[1:]:
        if footer_seen:
            reader.add("line after the footer", n)
        elif record is not None and record.get("type") == "footer":
            footer_seen = True
            reader.footer(n, record, len(items))
        elif header is not None and record is not None:
            item = reader.item(n, record, header.task)
            if item is not None:
                items.append(item)
    reader.check_items(header, items, records)
    raise_problems(reader.problems)
    assert header is not None
    return MouseRun(str(path), header, tuple(items))


class _Reader:
    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []
        self.seen: dict[int, int] = {}

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None:
        self.problems.append(Problem(self.path, message, line, field))

    def json(self, line: int, text: str) -> dict[str, Any] | None:
        try:
            value = load_line(text)
        except LineError as exc:
            self.add(str(exc), line)
            return None
        if not isinstance(value, dict):
            self.add("expected a JSON object", line)
            return None
        return value

    def header(self, line: int, record: dict[str, Any] | None) -> MouseRunHeader | None:
        if record is None:
            return None
        before = len(self.problems)
        if record.get("schema") == CIBUZZBENCH_SCHEMA:
            self.add(f"this is a CIBuzzBench run ({CIBUZZBENCH_SCHEMA}), not a Mouse run: it belongs in runs/ "
                     "and is read by `buzzprobe build`", line, "schema")
            return None
        if isinstance(record.get("run_id"), str) and (problem := name_problem(record["run_id"])):
            self.add(problem, line, "run_id")
        for key, kind in _HEADER.items():
            if not isinstance(record.get(key), kind):
                self.add(f"missing or not a {kind.__name__}", line, key)
        for key in sorted(set(record) - set(_HEADER)):
            self.add("unknown header field", line, key)
        expect = {"type": "header", "schema": SCHEMA, "benchmark": BENCHMARK}
        for key, value in expect.items():
            if isinstance(record.get(key), str) and record[key] != value:
                self.add(f"must be {value!r}, got {record[key]!r}", line, key)
        if isinstance(record.get("task"), str) and record["task"] not in TASKS:
            self.add(f"must be one of {', '.join(TASKS)}", line, "task")
        n = record.get("items", {}).get("n") if isinstance(record.get("items"), dict) else None
        if type(n) is not int or n < 0:
            self.add("items.n must be a non-negative integer", line, "items")
        if len(self.problems) > before:
            return None
        return MouseRunHeader(record["run_id"], record["task"], record["subject"], record["dataset"],
                              record["source"], n, record["created"], record["tool"])

    def item(self, line: int, record: dict[str, Any], task: str) -> MouseRunItem | None:
        before = len(self.problems)
        if record.get("type") != "item":
            self.add(f"expected an item line, got type {record.get('type')!r}", line, "type")
            return None
        for key in sorted(set(record) - _ITEM):
            self.add("unknown item field", line, key)
        index = record.get("index")
        if type(index) is not int or index < 0:
            self.add("must be a non-negative integer", line, "index")
        elif index in self.seen:
            self.add(f"duplicate index (first on line {self.seen[index]})", line, "index")
        else:
            self.seen[index] = line
        self._values(line, record, task)
        if len(self.problems) > before:
            return None
        return MouseRunItem(index, record.get("raw"), record.get("parsed"), record.get("judge_raw"),
                            record.get("judge"), record.get("copied"))

    def _values(self, line: int, record: dict[str, Any], task: str) -> None:
        raw, parsed = record.get("raw"), record.get("parsed")
        if task == RC:
            for part, what in ((raw, "raw"), (parsed, "parsed")):
                if not isinstance(part, dict) or sorted(part) != sorted(RC_COMPONENTS):
                    self.add(f"must be an object with keys {', '.join(RC_COMPONENTS)}", line, what)
                    return
            for c in RC_COMPONENTS:
                self._one(line, f"raw.{c}", raw[c], None)
                self._one(line, f"parsed.{c}", parsed[c], _DIGITS[RC], nullable=True)
            return
        self._one(line, "raw", raw, None)
        if task == TR:
            self._one(line, "parsed", parsed, JUDGE_LABELS, nullable=False)
            self._one(line, "judge_raw", record.get("judge_raw"), None)
            self._one(line, "judge", record.get("judge"), JUDGE_LABELS, nullable=True)
            if not isinstance(record.get("copied"), bool):
                self.add("must be true or false", line, "copied")
        else:
            allowed = MS_LABELS if task == MS else _DIGITS.get(task)
            self._one(line, "parsed", parsed, allowed, nullable=True, letters=task == CC)

    def _one(self, line: int, field: str, value: Any, allowed: Iterable | None, nullable: bool = True,
             letters: bool = False) -> None:
        """raw fields: string or null; parsed fields: a task label (or null when allowed)."""
        if value is None:
            if not nullable:
                self.add("must not be null", line, field)
        elif allowed is None and not letters:
            if not isinstance(value, str):
                self.add("must be a string or null", line, field)
        elif letters:
            if not (isinstance(value, str) and len(value) == 1 and "A" <= value <= "Z"):
                self.add("must be one upper-case letter or null", line, field)
        elif type(value) is bool or value not in tuple(allowed):  # type: ignore[arg-type]
            self.add(f"must be one of {', '.join(map(str, allowed))}" + (" or null" if nullable else ""), line, field)

    def footer(self, line: int, record: dict[str, Any], count: int) -> None:
        for key in sorted(set(record) - {"type", "items", "unparsed"}):
            self.add("unknown footer field", line, key)
        if record.get("items") != count:
            self.add(f"footer says {record.get('items')!r} items but the run has {count}", line, "items")

    def check_items(self, header: MouseRunHeader | None, items: list[MouseRunItem], records: list) -> None:
        if header is not None and len(items) > header.n:
            self.add(f"{len(items)} items but the header declares n={header.n}", records[0][0], "items")


# ---------------------------------------------------------------- scoring a stored run

def score_run(run: MouseRun, dataset: MouseSet | None = None,
              boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.ClassScores | m.RCScores | m.TranslationScores:
    """Score a run read back from disk. TR needs no dataset (the final scores are in the
    run); other tasks take gold from `dataset`, which must be the one the run was made on."""
    task = run.header.task
    if task == TR:
        items = run.items
        return m.tr_from_scores([i.parsed for i in items], sum(1 for i in items if i.raw is None),
                                sum(1 for i in items if i.copied), sum(1 for i in items if i.judge is None), boot)
    if dataset is None:
        raise ValueError(f"scoring a {task} run needs its dataset")
    gold = _gold_by_index(run, dataset)
    if task == RC:
        return m.score_rc({c: [gold[i.index].component(c) for i in run.items] for c in RC_COMPONENTS},
                          {c: [i.parsed[c] for i in run.items] for c in RC_COMPONENTS}, boot)
    pick = {TD: lambda x: x.toxicity, IR: lambda x: x.intention, MS: lambda x: x.answer, CC: lambda x: x.answer}[task]
    labels = {TD: (0, 1), IR: IR_LABELS, MS: MS_LABELS}.get(task) or \
        tuple(sorted({letter for inst in dataset for letter in inst.letters}))
    return m.score_classification([pick(gold[i.index]) for i in run.items], [i.parsed for i in run.items], labels, boot)


def _gold_by_index(run: MouseRun, dataset: MouseSet) -> dict[int, Any]:
    wanted = run.header.dataset.get("content_sha256")
    where = run.path or run.header.run_id
    if wanted != dataset.content_sha256:
        raise_problems([Problem(where, f"run was made on dataset content {wanted!r}, not on {dataset.path} "
                                f"({dataset.content_sha256})", 1, "dataset")])
    by_index = {inst.index: inst for inst in dataset}
    missing = [i.index for i in run.items if i.index not in by_index]
    if missing:
        raise_problems([Problem(where, f"index {missing[0]} is not in {dataset.path} ({len(missing)} such items)",
                                None, "index")])
    return by_index
