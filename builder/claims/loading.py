"""Read predictions and statements from YAML, with located errors."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar

import yaml

from builder.claims.engine import AGGREGATES, OPS, Condition, Population, Prediction, Statement
from builder.errors import InputError, Problem

T = TypeVar("T")


def load_predictions(path: Path, known_measures: set[str]) -> list[Prediction]:
    def build(entry: dict[str, Any], where: str) -> Prediction:
        return Prediction(
            id=_text(path, entry, "id", where), claim=_text(path, entry, "claim", where),
            source=_text(path, entry, "source", where),
            registered=_date(path, entry, "registered", where, required=True),
            deadline=_date(path, entry, "deadline", where, required=False),
            supported_when=_conditions(path, entry, "supported_when", where, known_measures),
            refuted_when=_conditions(path, entry, "refuted_when", where, known_measures),
            note=str(entry.get("note", "")),
            population=_population(path, entry, where, known_measures),
        )
    return _load(path, "predictions", build)


def _population(path: Path, entry: dict, where: str, known: set[str]) -> Population | None:
    raw = entry.get("population")
    if raw is None:
        return None
    field = f"{where}.population"
    if not isinstance(raw, dict) or set(raw) - {"text", "subjects", "qualify"}:
        raise InputError.single(path, "expected a mapping with text, subjects and/or qualify", field=field)
    subjects = raw.get("subjects") or []
    if not isinstance(subjects, list) or not all(isinstance(s, str) and s for s in subjects):
        raise InputError.single(path, "subjects must be a list of patterns", field=f"{field}.subjects")
    for s in subjects:
        try:
            re.compile(s)
        except re.error as exc:
            raise InputError.single(path, f"not a valid pattern: {exc}", field=f"{field}.subjects") from None
    qualify = _condition(path, raw["qualify"], f"{field}.qualify", known) if "qualify" in raw else None
    if not subjects and qualify is None:
        raise InputError.single(path, "a population needs subjects or qualify", field=field)
    return Population(_text(path, raw, "text", field), tuple(subjects), qualify)


def load_statements(path: Path, known_measures: set[str]) -> list[Statement]:
    def build(entry: dict[str, Any], where: str) -> Statement:
        return Statement(
            id=_text(path, entry, "id", where), claim=_text(path, entry, "claim", where),
            source=_text(path, entry, "source", where),
            holds_when=_conditions(path, entry, "holds_when", where, known_measures),
            note=str(entry.get("note", "")),
        )
    return _load(path, "claims", build)


def _load(path: Path, key: str, build: Callable[[dict[str, Any], str], T]) -> list[T]:
    """Build every entry, collecting all problems (and duplicate ids) before failing."""
    problems: list[Problem] = []
    out: list[T] = []
    for index, entry in enumerate(_entries(path, key)):
        try:
            out.append(build(entry, f"{key}[{index}]"))
        except InputError as exc:
            problems.extend(exc.problems)
    _unique_ids(path, [item.id for item in out], problems)  # type: ignore[attr-defined]
    if problems:
        raise InputError(problems)
    return out


def _entries(path: Path, key: str) -> list[dict[str, Any]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError.single(path, f"not valid YAML: {exc}", line=mark.line + 1 if mark else None) from exc
    entries = data.get(key) if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError.single(path, f"expected a list of mappings under {key!r}", field=key)
    return entries


def _text(path: Path, entry: dict, name: str, where: str) -> str:
    value = entry.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError.single(path, "required text is missing", field=f"{where}.{name}")
    return value.strip()


def _date(path: Path, entry: dict, name: str, where: str, *, required: bool) -> dt.date | None:
    value = entry.get(name)
    if value is None and not required:
        return None
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise InputError.single(path, f"expected a date YYYY-MM-DD, got {value!r}", field=f"{where}.{name}") from None


def _conditions(path: Path, entry: dict, name: str, where: str, known: set[str]) -> tuple[Condition, ...]:
    raw = entry.get(name) or []
    if not isinstance(raw, list):
        raise InputError.single(path, "expected a list of conditions", field=f"{where}.{name}")
    return tuple(_condition(path, c, f"{where}.{name}[{i}]", known) for i, c in enumerate(raw))


def _condition(path: Path, raw: Any, where: str, known: set[str]) -> Condition:
    if not isinstance(raw, dict):
        raise InputError.single(path, "a condition is a mapping", field=where)
    problems = []
    if raw.get("measure") not in known:
        problems.append(Problem(str(path), f"unknown measure {raw.get('measure')!r} (known: {', '.join(sorted(known))})", None, f"{where}.measure"))
    if raw.get("aggregate", "all") not in AGGREGATES:
        problems.append(Problem(str(path), f"aggregate must be one of {', '.join(AGGREGATES)}", None, f"{where}.aggregate"))
    if raw.get("op") not in OPS:
        problems.append(Problem(str(path), f"op must be one of {' '.join(OPS)}", None, f"{where}.op"))
    if not isinstance(raw.get("threshold"), (int, float)) or isinstance(raw.get("threshold"), bool):
        problems.append(Problem(str(path), "threshold must be a number", None, f"{where}.threshold"))
    if problems:
        raise InputError(problems)
    return Condition(raw["measure"], dict(raw.get("params") or {}), raw.get("aggregate", "all"), raw["op"],
                     float(raw["threshold"]), str(raw.get("text", "")))


def _unique_ids(path: Path, ids: list[str], problems: list[Problem]) -> None:
    seen = set()
    for i in ids:
        if i in seen:
            problems.append(Problem(str(path), f"id {i!r} is used twice", None, "id"))
        seen.add(i)
