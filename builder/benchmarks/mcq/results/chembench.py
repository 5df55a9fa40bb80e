"""ChemBench's published per-question reports (lamalab-org/chembench-paper, `src/data/chem-bench-main/`),
read from a clone or from the zip archives as shipped, and scored as the upstream scores them.

Questions: `data/<topic>/<stem>.json`, one each; the key a report names is `<topic>-<stem>-<name>`.
A multiple-choice question's options are the keys of `examples[0].target_scores` (data order), its
golds those scored 1 — several on some items, so correctness is an exact set: the letters parsed
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
import io
import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from builder.core.errors import InputError

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


def option_key(text: str) -> str:
    """An option's text without what the prompts strip or rewrite: SMILES tags, LaTeX commands,
    braces, `$`, `^`, `\\cdot 10^` written as `e`, spacing and case."""
    text = _POWER.sub("e", _TAG.sub("", text))
    return re.sub(r"[\s${}^\\]", "", _COMMAND.sub("", text)).lower()


# ------------------------------------------------------------------ reading (zip as shipped, or a clone)

def _members(path: Path, below: str) -> Iterator[tuple[str, bytes]]:
    """(shown path, bytes) of each .json under `below` (a ROOT-relative folder), from a zip or a clone."""
    from builder.core.textfiles import read_input
    if path.is_file():
        try:
            with zipfile.ZipFile(io.BytesIO(read_input(path))) as archive:
                for name in sorted(archive.namelist()):
                    if name.endswith(".json") and f"{ROOT}/{below}/" in f"{name}":
                        yield f"{path}!{name}", archive.read(name)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise InputError.single(path, f"not a readable zip archive: {exc}") from None
        return
    base = next((b for b in (path / ROOT / below, path / below, path) if b.is_dir()), None)
    for file in sorted((base or path).rglob("*.json")):
        yield str(file), read_input(file)


def _load(shown: str, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError.single(shown, f"not valid JSON: {exc}") from None


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
        scores = example.get("target_scores") if isinstance(example, dict) else None
        options = tuple(scores) if isinstance(scores, dict) else ()
        golds = frozenset(i for i, o in enumerate(options) if scores[o] == 1)
        out[key] = Question(key, parts[-2], options, golds)
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
            verdicts = {m["question_name"]: int(m["all_correct"]) for m in document.get("model_scores", [])}
        elif "/reports/" in inner.split(f"reports/{system}/", 1)[-1] or inner.count("/reports/") >= 2:
            record = document[0] if isinstance(document, list) and document else document
            if isinstance(record, dict) and isinstance(record.get("name"), str):
                reports[record["name"]] = _report(shown, record)
    if fraction is None:
        raise InputError.single(path, f"no summary {system}.json (fraction_correct, model_scores) for {system!r}")
    return {k: Report(k, r.where, r.letters, r.shown, verdicts.get(k)) for k, r in reports.items()}, float(fraction)


def _report(shown: str, record: Mapping[str, Any]) -> Report:
    parsed = record.get("parsed_output")
    letters = tuple(str(x).strip().upper() for x in parsed) if isinstance(parsed, list) else None
    prompt = record.get("prompt") if isinstance(record.get("prompt"), str) else ""
    block = re.search(r"\nOptions:\n(.*?)(?:\n\n|$)", prompt, re.S)
    shown_options = tuple(_OPTION.findall(block.group(1))) if block else ()
    return Report(record["name"], shown, letters, shown_options, None)


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


def correct(question: Question, report: Report) -> int:
    """1 when the answer is exactly the golds (multiple choice), else the report's own verdict (numeric)."""
    if not question.options:
        return int(report.all_correct or 0)
    return int(chosen(question, report) == question.golds)
