"""A spec'd benchmark's own figures against its upstream's reported ones: the shared fidelity
machinery (builder.claims.figure_statements, builder.claims.fidelity, builder.site.fidelity_table)
over content/reconciliation/<bench>.yaml and content/reported.yaml, with `mcq.<bench>.reconcile.*`
facts, so the verdict (matches / differs, with the reason) follows the numbers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq import fact_keys as K
from builder.claims.figure_statements import load_figure_statements
from builder.core.reported import load_reported
from builder.claims.fidelity import FidelityKeys
from builder.claims.fidelity import add_fidelity_facts
from builder.site.fidelity_table import fidelity_table

FOLDER = "reconciliation"


@dataclass(frozen=True)
class Reconciliation:
    statements: tuple[Any, ...]  # FigureStatement
    reported: Any  # ReportedTable
    source: Path


def load_reconciliation(content_dir: Path, bench: str) -> Reconciliation | None:
    path = content_dir / FOLDER / f"{bench}.yaml"
    if not path.is_file():
        return None
    reported = load_reported(content_dir / "reported.yaml")
    return Reconciliation(tuple(load_figure_statements(path, reported)), reported, path)


def keys(bench: str) -> Any:
    return FidelityKeys(K.RECONCILE_SITE, K.RECONCILE_DIFFERENCE, K.RECONCILE_MATCHES, K.RECONCILE_COUNT,
                        (("bench", bench),), "upstream figures")


def add_reconciliation_facts(facts: Any, bench: str, r: Reconciliation) -> None:
    add_fidelity_facts(facts, r.statements, r.reported, keys(bench))


def reconciliation_table(cells: Any, bench: str, title: str, r: Reconciliation) -> Any:
    return fidelity_table(cells, r.statements, r.reported, keys=keys(bench), table=(
        f"mcq-{bench}-reconcile", f"{title}: the upstream's reported accuracies against this site's recomputation",
        "What the upstream reports", "Reported", "Matches: the site's value rounds to the reported figure (within "
        "half a unit of its last digit). This site: the official accuracy of the run of that model's published "
        f"output file, scored as the upstream's script scores it. Statements: {FOLDER}/{bench}.yaml."))
