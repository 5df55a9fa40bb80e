"""Read predictions and statements from YAML, with located errors.

Every problem of every entry is reported at once, each with its line and field, and, when
the build's measures are given, every condition is tried once so that a parameter a measure
rejects (an unknown metric, an invalid `subject` pattern) is named here rather than failing
the build later without a location.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from builder.claims.engine import AGGREGATES, OPS, Condition, MeasureRegistry, Population, Prediction, Premise, Statement
from builder.core.errors import InputError, Problem
from builder.core.yamlfile import KeyPath, line_of, load_mapping

T = TypeVar("T")
_FIELD_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_PATTERN_PARAMS = ("subject",)  # params that measures read as regular expressions


class _Entry:
    """One entry's fields; every problem is recorded, so all of them are reported together."""

    def __init__(self, path: Path, raw: dict[str, Any], where: str, known: set[str]):
        self.path, self.raw, self.where, self.known = path, raw, where, known
        self.problems: list[Problem] = []

    def bad(self, message: str, field: str) -> None:
        self.problems.append(Problem(str(self.path), message, None, field))

    def text(self, name: str) -> str:
        value = self.raw.get(name)
        if not isinstance(value, str) or not value.strip():
            self.bad("required text is missing", f"{self.where}.{name}")
            return ""
        return value.strip()

    def date(self, name: str, *, required: bool) -> dt.date | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        if isinstance(value, dt.datetime):  # YAML reads 2026-09-22T10:00:00 as a moment: its day
            return value.date()
        if isinstance(value, dt.date):
            return value
        try:
            return dt.date.fromisoformat(str(value))
        except ValueError:
            self.bad(f"expected a date YYYY-MM-DD, got {value!r}", f"{self.where}.{name}")
            return None

    def conditions(self, name: str) -> tuple[Condition, ...]:
        raw = self.raw.get(name) or []
        if not isinstance(raw, list):
            self.bad("expected a list of conditions", f"{self.where}.{name}")
            return ()
        found = (self.condition(c, f"{self.where}.{name}[{i}]") for i, c in enumerate(raw))
        return tuple(c for c in found if c is not None)

    def condition(self, raw: Any, where: str) -> Condition | None:
        if not isinstance(raw, dict):
            self.bad("a condition is a mapping", where)
            return None
        before = len(self.problems)
        if raw.get("measure") not in self.known:
            self.bad(f"unknown measure {raw.get('measure')!r} (known: {', '.join(sorted(self.known))})", f"{where}.measure")
        if raw.get("aggregate", "all") not in AGGREGATES:
            self.bad(f"aggregate must be one of {', '.join(AGGREGATES)}", f"{where}.aggregate")
        if raw.get("op") not in OPS:
            self.bad(f"op must be one of {' '.join(OPS)}", f"{where}.op")
        threshold = raw.get("threshold")
        if not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or threshold != threshold:
            self.bad("threshold must be a number", f"{where}.threshold")
        params = raw.get("params") or {}
        if not isinstance(params, dict):
            self.bad("params is a mapping of names to values", f"{where}.params")
            params = {}
        for name in _PATTERN_PARAMS:
            if name in params:
                self.pattern(params[name], f"{where}.params.{name}")
        if len(self.problems) > before or not isinstance(threshold, (int, float)):
            return None
        return Condition(raw["measure"], dict(params), raw.get("aggregate", "all"), raw["op"],
                         float(threshold), str(raw.get("text", "")))

    def population(self) -> Population | None:
        """Whose runs count for a prediction (engine.Population); absent: every run."""
        raw = self.raw.get("population")
        if raw is None:
            return None
        where = f"{self.where}.population"
        if not isinstance(raw, dict) or set(raw) - {"text", "subjects", "qualify"}:
            self.bad("expected a mapping with text, subjects and/or qualify", where)
            return None
        subjects = raw.get("subjects") or []
        if not isinstance(subjects, list) or not all(isinstance(s, str) and s for s in subjects):
            self.bad("subjects must be a list of patterns", f"{where}.subjects")
            return None
        for i, s in enumerate(subjects):
            self.pattern(s, f"{where}.subjects[{i}]")
        qualify = self.condition(raw["qualify"], f"{where}.qualify") if "qualify" in raw else None
        if not subjects and "qualify" not in raw:
            self.bad("a population needs subjects or qualify", where)
        text = raw.get("text")
        if not isinstance(text, str) or not text.strip():
            self.bad("required text is missing", f"{where}.text")
            return None
        return Population(text.strip(), tuple(subjects), qualify)

    def premise(self) -> Premise | None:
        """What a run must meet to count (engine.Premise): a condition plus the text readers see."""
        raw = self.raw.get("premise")
        if raw is None:
            return None
        where = f"{self.where}.premise"
        if not isinstance(raw, dict):
            self.bad("expected a mapping: text, measure, params, aggregate, op, threshold", where)
            return None
        text = raw.get("text")
        if not isinstance(text, str) or not text.strip():
            self.bad("required text is missing", f"{where}.text")
        condition = self.condition({k: v for k, v in raw.items() if k != "text"}, where)
        if condition is None or not isinstance(text, str) or not text.strip():
            return None
        return Premise(text.strip(), condition)

    def pattern(self, value: Any, field: str) -> None:
        try:
            re.compile(value)
        except (re.error, TypeError) as exc:
            self.bad(f"not a valid regular expression: {exc}", field)


def load_predictions(path: Path, known_measures: set[str], registry: MeasureRegistry | None = None,
                     latest: dt.date | None = None) -> list[Prediction]:
    """`latest`: the last day a prediction may have been registered (the build's: see
    build_date.latest_moment); None leaves that unchecked."""
    def build(e: _Entry) -> Prediction:
        registered, deadline = e.date("registered", required=True), e.date("deadline", required=False)
        _check_dates(e, registered, deadline, latest)
        return Prediction(
            id=e.text("id"), claim=e.text("claim"), source=e.text("source"),
            registered=registered,  # type: ignore[arg-type]  # required: None only with a problem, which drops the item
            deadline=deadline,
            supported_when=e.conditions("supported_when"), refuted_when=e.conditions("refuted_when"),
            note=str(e.raw.get("note", "")), population=e.population(), premise=e.premise(),
        )
    return _load(path, "predictions", known_measures, build, registry)


def _check_dates(e: _Entry, registered: dt.date | None, deadline: dt.date | None, latest: dt.date | None) -> None:
    """A prediction is registered before its deadline and not after the build: one registered
    later would be judged "open" on evidence it was written after."""
    if registered is None:
        return
    if deadline is not None and registered > deadline:
        e.bad(f"registered {registered} is after its own deadline {deadline}", f"{e.where}.registered")
    if latest is not None and registered > latest:
        e.bad(f"registered {registered} is after this build ({latest}): a prediction cannot be registered in the future",
              f"{e.where}.registered")


def load_statements(path: Path, known_measures: set[str], registry: MeasureRegistry | None = None) -> list[Statement]:
    def build(e: _Entry) -> Statement:
        return Statement(id=e.text("id"), claim=e.text("claim"), source=e.text("source"),
                         holds_when=e.conditions("holds_when"), note=str(e.raw.get("note", "")))
    return _load(path, "claims", known_measures, build, registry)


def _load(path: Path, key: str, known: set[str], build: Callable[[_Entry], T],
          registry: MeasureRegistry | None) -> list[T]:
    """Build every entry, collecting all problems (and duplicate ids) before failing."""
    entries, lines = _entries(path, key)
    problems: list[Problem] = []
    out: list[T] = []
    for index, raw in enumerate(entries):
        entry = _Entry(path, raw, f"{key}[{index}]", known)
        item = build(entry)
        if registry is not None and not entry.problems:
            _dry_run(entry, item, registry)
        problems.extend(entry.problems)
        if not entry.problems:
            out.append(item)
    _unique_ids(path, [item.id for item in out], problems)  # type: ignore[attr-defined]  # every entry kind has an id
    if problems:
        raise InputError([_located(p, lines) for p in problems])
    return out


def _dry_run(entry: _Entry, item: Any, registry: MeasureRegistry) -> None:
    """Ask each measure once, so a parameter it rejects is reported with its entry and field."""
    premise = getattr(item, "premise", None)
    tried = [(f"{name}[{i}]", c) for name in ("supported_when", "refuted_when", "holds_when")
             for i, c in enumerate(getattr(item, name, ()))]
    for where, condition in tried + ([("premise", premise.condition)] if premise else []):
        try:
            registry.evidence(condition)
        except (TypeError, ValueError, KeyError, re.error) as exc:
            entry.bad(f"measure {condition.measure!r} rejects its params: {exc}", f"{entry.where}.{where}.params")


def _entries(path: Path, key: str) -> tuple[list[dict[str, Any]], dict[KeyPath, int]]:
    data, lines = load_mapping(path)
    entries = data.get(key)
    if not isinstance(entries, list):
        raise InputError.single(path, f"expected a list of mappings under {key!r}", line=line_of(lines, (key,)), field=key)
    problems = [Problem(str(path), "expected a mapping", line_of(lines, (key, i)), f"{key}[{i}]")
                for i, e in enumerate(entries) if not isinstance(e, dict)]
    if problems:
        raise InputError(problems)
    return entries, lines


def key_path(field: str) -> KeyPath:
    """"claims[0].holds_when[1].op" -> ("claims", 0, "holds_when", 1, "op")."""
    return tuple(int(index) if index else name for name, index in _FIELD_PART.findall(field))


def _located(problem: Problem, lines: dict[KeyPath, int]) -> Problem:
    if problem.line is not None or not problem.field:
        return problem
    return Problem(problem.path, problem.message, line_of(lines, key_path(problem.field)), problem.field)


def _unique_ids(path: Path, ids: list[str], problems: list[Problem]) -> None:
    seen = set()
    for i in ids:
        if i in seen:
            problems.append(Problem(str(path), f"id {i!r} is used twice", None, "id"))
        seen.add(i)
