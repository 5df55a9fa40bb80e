"""The three Mouse data files as frozen instances, validated cell by cell.

Layouts follow the official code (csdq777/Mouse): `main_eval.csv` (input `Source language`,
reference `Reference`), `single_choice.csv` (`题目, A选项, B选项, C选项`) and `icc.csv`
(`题目, 选项`). Gold columns come from `GoldColumns` (content/mouse/gold_columns.yaml).
The same layouts are read from JSONL (one object per line, keys = column names). Extra
columns are allowed: the official scripts write their answers next to the inputs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from builder.core.errors import Problem
from builder.core.redact import excerpt
from builder.benchmarks.mouse.config import (CC_OPTIONS, DEFAULT_GOLD_COLUMNS, MS_OPTIONS, QUESTION, REFERENCE,
                                  SOURCE, GoldColumns)
from builder.benchmarks.mouse.labels import IR_LABELS, MS_LABELS, RC_COMPONENTS, RC_LABELS, TD_LABELS
from builder.benchmarks.mouse.parsing import parse_options
from builder.benchmarks.mouse.table import Row, Table, raise_problems, read_table, require_columns

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")  # an instance type: a dataclass (content_sha256 reads its fields)


@dataclass(frozen=True)
class MainInstance:
    """One Chouxiang instance (CXEI) with its labels for TR, RC, IR and TD."""

    index: int  # row position in the file (the official scripts' pandas index)
    line: int
    source: str
    reference: str
    toxicity: int
    intention: int
    homophonic: int
    semantic: int
    visual: int

    def component(self, name: str) -> int:
        return getattr(self, name)


@dataclass(frozen=True)
class ChoiceInstance:
    """A Meaning Selection item: question and options A, B, C."""

    index: int
    line: int
    question: str
    options: tuple[str, str, str]
    answer: str  # "A", "B" or "C"

    @property
    def lettered(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(MS_LABELS, self.options))


@dataclass(frozen=True)
class ClozeInstance:
    """A Cloze Completion item: a dialogue with a masked slot and a lettered option list."""

    index: int
    line: int
    question: str
    options_text: str  # the `选项` cell as given to the model
    options: tuple[tuple[str, str], ...]  # (letter, text) parsed from the cell
    answer: str

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(letter for letter, _ in self.options)


@dataclass(frozen=True)
class MouseSet(Generic[T]):
    path: Path
    sha256: str  # of the file bytes
    instances: tuple[T, ...]

    @property
    def content_sha256(self) -> str:
        """Hash of the instances' text and gold (not positions or file bytes): an official
        output file, which repeats every input column, hashes like its dataset file."""
        rows = [{k: v for k, v in asdict(i).items() if k not in ("index", "line")} for i in self.instances]
        payload = json.dumps(rows, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def __len__(self) -> int:
        return len(self.instances)

    def row_ids(self, split: str | None = None) -> list[int]:
        """Every row position (Mouse files have no splits), for builder.runs.selection."""
        if split is not None:
            raise ValueError("Mouse data files have no splits")
        return list(range(len(self.instances)))

    def __iter__(self) -> Iterator[T]:
        return iter(self.instances)


class _Cells:
    """Reads one row's cells, recording a located problem for each bad one."""

    def __init__(self, table: Table, row: Row, problems: list[Problem]):
        self.path, self.row, self.problems = str(table.path), row, problems

    def text(self, column: str) -> str:
        if column not in self.row.cells:
            return ""  # already reported as a missing column or field
        value = self.row.cells[column]
        if not value.strip():
            self.problem(column, "empty required cell")
        return value

    def digit(self, column: str, allowed: tuple[int, ...], what: str) -> int:
        value = self.text(column).strip()
        if value and (len(value) != 1 or not value.isascii() or not value.isdigit() or int(value) not in allowed):
            self.problem(column, f"{what} gold must be {_choices(allowed)}, got {excerpt(value)}")
            return allowed[0]
        return int(value) if value else allowed[0]

    def letter(self, column: str, allowed: tuple[str, ...], what: str) -> str:
        value = self.text(column).strip()
        if value and value not in allowed:
            self.problem(column, f"{what} gold must be {_choices(allowed)}, got {excerpt(value)}")
        return value

    def problem(self, column: str, message: str) -> None:
        self.problems.append(Problem(self.path, message, self.row.line, column))


def _choices(allowed: tuple) -> str:
    if len(allowed) > 3 and allowed == tuple(range(len(allowed))):
        return f"a digit 0-{len(allowed) - 1}"
    items = [str(a) for a in allowed]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def main_columns(gold: GoldColumns) -> tuple[str, ...]:
    return (SOURCE, REFERENCE, gold.main_eval_toxicity, gold.main_eval_intention,
            *(gold.component(c) for c in RC_COMPONENTS))


def main_instance(c: _Cells, gold: GoldColumns) -> MainInstance:
    """Cells are read in the file's column order, so problems are listed in that order."""
    source, reference = c.text(SOURCE), c.text(REFERENCE)
    toxicity = c.digit(gold.main_eval_toxicity, TD_LABELS, "toxicity")
    intention = c.digit(gold.main_eval_intention, IR_LABELS, "intention")
    comps = {name: c.digit(gold.component(name), RC_LABELS, f"{name} component") for name in RC_COMPONENTS}
    return MainInstance(c.row.index, c.row.line, source, reference, toxicity, intention, **comps)


def choice_instance(c: _Cells, gold: GoldColumns) -> ChoiceInstance:
    options = tuple(c.text(col) for col in MS_OPTIONS)
    return ChoiceInstance(c.row.index, c.row.line, c.text(QUESTION), options,  # type: ignore[arg-type]  # len(MS_OPTIONS) == 3
                          c.letter(gold.single_choice_answer, MS_LABELS, "MS"))


def cloze_instance(c: _Cells, gold: GoldColumns) -> ClozeInstance:
    text = c.text(CC_OPTIONS)
    options = parse_options(text)
    if text.strip() and not options:
        c.problem(CC_OPTIONS, "cannot read a lettered option list: expected 'A. …' then 'B. …' (at least two "
                  "options, markers A. A、 A: A) (A), the first at the start of the cell)")
    letters = tuple(letter for letter, _ in options)
    answer = c.letter(gold.icc_answer, letters, "CC") if options else c.text(gold.icc_answer).strip()
    return ClozeInstance(c.row.index, c.row.line, c.text(QUESTION), text, options, answer)


def build(table: Table, columns: tuple[str, ...], make: Callable[[_Cells, GoldColumns], T],
          gold: GoldColumns, problems: list[Problem] | None = None) -> MouseSet[T]:
    """Check columns, then every row; raise once with every problem found (including
    any `problems` the caller found in the same file)."""
    problems = list(problems or []) + require_columns(table, columns)
    if problems and table.kind == "csv":
        raise_problems(problems)
    instances = [make(_Cells(table, row, problems), gold) for row in table.rows]
    if not table.rows:
        problems.append(Problem(str(table.path), "no data rows", 1))
    raise_problems(problems)
    return MouseSet(table.path, table.sha256, tuple(instances))


def load_main(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS) -> MouseSet[MainInstance]:
    return build(read_table(path), main_columns(gold), main_instance, gold)


def load_single_choice(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS) -> MouseSet[ChoiceInstance]:
    return build(read_table(path), (QUESTION, *MS_OPTIONS, gold.single_choice_answer), choice_instance, gold)


def load_icc(path: str | Path, gold: GoldColumns = DEFAULT_GOLD_COLUMNS) -> MouseSet[ClozeInstance]:
    return build(read_table(path), (QUESTION, CC_OPTIONS, gold.icc_answer), cloze_instance, gold)
