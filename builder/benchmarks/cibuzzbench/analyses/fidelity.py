"""CIBuzzBench's article checks: each figure the published probe states against the site's
recomputation (builder.claims.fidelity), as `fidelity.*` facts, with the counts split by the
way a figure can be checked (the article page's three tables).
"""

from __future__ import annotations

from collections.abc import Sequence

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.claims.fidelity import FidelityKeys, add_fidelity_facts
from builder.claims.figure_statements import FigureStatement
from builder.core.facts import FactTable
from builder.core.reported import ReportedTable

ARTICLE = FidelityKeys(K.FIDELITY_SITE, K.FIDELITY_DIFFERENCE, K.FIDELITY_MATCHES, K.FIDELITY_COUNT,
                       what="article statements")
_HOW = {"data": "recomputed from the data", "counts": "checked against the probe's own counts"}


def add_article_fidelity_facts(facts: FactTable, statements: Sequence[FigureStatement],
                               reported: ReportedTable) -> None:
    """`fidelity.<id>.site | .difference | .matches`, the counts, and the counts by kind
    (`fidelity.<data|counts>.<outcome>.count`)."""
    by_kind = add_fidelity_facts(facts, statements, reported, ARTICLE)
    for kind, tally in by_kind.items():
        for name, n in tally.items():
            facts.add(K.FIDELITY_KIND_COUNT.key(kind=kind, outcome=name), n, f"article statements {_HOW[kind]}: {name}")
