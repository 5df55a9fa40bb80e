"""Provenance stage: the page every fact links to (split into parts like a long table when it
is long), and the fact links of the rendered pages pointed at the part that holds each fact."""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment

from builder.core.names import fact_anchor
from builder.site import paging
from builder.site.configuration import PROVENANCE
from builder.site.markdown_pages import FactUse
from builder.site.prepare import Files, SiteInputs

# A fact drawn from more runs than this names them only in provenance.json, not on the
# provenance page (a fact over every run of a 1,000-run corpus would add 100 KB per fact).
# Above the committed corpus's run count, so its page lists every run, as it always did.
PROVENANCE_RUNS_LISTED = 200


def provenance_pages(env: Environment, inputs: SiteInputs, common: dict[str, Any],
                     used: FactUse) -> tuple[Files, dict[str, str]]:
    """The provenance page, split into parts like a long table when it is long (see paging),
    and {anchor: part file} of every fact whose row is not on the first part."""
    facts = inputs.facts
    rows = [(key, fact_anchor(key), facts[key], facts.provenance[key]) for key in sorted(used.facts)]
    template = env.get_template("provenance.html")
    context = {**common, "root": "", "slug": PROVENANCE, "title": "Provenance of figures",
               "description": "How each figure quoted in the prose of this site was computed, and from which runs.",
               "runs_listed": PROVENANCE_RUNS_LISTED}
    html = template.render(**context, rows=rows, pager="")
    split = paging.split_table(html)
    if split is None:
        return {f"{PROVENANCE}.html": html.encode("utf-8")}, {}
    bounds = paging.part_bounds(split)
    files, moved = {}, {}
    for number, (start, stop) in enumerate(bounds, 1):
        name = paging.part_file(PROVENANCE, "facts", number)
        title = context["title"] + ("" if number == 1 else f", part {number}")
        pager = paging.pager(PROVENANCE, "facts", bounds, number, anchor=False)
        files[name] = template.render(**{**context, "title": title, "slug": name[:-len(".html")]},
                                      rows=rows[start:stop], pager=pager).encode("utf-8")
        moved.update({anchor: name for _, anchor, _, _ in rows[start:stop]} if number > 1 else {})
    return files, moved


_FACT_LINK = re.compile(rb'href="provenance\.html#([^"]+)"')


def relink_facts(page: bytes, moved: dict[str, str]) -> bytes:
    """Point a page's fact links at the part of the provenance page that holds the fact."""
    def relink(match: re.Match[bytes]) -> bytes:
        part = moved.get(match.group(1).decode())
        return match.group(0) if part is None else f'href="{part}#{match.group(1).decode()}"'.encode()
    return _FACT_LINK.sub(relink, page)
