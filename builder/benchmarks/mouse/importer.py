"""Import official Mouse output files into per-task, in-memory results.

The official scripts (csdq777/Mouse) write each model's answers next to the input
columns: `main_eval.csv` gains `llm_translation, llm_toxicity, llm_intention,
llm_homephone, llm_semantic, llm_vision` (official spelling "homephone"),
`single_choice.csv` and `icc.csv` gain `llm_choice`, and the judge script adds
`deepseek_similarity` cells such as "分数：2". An empty answer cell (the script stores
None when a call fails) is kept as raw None and counts as unparsed. Gold labels are read
from the same file (it repeats the dataset's columns); pass the loaded dataset to also
check, row by row, that the output belongs to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.core.errors import Problem
from builder.benchmarks.mouse.analyses import metrics as m
from builder.benchmarks.mouse.config import CC_OPTIONS, DEFAULT_GOLD_COLUMNS, MS_OPTIONS, QUESTION, SOURCE, GoldColumns
from builder.benchmarks.mouse.dataset import (ChoiceInstance, ClozeInstance, MainInstance, MouseSet, build, choice_instance,
                                   cloze_instance, main_columns, main_instance)
from builder.benchmarks.mouse.labels import CC, IR, IR_LABELS, MS, MS_LABELS, RC, RC_COMPONENTS, RC_LABELS, TD, TD_LABELS
from builder.benchmarks.mouse.parsing import (is_copy, parse_choice, parse_component, parse_intention, parse_judge, parse_ms,
                                   parse_toxicity)
from builder.benchmarks.mouse.table import Row, Table, raise_problems, read_table, require_columns

TRANSLATION = "llm_translation"
ANSWER_COLUMNS: dict[str, str] = {  # field -> official answer column
    "toxicity": "llm_toxicity", "intention": "llm_intention", "homophonic": "llm_homephone",
    "semantic": "llm_semantic", "visual": "llm_vision",
}
CHOICE = "llm_choice"
JUDGE = "deepseek_similarity"

Label = int | str


@dataclass(frozen=True)
class Answer:
    index: int  # row position, as in the dataset
    line: int
    raw: str | None  # the cell verbatim; None when empty
    parsed: Label | None  # None = unparsed (scored as wrong)


@dataclass(frozen=True)
class TaskResult:
    """One classification task (or RC component) for one model: gold beside answers."""

    task: str  # "ir", "td", "rc.homophonic", "ms", "cc", ...
    labels: tuple[Label, ...]
    gold: tuple[Label, ...]
    answers: tuple[Answer, ...]

    @property
    def predictions(self) -> tuple[Label | None, ...]:
        return tuple(a.parsed for a in self.answers)

    @property
    def unparsed(self) -> int:
        return sum(1 for a in self.answers if a.parsed is None)

    def score(self, boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.ClassScores:
        return m.score_classification(self.gold, self.predictions, self.labels, boot)


@dataclass(frozen=True)
class MainResults:
    """Answers of one model on main_eval: TD, IR, RC (x3); raw translations for TR."""

    path: Path
    sha256: str
    instances: MouseSet[MainInstance]
    td: TaskResult
    ir: TaskResult
    rc: dict[str, TaskResult]  # by component
    translations: tuple[Answer, ...]  # raw = parsed = the translation (None if missing)

    def score_rc(self, boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.RCScores:
        return m.score_rc({c: r.gold for c, r in self.rc.items()},
                          {c: r.predictions for c, r in self.rc.items()}, boot)


@dataclass(frozen=True)
class ChoiceResults:
    """Answers of one model on single_choice (MS) or icc (CC)."""

    path: Path
    sha256: str
    instances: MouseSet[ChoiceInstance] | MouseSet[ClozeInstance]
    result: TaskResult


@dataclass(frozen=True)
class TranslationItem:
    index: int
    line: int
    source: str
    translation: str | None
    judge_raw: str | None
    judge: int | None  # parsed verdict; None = unparsed
    copied: bool
    score: int  # final 0/1/2 after the missing, copy and unparsed rules
    human: int | None  # human score when the file has one


@dataclass(frozen=True)
class TranslationResult:
    path: Path
    sha256: str
    items: tuple[TranslationItem, ...]

    def score(self, boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.TranslationScores:
        return m.score_tr([i.source for i in self.items], [i.translation for i in self.items],
                          [i.judge for i in self.items], boot)

    def agreement(self, boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.Agreement:
        """Judge vs human QWK over items with both scores (needs a human score column)."""
        return m.judge_agreement([i.judge for i in self.items], [i.human for i in self.items], boot)


def _raw(row: Row, column: str) -> str | None:
    value = row.cells.get(column, "")
    return value if value.strip() else None


def _answers(table: Table, column: str, parse: Callable[[str | None, Row], Label | None]) -> tuple[Answer, ...]:
    return tuple(Answer(r.index, r.line, _raw(r, column), parse(_raw(r, column), r)) for r in table.rows)


def _check_aligned(table: Table, own: MouseSet, dataset: MouseSet | None) -> list[Problem]:
    """Each output row must be the dataset row at the same position (text and gold)."""
    if dataset is None:
        return []
    path = str(table.path)
    if len(own) != len(dataset):
        return [Problem(path, f"has {len(own)} rows but the dataset {dataset.path} has {len(dataset)}")]
    problems = []
    for mine, theirs in zip(own, dataset):
        for name, value in vars(mine).items():
            if name not in ("index", "line") and getattr(theirs, name) != value:
                problems.append(Problem(path, f"differs from {dataset.path} line {theirs.line}", mine.line, name))
                break
    return problems


def _load(path: str | Path, columns: tuple[str, ...], make: Callable, gold: GoldColumns,
          dataset: MouseSet | None) -> tuple[Table, MouseSet]:
    table = read_table(path)
    problems = require_columns(table, columns)
    if problems and table.kind == "csv":
        raise_problems(problems)
    own = build(table, (), make, gold, problems)
    raise_problems(_check_aligned(table, own, dataset))
    return table, own


def import_main(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS,
                dataset: MouseSet[MainInstance] | None = None) -> MainResults:
    """An official main_eval output: TD, IR and RC answers parsed, translations kept raw."""
    columns = main_columns(gold) + (TRANSLATION, *ANSWER_COLUMNS.values())
    table, own = _load(path, columns, main_instance, gold, dataset)
    insts = own.instances
    td = TaskResult(TD, TD_LABELS, tuple(i.toxicity for i in insts),
                    _answers(table, ANSWER_COLUMNS["toxicity"], lambda raw, _: parse_toxicity(raw)))
    ir = TaskResult(IR, IR_LABELS, tuple(i.intention for i in insts),
                    _answers(table, ANSWER_COLUMNS["intention"], lambda raw, _: parse_intention(raw)))
    rc = {c: TaskResult(f"{RC}.{c}", RC_LABELS, tuple(i.component(c) for i in insts),
                        _answers(table, ANSWER_COLUMNS[c], lambda raw, _: parse_component(raw)))
          for c in RC_COMPONENTS}
    translations = _answers(table, TRANSLATION, lambda raw, _: raw)
    return MainResults(table.path, table.sha256, own, td, ir, rc, translations)


def import_single_choice(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS,
                         dataset: MouseSet[ChoiceInstance] | None = None) -> ChoiceResults:
    """An official single_choice output (`llm_choice`): MS letters A/B/C."""
    columns = (QUESTION, *MS_OPTIONS, gold.single_choice_answer, CHOICE)
    table, own = _load(path, columns, choice_instance, gold, dataset)
    by_row = {i.index: i for i in own}
    answers = _answers(table, CHOICE, lambda raw, row: parse_ms(raw, by_row[row.index].options))
    return ChoiceResults(table.path, table.sha256, own, TaskResult(MS, MS_LABELS, tuple(i.answer for i in own), answers))


def import_icc(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS,
               dataset: MouseSet[ClozeInstance] | None = None) -> ChoiceResults:
    """An official icc output (`llm_choice`): CC letters from each item's `选项` list;
    the label set is every letter offered by any item."""
    columns = (QUESTION, CC_OPTIONS, gold.icc_answer, CHOICE)
    table, own = _load(path, columns, cloze_instance, gold, dataset)
    by_row = {i.index: i for i in own}
    answers = _answers(table, CHOICE, lambda raw, row: parse_choice(raw, by_row[row.index].options))
    letters = tuple(sorted({letter for i in own for letter in i.letters}))
    return ChoiceResults(table.path, table.sha256, own, TaskResult(CC, letters, tuple(i.answer for i in own), answers))


def import_judge(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS,
                 dataset: MouseSet[MainInstance] | None = None) -> TranslationResult:
    """The judge file (the official script's workbook exported to CSV, or JSONL): source,
    translation and `deepseek_similarity`; optionally a human score column for QWK."""
    table = read_table(path)
    problems = require_columns(table, (SOURCE, TRANSLATION, JUDGE))
    if problems and table.kind == "csv":
        raise_problems(problems)
    items = [_judge_item(table, row, gold.judge_human_score, problems) for row in table.rows]
    if not items:
        problems.append(Problem(str(table.path), "no data rows", 1))
    problems.extend(_judge_aligned(table, items, dataset))
    raise_problems(problems)
    return TranslationResult(table.path, table.sha256, tuple(items))


def _judge_item(table: Table, row: Row, human_column: str, problems: list[Problem]) -> TranslationItem:
    source = row.cells.get(SOURCE, "")
    if SOURCE in row.cells and not source.strip():
        problems.append(Problem(str(table.path), "empty required cell", row.line, SOURCE))
    translation, judge_raw = _raw(row, TRANSLATION), _raw(row, JUDGE)
    judge = parse_judge(judge_raw)
    copied = translation is not None and is_copy(source, translation)
    (score,) = m.translation_scores([source], [translation], [judge])
    return TranslationItem(row.index, row.line, source, translation, judge_raw, judge, copied, score,
                           _human(table, row, human_column, problems))


def _human(table: Table, row: Row, column: str, problems: list[Problem]) -> int | None:
    value = (row.cells.get(column) or "").strip()
    if not value:
        return None
    if value in ("0", "1", "2"):
        return int(value)
    problems.append(Problem(str(table.path), f"human score must be 0, 1 or 2 (or empty), got {value!r}", row.line, column))
    return None


def _judge_aligned(table: Table, items: list[TranslationItem], dataset: MouseSet[MainInstance] | None) -> list[Problem]:
    if dataset is None:
        return []
    if len(items) != len(dataset):
        return [Problem(str(table.path), f"has {len(items)} rows but the dataset {dataset.path} has {len(dataset)}")]
    return [Problem(str(table.path), f"differs from {dataset.path} line {inst.line}", item.line, SOURCE)
            for item, inst in zip(items, dataset) if item.source != inst.source]
