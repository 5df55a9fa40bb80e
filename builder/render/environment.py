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
    env.filters.update(pct=fmt_pct, num=fmt_num, count=fmt_count, pvalue=fmt_p)
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
