"""Author pages: Jinja over the facts first, then Markdown.

Authors never type a measured number: they write `{{ fact("key") }}` and the build
fills it in, links it to its provenance, and fails, naming page and line, when a
key does not exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import markdown
from jinja2 import Environment
from markupsafe import Markup, escape

from builder.site.pages import Page
from builder.core.reported import ReportedTable, Source
from builder.core.errors import InputError, Problem
from builder.core.facts import FactTable
from builder.core.names import fact_anchor
from builder.site.sanitise import sanitise
from builder.site.shortcodes import Misplaced, Shortcodes
from builder.site.template_cache import template_from_string
from builder.site.environment import PAGE_SOURCE, describe, fmt_count, fmt_num, fmt_p, fmt_pct, template_line

_KEY_CALL = re.compile(r"""\b(fact|value)\(\s*["']([^"']+)["']""")
MARKDOWN_EXTENSIONS = ["tables", "toc", "attr_list", "md_in_html", "footnotes", "fenced_code"]
MARKDOWN_CONFIG = {"toc": {"permalink": "#", "permalink_class": "anchor", "permalink_title": "Link to this section"}}


@dataclass
class FactUse:
    """Collects which facts and sources a page shows, for its provenance notes."""

    facts: set[str] = field(default_factory=set)
    sources: dict[str, Any] = field(default_factory=dict)


def check_fact_keys(page: Page, facts: FactTable) -> None:
    """Fail early on literal keys that do not exist, with the page line."""
    problems = []
    for offset, line in enumerate(page.body.split("\n")):
        for _, key in _KEY_CALL.findall(line):
            if key not in facts:
                problems.append((page.body_line + offset, key))
    if problems:
        raise InputError([Problem(str(page.path), f"unknown fact key {key!r}", line, "fact")
                          for line, key in problems])


def format_value(value: float, style: str, digits: int | None) -> str:
    if style == "pct":
        return fmt_pct(value, 1 if digits is None else digits)
    if style == "count":
        return fmt_count(value)
    if style == "p":  # as tables show p (fmt_p): plain from 0.001 up, where e-notation would read oddly
        return fmt_p(value) if value >= 0.001 else f"{value:.{1 if digits is None else digits}e}".replace("e-0", "e-")
    return fmt_num(value, 1 if digits is None else digits)


def page_functions(facts: FactTable, reported: ReportedTable, root: str, use: FactUse) -> dict[str, Callable]:
    """The functions a page can call; each records what it showed."""
    fact, value, has = _fact_functions(facts, root, use)
    quoting = _reported_functions(facts, reported, use, fact)
    return {"fact": fact, "value": value, "has": has, "reported": quoting["reported"], "quoted": quoting["quoted"],
            "reported_value": quoting["reported_value"], "cite": quoting["cite"], **_comparisons(value)}


def _fact_functions(facts: FactTable, root: str,
                    use: FactUse) -> tuple[Callable[..., Markup], Callable[[str], float], Callable[[str], bool]]:
    """`fact`, `value` and `has`: a measured figure linked to its provenance, its bare value, and
    whether it exists; the first two record the fact in `use`, so the page lists its provenance."""

    def value(key: str) -> float:
        if key not in facts:
            raise KeyError(f"unknown fact key {key!r}")
        use.facts.add(key)
        return facts[key]

    def fact(key: str, style: str = "num", digits: int | None = None) -> Markup:
        number = value(key)
        computation = facts.provenance[key].computation
        return Markup('<a class="fact" href="{root}provenance.html#{anchor}" title="{title}">{text}</a>').format(
            root=root, anchor=fact_anchor(key), title=f"{key}: {computation}",
            text=format_value(number, style, digits))

    def has(key: str) -> bool:
        return key in facts

    return fact, value, has


def _reported_functions(facts: FactTable, reported: ReportedTable, use: FactUse,
                        fact: Callable[..., Markup]) -> dict[str, Callable]:
    """`reported`, `reported_value`, `quoted` and `cite`: figures and sources of
    content/reported.yaml, each marked "reported by" and recorded in `use` for the Sources list."""

    def reported_figure(key: str, style: str | None = None, digits: int | None = None) -> Markup:
        if key not in reported:
            raise KeyError(f"unknown reported figure {key!r}")
        figure = reported[key]
        use.sources[figure.source.id] = figure.source
        shown = format_value(figure.value, style or _style_for(figure.unit), digits)
        return _reported_span(figure.what, figure.source, Markup("{}").format(shown))

    def reported_value(key: str) -> float:
        """A reported figure's bare value, for prose that compares it with a measured one."""
        return reported[key].value

    def quoted(key: str, source: str, style: str = "num", digits: int | None = None) -> Markup:
        """A fact that is a figure quoted from `source` (a source of content/reported.yaml), e.g.
        a count a plug-in reads from a paper's own files: linked to its provenance like any fact,
        but marked "reported by" like every quoted figure, so it never reads as measured."""
        if source not in reported.sources:
            raise KeyError(f"unknown source {source!r} (known: {', '.join(sorted(reported.sources))})")
        use.sources[source] = reported.sources[source]
        return _reported_span(facts.provenance[key].computation if key in facts else key,
                              reported.sources[source], fact(key, style, digits))

    def cite(source: str) -> Markup:
        """A source of content/reported.yaml cited for what it did, without a figure: linked to
        the page's Sources list like a reported figure, so every citation there has its address."""
        if source not in reported.sources:
            raise KeyError(f"unknown source {source!r} (known: {', '.join(sorted(reported.sources))})")
        use.sources[source] = reported.sources[source]
        return Markup('<a class="cite" href="#source-{sid}">{short}</a>').format(
            sid=source, short=reported.sources[source].short)

    return {"reported": reported_figure, "reported_value": reported_value, "quoted": quoted, "cite": cite}


def _comparisons(value: Callable[[str], float]) -> dict[str, Callable]:
    """`compare`, `lowest` and `highest`: words and labels chosen by facts' values, read through
    the page's `value` so the facts they weigh are in its provenance too."""

    def number(operand: str | float) -> float:
        return value(operand) if isinstance(operand, str) else float(operand)

    def compare(a: str | float, b: str | float, more: str, less: str, same: str = "level with",
                digits: int = 1) -> str:
        """The word for how a stands against b (fact keys or numbers), judged on the values as
        a reader sees them (rounded to `digits`), so prose never says "above" between equals."""
        x, y = round(number(a), digits), round(number(b), digits)
        return more if x > y else less if x < y else same

    def lowest(keys: Mapping[str, str]) -> str:
        """Of {label: fact key}, the label with the smallest value (the first on a tie): what a
        "weakest" sentence may name."""
        labels = list(keys)
        return min(labels, key=lambda k: (value(keys[k]), labels.index(k)))

    def highest(keys: Mapping[str, str]) -> str:
        labels = list(keys)
        return max(labels, key=lambda k: (value(keys[k]), -labels.index(k)))

    return {"compare": compare, "lowest": lowest, "highest": highest}


def _reported_span(what: str, source: Source, shown: Markup) -> Markup:
    """The one look of a quoted figure: the value, then "(reported by <source>)" as a separate
    word (never glued to the number) linking to the page's list of sources."""
    return Markup('<span class="reported" title="{what} (reported by {title}, {date})">{shown}'
                  '<sup class="cite"> (reported by <a href="#source-{sid}">{short}</a>)</sup></span>').format(
        what=what, title=source.title, date=source.date, shown=shown, sid=source.id, short=source.short)


def _style_for(unit: str) -> str:
    return {"%": "pct", "items": "count", "p": "p"}.get(unit, "num")


def render_page_body(env: Environment, page: Page, context: dict[str, Any],
                     shortcodes: Shortcodes | None = None) -> Markup:
    """Jinja, then Markdown, then the sanitiser over all the author wrote; only then the build's
    own outputs (`shortcodes`, which the context's table/chart/block registered) go in.
    Errors point at the page's own line numbers."""
    name = str(page.path)
    try:
        template = template_from_string(env, page.body)
        template.name = name
        text = template.render(**context)
    except InputError:
        raise
    except Exception as exc:  # anything a page's expression can raise (1/0, a bad filter argument...)
        line = template_line(exc, PAGE_SOURCE)
        raise InputError.single(page.path, f"cannot render: {describe(exc)}",
                                line=None if line is None else page.body_line + line - 1) from exc
    html = sanitise(markdown.markdown(text, extensions=MARKDOWN_EXTENSIONS, extension_configs=MARKDOWN_CONFIG))
    try:
        return Markup((shortcodes or Shortcodes()).fill(html))
    except Misplaced as exc:
        raise InputError.single(page.path, str(exc)) from None


def source_notes(use: FactUse) -> Markup:
    """The 'Sources' list that every page quoting reported figures ends with."""
    if not use.sources:
        return Markup("")
    items = "".join(
        Markup('<li id="source-{sid}">{title} ({date}){link}</li>').format(
            sid=s.id, title=s.title, date=s.date,
            link=Markup(' <a href="{u}" rel="external">{u}</a>').format(u=s.url) if s.url else "")
        for s in sorted(use.sources.values(), key=lambda s: s.id))
    return Markup('<section class="sources"><h2 id="sources">Sources of reported figures</h2><ul>{}</ul></section>').format(
        Markup(items))


__all__ = ["FactUse", "check_fact_keys", "escape", "page_functions", "render_page_body", "source_notes"]
