"""Figures from the literature (content/reported.yaml), always shown as "reported by".

Measured figures come from the facts table; these never enter it, so the site
can tell a reader which numbers it recomputed and which it only quotes.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

from builder.core.errors import InputError, Problem
from builder.core.yamlfile import line_of, load_mapping, load_yaml_node, web_link_problem

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
    """Every problem of every entry, each with its line, in one error."""
    data, lines, root = load_yaml_node(path)
    if not isinstance(data, dict):
        data, lines = load_mapping(path)  # the located "expected a mapping" error, or {} for an empty file
    quoted = _quoted_values(root)
    problems: list[Problem] = []

    def bad(message: str, *key: str | int) -> None:
        problems.append(Problem(str(path), message, line_of(lines, key), ".".join(map(str, key))))

    raw_sources = _section(data, "sources", bad)
    sources = _sources(raw_sources, bad)
    figures: dict[str, Reported] = {}
    for key, entry in _section(data, "figures", bad).items():
        if not isinstance(entry, dict):
            bad("a figure is a mapping of value, unit, what and source", "figures", key)
            continue
        before = len(problems)
        for name in FIELDS:
            if name not in entry:
                bad("required field is missing", "figures", key, name)
        value = entry.get("value")
        if "value" in entry and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                 or not math.isfinite(value)):
            bad(f"expected a finite number, got {value!r}", "figures", key, "value")
        if "source" in entry and entry["source"] not in raw_sources:
            bad(f"unknown source {entry['source']!r} (known: {', '.join(sorted(map(str, raw_sources)))})",
                "figures", key, "source")
        if len(problems) == before and isinstance(value, (int, float)) and entry["source"] in sources:  # a broken source is reported once, above
            figures[str(key)] = Reported(str(key), float(value), str(entry["unit"]), str(entry["what"]),
                                         sources[entry["source"]], quoted.get(str(key), ""))
    if problems:
        raise InputError(problems)
    return ReportedTable(figures, sources)


def _section(data: dict, name: str, bad: Callable[..., None]) -> dict:
    section = data.get(name) or {}
    if not isinstance(section, dict):
        bad("expected a mapping", name)
        return {}
    return section


def _sources(raw: dict, bad: Callable[..., None]) -> dict[str, Source]:
    out = {}
    for sid, entry in raw.items():
        if not isinstance(entry, dict) or not {"title", "date", "short"} <= set(entry):
            bad("a source needs a title, a short name and a date", "sources", sid)
            continue
        url = entry.get("url")
        if url is not None and (problem := web_link_problem(url)):
            bad(problem, "sources", sid, "url")
            continue
        date = entry["date"]
        iso = date.isoformat() if isinstance(date, dt.date) else str(date)
        out[sid] = Source(str(sid), str(entry["title"]), iso, str(entry["short"]), url)
    return out


def _quoted_values(root: yaml.Node | None) -> dict[str, str]:
    """figure key -> its `value` exactly as written (YAML parsing would drop "76.50"'s zero)."""
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
