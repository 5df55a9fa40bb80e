"""ChemBench's published per-question reports (lamalab-org/chembench-paper, `src/data/chem-bench-main/`),
read from a clone or from the zip archives as shipped, and scored as the upstream scores them.

Questions: `data/<topic>/[<folder>/]<stem>.json`, one each; the key a report names is
`<parent folder>-<stem>-<name>`; the topic (the leak split's stratum) is the folder under `data/`.
A multiple-choice question's options are the keys of `examples[0].target_scores` (data order), its
golds those scored 1 (one item, `pictograms_271`, also scores two options 0.5: not golds; the
reports' verdicts agree) — several on 394 items, so correctness is an exact set: the letters parsed
from the completion, mapped to options, must be the golds, no more, no fewer (the upstream's
`all_correct`, hamming distance 0). The prompt shows the options in the order the model saw (for
some items not the data's) with LaTeX and SMILES tags stripped, so letters map to options BY TEXT
(`option_key`); a letter whose text matches no option is left unmapped, and the item is wrong
unless the report's own score says otherwise (counted, and reported as a disagreement).
Numeric questions keep the report's own `all_correct`. The system's accuracy is the mean over
every question (the paper's "overall accuracy"). The humans' files are one per chemist and
setting (`<id>_h_tool.json`, `<id>_h_notool.json`): `model_scores` with per-question `all_correct`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from builder.core.errors import InputError
from builder.core.archives import open_zip, read_member
from builder.core.textfiles import read_input
from builder.core.textfiles import decode_utf8
from builder.runs.lines import load_document

ROOT = "src/data/chem-bench-main"
_TAG = re.compile(r"\[(START|END)_[A-Z_]+\]")
_POWER = re.compile(r"\s*\\(cdot|times)\s*10\s*\^")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_OPTION = re.compile(r"^([A-Z])\. (.*)$", re.M)


@dataclass(frozen=True)
class Question:
    key: str  # `<topic>-<stem>-<name>`, the id reports and runs use
    topic: str  # the data folder (the leak split's stratum)
    options: tuple[str, ...]  # data order; () for a numeric question
    golds: frozenset[int]


@dataclass(frozen=True)
class Report:
    key: str
    where: str
    letters: tuple[str, ...] | None  # parsed_output as letters; None when not a list of letters
    shown: tuple[tuple[str, str], ...]  # (letter, option text) as the prompt shows them
    all_correct: int | None  # the report's own per-question verdict (from the system's summary)
    targets: tuple[tuple[str, int], ...] = ()  # the report's own `targets_` (the revision it was scored on)
    completion: str | None = None  # the raw completion (runs keep its sha256 and length only)


def option_key(text: str) -> str:
    """An option's text without what the prompts strip or rewrite: SMILES tags, LaTeX commands,
    braces, `$`, `^`, `\\cdot 10^` written as `e`, spacing and case."""
    text = _POWER.sub("e", _TAG.sub("", text))
    return re.sub(r"[\s${}^\\]", "", _COMMAND.sub("", text)).lower()


# ------------------------------------------------------------------ reading (zip as shipped, or a clone)

def _members(path: Path, below: str) -> Iterator[tuple[str, bytes]]:
    """(shown path, bytes) of each .json under `below` (a ROOT-relative folder), from a zip or a clone."""
    if not path.exists():
        raise InputError.single(path, "no such file or folder (a zip as shipped, or a clone of the upstream)")
    if path.is_file():
        with open_zip(path, read_input(path)) as archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                if info.filename.endswith(".json") and f"{ROOT}/{below}/" in info.filename:
                    shown = f"{path}!{info.filename}"
                    yield shown, read_member(shown, archive, info)
        return
    base = next((b for b in (path / ROOT / below, path / below, path) if b.is_dir()), None)
    for file in sorted((base or path).rglob("*.json")):
        yield str(file), read_input(file)


def _load(shown: str, raw: bytes) -> Any:
    """One JSON file, by the project's bounded JSON reader (the summaries write NaN for "not scored")."""
    return load_document(shown, decode_utf8(Path(shown), raw))


def _verdicts(shown: str, document: Mapping[str, Any]) -> dict[str, int]:
    """A summary's per-question `all_correct` by `question_name`; a malformed row is a located error."""
    rows = document.get("model_scores")
    out: dict[str, int] = {}
    for n, row in enumerate(rows if isinstance(rows, list) else [], start=1):
        name, verdict = (row.get("question_name"), row.get("all_correct")) if isinstance(row, dict) else (None, None)
        if not isinstance(name, str) or verdict not in (0, 1, True, False):
            raise InputError.single(shown, "expected question_name (text) and all_correct (0 or 1)",
                                    field=f"model_scores[{n}]")
        out[name] = int(verdict)
    return out


def read_questions(path: Path) -> dict[str, Question]:
    """Every question of `data.zip` or a clone's data folder, by key."""
    out: dict[str, Question] = {}
    for shown, raw in _members(path, "data"):
        parts = PurePosixPath(shown.split("!")[-1]).parts
        document = _load(shown, raw)
        try:
            example = document["examples"][0]
            key = f"{parts[-2]}-{PurePosixPath(parts[-1]).stem}-{document['name']}"
        except (KeyError, IndexError, TypeError):
            raise InputError.single(shown, "expected a question: `name` and `examples[0]`") from None
        given = example.get("target_scores") if isinstance(example, dict) else None
        scores = given if isinstance(given, dict) else {}
        options = tuple(scores)
        golds = frozenset(i for i, o in enumerate(options) if scores[o] == 1)
        below = [i for i, part in enumerate(parts[:-2]) if part == "data"]
        topic = parts[below[-1] + 1] if below else parts[-2]
        out[key] = Question(key, topic, options, golds)
    if not out:
        raise InputError.single(path, f"no ChemBench questions ({ROOT}/data/<topic>/<name>.json)")
    return out


def read_reports(path: Path, system: str) -> tuple[dict[str, Report], float]:
    """A model's reports (its `reports/<system>.zip` or `reports/<system>/` folder): per-question
    reports by key, and the summary's `fraction_correct`."""
    verdicts: dict[str, int] = {}
    fraction = None
    reports: dict[str, Report] = {}
    for shown, raw in _members(path, f"reports/{system}"):
        inner = shown.split("!")[-1]
        document = _load(shown, raw)
        if PurePosixPath(inner).name == f"{system}.json" and isinstance(document, dict):
            fraction = document.get("fraction_correct")
            verdicts = _verdicts(shown, document)
        elif "/reports/" in inner.split(f"reports/{system}/", 1)[-1] or inner.count("/reports/") >= 2:
            record = document[0] if isinstance(document, list) and document else document
            if isinstance(record, dict) and isinstance(record.get("name"), str):
                reports[record["name"]] = _report(shown, record)
    if fraction is None:
        raise InputError.single(path, f"no summary {system}.json (fraction_correct, model_scores) for {system!r}")
    return {k: _with(r, verdicts.get(k)) for k, r in reports.items()}, float(fraction)


def _report(shown: str, record: Mapping[str, Any]) -> Report:
    parsed = record.get("parsed_output")
    letters = tuple(str(x).strip().upper() for x in parsed) if isinstance(parsed, list) else None
    prompt = found if isinstance(found := record.get("prompt"), str) else ""
    block = re.search(r"\nOptions:\n(.*?)(?:\n\n|$)", prompt, re.S)
    shown_options = tuple(_OPTION.findall(block.group(1))) if block else ()
    targets = record.get("targets_")
    pairs = tuple((str(k), int(v == 1)) for k, v in targets.items()) if isinstance(targets, dict) else ()
    output = found if isinstance(found := record.get("output"), dict) else {}
    text = output.get("text") if isinstance(output.get("text"), str) else None
    return Report(record["name"], shown, letters, shown_options, None, pairs, text)


def _with(report: Report, verdict: int | None) -> Report:
    return Report(report.key, report.where, report.letters, report.shown, verdict, report.targets, report.completion)


# ------------------------------------------------------------------ scoring

def letter_map(question: Question, report: Report) -> dict[str, int]:
    """Each prompt letter's data option, by text: the same key first; a letter left over takes
    the most similar option left over (the prompts rewrite some notation, `1.50E23`)."""
    keys = [option_key(o) for o in question.options]
    out: dict[str, int] = {}
    for letter, text in report.shown:
        found = [i for i, k in enumerate(keys) if k == option_key(text) and i not in out.values()]
        if found:
            out[letter] = found[0]
    for letter, text in report.shown:
        free = [i for i in range(len(keys)) if i not in out.values()]
        if letter not in out and free:
            out[letter] = max(free, key=lambda i: difflib.SequenceMatcher(None, keys[i], option_key(text)).ratio())
    return out


def chosen(question: Question, report: Report) -> frozenset[int] | None:
    """The data options the answer names; None when it names none or a letter not shown."""
    if not report.letters:
        return None
    mapping = letter_map(question, report)
    if any(letter not in mapping for letter in report.letters):
        return None
    return frozenset(mapping[letter] for letter in report.letters)


def as_scored(question: Question, report: Report) -> Question:
    """The question as the report was scored on it: its own `targets_` when it carries them (the
    chemists saw an earlier revision of some items), else the data's."""
    if not question.options or not report.targets:
        return question
    return Question(question.key, question.topic, tuple(t for t, _ in report.targets),
                    frozenset(i for i, (_, s) in enumerate(report.targets) if s))


def revised(question: Question, report: Report) -> bool:
    """Whether the report was scored on other options or golds than the data's."""
    scored = as_scored(question, report)
    return {option_key(question.options[i]) for i in question.golds} != \
        {option_key(scored.options[i]) for i in scored.golds} or \
        sorted(map(option_key, scored.options)) != sorted(map(option_key, question.options))


def correct(question: Question, report: Report) -> int:
    """1 when the answer is exactly the golds (multiple choice; the golds of the revision the
    report was scored on), else the report's own verdict (numeric)."""
    if not question.options:
        return int(report.all_correct or 0)
    scored = as_scored(question, report)
    return int(chosen(scored, report) == scored.golds)


# ------------------------------------------------------------------ the chemists of the human study

SETTINGS = {"tool-allowed": "tool", "tool-disallowed": "notool"}  # report folder -> summary suffix


@dataclass(frozen=True)
class HumanAnswer:
    chemist: str
    setting: str  # tool-allowed / tool-disallowed
    report: Report


def read_human_reports(path: Path) -> tuple[list[HumanAnswer], dict[tuple[str, str], float]]:
    """Every chemist's per-question reports (`humans/reports/<setting>/<chemist>/<key>.json`), each
    with that chemist's own verdict from their summary (`<chemist>_h_<tool|notool>.json`), and the
    summaries' `fraction_correct` by (chemist, setting)."""
    answers: list[HumanAnswer] = []
    verdicts: dict[tuple[str, str, str], int] = {}
    fractions: dict[tuple[str, str], float] = {}
    by_suffix = {v: k for k, v in SETTINGS.items()}
    for shown, raw in _members(path, "reports/humans"):
        parts = PurePosixPath(shown.split("!")[-1]).parts
        document = _load(shown, raw)
        if len(parts) >= 3 and parts[-3] in SETTINGS:
            record = document[0] if isinstance(document, list) and document else document
            if isinstance(record, dict) and isinstance(record.get("name"), str):
                answers.append(HumanAnswer(parts[-2], parts[-3], _report(shown, record)))
        elif "_h_" in parts[-1] and isinstance(document, dict):
            chemist, suffix = PurePosixPath(parts[-1]).stem.rsplit("_h_", 1)
            setting = by_suffix.get(suffix, suffix)
            fractions[(chemist, setting)] = float(document.get("fraction_correct", 0.0))
            verdicts.update({(chemist, setting, k): v for k, v in _verdicts(shown, document).items()})
    if not answers:
        raise InputError.single(path, "no chemists' reports (humans/reports/<setting>/<chemist>/<key>.json)")
    return [HumanAnswer(a.chemist, a.setting, _with(a.report, verdicts.get((a.chemist, a.setting, a.report.key))))
            for a in answers], fractions


def pooled(questions: Mapping[str, Question], answers: list[HumanAnswer]) -> dict[str, tuple[int, int]]:
    """Per question the chemists answered: (correct answers, answers), every chemist and setting
    pooled — the humans' run covers these questions only (partial)."""
    out: dict[str, tuple[int, int]] = {}
    for a in answers:
        if a.report.key in questions:
            right, total = out.get(a.report.key, (0, 0))
            out[a.report.key] = (right + correct(questions[a.report.key], a.report), total + 1)
    return out
