"""The table comparing the published probe's figures with the site's (article page).

Every number in it is either a quote from content/reported.yaml, shown as the article wrote
it, or a fact; the verdict word is read from the `fidelity.<id>.matches` fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.article_figures import ArticleStatement
from builder.core.reported import Reported, ReportedTable
from builder.site.environment import fmt_count
from builder.site.tables import Cell, FactCells, Table

NOT_RECOMPUTABLE = "quoted only (not re-run here)"
NO_REASON = "no reason recorded yet"
UNAVAILABLE = "not recomputed: this build lacks the runs behind"


TITLES = {
    "data": ("article-fidelity-data", "Recomputed independently from the CIBuzzBench data",
             "Matches: the site's value rounds to the article's figure (it lies within half a unit of its last "
             "quoted digit, unless a statement gives its own tolerance)."),
    "counts": ("article-fidelity-counts", "Consistent with the probe's own counts (arithmetic, not a re-run)",
               "Each figure is recomputed from other figures the article states (its counts, accuracies and "
               "fixes/breaks), so a match says the published figures agree with one another, not that a run "
               "reproduces them."),
    "model_run": ("article-fidelity-model-run", "Needs the probe's model run (not re-run here)",
                  "These figures come from the probe's own model run, which this site has not repeated; they are "
                  "quoted, and runs you add are measured on the models page."),
}


def fidelity_tables(f: FactCells, statements: Sequence[ArticleStatement], reported: ReportedTable) -> list[Table]:
    """One table per way a figure can be checked (ArticleStatement.kind), so no count mixes a
    reproduction with arithmetic on the probe's own figures."""
    return [t for kind in TITLES if (t := fidelity_table(f, statements, reported, kind)) is not None]


def fidelity_table(f: FactCells, statements: Sequence[ArticleStatement], reported: ReportedTable,
                   kind: str) -> Table | None:
    """The statements of one kind beside the site's recomputation (statements of the article)."""
    rows: list[tuple[Cell, ...]] = []
    for s in (s for s in statements if s.kind == kind):
        figure = reported[s.figure]
        if not s.recomputable:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(NOT_RECOMPUTABLE), Cell(s.note)))
            continue
        if K.FIDELITY_MATCHES.key(statement=s.id) not in f.facts:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(f"{UNAVAILABLE} ({s.fact})"), Cell(s.note)))
            continue
        matches = bool(f.facts[K.FIDELITY_MATCHES.key(statement=s.id)])
        why = " ".join(t for t in ((s.reason or NO_REASON) if not matches else "", s.note) if t)
        rows.append((Cell(s.where), _quoted(figure), _site(f, K.FIDELITY_SITE.key(statement=s.id), figure),
                     Cell(("matches" if matches else "differs") if kind == "data" else
                          ("consistent" if matches else "inconsistent")), Cell(why)))
        rows += [(Cell(f"… {c.label}"), Cell("–"), _site(f, c.fact, figure), Cell("–"), Cell(""))
                 for c in s.context if c.fact in f.facts]
    if not rows:
        return None
    table_id, title, note = TITLES[kind]
    return Table(table_id, title, ("What the article states", "Article", "This site", "Verdict", "Why"), tuple(rows),
                 note=note + " Statements: content/article-figures.yaml.")


def _quoted(figure: Reported) -> Cell:
    """The figure as the article wrote it."""
    text = figure.quoted or repr(figure.value)
    if figure.unit == "items":
        text = fmt_count(figure.value)
    return Cell(text + ("%" if figure.unit == "%" else ""))


def _site(f: FactCells, key: str, figure: Reported) -> Cell:
    """A fact shown at the quote's precision, so the two read alike."""
    if figure.unit == "p":
        return f(key, "p")
    exponent = int(Decimal(figure.quoted or repr(figure.value)).as_tuple().exponent)
    cell = f(key, "pct" if figure.unit == "%" else "num")
    return Cell(key=cell.key, value=cell.value, kind=cell.kind, digits=max(0, -exponent))
