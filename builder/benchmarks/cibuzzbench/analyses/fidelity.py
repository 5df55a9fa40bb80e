"""Compare each figure the published probe states with the site's recomputation.

A figure "matches" when the site's value lies within the statement's tolerance of the quoted
one (by default half a unit in the quoted last digit, i.e. it rounds to the quote); the
verdict is a fact, so the page's wording follows the numbers. Figures that only a model run
could reproduce get no fact: the page lists them as reported.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from pathlib import Path

from builder.stats.paired import mcnemar_exact
from builder.benchmarks.cibuzzbench.article_figures import ArticleStatement
from builder.core.reported import ReportedTable
from builder.core.errors import InputError, Problem
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.core.facts import FactTable

_OPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def add_fidelity_facts(facts: FactTable, statements: Sequence[ArticleStatement], reported: ReportedTable) -> None:
    """`fidelity.<id>.site | .difference | .matches` per statement recomputable in this build,
    and counts. A statement whose fact is missing (its runs are not in the build) is counted as
    unavailable; `check_fact_keys` catches misspelt keys against a full build."""
    counts = dict.fromkeys(("recomputed", "matches", "differs", "reported_only", "unavailable"), 0)
    by_kind = {kind: dict.fromkeys(("recomputed", "matches", "differs", "unavailable"), 0) for kind in ("data", "counts")}
    for s in statements:
        if not s.recomputable:
            counts["reported_only"] += 1
            continue
        if s.fact is not None and s.fact not in facts:
            counts["unavailable"] += 1
            by_kind[s.kind]["unavailable"] += 1
            continue
        figure = reported[s.figure]
        site, how, runs = _site_value(s, facts, reported)
        tolerance = figure.half_unit if s.tolerance is None else s.tolerance
        matches = abs(site - figure.value) <= tolerance * (1 + 1e-9)
        facts.add(K.FIDELITY_SITE.key(statement=s.id), site, how, runs)
        facts.add(K.FIDELITY_DIFFERENCE.key(statement=s.id), site - figure.value,
                  f"site's value minus the quoted {figure.quoted or figure.value} ({s.figure})", runs)
        facts.add(K.FIDELITY_MATCHES.key(statement=s.id), int(matches),
                  f"1 when |difference| <= {tolerance:g} ({'half a unit in the quoted last digit' if s.tolerance is None else 'stated tolerance'}), else 0",
                  runs)
        for tally in (counts, by_kind[s.kind]):
            tally["recomputed"] += 1
            tally["matches" if matches else "differs"] += 1
    for name, n in counts.items():
        facts.add(K.FIDELITY_COUNT.key(outcome=name), n, f"article statements: {name.replace('_', ' ')}")
    how = {"data": "recomputed from the data", "counts": "checked against the probe's own counts"}
    for kind, tally in by_kind.items():
        for name, n in tally.items():
            facts.add(K.FIDELITY_KIND_COUNT.key(kind=kind, outcome=name), n, f"article statements {how[kind]}: {name}")


def check_fact_keys(statements: Sequence[ArticleStatement], facts: FactTable, source: Path) -> None:
    """Every fact a statement names exists: for a build with every run (tests, real builds)."""
    missing = [Problem(str(source), f"unknown fact key {key!r}", s.line, f"{s.id}.{name}")
               for s in statements for name, key in _fact_keys(s) if key not in facts]
    if missing:
        raise InputError(missing)


def _fact_keys(s: ArticleStatement) -> list[tuple[str, str]]:
    keys = [("fact", s.fact)] if s.fact else []
    return keys + [("context", c.fact) for c in s.context]


def _site_value(s: ArticleStatement, facts: FactTable, reported: ReportedTable) -> tuple[float, str, tuple[str, ...]]:
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
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.UnaryOp):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp):
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "r":
                return reported[node.args[0].value].value  # type: ignore[attr-defined]
            a, b = (walk(arg) for arg in node.args)
            return mcnemar_exact(int(a), int(b))
        raise ValueError(f"cannot evaluate {ast.dump(node)}")
    return walk(ast.parse(text, mode="eval"))
