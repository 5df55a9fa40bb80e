"""A results file -> one run of a spec'd benchmark (docs/import-results.md).

Checks, each problem located (file, line or element, field): every id is an item of the
benchmark, no id twice, every record well-formed. Elements that are not records and items the
audit leaves out are reported, not imported. Items the file lacks make the run partial (no
footer: "n of N"), and so do records that hold no answer at all (no response, no extracted
letter): they are unanswered items, counted in the header (`unanswered`) and left out of the
answers, never scored as an unparsed answer; a file with no answer at all is refused. Each
item is compared with the reference revision and keeps the file's own gold where they differ. Responses are kept as their sha256 and length, never as text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.probe import parse_letter
from builder.benchmarks.mcq.results import answers as A
from builder.benchmarks.mcq.results import upstream
from builder.benchmarks.mcq.results.revision import delta_sha256, item_revision
from builder.benchmarks.mcq.results.sources import Answer, Element, Source, records
from builder.benchmarks.mcq.run_format import TASK, ChoiceItem
from builder.core.errors import InputError, Problem
from builder.core.names import check_name, slug
from builder.runs.schema import Footer, Header, Run, new_header

PROMPT_SETTING = "5-shot chain of thought, upstream"
_LISTED = 10


@dataclass(frozen=True)
class Origin:
    """Where the file came from, as the header records it (all optional but the format)."""

    format: str
    repo: str | None = None
    commit: str | None = None
    file: str | None = None
    prompt_setting: str | None = None
    date: str | None = None  # the commit date of the file (YYYY-MM-DD): What's new dates the run by it


@dataclass(frozen=True)
class Imported:
    run: Run
    notes: tuple[str, ...]  # what was reported but not refused
    differing: tuple[str, ...]  # ids whose file version differs from the reference revision


def reader_for(fmt: str, data: ChoiceSet) -> Callable[[Element, Mapping[str, Any]], Answer]:
    if fmt == "mmlu-pro":
        return A.mmlu_pro
    if fmt == "eee":
        return A.eee
    if fmt == "lawbench":
        # deferred: a format's reader loads only for an import of that format
        from builder.benchmarks.mcq.results.lawbench import answer
        return answer
    if fmt == "chembench":
        # deferred: a format's reader loads only for an import of that format
        from builder.benchmarks.mcq.results.chembench_import import answer as chembench_answer
        return chembench_answer
    mapping = data.benchmark.spec.results
    if mapping is None:
        raise InputError.single(data.benchmark.spec.path, "--format mapped needs a `results` mapping in the spec "
                                "(docs/import-results.md)", field="results")
    return A.mapped(mapping)


def read_answers(source: Source, fmt: str, data: ChoiceSet) -> tuple[list[Answer], list[str]]:
    """Every record's answer, checked; the notes name the elements that are not records."""
    read = reader_for(fmt, data)
    problems: list[Problem] = []
    answers: list[Answer] = []
    skipped = [e for e in source.elements if not isinstance(e.value, dict)]
    for element, record in records(source):
        try:
            answers.append(read(element, record))
        except A.Bad as exc:
            problems.append(element.problem(str(exc), exc.field))
    problems += answer_problems(answers, data)
    if problems:
        raise InputError(problems)
    notes = [f"{len(skipped)} element(s) are not records and were skipped: " +
             ", ".join(f"{_where(e)} ({type(e.value).__name__} {str(e.value)[:20]!r})" for e in skipped[:_LISTED]) +
             (" ..." if len(skipped) > _LISTED else "")] if skipped else []
    notes += [f"{_where(a.element)}: {a.note}" for a in answers if a.note]
    return answers, notes


def answer_problems(answers: list[Answer], data: ChoiceSet) -> list[Problem]:
    """Every id an item of the benchmark, none twice, every gold index one of the options."""
    return _id_problems(answers, data) + _gold_problems(answers, data)


def _where(element: Element) -> str:
    return f"line {element.line}" if element.line is not None else f"element {element.number}"


def _id_problems(answers: list[Answer], data: ChoiceSet) -> list[Problem]:
    known = {item.id for item in data.benchmark.items}
    first: dict[str, Answer] = {}
    problems = []
    for answer in answers:
        if answer.id not in known:
            problems.append(answer.element.problem(f"id {answer.id!r} is not an item of {data.benchmark.spec.name}",
                                                   "id"))
        elif answer.id in first:
            problems.append(answer.element.problem(f"id {answer.id!r} again (first at {_where(first[answer.id].element)}):"
                                                   " a duplicate is refused", "id"))
        first.setdefault(answer.id, answer)
    return problems


def _gold_problems(answers: list[Answer], data: ChoiceSet) -> list[Problem]:
    """A gold given as an index with no options of its own must be one of the data's options."""
    choices = {item.id: len(item.choices) for item in data.benchmark.items}
    return [a.element.problem(f"index {a.gold} is not one of the {choices[a.id]} options", a.gold_field)
            for a in answers if a.gold is not None and a.options is None and a.gold >= choices.get(a.id, a.gold + 1)]


def strict_letters(answers: list[Answer], fmt: str, ks: list[int]) -> tuple[list[str], str]:
    """The strict letter per answer ("" when unparsed) and how it was read."""
    if fmt == "mmlu-pro":
        return [upstream.extract(a.response or "") or "" for a in answers], "upstream"
    if fmt in ("lawbench", "chembench"):  # read as the upstream reads them (lawbench.py, chembench.py)
        return [a.prediction or "" for a in answers], f"upstream-{fmt}"
    if all(a.prediction is not None for a in answers):
        return [a.prediction or "" for a in answers], "given"
    return [a.prediction if a.prediction is not None else parse_letter(a.response, k)
            for a, k in zip(answers, ks)], "buzzprobe-letter"


def answered(answers: list[Answer], fmt: str) -> tuple[list[Answer], list[Answer]]:
    """(records with an answer, records without one): no response and no letter (absent or
    blank, as a CSV's empty cell) is no answer. MMLU-Pro's scorer gives every record a letter
    (its seeded draw for an empty response, which moves every later draw), and LawBench's counts
    an empty prediction as an abstention in its accuracy (ChemBench's as wrong), so each is an answer."""
    if fmt in ("mmlu-pro", "lawbench", "chembench"):
        return answers, []
    none = [a for a in answers if not (a.response or "").strip() and not (a.prediction or "").strip()]
    given = [a for a in answers if (a.response or "").strip() or (a.prediction or "").strip()]
    if none and not given:
        raise InputError([none[0].element.problem(f"none of the {len(none)} record(s) holds an answer (no response "
                                                  "and no extracted letter): nothing to score")])
    return given, none


def convert(source: Source, data: ChoiceSet, model: str, origin: Origin, created: str,
            extra: dict[str, Any] | None = None) -> Imported:
    """`extra`: header source fields a format adds (ChemBench's `upstream_all`)."""
    answers, notes = read_answers(source, origin.format, data)
    return convert_answers(answers, notes, source, data, model, origin, created, extra)


def convert_answers(answers: list[Answer], notes: list[str], source: Source, data: ChoiceSet, model: str,
                    origin: Origin, created: str, extra: dict[str, Any] | None = None) -> Imported:
    """The run of answers already read and checked (read_answers, or a harness log's: mcq/interop/foreign.py)."""
    answers, unanswered = answered(answers, origin.format)
    if unanswered:
        notes.append(f"{len(unanswered)} record(s) hold no answer (no response and no extracted letter): counted as "
                     f"unanswered, not imported: {', '.join(_where(a.element) for a in unanswered[:_LISTED])}"
                     + (" ..." if len(unanswered) > _LISTED else ""))
    by_id = {item.id: item for item in data.items.values()}
    left_out = [a.id for a in answers if a.id not in by_id]
    if left_out:
        notes.append(f"{len(left_out)} item(s) the audit leaves out were not imported: {', '.join(left_out[:_LISTED])}"
                     + (" ..." if len(left_out) > _LISTED else ""))
    revisions = [item_revision(a, by_id[a.id]) if a.id in by_id else None for a in answers]
    ks = [rev["k"] if rev else len(by_id[a.id].choices) if a.id in by_id else 0 for a, rev in zip(answers, revisions)]
    strict, scoring = strict_letters(answers, origin.format, ks)
    official = upstream.official_letters([a.response or "" for a in answers]) if scoring == "upstream" else strict
    items = [_item(a, by_id[a.id], s, o, rev) for a, s, o, rev in zip(answers, strict, official, revisions)
             if a.id in by_id]
    items.sort(key=lambda i: i.row_id)
    differing = [(i.id, i.revision) for i in items if i.revision]
    header = _header(data, model, origin, source, created, scoring, differing, len(answers) + len(unanswered),
                     len(unanswered), extra or {})
    complete = len(items) == len(data.items)
    footer = Footer(len(items), created, {}) if complete else None
    run = Run(str(source.path), header, tuple(items), footer, {i.row_id: n + 2 for n, i in enumerate(items)})
    return Imported(run, tuple(notes), tuple(i for i, _ in differing))


def _item(answer: Answer, reference: Any, strict: str, official: str, revision: dict[str, Any] | None) -> ChoiceItem:
    k = revision["k"] if revision else len(reference.choices)
    text = answer.response
    return ChoiceItem(reference.number, reference.id, {LETTERS[j]: j for j in range(k)}, strict,
                      response_sha256=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
                      if text is not None else None,
                      response_chars=len(text) if text is not None else None,
                      official=official if official != strict else None, revision=revision)


def run_id(model: str, bench: str) -> str:
    return check_name(f"{slug(model)}-{bench}-pub", "run id")  # short: it is in every fact key of the run


def _header(data: ChoiceSet, model: str, origin: Origin, source: Source, created: str, scoring: str,
            differing: list[tuple[str, dict[str, Any]]], records: int, unanswered: int,
            extra: dict[str, Any]) -> Header:
    spec = data.benchmark.spec
    described = {"repo": origin.repo, "commit": origin.commit, "date": origin.date,
                 "file": origin.file or source.path.name, "member": source.member, "sha256": source.sha256}
    record = {"kind": "import", "format": origin.format, "option_order": "published",
              **{k: v for k, v in described.items() if v is not None},
              "records": records, "elements": len(source.elements), "scoring": scoring,
              "revision": {"items_differ": len(differing), "delta_sha256": delta_sha256(differing)},
              **({"unanswered": unanswered} if unanswered else {}), **extra}
    parameters = {"protocol": f"import-{origin.format}", "prompt_setting": origin.prompt_setting or "as published"}
    return new_header(run_id=run_id(model, spec.name), benchmark=spec.name, task=TASK, condition="sighted",
                      subject={"kind": "model", "name": model, "parameters": parameters}, option_seed=None,
                      items={"selection": "all", "n": len(data.items)},
                      dataset={"name": spec.title, "content_sha256": data.benchmark.content_sha256},
                      created=created, source=record)
