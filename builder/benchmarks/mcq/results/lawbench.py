"""LawBench's published zero-shot predictions (open-compass/LawBench, `predictions/<setting>/<model>/
<task>.json`), read from a folder as cloned or from the zip as shipped, and scored as the upstream
scores its multiple-choice tasks (`evaluation/utils/function_utils.py` `multi_choice_judge`).

The upstream rule: a prediction is correct when the gold letter occurs in it and no other of
A-D does; no letter at all is an abstention. So the letter the upstream reads is the one letter
of A-D present in the raw text, else none ("": unparsed, counted wrong) — the strict letter of
the imported run. Each file is an object keyed "0".."N-1" in data order; the gold is `refr`
("正确答案：B。", the letter at index 5, as the upstream asserts). The item id is the task and the
0-based key (`1-2-0`), the spec's id rule (content/benchmarks/lawbench.yaml).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.textfiles import read_input
from builder.core.archives import open_zip, read_member
from builder.core.textfiles import decode_utf8
from builder.runs.lines import load_document
import hashlib
from builder.benchmarks.mcq.records import data_sha256
from builder.benchmarks.mcq.results.sources import Element, Source
from builder.benchmarks.mcq.results.sources import Answer

TASKS = ("1-2", "3-6")  # the JEC-QA tasks: 4 options inside the question text, one gold
OPTIONS = ("A", "B", "C", "D")
GOLD_AT = 5  # `refr` is "正确答案：X。" (or with an ASCII colon): the letter's index, as upstream reads it


@dataclass(frozen=True)
class Prediction:
    """One record of a prediction file, where it is, and what the upstream reads from it."""

    where: str  # `archive.zip!predictions/zero_shot/M/1-2.json`, or the file's path
    task: str
    key: int  # 0-based position in data order (the file's key)
    prediction: str
    gold: str

    @property
    def id(self) -> str:
        return f"{self.task}-{self.key}"


def upstream_letter(prediction: str) -> str:
    """The one letter of A-D the prediction holds, else "" (none: an abstention; several: wrong)."""
    present = [o for o in OPTIONS if o in prediction]
    return present[0] if len(present) == 1 else ""


def upstream_score(predictions: Sequence[Prediction]) -> tuple[float, float]:
    """(accuracy, abstention rate) as `compute_jec_kd` / `compute_jec_ac` return them."""
    if not predictions:
        return 0.0, 0.0
    correct = sum(upstream_letter(p.prediction) == p.gold for p in predictions)
    abstained = sum(not any(o in p.prediction for o in OPTIONS) for p in predictions)
    return correct / len(predictions), abstained / len(predictions)


def model_files(path: Path, model: str) -> list[tuple[str, str, bytes]]:
    """(shown path, task, bytes) of the model's task files, from a zip as shipped, a clone (its
    `predictions/<setting>/` folder or the repository root) or the model's own folder."""
    if not path.exists():
        raise InputError.single(path, "no such file or folder (the predictions zip, or a clone of the upstream)")
    if path.is_file():
        return _from_zip(path, model)
    folders = [path / model, path, *sorted(path.glob(f"predictions/*/{_glob_safe(model)}"))]
    for folder in folders:
        found = [(str(folder / f"{t}.json"), t) for t in TASKS if (folder / f"{t}.json").is_file()]
        if found and (folder.name == model or folder == path / model):
            return [(shown, task, _read(Path(shown))) for shown, task in found]
    raise InputError.single(path, f"no prediction files of model {model!r} ({', '.join(t + '.json' for t in TASKS)}"
                            " under predictions/<setting>/<model>/ or <model>/)")


def _glob_safe(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _read(path: Path) -> bytes:
    try:
        return read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read: {exc.strerror or exc}") from None


def _from_zip(path: Path, model: str) -> list[tuple[str, str, bytes]]:
    wanted = {}
    with open_zip(path, _read(path)) as archive:
        for info in archive.infolist():
            parts = PurePosixPath(info.filename).parts
            if len(parts) >= 2 and parts[-2] == model and parts[-1] in {f"{t}.json" for t in TASKS}:
                shown = f"{path}!{info.filename}"
                wanted[parts[-1][:-5]] = (shown, read_member(shown, archive, info))
    if not wanted:
        raise InputError.single(path, f"no prediction files of model {model!r} in the archive "
                                f"(<model>/{'.json, <model>/'.join(TASKS)}.json)")
    return [(wanted[t][0], t, wanted[t][1]) for t in TASKS if t in wanted]


def models_in(path: Path) -> list[str]:
    """The models of a predictions zip or folder (those with at least one of the tasks' files)."""
    if path.is_file():
        with open_zip(path, _read(path)) as archive:
            names = [PurePosixPath(n).parts for n in archive.namelist()]
    else:
        names = [p.relative_to(path).parts for p in path.rglob("*.json")]
    return sorted({parts[-2] for parts in names if len(parts) >= 2 and parts[-1] in {f"{t}.json" for t in TASKS}})


def read_predictions(path: Path, model: str) -> list[Prediction]:
    """Every record of the model's task files, in task and data order; a bad record is a located problem."""
    out: list[Prediction] = []
    problems: list[Problem] = []
    for shown, task, raw in model_files(path, model):
        document = load_document(shown, decode_utf8(Path(shown), raw))
        if not isinstance(document, dict):
            raise InputError.single(shown, f"expected an object keyed 0..N-1, found {type(document).__name__}")
        for key, record in _in_order(shown, document):
            try:
                out.append(_prediction(shown, task, key, record))
            except ValueError as exc:
                problems.append(Problem(shown, str(exc), None, f"key {key!r}"))
    if problems:
        raise InputError(problems)
    return out


def _in_order(shown: str, document: Mapping[str, Any]) -> Iterator[tuple[int, Any]]:
    """The records by key "0".."N-1", as the upstream's `read_json` reads them (a gap is refused)."""
    for n in range(len(document)):
        if str(n) not in document:
            raise InputError.single(shown, f"key {n!r} is missing: the records are keyed 0..{len(document) - 1}")
        yield n, document[str(n)]


def _prediction(shown: str, task: str, key: int, record: Any) -> Prediction:
    if not isinstance(record, dict):
        raise ValueError(f"expected a record (an object), found {type(record).__name__}")
    prediction, refr = record.get("prediction"), record.get("refr")
    if not isinstance(prediction, str):
        raise ValueError(f"prediction: expected text, found {type(prediction).__name__}")
    if not (isinstance(refr, str) and len(refr) > GOLD_AT and refr[GOLD_AT] in OPTIONS):
        raise ValueError(f"refr: expected '正确答案：X' with X one of A-D, found {str(refr)[:20]!r}")
    return Prediction(shown, task, key, prediction, refr[GOLD_AT])


def scores_by_task(predictions: Sequence[Prediction]) -> dict[str, tuple[float, float]]:
    """Per task, the upstream's (score, abstention_rate) — the rows of its results.csv."""
    return {t: upstream_score([p for p in predictions if p.task == t]) for t in TASKS
            if any(p.task == t for p in predictions)}


# ------------------------------------------------------------------ `buzzprobe import results --format lawbench`

def results_source(path: Path, model: str) -> tuple[Any, dict[str, Any]]:
    """The model's task files as one results Source: each record an element
    `{id, prediction, gold}` located in its file (`key N`); the sha256 is the archive's, or for a
    folder that of its task files' names and hashes. And `upstream_parts`: per task, the upstream's
    correct answers over every record (the items the audit leaves out too: its results.csv)."""
    files = model_files(path, model)
    predictions = read_predictions(path, model)
    digest = hashlib.sha256(_read(path)).hexdigest() if path.is_file() else \
        data_sha256([(Path(shown).name, hashlib.sha256(raw).hexdigest()) for shown, _, raw in files])
    members = ", ".join(shown.split("!", 1)[1] for shown, _, _ in files) if path.is_file() else None
    elements = tuple(Element(p.where, None, p.key + 1, {"id": p.id, "prediction": p.prediction, "gold": p.gold})
                     for p in predictions)
    parts = {task: {"questions": sum(p.task == task for p in predictions),
                    "correct": sum(p.task == task and upstream_letter(p.prediction) == p.gold for p in predictions)}
             for task in TASKS if any(p.task == task for p in predictions)}
    return Source(path, digest, members, elements), {"upstream_parts": parts}


def answer(element: Any, record: Mapping[str, Any]) -> Any:
    """One element of `results_source` as an Answer: the raw prediction is the response, the
    letter the upstream reads from it the prediction, `refr`'s letter the file's gold."""
    return Answer(element, record["id"], record["prediction"], upstream_letter(record["prediction"]),
                  None, None, OPTIONS.index(record["gold"]))
