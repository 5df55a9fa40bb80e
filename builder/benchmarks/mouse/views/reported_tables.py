"""The Mouse page's tables of the paper's reported figures (Tables 3, 4 and 6, and the
commercial/local means): only layout, every number a fact of analyses.reported_figures."""

from __future__ import annotations

from builder.benchmarks.mouse import fact_keys as K
from builder.benchmarks.mouse.analyses.paper_claims import COLUMN_LABELS
from builder.benchmarks.mouse.analyses.reported_figures import COMMERCIAL, LOCAL, MouseComputed, reported_key
from builder.benchmarks.mouse.reported import Reported
from builder.core.facts import FactTable
from builder.site.tables import Cell, FactCells, Table

SCORE = "score3"  # a 0-1 score shown with the paper's three decimals (table.html needs this kind)
MCC_LABELS = {"rc_homophonic": "RC homophonic", "rc_semantic": "RC semantic", "rc_visual": "RC visual",
              "ir": "IR", "td": "TD", "ms": "MS", "cc": "CC"}


def mouse_tables(facts: FactTable, computed: MouseComputed) -> dict[str, Table]:
    cells, reported = FactCells(facts), computed.reported
    tables = [leaderboard_table(cells, reported), mcc_table(cells, reported), human_cc_table(cells, reported),
              groups_table(cells, reported)]
    return {t.id: t for t in tables}


def short_cite(reported: Reported) -> str:
    """"Lin et al. (ACL 2026, arXiv:2604.15841)"."""
    s = reported.source
    return f"{s.authors[0].split()[-1]} et al. ({s.venue}, arXiv:{s.arxiv})"


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
