"""Author pages are untrusted markup: what Markdown makes of them goes through a sanitiser.

Markdown passes raw HTML through, so a page in content/pages/ could put a `<script>`, an
`onclick=` or a `javascript:` link in front of every reader. The HTML Markdown makes from a
page is cleaned by nh3 (the Python binding of Ammonia, an allowlist sanitiser built on an
HTML5 parser: a maintained library rather than a regex of our own, which is how sanitisers
fail). Tags, attributes and URL schemes outside the allowlist go; relative links stay.

Shortcodes (tables, charts, blocks) are the build's own output from its templates: they are
kept apart while the page is cleaned (`protect`/`restore`) and put back unchanged.

A page with nothing to remove keeps its bytes: the cleaned HTML is compared with the same
HTML re-serialised by the same parser with everything it holds allowed, and only when the two
differ (something was removed) does the cleaned version replace it.
"""

from __future__ import annotations

import itertools
import re
import secrets
from html.parser import HTMLParser

import nh3
from markupsafe import Markup

SCHEMES = {"http", "https", "mailto"}
_EVERYWHERE = {"class", "id", "title", "role", "lang", "dir"}
TAGS = set(nh3.ALLOWED_TAGS) | {"section", "main", "tfoot"}
ATTRIBUTES = {**{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}, "*": _EVERYWHERE}
ATTRIBUTES["td"] = ATTRIBUTES["td"] | {"style"}  # Markdown's table alignment: style="text-align: ..."
ATTRIBUTES["th"] = ATTRIBUTES["th"] | {"style"}
ATTRIBUTES["a"] = ATTRIBUTES["a"] | {"rel"}
_PREFIXES = {"aria-", "data-"}
_NONCE = secrets.token_hex(8)  # per process: a page cannot write a marker of its own
_MARK = re.compile(rf"<!--bp-(\d+)-{_NONCE}-->(.*?)<!--/bp-\1-{_NONCE}-->", re.S)
_ANY_MARK = re.compile(rf"<!--/?bp-\d+-{_NONCE}-->")
_TOKEN = re.compile(rf"bp-kept-(\d+)-{_NONCE}")
_COUNTER = itertools.count()


def shortcode(html: str) -> Markup:
    """A shortcode's output as one raw HTML block for Markdown, marked as the build's own."""
    n = next(_COUNTER)
    return Markup('<div class="shortcode"><!--bp-{n}-{nonce}-->{html}<!--/bp-{n}-{nonce}--></div>').format(
        n=n, nonce=_NONCE, html=Markup(html.strip()))


def protect(text: str) -> tuple[str, list[str]]:
    """`text` with each shortcode's content replaced by a token, and the contents."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(_ANY_MARK.sub("", match.group(2)))  # shortcodes inside a block are the block's
        return f"bp-kept-{len(kept) - 1}-{_NONCE}"

    return _MARK.sub(keep, text), kept


def restore(html: str, kept: list[str]) -> str:
    return _TOKEN.sub(lambda m: kept[int(m.group(1))], html)


def unmark(html: str) -> str:
    """Shortcode output used outside a page body (no sanitising there): markers removed."""
    return _ANY_MARK.sub("", html)


def sanitise(html: str) -> str:
    """`html` when the allowlist removes nothing from it, else the cleaned HTML."""
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, generic_attribute_prefixes=_PREFIXES,
                      url_schemes=SCHEMES, link_rel=None, strip_comments=False, attribute_filter=_local_sources)
    tags, attributes, schemes = _present(html)  # the allowlist widened to all `html` holds
    same = nh3.clean(html, tags=TAGS | tags, clean_content_tags=set(),
                     attributes={**ATTRIBUTES, "*": _EVERYWHERE | attributes}, generic_attribute_prefixes=_PREFIXES,
                     url_schemes=SCHEMES | schemes, link_rel=None, strip_comments=False)
    return html if clean == same else clean


def _local_sources(tag: str, attribute: str, value: str) -> str | None:
    """No page loads anything from the network: an image (or any `src`) must be relative."""
    if attribute == "src" and (value.lstrip().startswith(("//", "\\")) or re.match(r"\s*[A-Za-z][A-Za-z0-9+.\-]*:", value)):
        return None
    return value


class _Inventory(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.schemes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            self.attributes.add(name)
            scheme = re.match(r"\s*([A-Za-z][A-Za-z0-9+.\-]*):", value or "")
            if scheme:
                self.schemes.add(scheme.group(1).lower())


def _present(html: str) -> tuple[set[str], set[str], set[str]]:
    """Every tag, attribute and URL scheme in `html` (what 'allow everything' means here)."""
    inventory = _Inventory()
    inventory.feed(html)
    inventory.close()
    return inventory.tags, inventory.attributes, inventory.schemes
