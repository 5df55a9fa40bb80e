"""Tables as pages show them: cells that are facts (with their keys) or text, and the CSV
downloads behind them. Which tables exist is each benchmark's choice (its views)."""

from __future__ import annotations

from dataclasses import dataclass

from builder.core.facts import FactTable
from builder.site.environment import fmt_cell, plain_cell
from builder.site.tables_csv import FULL_PRECISION, table_csv


@dataclass(frozen=True)
class Cell:
    """A displayed value: a fact (with its key) or plain text."""

    text: str = ""
    key: str | None = None
    value: float | None = None
    kind: str = "text"  # text | num | pct | count | score | p
    href: str | None = None  # site-relative link for text cells
    digits: int | None = None  # fixed decimals for num/pct cells (e.g. a quote's precision)
    of: float | None = None  # shown as "value of N": a run still in progress holds n of its N items

    @property
    def numeric(self) -> bool:
        return self.value is not None

    @property
    def export(self) -> float | str | None:
        """The cell in a CSV download (full precision; "n of N" spelled out)."""
        if self.of is not None:
            return f"{self.value:g} of {self.of:g}"
        return self.value if self.numeric else self.text

    @property
    def is_fact(self) -> bool:
        return bool(self.key)

    @property
    def shown(self) -> str:
        """The cell as the page writes it (a number at table precision), for captions and prose."""
        return fmt_cell(self.value, self.kind, self.digits) if self.value is not None else self.text


@dataclass(frozen=True)
class Table:
    id: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""
    filters: tuple[str, ...] = ()  # columns a reader can filter the rows by (assets/table-filter.js)
    compact: bool = False  # fact cells without a tooltip (key and computation are on the provenance page):
    # for tables of many runs, whose repeated tooltips would make most of a page's bytes

    @property
    def numeric_columns(self) -> tuple[bool, ...]:
        """Columns holding a number in any row (right-aligned headers)."""
        return tuple(any(row[i].numeric for row in self.rows) for i in range(len(self.columns)))


class FactCells:
    """Builds cells from a FactTable; a missing key is a bug, so it raises."""

    def __init__(self, facts: FactTable):
        self.facts = facts

    def __call__(self, key: str, kind: str = "score") -> Cell:
        return Cell(key=key, value=self.facts[key], kind=kind)

    def optional(self, key: str, kind: str = "score") -> Cell:
        return self(key, kind) if key in self.facts else Cell("–")


def _rounded(c: Cell) -> object:
    """A CSV cell as the page shows it: rounded, and "n of N" while a run is in progress."""
    if c.value is None:  # not numeric
        return c.text
    shown = plain_cell(c.value, c.kind, c.digits)
    return f"{shown} of {c.of:g}" if c.of is not None else shown


def tables_as_csv(tables: list[Table]) -> dict[str, bytes]:
    """The download behind each table's CSV link, rounded as the page shows it, and its
    full-precision twin under tables/full/."""
    files = {}
    for t in tables:
        files[f"tables/{t.id}.csv"] = table_csv(t.columns, [[_rounded(c) for c in row] for row in t.rows])
        files[f"{FULL_PRECISION}{t.id}.csv"] = table_csv(t.columns, [[c.export for c in row] for row in t.rows])
    return files
