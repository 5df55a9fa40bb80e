"""The table comparing the published probe's figures with the site's (article page).

Every number in it is either a quote from content/reported.yaml, shown as the article wrote
it, or a fact; the verdict word is read from the `fidelity.<id>.matches` fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.fidelity import ARTICLE, FidelityKeys
from builder.benchmarks.cibuzzbench.article_figures import ArticleStatement
from builder.core.reported import Reported, ReportedTable
from builder.site.environment import fmt_count
from builder.site.tables import Cell, FactCells, Table

NOT_RECOMPUTABLE = "reported; not recomputable without the model run"
NO_REASON = "no reason recorded yet"
UNAVAILABLE = "not recomputed: this build lacks the runs behind"


def fidelity_table(f: FactCells, statements: Sequence[ArticleStatement], reported: ReportedTable,
                   keys: FidelityKeys = ARTICLE, table: tuple[str, ...] | None = None) -> Table | None:
    """`table`: id, caption, the two first headings (what is stated, the quoted figure) and the note."""
    if not statements:
        return None
    rows: list[tuple[Cell, ...]] = []
    for s in statements:
        figure = reported[s.figure]
        if not s.recomputable:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(NOT_RECOMPUTABLE), Cell(s.note)))
            continue
        if keys.key(keys.matches, statement=s.id) not in f.facts:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(f"{UNAVAILABLE} ({s.fact})"), Cell(s.note)))
            continue
        matches = bool(f.facts[keys.key(keys.matches, statement=s.id)])
        why = " ".join(t for t in ((s.reason or NO_REASON) if not matches else "", s.note) if t)
        rows.append((Cell(s.where), _quoted(figure), _site(f, keys.key(keys.site, statement=s.id), figure),
                     Cell("matches" if matches else "differs"), Cell(why)))
        rows += [(Cell(f"… {c.label}"), Cell("–"), _site(f, c.fact, figure), Cell("–"), Cell(""))
                 for c in s.context if c.fact in f.facts]
    table_id, caption, what, quoted, note = table or ARTICLE_TABLE
    return Table(table_id, caption, (what, quoted, "This site", "Verdict", "Why"), tuple(rows), note=note)


ARTICLE_TABLE = ("article-fidelity", "The published probe's figures against this site's recomputation",
                 "What the article states", "Article",
                 "Matches: the site's value rounds to the article's figure (it lies within half a unit of its last "
                 "quoted digit, unless a statement gives its own tolerance). Figures from the article's own counts "
                 "check its arithmetic. Statements: content/article-figures.yaml.")


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
