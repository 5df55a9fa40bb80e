"""Spec keys that only the benchmark's page reads, validated apart from spec.py's core keys:
`quote_items` (whether the page may show an item's text: a data set whose licence does not
clearly allow republishing is linked to, not quoted) and `runs_page` (the site page that shows
the model runs when another plug-in reads them, as CIBuzzBench's pages read Task 2's runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from builder.core.names import name_problem

Report = Callable[[str, str], None]
PAGE_KEYS = ("quote_items", "runs_page")


def page_keys(data: Mapping[str, Any], problem: Report) -> dict[str, Any]:
    """The Spec fields of `quote_items` (default true) and `runs_page` (default none)."""
    quote = data.get("quote_items", True)
    if not isinstance(quote, bool):
        problem("quote_items", "must be true or false (false: the page links to the data set instead of "
                               "quoting an item)")
        quote = True
    runs_page = data.get("runs_page")
    if runs_page is not None and (why := name_problem(runs_page, "page name")) is not None:
        problem("runs_page", why + " (a page of the site, e.g. models)")
        runs_page = None
    return {"quote_items": quote, "runs_page": runs_page}
