"""The Mouse paper's reported tables as facts, the figures derived from them, and the check of
its statements (the compute stage; views/ lays them out).

`compute_mouse` adds the Mouse facts to the build's FactTable and checks the paper's
statements (content/mouse/claims.yaml). Every displayed number is a fact: either a reported
cell (`mouse.reported.…`, `add_reported_facts`) or a figure computed here from those cells,
whose provenance says how. Measured runs are analyses.measured_runs' (the plug-in adds them).

Fact keys added here (values on the paper's 0-1 scale):
- `mouse.reported.<main|mcc|human_cc>.<row slug>.<column>` — every cell (unless the compute
  stage already added them with `add_reported_facts`);
- `mouse.reported.text.<name>` — figures stated in the paper's text (`text_figures` in reported.yaml);
- `mouse.derived.models`, `mouse.derived.group.<group>.n`, `mouse.derived.group.<group>.<column>`
  (mean over the group's models), `mouse.derived.group_gap.<column>` (commercial − local);
- `mouse.derived.human_cc.<fp|ufp>.minus_best_model` (Table 6);
- `mouse.claims.<claim id>.c<n>.<evidence label slug>` and `….c<n>.<aggregate>` — the evidence
  and aggregated value of each claim condition (n counts from 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.mouse import fact_keys as K
from builder.benchmarks.mouse.analyses.paper_claims import load_mouse_claims, register_mouse_measures
from builder.benchmarks.mouse.reported import Reported, ReportedTable, load_reported
from builder.claims.engine import MeasureRegistry, StatementVerdict, judge_statement
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.core.names import slug
from builder.core.yamlfile import line_of, load_mapping

COMMERCIAL, LOCAL = "commercial", "local"
REPORTED = "reported by the paper"


def text_figures(folder: Path) -> list[tuple[str, float, str]]:
    """Figures the paper states in its text, not in a table (transcribed in shared/data/mouse/README.md),
    kept with the tables in content/mouse/reported.yaml."""
    path = folder / "reported.yaml"
    data, lines = load_mapping(path)
    entries = data.get("text_figures") or {}
    if not isinstance(entries, dict):
        raise InputError.single(path, "expected a mapping of figures", line=line_of(lines, ("text_figures",)),
                                field="text_figures")
    out = []
    for name, entry in entries.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("value"), (int, float)) or "what" not in entry:
            raise InputError.single(path, "expected {value: <number>, what: <text>}",
                                    line=line_of(lines, ("text_figures", name)), field=f"text_figures.{name}")
        out.append((str(name), entry["value"], str(entry["what"])))
    return out


@dataclass(frozen=True)
class MouseComputed:
    reported: Reported
    verdicts: list[StatementVerdict]


def compute_mouse(facts: FactTable, content_dir: Path) -> MouseComputed:
    """Load content/mouse, add its facts and check the paper's statements (compute stage)."""
    folder = Path(content_dir) / "mouse"
    reported = load_reported(folder)
    add_mouse_facts(facts, reported, folder)
    registry = MeasureRegistry()
    register_mouse_measures(registry, reported)
    verdicts = [judge_statement(s, registry) for s in load_mouse_claims(folder / "claims.yaml", registry)]
    add_claim_facts(facts, verdicts, reported)
    return MouseComputed(reported, verdicts)


def reported_key(reported: Reported, table: ReportedTable, row: str, column: str) -> str:
    """The key `add_reported_facts` gives a cell."""
    return K.REPORTED_CELL.key(table=table.name, row=slug(reported.humans.get(row, row)), column=column)


def cite(reported: Reported, table: ReportedTable | None = None) -> str:
    where = f"Table {table.table} of " if table else ""
    return f"reported in {where}{reported.source.citation()}"


def add_mouse_facts(facts: FactTable, reported: Reported, folder: Path) -> None:
    if not any((found := K.REPORTED_CELL.values(k)) and found["table"] == "main" for k in facts.values):
        add_reported_facts(facts, reported)
    for name, value, what in text_figures(folder):
        facts.add(K.REPORTED_TEXT.key(name=name), value, f"{what}; stated in the text of {reported.source.citation()}")
    facts.add(K.DERIVED_MODELS.key(), len(reported.models), f"models in {cite(reported, reported.main)}")
    add_group_facts(facts, reported)
    add_human_facts(facts, reported)


def add_group_facts(facts: FactTable, reported: Reported) -> None:
    """Commercial and local means per Table 3 column, and their difference."""
    main = reported.main
    for group, members in reported.groups.items():
        facts.add(K.GROUP_SIZE.key(group=group), len(members),
                  f"models in buzzprobe's {group} group (content/mouse/reported.yaml)")
        for column in main.columns:
            facts.add(K.GROUP_MEAN.key(group=group, column=column), _group_mean(reported, group, column),
                      f"unweighted mean of {column} over the {group} models ({', '.join(members)}), "
                      f"{cite(reported, main)}")
    if {COMMERCIAL, LOCAL} <= set(reported.groups):
        for column in main.columns:
            gap = _group_mean(reported, COMMERCIAL, column) - _group_mean(reported, LOCAL, column)
            facts.add(K.GROUP_GAP.key(column=column), gap,
                      f"commercial mean minus local mean of {column}, {cite(reported, main)}")


def _group_mean(reported: Reported, group: str, column: str) -> float:
    members = reported.groups[group]
    return math.fsum(reported.main.value(m, column) for m in members) / len(members)


def add_human_facts(facts: FactTable, reported: Reported) -> None:
    """Each human group's CC accuracy minus the best model's, within Table 6."""
    people, models = reported.human_vs_model_cc()
    if not people or not models:
        return
    best = max(models, key=lambda m: (models[m], m))
    for label, accuracy in people.items():
        facts.add(K.HUMAN_MINUS_MODEL.key(row=slug(label)), round(accuracy - models[best], 9),
                  f"CC accuracy of {label} minus that of the best model ({best}), "
                  f"{cite(reported, reported.human_cc)}")


def add_claim_facts(facts: FactTable, verdicts: list[StatementVerdict], reported: Reported) -> None:
    """Each condition's evidence values and aggregate, so the claims check is in facts.json too."""
    source = f"computed from the tables {cite(reported)}"
    for verdict in verdicts:
        for n, result in enumerate(verdict.results, start=1):
            on: dict[str, Any] = {"claim": verdict.statement.id, "n": n}
            what = result.condition.describe()
            for e in result.evidence:
                facts.add(K.CLAIM_EVIDENCE.key(**on, evidence=slug(e.label)), e.value,
                          f"{what} — {e.label}: {e.detail}; {source}")
            if result.value is not None:
                facts.add(K.CLAIM_EVIDENCE.key(**on, evidence=result.condition.aggregate), result.value,
                          f"{result.condition.aggregate} of the evidence for: {what}; {source}")


def add_reported_facts(facts: FactTable, reported: Reported) -> None:
    """`mouse.reported.<table>.<row slug>.<column>` for every cell of Tables 3, 4 and 6."""
    cite = reported.source.citation()
    for table in (reported.main, reported.mcc, reported.human_cc):
        for row, values in table.rows.items():
            name = reported.humans.get(row, row)
            for column, value in values.items():
                facts.add(K.REPORTED_CELL.key(table=table.name, row=slug(name), column=column), value,
                          f"{REPORTED}: {cite}, Table {table.table}")
