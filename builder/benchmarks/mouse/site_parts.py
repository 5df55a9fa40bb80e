"""Everything the Mouse page needs, built from the paper's reported tables.

`compute_mouse` adds the Mouse facts to the build's FactTable and checks the paper's
statements (content/mouse/claims.yaml); `mouse_tables` and `mouse_charts` shape the page's
tables and the Qwen3 scale chart from those facts (the plug-in, plugin.py, calls them). Every displayed number is a fact: either
a reported cell (`mouse.reported.…`, via builder.benchmarks.mouse.facts) or a figure computed here from
those cells, whose provenance says how. Measured runs are measured.py's (the plug-in adds them).

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
from typing import TYPE_CHECKING

from builder.claims.engine import MeasureRegistry, StatementVerdict, judge_statement
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.benchmarks.mouse import fact_keys as K
from builder.benchmarks.mouse.facts import add_reported_facts
from builder.benchmarks.mouse.measures import COLUMN_LABELS, PRIMARY, load_mouse_claims, register_mouse_measures
from builder.benchmarks.mouse.reported import Reported, ReportedTable, load_reported
from builder.core.names import slug
from builder.site.tables import Cell, FactCells, Table
from builder.core.yamlfile import line_of, load_mapping

if TYPE_CHECKING:  # charts pulls in Altair and vl-convert: imported only when a chart is drawn
    from builder.site.charts import Chart, SvgRenderer

SCORE = "score3"  # a 0-1 score shown with the paper's three decimals (table.html needs this kind)
COMMERCIAL, LOCAL = "commercial", "local"
MCC_LABELS = {"rc_homophonic": "RC homophonic", "rc_semantic": "RC semantic", "rc_visual": "RC visual",
              "ir": "IR", "td": "TD", "ms": "MS", "cc": "CC"}
# Figures the paper states in its text (transcribed in shared/data/mouse/README.md), not in a table.
SCALE_CHART = "mouse-qwen3-scale"


def text_figures(folder: Path) -> list[tuple[str, float, str]]:
    """Figures the paper states in its text, kept with the tables in content/mouse/reported.yaml."""
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


def mouse_tables(facts: FactTable, computed: MouseComputed) -> dict[str, Table]:
    cells, reported = FactCells(facts), computed.reported
    tables = [leaderboard_table(cells, reported), mcc_table(cells, reported), human_cc_table(cells, reported),
              groups_table(cells, reported)]
    return {t.id: t for t in tables}


def mouse_charts(facts: FactTable, computed: MouseComputed, renderer: "SvgRenderer") -> dict[str, Chart]:
    return {SCALE_CHART: qwen3_scale_chart(facts, computed.reported, renderer)}


# ------------------------------------------------------------------------------ facts

def reported_key(reported: Reported, table: ReportedTable, row: str, column: str) -> str:
    """The key builder.benchmarks.mouse.facts.add_reported_facts gives a cell."""
    return K.REPORTED_CELL.key(table=table.name, row=slug(reported.humans.get(row, row)), column=column)


def cite(reported: Reported, table: ReportedTable | None = None) -> str:
    where = f"Table {table.table} of " if table else ""
    return f"reported in {where}{reported.source.citation()}"


def short_cite(reported: Reported) -> str:
    """"Lin et al. (ACL 2026, arXiv:2604.15841)"."""
    s = reported.source
    return f"{s.authors[0].split()[-1]} et al. ({s.venue}, arXiv:{s.arxiv})"


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
            on = {"claim": verdict.statement.id, "n": n}
            what = result.condition.describe()
            for e in result.evidence:
                facts.add(K.CLAIM_EVIDENCE.key(**on, evidence=slug(e.label)), e.value,
                          f"{what} — {e.label}: {e.detail}; {source}")
            if result.value is not None:
                facts.add(K.CLAIM_EVIDENCE.key(**on, evidence=result.condition.aggregate), result.value,
                          f"{result.condition.aggregate} of the evidence for: {what}; {source}")


# ----------------------------------------------------------------------------- tables

def leaderboard_table(f: FactCells, r: Reported) -> Table:
    t = r.main
    rows = tuple((Cell(model), *(f(reported_key(r, t, model, c), SCORE) for c in t.columns)) for model in t.rows)
    return Table("mouse-table3", f"{t.caption}, reported by {short_cite(r)}, Table {t.table}",
                 ("Model", *(COLUMN_LABELS.get(c, c) for c in t.columns)), rows,
                 note="Reported cells on the paper's 0–1 scale (not the 0–100 of the CIBuzzBench pages), "
                      "three decimals as published. TR: Semantic Accuracy (mean judge score 0/1/2 divided by 2) "
                      "and Perfect Rate (share judged 2); RC and IR: balanced accuracy and macro-F1 (RC averaged "
                      "over its homophonic, semantic and visual sub-tasks); TD: accuracy and F1 of the toxic "
                      "class; MS and CC: accuracy.")


def mcc_table(f: FactCells, r: Reported) -> Table:
    t = r.mcc
    rows = tuple((Cell(model), *(f(reported_key(r, t, model, c), SCORE) for c in t.columns)) for model in t.rows)
    return Table("mouse-table4", f"{t.caption}, reported by {short_cite(r)}, Table {t.table}",
                 ("Model", *(MCC_LABELS.get(c, c) for c in t.columns)), rows,
                 note="Matthews correlation coefficient as published, from −1 to 1; 0 is chance level.")


def human_cc_table(f: FactCells, r: Reported) -> Table:
    t = r.human_cc
    rows = tuple((Cell(name), Cell("People" if name in r.humans else "Model"),
                  f(reported_key(r, t, name, "cc_acc"), SCORE)) for name in t.rows)
    return Table("mouse-table6", f"{t.caption}, reported by {short_cite(r)}, Table {t.table}",
                 ("Participant", "Kind", "CC accuracy"), rows,
                 note="Cloze Completion accuracy on the paper's 0–1 scale. The model rows equal their "
                      "Table 3 values (checked when the tables load).")


def groups_table(f: FactCells, r: Reported) -> Table:
    t = r.main
    rows = tuple((Cell(COLUMN_LABELS.get(c, c)), f(K.GROUP_MEAN.key(group=COMMERCIAL, column=c), SCORE),
                  f(K.GROUP_MEAN.key(group=LOCAL, column=c), SCORE), f(K.GROUP_GAP.key(column=c), SCORE))
                 for c in t.columns)
    members = "; ".join(f"{g}: {', '.join(m)}" for g, m in r.groups.items())
    return Table("mouse-groups", f"Commercial against local models: means of the Table {t.table} scores "
                                 f"reported by {short_cite(r)}",
                 ("Metric", f"Commercial (mean of {len(r.groups[COMMERCIAL])})",
                  f"Local (mean of {len(r.groups[LOCAL])})", "Commercial − local"), rows,
                 note="Computed by buzzprobe: unweighted means over each group's models of the reported "
                      "cells (0–1 scale). The grouping is buzzprobe's reading, not a label in the paper "
                      f"(content/mouse/reported.yaml) — {members}.")


# ------------------------------------------------------------------------------ chart

def qwen3_scale_rows(facts: FactTable, r: Reported) -> list[tuple[str, str, float, float]]:
    """(task label, model, size in billions, reported headline score) over the Qwen3 series."""
    return [(COLUMN_LABELS[column], p.model, p.size_b, facts[reported_key(r, r.main, p.model, column)])
            for column in PRIMARY.values() for p in r.qwen3_scale_series()]


def qwen3_scale_chart(facts: FactTable, r: Reported, renderer: "SvgRenderer | None" = None) -> Chart:
    from builder.site.charts import scale_chart
    series = r.qwen3_scale_series()
    return scale_chart(
        qwen3_scale_rows(facts, r), id=SCALE_CHART,
        title=f"Qwen3 by model size, {series[0].model} to {series[-1].model} (reported by {short_cite(r)}, "
              f"Table {r.main.table})",
        description="Each task's headline score as reported for the Qwen3 size series, against the parameter "
                    "count on a logarithmic axis (0–1 scale). Qwen3-Max has no published size and is not shown.",
        value_title="Reported score (0–1)", series_title="Task", renderer=renderer)
