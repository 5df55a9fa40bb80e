"""Shortcodes: the build's own HTML (tables, charts, blocks) in an author's page, put in after
the sanitiser has cleaned what the author wrote.

A page that calls `table("x")` gets back, and prints, a placeholder: `<div class="shortcode">
bp-<key>-<n></div>`. The key is drawn afresh for every render of every page and n numbers the
outputs this render registered; the outputs themselves stay in a table only the build writes.
Jinja, Markdown and the sanitiser then treat the placeholder like any other text the author
wrote, and only after them is each placeholder replaced by the output registered under it.

So nothing a page writes is ever restored as markup: a token names an entry of the build's
table, not HTML, and a token of another key or an unissued number is text like any other. A page
can read what its own Jinja prints (a `{% set %}` block captures it), so the token is not hidden
from the page, and need not be: copying one back can only put the build's own output of this
render where `{{ table("x") }}` would have put it.

Once the outputs are in, the page is read again by the sanitiser's HTML5 parser: it must read as
the sanitised page with each output in its placeholder's place. A placeholder in an attribute, a
link or a table's rows, where the output would change how the author's markup around it is read,
is an error that names the shortcode.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Callable

from markupsafe import Markup

from builder.site.limits import MAX_OUTPUT, TemplateLimit
from builder.site.sanitise import canonical


def block_html(html: str) -> Markup:
    """Shortcode output as one raw HTML block: Markdown passes a `<div>` on its own through."""
    return Markup('<div class="shortcode">{}</div>').format(Markup(str(html).strip()))


def _reading(html: str) -> str:
    """How the HTML5 parser reads `html`, for comparing structure: a URL it cannot keep is dropped
    alike from every reading compared, so its scheme need not be looked for."""
    return canonical(html, schemes=set())


class Misplaced(ValueError):
    """A shortcode whose output would change how the page's markup around it is read."""


class Shortcodes:
    """The outputs of one render of one page, and the placeholders that stand for them."""

    def __init__(self) -> None:
        self._key = secrets.token_hex(16)
        self._outputs: list[tuple[str, str]] = []  # (the call that made it, its HTML)
        self._size = 0
        self._placeholder = re.compile(rf'<div class="shortcode">bp-{self._key}-(\d+)</div>')

    def add(self, html: str, call: str) -> Markup:
        """Register `html` (made by `call`, e.g. 'table("x")'); its placeholder for the page.
        The outputs count against the render's output limit, as when they were the page's text."""
        self._outputs.append((call, str(html).strip()))
        self._size += len(self._outputs[-1][1])
        if self._size > MAX_OUTPUT:
            raise TemplateLimit(f"the page's tables, charts and blocks are over {MAX_OUTPUT:,} characters")
        return Markup(self._placeholder_of(len(self._outputs) - 1))

    def _placeholder_of(self, n: int) -> str:
        return f'<div class="shortcode">bp-{self._key}-{n}</div>'

    def fill(self, page: str) -> str:
        """`page` (sanitised HTML) with each placeholder replaced by its registered output."""
        self._check_once(page)
        blocks = self._blocks()
        filled = self._put(page, blocks.__getitem__)
        if filled == page:
            return page
        if _reading(filled) != self._put(_reading(page), lambda n: _reading(blocks[n])):
            raise Misplaced(self._misplaced(page, blocks))
        return filled

    def _check_once(self, page: str) -> None:
        """Each output is shown where its call was printed, once: a copied placeholder (a page
        can capture what it prints) would otherwise multiply a large table without limit."""
        printed = Counter(int(n) for text in (page, *(html for _, html in self._outputs))
                          for n in self._placeholder.findall(text))
        for n, times in sorted(printed.items()):
            if n < len(self._outputs) and times > 1:
                raise Misplaced(f"the output of {{{{ {self._outputs[n][0]} }}}} is printed {times} times; "
                                "call it again where it should show again")

    def _blocks(self) -> list[str]:
        """Each output as the page shows it, the placeholders a block's template printed (its
        own tables and charts) filled in: they are the build's text, not the author's."""
        blocks: list[str] = []
        for _, html in self._outputs:
            blocks.append(str(block_html(self._put(html, blocks.__getitem__, len(blocks)))))
        return blocks

    def _put(self, html: str, output: Callable[[int], str], issued: int | None = None) -> str:
        """`html` with each placeholder of the first `issued` outputs (all) replaced by `output(n)`."""
        issued = len(self._outputs) if issued is None else issued

        def replace(match: re.Match[str]) -> str:
            n = int(match.group(1))
            return output(n) if n < issued else match.group(0)
        return self._placeholder.sub(replace, html)

    def _misplaced(self, page: str, blocks: list[str]) -> str:
        """The message naming the first output whose placement alone changes the page's reading."""
        for n, (call, _) in enumerate(self._outputs):
            one = self._put(page, lambda m: blocks[m] if m == n else self._placeholder_of(m))
            expected = self._put(_reading(page), lambda m: _reading(blocks[m]) if m == n else self._placeholder_of(m))
            if one != page and _reading(one) != expected:
                return (f"the output of {{{{ {call} }}}} is placed where it would change the markup around it "
                        "(inside an attribute, a link or a table's rows?): give it a line of its own")
        return "the tables, charts or blocks of this page change the markup around them: give each a line of its own"
