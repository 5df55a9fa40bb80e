"""`buzzprobe import results --format chembench`: a ChemBench system's reports (or the chemists'
answers, `--model humans`) as a results Source of the spec'd benchmark (content/benchmarks/chembench.yaml).

A report names its question `<folder>-<stem>-<name>`; the spec's id is `<folder>-<stem>`, found
as the one prefix of the report's key that is an id. Reports of questions the spec's filter
skips (the numeric ones) are left out and counted. The letters a report gives are mapped to the
data's options by text (chembench.letter_map) and written as the letter of that option in the
data's order: an answer naming one option is that letter, one naming several is "" (wrong on a
single-gold item, as an exact set is). The chemists: every chemist's answer to a question,
with and without tools, pooled; the run's answer is the most frequent data letter among them (a
tie: "", counted wrong) — a run of their own on the questions they answered (partial).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.results import chembench as C
from builder.core.errors import InputError, Problem
import hashlib
from builder.benchmarks.mcq.results.sources import Element, Source
from builder.core.textfiles import read_input
from builder.benchmarks.mcq.results.sources import Answer

HUMANS = "humans"


def spec_ids(key: str, known: set[str]) -> list[str]:
    """The ids among `known` that `key` starts with, followed by a `-`."""
    return [key[:i] for i, c in enumerate(key) if c == "-" and key[:i] in known]


def _question(item: Any) -> C.Question:
    return C.Question(item.id, "", tuple(item.choices), frozenset(item.answers))


def data_letter(item: Any, report: C.Report) -> str:
    """The data-order letter of the one option the report names, else ""."""
    chosen = C.chosen(_question(item), report)
    return LETTERS[next(iter(chosen))] if chosen and len(chosen) == 1 else ""


def results_source(path: Path, model: str, benchmark: Any) -> tuple[Any, list[str], dict[str, Any] | None]:
    """The Source (one element per question answered), notes on what was left out, and for a
    system (not the chemists) `upstream_all`: its verdicts over every question it answered, the
    left-out ones too, as the upstream scores them (the paper's overall accuracy)."""
    items = {item.id: item for item in benchmark.items}
    skipped = {s.id for s in benchmark.filtered}
    reports = _human_reports(path) if model == HUMANS else list(C.read_reports(path, model)[0].values())
    by_id: dict[str, list[C.Report]] = {}
    problems, numeric = [], 0
    for report in reports:
        found = spec_ids(report.key, set(items) | skipped)
        if len(found) != 1:
            problems.append(Problem(report.where, f"question {report.key!r} is " + (
                "no item of the spec" if not found else f"ambiguous ({', '.join(found)})"), None, "name"))
        elif found[0] in skipped:
            numeric += 1
        else:
            by_id.setdefault(found[0], []).append(report)
    if problems:
        raise InputError(problems)
    elements = tuple(Element(group[0].where, None, n, _record(items[key], group, model == HUMANS))
                     for n, (key, group) in enumerate(sorted(by_id.items()), start=1))
    digest = hashlib.sha256(read_input(path)).hexdigest() if path.is_file() else hashlib.sha256(
        "\n".join(sorted(r.where for r in reports)).encode()).hexdigest()
    notes = [f"{numeric} report(s) of questions the spec's filter skips (numeric answers) were not imported"] \
        if numeric else []
    every = None if model == HUMANS else upstream_all(reports, items, set(items) | skipped)
    return Source(path, digest, None, elements), notes, every


def upstream_all(reports: list[C.Report], items: Mapping[str, Any], known: set[str]) -> dict[str, Any]:
    """Correct answers over every report: multiple choice as an exact set of the spec's golds,
    numeric by the report's own verdict (`all_correct`), as the upstream counts them."""
    correct = 0
    for report in reports:
        key = spec_ids(report.key, known)[0]
        if key in items:
            correct += int(C.chosen(_question(items[key]), report) == frozenset(items[key].answers))
        else:
            correct += int(report.all_correct or 0)
    return {"upstream_all": {"questions": len(reports), "correct": correct,
                             "rule": "multiple choice: the exact set of golds; numeric: the report's all_correct"}}


def _human_reports(path: Path) -> list[C.Report]:
    return [a.report for a in C.read_human_reports(path)[0]]


def _record(item: Any, group: list[C.Report], pooled: bool) -> dict[str, Any]:
    letters = [data_letter(item, r) for r in group]
    if not pooled:
        return {"id": item.id, "prediction": letters[0], "response": group[0].completion}
    ranked = Counter(letters).most_common()
    tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
    return {"id": item.id, "prediction": "" if tie else ranked[0][0], "response": None, "answers": len(group)}


def answer(element: Any, record: Mapping[str, Any]) -> Any:
    return Answer(element, record["id"], record.get("response"), record["prediction"], None, None, None)
