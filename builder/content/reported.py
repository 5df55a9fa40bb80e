"""Figures from the literature (content/reported.yaml), always shown as "reported by".

Measured figures come from the facts table; these never enter it, so the site
can tell a reader which numbers it recomputed and which it only quotes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

from builder.errors import InputError, Problem

FIELDS = ("value", "unit", "what", "source")


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    date: str  # ISO date
    short: str  # how the page cites it inline, e.g. "the paper"
    url: str | None = None


@dataclass(frozen=True)
class Reported:
    key: str
    value: float
    unit: str  # "%", "F1", "items", "p", ""
    what: str
    source: Source
    quoted: str = ""  # the value as written in reported.yaml, e.g. "76.50": its precision is the source's

    @property
    def half_unit(self) -> float:
        """Half a unit in the last quoted digit: how far a figure may lie from the quote and
        still round to it ("41.39" -> 0.005, "1.1e-06" -> 5e-08, "3001" -> 0.5)."""
        exponent = Decimal(self.quoted or repr(self.value)).as_tuple().exponent
        return 0.5 * 10.0 ** int(exponent)


@dataclass(frozen=True)
class ReportedTable:
    figures: dict[str, Reported]
    sources: dict[str, Source]

    def __getitem__(self, key: str) -> Reported:
        return self.figures[key]

    def __contains__(self, key: object) -> bool:
        return key in self.figures


def load_reported(path: Path) -> ReportedTable:
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    quoted = _quoted_values(text)
    sources = _sources(path, data.get("sources") or {})
    figures: dict[str, Reported] = {}
    problems: list[Problem] = []
    for key, entry in (data.get("figures") or {}).items():
        missing = [f for f in FIELDS if not isinstance(entry, dict) or f not in entry]
        if missing:
            problems += [Problem(str(path), "required field is missing", None, f"figures.{key}.{m}") for m in missing]
            continue
        if entry["source"] not in sources:
            problems.append(Problem(str(path), f"unknown source {entry['source']!r}", None, f"figures.{key}.source"))
            continue
        figures[key] = Reported(key, float(entry["value"]), str(entry["unit"]), str(entry["what"]),
                                sources[entry["source"]], quoted.get(key, ""))
    if problems:
        raise InputError(problems)
    return ReportedTable(figures, sources)


def _sources(path: Path, raw: dict) -> dict[str, Source]:
    out = {}
    for sid, entry in raw.items():
        if not isinstance(entry, dict) or not {"title", "date", "short"} <= set(entry):
            raise InputError.single(path, "a source needs a title, a short name and a date", field=f"sources.{sid}")
        date = entry["date"]
        iso = date.isoformat() if isinstance(date, dt.date) else str(date)
        out[sid] = Source(sid, str(entry["title"]), iso, str(entry["short"]), entry.get("url"))
    return out


def _quoted_values(text: str) -> dict[str, str]:
    """figure key -> its `value` exactly as written (YAML parsing would drop "76.50"'s zero)."""
    root = yaml.compose(text)
    out: dict[str, str] = {}
    figures = _child(root, "figures")
    for key, entry in figures.value if isinstance(figures, yaml.MappingNode) else []:
        value = _child(entry, "value")
        if isinstance(value, yaml.ScalarNode):
            out[str(key.value)] = str(value.value)
    return out


def _child(node: yaml.Node | None, name: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if k.value == name), None)
