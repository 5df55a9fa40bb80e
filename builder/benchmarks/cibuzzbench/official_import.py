"""Import the official CIBuzzBench evaluation outputs (scripts/evaluate_api.py) as runs.

What a user needs (layout, checks, refusals) is in docs/import.md; this docstring is for readers
of the code.

Layout read (the official script writes it under ``<output_dir>/<model>/<prompt_language>``):

    <results_dir>/config.json                                   optional
    <results_dir>/task2_equivalent_selection/seed_<n>/predictions.csv   one per option seed
    <results_dir>/task3_harmfulness_detection/predictions.csv

Columns used (any other column, e.g. the copied dataset text, ``options_text`` or
``is_correct``, is ignored): ``row_id``, ``prediction`` (the official parser's label, empty
when unparsed), ``raw_response``, ``success``, ``error``; Task 2 also ``gold_letter`` and
``option_A_source`` … ``option_D_source``. When present, ``term_zh`` (both tasks),
``gold_label`` / ``harmful_label`` (Task 3), ``latency_sec`` and ``usage_json`` are used too.
From ``config.json`` the subject parameters keep ``prompt_language`` (as ``lang``),
``temperature`` and ``top_p``; a non-English language also tags the run id.

Every row is checked against the loaded dataset: the row exists, ``term_zh`` is the same,
``gold_letter`` and the option sources are our own official shuffle for that seed
(``option_sets``), Task 3 gold labels agree. Any mismatch is an InputError naming file,
CSV line and field, and nothing is written until every file is clean.

Source spellings accepted (case-insensitive; see ``SOURCE_ALIASES``): the official script's
``distractor_literal``, ``distractor_cultural_mismatch``, ``distractor_pragmatic_neighbor``
and ``correct``; our ``literal``/``cultural``/``pragmatic``/``correct``; the CSV column names
(``distractor_literal_en`` …, ``equivalent_en``); and ``gold``/``equivalent`` for the gold.

Item selection is inferred from the row_ids: every row -> ``all``; exactly one split ->
``split``. Any other set of rows must be what ``--split S --max_samples N`` evaluates: the
official script filters by split, then takes ``df.head(N)``, and records ``split`` and
``num_examples`` in ``config.json``; the rows must be exactly the first N rows (file order) of
that split, and the run records ``{"selection": "first", "n": N, "split": S}`` (no ``split``
for ``all``). Without ``config.json``, or when the rows are not those, the file is refused:
guessing would misdescribe the run. ``num_examples`` must equal every file's row count.

Rows with ``success`` false become items with ``error`` set (the official error text) and an
empty prediction; they stay in the run and count as wrong. ``raw_response`` is kept verbatim.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, option_sets
from builder.benchmarks.cibuzzbench.parsing import parse_harmfulness, parse_letter
from builder.core.errors import InputError, Problem
from builder.core.names import check_name, confined, slug
from builder.core.textfiles import check_values, read_input, repeated_columns
from builder.runs.lines import LineError, cap_error, cap_response, load_line, shorten
from builder.benchmarks.cibuzzbench.run_format import SPLITS, Item
from builder.runs.schema import Footer, Header, Run, new_header, usage_totals
from builder.runs.checks import parameter_problems
from builder.benchmarks.cibuzzbench.run_checks import first_row_ids, validate_run
from builder.runs.overwrite import write_checked
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION, labels_for

TASK2_DIR = "task2_equivalent_selection"
TASK3_DIR = "task3_harmfulness_detection"
PREDICTIONS = "predictions.csv"
SOURCE_NOTE = "official CIBuzzBench evaluation outputs"
# config.json key -> subject parameter; "lang" is the name the probe runner uses, so an
# imported sighted run and a probed blind run in the same language can be paired.
CONFIG_PARAMETERS = {"prompt_language": "lang", "temperature": "temperature", "top_p": "top_p"}

SOURCE_ALIASES: dict[str, str] = {
    "literal": "literal", "distractor_literal": "literal", "distractor_literal_en": "literal",
    "cultural": "cultural", "distractor_cultural_mismatch": "cultural",
    "distractor_cultural_mismatch_en": "cultural", "cultural_mismatch": "cultural",
    "pragmatic": "pragmatic", "distractor_pragmatic_neighbor": "pragmatic",
    "distractor_pragmatic_neighbor_en": "pragmatic", "pragmatic_neighbor": "pragmatic",
    "pragmatic_neighbour": "pragmatic",
    "correct": "correct", "gold": "correct", "equivalent": "correct", "equivalent_en": "correct",
}
BASE_COLUMNS = ("row_id", "prediction", "raw_response", "success", "error")
TASK2_COLUMNS = (*BASE_COLUMNS, "gold_letter", *(f"option_{letter}_source" for letter in LETTERS))
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}
_SEED_DIR = re.compile(r"seed_(-?\d+)")


@dataclass(frozen=True)
class PredictionsFile:
    """One predictions file and what it claims to be."""

    path: Path
    task: str
    seed: int | None


@dataclass(frozen=True)
class SourceRow:
    line: int
    cells: dict[str, str]


@dataclass(frozen=True)
class _Config:
    """What config.json says: subject parameters, and how the rows were chosen (if it says)."""

    path: Path
    parameters: dict[str, Any]
    split: str | None  # "all", "train" or "test"
    num_examples: int | None


def import_official(results_dir: str | Path, dataset: Dataset, *, model: str, out_dir: str | Path,
                    created: str, force: bool = False) -> list[tuple[Path, bool]]:
    """Convert every predictions file under `results_dir` into one run each (Task 2 seeds in
    ascending order, then Task 3); returns (path, written) (an identical run already there is
    left alone). Writes nothing on any problem, nor over a different run unless `force`."""
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    slug(model)  # fail on an unusable name before reading anything
    config = _read_config(results_dir)
    runs: list[Run] = []
    problems: list[Problem] = []
    for source in _find_sources(results_dir):
        try:
            runs.append(_convert(source, dataset, model, config, created))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return write_checked([(confined(out_dir, run.header.run_id, ".jsonl", str(out_dir)), run) for run in runs],
                         force=force)


# ---------------------------------------------------------------- finding the files


def _find_sources(results_dir: Path) -> list[PredictionsFile]:
    if not results_dir.is_dir():
        raise InputError.single(results_dir, "results folder does not exist")
    sources = _task2_sources(results_dir / TASK2_DIR)
    task3 = results_dir / TASK3_DIR / PREDICTIONS
    if task3.is_file():
        sources.append(PredictionsFile(task3, HARMFULNESS_DETECTION, None))
    if not sources:
        raise InputError.single(results_dir, f"no {TASK2_DIR}/seed_<n>/{PREDICTIONS} or "
                                f"{TASK3_DIR}/{PREDICTIONS} found{_language_hint(results_dir)}")
    return sources


def _language_hint(results_dir: Path) -> str:
    """The official script writes under <output_dir>/<model>/<prompt_language>/: name the
    language folders when the user passed the model folder."""
    languages = sorted(p.name for p in results_dir.iterdir()
                       if p.is_dir() and ((p / TASK2_DIR).is_dir() or (p / TASK3_DIR).is_dir()))
    if not languages:
        return ""
    return (f"; this looks like the <model> folder, import one prompt language at a time: "
            + ", ".join(str(results_dir / name) for name in languages))


def _task2_sources(task_dir: Path) -> list[PredictionsFile]:
    if not task_dir.is_dir():
        return []
    found: list[tuple[int, Path]] = []
    problems: list[Problem] = []
    for child in sorted(p for p in task_dir.iterdir() if p.is_dir() and p.name.startswith("seed_")):
        match = _SEED_DIR.fullmatch(child.name)
        if match is None:
            problems.append(Problem(str(child), "expected a folder named seed_<integer>"))
        elif not (child / PREDICTIONS).is_file():
            problems.append(Problem(str(child), f"no {PREDICTIONS} in this seed folder"))
        else:
            found.append((int(match.group(1)), child / PREDICTIONS))
    if problems:
        raise InputError(problems)
    return [PredictionsFile(path, EQUIVALENT_SELECTION, seed) for seed, path in sorted(found)]


def _read_config(results_dir: Path) -> _Config:
    """The official config.json, when present: parameters worth keeping in the header, and
    the split and row count the script evaluated."""
    path = results_dir / "config.json"
    if not path.is_file():
        return _Config(path, {}, None, None)
    try:
        data = load_line(read_input(path))
    except OSError as exc:
        raise InputError.single(path, f"cannot read config: {exc.strerror or exc}") from exc
    except LineError as exc:
        raise InputError.single(path, f"cannot read config: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError.single(path, "expected a JSON object")
    problems = []
    split, count = data.get("split"), data.get("num_examples")
    if split is not None and split not in ("all", *SPLITS):
        problems.append(Problem(str(path), f"split {split!r} is not one of: all, {', '.join(SPLITS)}", None, "split"))
    if count is not None and (type(count) is not int or count < 1):
        problems.append(Problem(str(path), f"num_examples {count!r} is not a positive integer", None, "num_examples"))
    parameters = {ours: data[theirs] for theirs, ours in CONFIG_PARAMETERS.items() if theirs in data}
    theirs = {ours: key for key, ours in CONFIG_PARAMETERS.items()}
    problems += [Problem(str(path), message, None, theirs[name]) for name, message in parameter_problems(parameters)]
    if problems:
        raise InputError(problems)
    if "lang" in parameters:  # it tags the run id, so it is a name like any other part of one
        check_name(parameters["lang"], str(path), "prompt_language")
    return _Config(path, parameters, split, count)


# ---------------------------------------------------------------- reading one file


def _read_rows(path: Path, required: tuple[str, ...]) -> list[SourceRow]:
    """Records with the CSV line each starts on (cells may span lines)."""
    try:
        text = check_values(path, read_input(path).decode("utf-8").removeprefix("\ufeff"))  # cells a parser makes
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError.single(path, f"cannot read predictions: {exc}") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, [])
        if not header:
            raise InputError.single(path, "file is empty or its first line is blank: expected the header row", line=1)
        _check_columns(path, header, required)
        rows, start = [], reader.line_num + 1
        for cells in reader:
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=reader.line_num) from exc
    return _as_records(path, header, rows)


def _check_columns(path: Path, header: list[str], required: tuple[str, ...]) -> None:
    problems = [Problem(str(path), "required column is missing", 1, c) for c in required if c not in header]
    problems += repeated_columns(path, header)
    if problems:
        raise InputError(problems)


def _as_records(path: Path, header: list[str], rows: list[tuple[int, list[str]]]) -> list[SourceRow]:
    records, problems = [], []
    for line, cells in rows:
        if not cells:
            continue
        if len(cells) != len(header):
            problems.append(Problem(str(path), f"expected {len(header)} fields, found {len(cells)}", line))
        else:
            records.append(SourceRow(line, dict(zip(header, cells))))
    if problems:
        raise InputError(problems)
    if not records:
        raise InputError.single(path, "predictions file has no rows", line=1)
    return records


# ---------------------------------------------------------------- converting rows


class RowChecker:
    """Row-level checks for one file; collects every problem with its line and field."""

    def __init__(self, source: PredictionsFile, dataset: Dataset):
        self.source, self.dataset = source, dataset
        self.problems: list[Problem] = []
        self.labels = set(labels_for(source.task))
        self.terms = dataset.column("term_zh")
        self.harm = dataset.column("harmful_label")
        self.options = option_sets(dataset, source.seed) if source.seed is not None else None

    def add(self, row: SourceRow, field: str, message: str) -> None:
        self.problems.append(Problem(str(self.source.path), message, row.line, field))

    def item(self, row: SourceRow) -> Item | None:
        row_id = self._row_id(row)
        if row_id is None:
            return None
        before = len(self.problems)
        self._same_text(row, row_id)
        letter_map = self._options(row, row_id) if self.options is not None else None
        self._harm_label(row, row_id)
        success = self._success(row)
        prediction = self._prediction(row, row_id) if success else ""
        extras = self._extras(row)
        if len(self.problems) > before:
            return None
        return _item(row, row_id, success, prediction, letter_map, extras)

    def _row_id(self, row: SourceRow) -> int | None:
        raw = row.cells["row_id"].strip()
        if not re.fullmatch(r"\d+", raw) or int(raw) >= self.dataset.rows:
            self.add(row, "row_id", f"unknown row_id {raw!r} (dataset has 0..{self.dataset.rows - 1})")
            return None
        return int(raw)

    def _same_text(self, row: SourceRow, row_id: int) -> None:
        term = row.cells.get("term_zh")
        if term is not None and term != self.terms[row_id]:
            self.add(row, "term_zh", f"term {term!r} differs from the dataset's {self.terms[row_id]!r} "
                     f"for row_id {row_id} (outputs made on other data?)")

    def _options(self, row: SourceRow, row_id: int) -> dict[str, str]:
        official = self.options[row_id]  # type: ignore[index]  # called only when options is set (see item)
        if row.cells["gold_letter"].strip() != official.gold_letter:
            self.add(row, "gold_letter", f"gold letter {row.cells['gold_letter']!r} differs from the official "
                     f"shuffle for seed {self.source.seed}: {official.gold_letter!r}")
        for letter in LETTERS:
            field = f"option_{letter}_source"
            raw = row.cells[field]
            ours = SOURCE_ALIASES.get(raw.strip().lower())
            if ours is None:
                self.add(row, field, f"unknown option source {raw!r} (accepted: {', '.join(sorted(SOURCE_ALIASES))})")
            elif ours != official.letter_map[letter]:
                self.add(row, field, f"option {letter} source {raw!r} ({ours}) differs from the official shuffle "
                         f"for seed {self.source.seed}: {official.letter_map[letter]!r}")
        return dict(official.letter_map)

    def _harm_label(self, row: SourceRow, row_id: int) -> None:
        if self.source.task != HARMFULNESS_DETECTION:
            return
        for field in ("gold_label", "harmful_label"):
            value = row.cells.get(field)
            if value is not None and value.strip() != self.harm[row_id]:
                self.add(row, field, f"gold label {value!r} differs from the dataset's {self.harm[row_id]!r}")

    def _success(self, row: SourceRow) -> bool:
        value = row.cells["success"].strip().lower()
        if value not in _TRUE | _FALSE:
            self.add(row, "success", f"expected True or False, found {row.cells['success']!r}")
        return value in _TRUE

    def _prediction(self, row: SourceRow, row_id: int) -> str:
        """The `prediction` column, which must be what the official parser reads in the raw
        response: a file whose row says "I am not sure." but predicts the gold is refused, not
        imported as correct."""
        value = row.cells["prediction"]
        if value != "" and value not in self.labels:
            self.add(row, "prediction", f"prediction {value[:40]!r} is not a label of {self.source.task} "
                     "(nor empty for unparsed)")
            return value
        parsed = self._official_parse(row.cells["raw_response"], row_id)
        if parsed != value:
            self.add(row, "prediction", f"prediction {value!r} is not what the official parser reads in "
                     f"raw_response ({parsed!r}, from {shorten(row.cells['raw_response'], 60)!r}); the outputs were "
                     "edited or made by another parser")
        return value

    def _official_parse(self, raw: str, row_id: int) -> str:
        if self.options is None:
            return parse_harmfulness(raw)
        return parse_letter(raw, {o.letter: o.text for o in self.options[row_id].options})

    def _extras(self, row: SourceRow) -> dict[str, Any]:
        """Optional latency and token usage, when the official file has them."""
        extras: dict[str, Any] = {}
        latency = row.cells.get("latency_sec", "").strip()
        if latency:
            try:
                extras["latency_ms"] = float(latency) * 1000.0
            except ValueError:
                self.add(row, "latency_sec", f"not a number: {latency!r}")
            else:
                if not math.isfinite(extras["latency_ms"]):
                    self.add(row, "latency_sec", f"not a finite number: {latency!r}")
        usage = row.cells.get("usage_json", "").strip()
        if usage:
            extras["usage"] = self._usage(row, usage)
        return {k: v for k, v in extras.items() if v is not None}

    def _usage(self, row: SourceRow, raw: str) -> dict[str, int] | None:
        try:
            data = load_line(raw)
        except LineError as exc:
            self.add(row, "usage_json", str(exc))
            return None
        counts = {k: v for k, v in data.items() if type(v) is int} if isinstance(data, dict) else {}
        return counts or None


def _item(row: SourceRow, row_id: int, success: bool, prediction: str, letter_map: dict[str, str] | None,
          extras: dict[str, Any]) -> Item:
    raw = row.cells["raw_response"]
    error = None if success else cap_error(row.cells["error"] or "request failed (official success=False)")
    response, truncated = cap_response(raw) if success or raw else (None, False)
    return Item(row_id=row_id, prediction=prediction, response=response, letter_map=letter_map,
                error=error, response_truncated=truncated or None, **extras)


def _convert(source: PredictionsFile, dataset: Dataset, model: str, config: _Config, created: str) -> Run:
    required = TASK2_COLUMNS if source.task == EQUIVALENT_SELECTION else BASE_COLUMNS
    rows = _read_rows(source.path, required)
    checker = RowChecker(source, dataset)
    items, lines = list[Item](), dict[int, int]()
    for row in rows:
        item = checker.item(row)
        if item is not None and first_time(checker, row, item.row_id, lines):
            items.append(item)
            lines[item.row_id] = row.line
    if checker.problems:
        raise InputError(checker.problems)
    header = _header(source, dataset, model, config.parameters, created, _selection(source, dataset, lines, config))
    run = Run(str(source.path), header, tuple(items), Footer(len(items), None, usage_totals(items)), lines)
    validate_run(run, dataset)  # the same checks a run file gets, located in the CSV
    return run


def first_time(checker: RowChecker, row: SourceRow, row_id: int, lines: dict[int, int]) -> bool:
    """True the first time `row_id` is seen in a file; else the duplicate is a located problem."""
    if row_id in lines:
        checker.add(row, "row_id", f"duplicate row_id {row_id} (first on line {lines[row_id]})")
        return False
    return True


def _selection(source: PredictionsFile, dataset: Dataset, lines: dict[int, int], config: _Config) -> dict[str, Any]:
    """From config.json when it says how rows were chosen (checked against the rows), else
    from the rows themselves: every row, or exactly one split."""
    ids = set(lines)
    if config.num_examples is not None and config.num_examples != len(ids):
        raise InputError.single(source.path, f"the file has {len(ids)} rows but {config.path} says "
                                f"num_examples={config.num_examples} (outputs of another run?)", field="row_id")
    if config.split is not None and config.num_examples is not None:
        return _first_selection(source, dataset, lines, config)
    if ids == set(dataset.row_ids()):
        return {"selection": "all", "n": len(ids)}
    for split in SPLITS:
        if ids == set(dataset.row_ids(split)):
            return {"selection": "split", "split": split, "n": len(ids)}
    raise InputError.single(
        source.path, f"the file covers {len(ids)} of {dataset.rows} rows, which is neither every row nor "
        f"exactly one split, and there is no {config.path.name} with split and num_examples to say how "
        "they were chosen (the official --max_samples N takes the first N rows of the split)", field="row_id")


def _first_selection(source: PredictionsFile, dataset: Dataset, lines: dict[int, int], config: _Config) -> dict[str, Any]:
    """`--split S --max_samples N`: the rows must be exactly the first N of split S (the row
    count already equals N); all of S is recorded as `all` or `split`, fewer as `first`."""
    split = None if config.split == "all" else config.split
    n = int(config.num_examples or 0)
    expected = first_row_ids(dataset, split, n)
    where = f"the {split} split" if split else "the dataset"
    unexpected = sorted(set(lines) - set(expected), key=lines.__getitem__)
    if unexpected:
        row_id = unexpected[0]
        raise InputError.single(
            source.path, f"row_id {row_id} is not among the first {n} rows of {where}, which {config.path} "
            f"says were evaluated (split={config.split!r}, num_examples={n}; the official script takes "
            f"df.head(N) after filtering by split); {len(unexpected)} such row(s)", line=lines[row_id], field="row_id")
    whole = len(dataset.row_ids(split))
    if n >= whole:
        return {"selection": "split", "split": split, "n": n} if split else {"selection": "all", "n": n}
    items: dict[str, Any] = {"selection": "first", "n": n}
    return {**items, "split": split} if split else items


def _header(source: PredictionsFile, dataset: Dataset, model: str, config: dict[str, Any], created: str,
            items: dict[str, Any]) -> Header:
    return new_header(
        run_id=run_id(model, source.task, source.seed, items, config.get("lang")),
        benchmark="cibuzzbench", task=source.task, condition="sighted",
        subject={"kind": "model", "name": model, "parameters": {"source": SOURCE_NOTE, **config}},
        option_seed=source.seed, items=items,
        dataset={"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
        created=created,
    )


def run_id(model: str, task: str, seed: int | None, items: dict[str, Any], language: str | None = None) -> str:
    """`official-<model slug>[-<lang>]-t2-s<seed>-<scope>`; the language tag only when not English,
    so English and Chinese-prompt imports of one model do not overwrite each other."""
    lang = f"-{language}" if language and language != "en" else ""
    task_tag = f"t2-s{seed}" if task == EQUIVALENT_SELECTION else "t3"
    scope = items.get("split") if items["selection"] == "split" else items["selection"]
    if items["selection"] == "first":
        scope = f"{items['split']}-first{items['n']}" if items.get("split") else f"first{items['n']}"
    return f"official-{slug(model)}{lang}-{task_tag}-{scope}"
