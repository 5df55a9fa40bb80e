"""Statements of figures a source publishes, each tied to the recomputation that checks it: the
file format of content/article-figures.yaml (CIBuzzBench's published probe) and
content/reconciliation/<bench>.yaml (a spec'd benchmark's upstream).

The quoted values themselves stay in content/reported.yaml (one place, with their source);
a statements file only says where the source states each one and how the site recomputes it,
so the comparison (builder.claims.fidelity) is data, not prose.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.reported import ReportedTable
from builder.core.errors import Problem, InputError
from builder.core.yamlfile import line_of, load_yaml

KINDS = ("data", "counts", "model_run")
FUNCTIONS = ("r", "mcnemar")  # r("reported.key"): a quoted figure; mcnemar(fixes, breaks): exact p
_ID = re.compile(r"[a-z0-9][a-z0-9_-]*")
_FIELDS = {"id", "figure", "where", "fact", "derive", "context", "tolerance", "reason", "note"}


@dataclass(frozen=True)
class Context:
    """A related fact shown beside the recomputation (e.g. the five-seed mean)."""

    fact: str
    label: str


@dataclass(frozen=True)
class FigureStatement:
    id: str
    figure: str  # key in reported.yaml: the quoted value, its precision and source
    where: str  # where and how the source states it
    fact: str | None = None  # recomputed from the data: this fact
    derive: str | None = None  # recomputed from the source's own figures: this expression
    context: tuple[Context, ...] = ()
    tolerance: float | None = None  # None: half a unit in the quoted value's last digit
    reason: str = ""  # why the site's figure differs (shown only when it does)
    note: str = ""  # how to read the comparison (always shown)
    line: int | None = None

    @property
    def recomputable(self) -> bool:
        return self.fact is not None or self.derive is not None

    @property
    def kind(self) -> str:
        """How far the site can check it (KINDS): from the data, only against the source's own
        counts (arithmetic, not a reproduction), or not at all without the source's model run."""
        return "data" if self.fact is not None else "counts" if self.derive is not None else "model_run"


def load_figure_statements(path: Path, reported: ReportedTable) -> list[FigureStatement]:
    """Every statement, checked: known reported figures, at most one recomputation, an
    expression that uses only `r`, `mcnemar`, numbers and + - * /. Fact keys are checked
    when facts exist (`builder.claims.fidelity.check_fact_keys`)."""
    data, lines = load_yaml(path)
    entries = data.get("statements") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise InputError.single(path, "expected a non-empty list under 'statements'", line=1, field="statements")
    problems: list[Problem] = []
    out: list[FigureStatement] = []
    for index, entry in enumerate(entries):
        where = ("statements", index)

        def add(message: str, name: str | None = None) -> None:
            key = where + ((name,) if name else ())
            problems.append(Problem(str(path), message, line_of(lines, key), f"statements[{index}]" + (f".{name}" if name else "")))

        statement = _statement(entry, reported, add, line_of(lines, where))
        if statement is not None:
            out.append(statement)
    seen: set[str] = set()
    for index, s in enumerate(out):
        if s.id in seen:
            problems.append(Problem(str(path), f"id {s.id!r} is used twice", s.line, f"statements[{index}].id"))
        seen.add(s.id)
    if problems:
        raise InputError(problems)
    return out


def _statement(entry: Any, reported: ReportedTable, add, line: int | None) -> FigureStatement | None:
    if not isinstance(entry, dict):
        add("a statement is a mapping")
        return None
    before = _Count(add)
    for name in sorted(set(entry) - _FIELDS):
        before.add(f"unknown field (known: {', '.join(sorted(_FIELDS))})", name)
    for name in ("id", "figure", "where"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            before.add("required text is missing", name)
    if isinstance(entry.get("id"), str) and not _ID.fullmatch(entry["id"]):
        before.add("an id is lower case letters, digits, '-' and '_'", "id")
    if isinstance(entry.get("figure"), str) and entry["figure"] not in reported:
        before.add(f"unknown reported figure {entry['figure']!r} (content/reported.yaml)", "figure")
    if entry.get("fact") is not None and entry.get("derive") is not None:
        before.add("give either fact or derive, not both", "derive")
    for name in ("fact", "derive", "reason", "note"):
        if entry.get(name) is not None and not isinstance(entry[name], str):
            before.add("expected text", name)
    if isinstance(entry.get("derive"), str):
        for message in check_expression(entry["derive"], reported):
            before.add(message, "derive")
    tolerance = entry.get("tolerance")
    if tolerance is not None and (isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0):
        before.add("expected a number >= 0", "tolerance")
    context = _context(entry.get("context"), before)
    if before.count:
        return None
    return FigureStatement(
        id=entry["id"], figure=entry["figure"], where=entry["where"].strip(), fact=entry.get("fact"),
        derive=entry.get("derive"), context=context, tolerance=None if tolerance is None else float(tolerance),
        reason=str(entry.get("reason") or "").strip(), note=str(entry.get("note") or "").strip(), line=line)


class _Count:
    """Counts the problems added for one statement."""

    def __init__(self, add):
        self._add, self.count = add, 0

    def add(self, message: str, name: str | None = None) -> None:
        self.count += 1
        self._add(message, name)


def _context(raw: Any, problems: _Count) -> tuple[Context, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(c, dict) and isinstance(c.get("fact"), str)
                                            and isinstance(c.get("label"), str) for c in raw):
        problems.add("expected a list of {fact, label}", "context")
        return ()
    return tuple(Context(c["fact"], c["label"]) for c in raw)


def check_expression(text: str, reported: ReportedTable) -> list[str]:
    """Problems with a derive expression; empty when it can be evaluated."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        return [f"not an expression: {exc.msg}"]
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS) or node.keywords:
                problems.append(f"only {', '.join(FUNCTIONS)} may be called")
            elif node.func.id == "r":
                arg = node.args[0] if len(node.args) == 1 else None
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    problems.append("r() takes one quoted figure key")
                elif arg.value not in reported:
                    problems.append(f"unknown reported figure {arg.value!r}")
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load,
                                   ast.Add, ast.Sub, ast.Mult, ast.Div, ast.USub)):
            problems.append(f"{type(node).__name__} is not allowed (numbers, r(), mcnemar(), + - * / only)")
        elif isinstance(node, ast.Name) and node.id not in FUNCTIONS:
            problems.append(f"unknown name {node.id!r}")
    return problems

