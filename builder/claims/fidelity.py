"""Compare each figure a source states with the site's recomputation (any benchmark's).

A figure "matches" when the site's value lies within the statement's tolerance of the quoted
one (by default half a unit in the quoted last digit, i.e. it rounds to the quote); the
verdict is a fact, so the page's wording follows the numbers. Figures that only a model run
could reproduce get no fact: the page lists them as reported. Which fact patterns one
comparison writes is the caller's (`FidelityKeys`): CIBuzzBench's article checks, a spec'd
benchmark's reconciliation with its upstream.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.claims.figure_statements import FigureStatement
from builder.core.errors import InputError, Problem
from builder.core.facts import FactTable
from builder.core.reported import ReportedTable
from builder.stats.paired import mcnemar_exact

OUTCOMES = ("recomputed", "matches", "differs", "reported_only", "unavailable")


@dataclass(frozen=True)
class FidelityKeys:
    """The fact patterns (builder.core.factkeys.FactPattern) one comparison writes, the extra key
    parts they all take (e.g. (("bench", "mmlu-pro"),)) and what the counts count."""

    site: Any
    difference: Any
    matches: Any
    count: Any
    values: tuple[tuple[str, str], ...] = ()
    what: str = "statements"

    def key(self, pattern: Any, **parts: str) -> str:
        return pattern.key(**dict(self.values), **parts)


_OPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def add_fidelity_facts(facts: FactTable, statements: Sequence[FigureStatement], reported: ReportedTable,
                       keys: FidelityKeys) -> dict[str, dict[str, int]]:
    """`<site> | <difference> | <matches>` per statement recomputable in this build, and counts
    (OUTCOMES). A statement whose fact is missing (its runs are not in the build) is counted as
    unavailable; `check_fact_keys` catches misspelt keys against a full build. Returns the same
    counts by statement kind ("data", "counts"), for a caller that shows the kinds apart."""
    counts = dict.fromkeys(OUTCOMES, 0)
    by_kind = {kind: dict.fromkeys(("recomputed", "matches", "differs", "unavailable"), 0) for kind in ("data", "counts")}
    for s in statements:
        if not s.recomputable:
            counts["reported_only"] += 1
            continue
        if s.fact is not None and s.fact not in facts:
            counts["unavailable"] += 1
            by_kind[s.kind]["unavailable"] += 1
            continue
        matches = _add_comparison(facts, s, reported, keys)
        for tally in (counts, by_kind[s.kind]):
            tally["recomputed"] += 1
            tally["matches" if matches else "differs"] += 1
    for name, n in counts.items():
        facts.add(keys.key(keys.count, outcome=name), n, f"{keys.what}: {name.replace('_', ' ')}")
    return by_kind


def _add_comparison(facts: FactTable, s: FigureStatement, reported: ReportedTable, keys: FidelityKeys) -> bool:
    """The site's value, its difference from the quote and the verdict of one statement."""
    figure = reported[s.figure]
    site, how, runs = _site_value(s, facts, reported)
    tolerance = figure.half_unit if s.tolerance is None else s.tolerance
    matches = abs(site - figure.value) <= tolerance * (1 + 1e-9)
    facts.add(keys.key(keys.site, statement=s.id), site, how, runs)
    facts.add(keys.key(keys.difference, statement=s.id), site - figure.value,
              f"site's value minus the quoted {figure.quoted or figure.value} ({s.figure})", runs)
    facts.add(keys.key(keys.matches, statement=s.id), int(matches),
              f"1 when |difference| <= {tolerance:g} ({'half a unit in the quoted last digit' if s.tolerance is None else 'stated tolerance'}), else 0",
              runs)
    return matches


def check_fact_keys(statements: Sequence[FigureStatement], facts: FactTable, source: Path) -> None:
    """Every fact a statement names exists: for a build with every run (tests, real builds)."""
    missing = [Problem(str(source), f"unknown fact key {key!r}", s.line, f"{s.id}.{name}")
               for s in statements for name, key in _fact_keys(s) if key not in facts]
    if missing:
        raise InputError(missing)


def _fact_keys(s: FigureStatement) -> list[tuple[str, str]]:
    keys = [("fact", s.fact)] if s.fact else []
    return keys + [("context", c.fact) for c in s.context]


def _site_value(s: FigureStatement, facts: FactTable, reported: ReportedTable) -> tuple[float, str, tuple[str, ...]]:
    if s.fact is not None:
        origin = facts.provenance[s.fact]
        return float(facts[s.fact]), f"= {s.fact} ({origin.computation})", origin.runs
    assert s.derive is not None
    value = evaluate(s.derive, reported)
    return value, f"recomputed from the article's own figures: {s.derive}", ()


def evaluate(text: str, reported: ReportedTable) -> float:
    """Evaluate a checked derive expression (see `check_expression`)."""
    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):  # check_expression allows no other
            return float(node.value)
        if isinstance(node, ast.UnaryOp):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp):
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "r" and isinstance(node.args[0], ast.Constant):  # check_expression: a quoted key
                return reported[str(node.args[0].value)].value
            a, b = (walk(arg) for arg in node.args)
            return mcnemar_exact(int(a), int(b))
        raise ValueError(f"cannot evaluate {ast.dump(node)}")
    return walk(ast.parse(text, mode="eval"))
