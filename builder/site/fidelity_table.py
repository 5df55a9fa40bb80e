"""The table of a source's stated figures beside the site's recomputation (builder.claims.fidelity).

Every number in it is either a quote from content/reported.yaml, shown as the source wrote it,
or a fact; the verdict word is read from the statement's `matches` fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from builder.claims.fidelity import FidelityKeys
from builder.claims.figure_statements import FigureStatement
from builder.core.reported import Reported, ReportedTable
from builder.site.environment import fmt_count
from builder.site.tables import Cell, FactCells, Table

NOT_RECOMPUTABLE = "quoted only (not re-run here)"
NO_REASON = "no reason recorded yet"
UNAVAILABLE = "not recomputed: this build lacks the runs behind"


def fidelity_table(f: FactCells, statements: Sequence[FigureStatement], reported: ReportedTable,
                   keys: FidelityKeys, table: tuple[str, str, str, str, str], kind: str | None = None) -> Table | None:
    """The statements of one `kind` (CIBuzzBench's article: one table per kind) or all of them (a
    spec'd benchmark's reconciliation with its upstream) beside the site's recomputation; None
    when there are none. `table`: id, caption, the two first headings (what is stated, the
    quoted figure) and the note."""
    rows: list[tuple[Cell, ...]] = []
    for s in (s for s in statements if kind is None or s.kind == kind):
        figure = reported[s.figure]
        if not s.recomputable:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(NOT_RECOMPUTABLE), Cell(s.note)))
            continue
        if keys.key(keys.matches, statement=s.id) not in f.facts:
            rows.append((Cell(s.where), _quoted(figure), Cell("–"), Cell(f"{UNAVAILABLE} ({s.fact})"), Cell(s.note)))
            continue
        matches = bool(f.facts[keys.key(keys.matches, statement=s.id)])
        why = " ".join(t for t in ((s.reason or NO_REASON) if not matches else "", s.note) if t)
        verdict = ("matches" if matches else "differs") if kind in (None, "data") else \
            ("consistent" if matches else "inconsistent")
        rows.append((Cell(s.where), _quoted(figure), _site(f, keys.key(keys.site, statement=s.id), figure),
                     Cell(verdict), Cell(why)))
        rows += [(Cell(f"… {c.label}"), Cell("–"), _site(f, c.fact, figure), Cell("–"), Cell(""))
                 for c in s.context if c.fact in f.facts]
    if not rows:
        return None
    table_id, caption, what, quoted, note = table
    return Table(table_id, caption, (what, quoted, "This site", "Verdict", "Why"), tuple(rows), note=note)


def _quoted(figure: Reported) -> Cell:
    """The figure as the source wrote it."""
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
