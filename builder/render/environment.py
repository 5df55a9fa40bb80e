"""The Jinja2 environment: strict about unknown names, escaping everything by default.

Dataset text and model output are untrusted, so autoescape is on for every template
and a typo in a template fails the build instead of rendering an empty cell.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined


def make_environment(template_dir: Path) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(template_dir)),
        undefined=StrictUndefined,
        autoescape=True,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(pct=fmt_pct, num=fmt_num, count=fmt_count, pvalue=fmt_p, cell=fmt_cell, datum=fmt_datum)
    return env


def fmt_num(value: float, digits: int = 2) -> str:
    """Fixed decimals; the facts stay unrounded, only their display is rounded."""
    return f"{value:,.{digits}f}"


def fmt_pct(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}%"


def fmt_count(value: int | float) -> str:
    return f"{int(value):,}"


def fmt_p(value: float) -> str:
    """p-values: plain below 3 significant digits would read as 0.000."""
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


DECIMALS = {"score": 2, "score3": 3, "num": 1, "pct": 1}  # display precision of a table cell, by kind


def cell_decimals(kind: str, digits: int | None = None) -> int:
    """Decimals of a num/pct/score cell: its own (e.g. a quoted figure's precision), else its kind's."""
    return digits if digits is not None else DECIMALS.get(kind, DECIMALS["score"])


def fmt_cell(value: float, kind: str = "score", digits: int | None = None) -> str:
    """A table cell as the page shows it."""
    if kind == "count":
        return fmt_count(value)
    if kind == "p":
        return fmt_p(value)
    if kind == "pct":
        return fmt_pct(value, cell_decimals(kind, digits))
    return fmt_num(value, cell_decimals(kind, digits))


def plain_cell(value: float, kind: str = "score", digits: int | None = None) -> str:
    """The same precision as the page, written for spreadsheets: no separators, no % sign."""
    if kind == "count":
        return str(int(value))
    if kind == "p":
        return fmt_p(value)
    return f"{value:.{cell_decimals(kind, digits)}f}"


def fmt_datum(value: object) -> str:
    """A chart's data-table value: scores at table precision, counts whole, missing as a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return fmt_num(value, DECIMALS["score"])
    if isinstance(value, int) and not isinstance(value, bool):
        return fmt_count(value)
    return str(value)


def plain_datum(value: object) -> object:
    """A chart value for its CSV: floats rounded like the data table, the rest unchanged."""
    return plain_cell(value) if isinstance(value, float) else value
