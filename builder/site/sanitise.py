"""Author pages are untrusted markup: what Markdown makes of them goes through a sanitiser.

Markdown passes raw HTML through, so a page in content/pages/ could put a `<script>`, an
`onclick=` or a `javascript:` link in front of every reader. The HTML Markdown makes from a
page is cleaned by nh3 (the Python binding of Ammonia, an allowlist sanitiser built on an
HTML5 parser: a maintained library rather than a regex of our own, which is how sanitisers
fail). Tags, attributes and URL schemes outside the allowlist go, and so does every comment
(`<!-->`, `<!--->`, `--!>`, `<![CDATA[` and `<?` are comments to an HTML5 parser, and to
nothing else one may compare it with); relative links stay, and an image or any `src` must be
relative (no page loads anything from the network).

A page with nothing to remove keeps its bytes (the published site must not change): the cleaned
HTML is compared with the same parser's reading of the page with nothing removed (`canonical`),
and only when the two are equal is the page's own text kept. Nothing may be missing from that
reading, or what it misses is removed from both and the page's text, with it, is kept (issue 34:
Python's html.parser once listed what to keep, and it reads `<!-->`, `<![CDATA[>` and
`jav&#x09;ascript:` otherwise than a browser). So `canonical` keeps every attribute, every tag
name the raw text could hold (a superset of what the parser finds) and every URL scheme the text
could spell, raw or with its references read; and a page that writes a non-web scheme before `//`
is always cleaned (Ammonia drops a URL it cannot parse, such as `javascript://[`, from both).
A `style` is only Markdown's table alignment, so no page can draw over the site.

The build's own output (tables, charts, blocks) is not the author's markup: it goes into a page
after this, by builder/site/shortcodes.py, whose check of the result reads it with `canonical`.
"""

from __future__ import annotations

import html as entities
import re
import string

import nh3

SCHEMES = {"http", "https", "mailto"}
_EVERYWHERE = {"class", "id", "title", "role", "lang", "dir"}
TAGS = set(nh3.ALLOWED_TAGS) | {"section", "main", "tfoot"}
ATTRIBUTES = {**{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}, "*": _EVERYWHERE}
ATTRIBUTES["td"] = ATTRIBUTES["td"] | {"style"}  # Markdown's table alignment: style="text-align: ..."
ATTRIBUTES["th"] = ATTRIBUTES["th"] | {"style"}
ATTRIBUTES["a"] = ATTRIBUTES["a"] | {"rel"}
_PREFIXES = {"aria-", "data-"}
_ALIGN = re.compile(r"text-align: (left|center|right);")  # the one style Markdown writes
# What an HTML5 tokenizer takes for a tag name (any case, up to whitespace, "/" or ">").
_TAG_NAME = re.compile(r"</?([A-Za-z][^\t\n\f\r />]*)")
_LETTERS = frozenset(string.ascii_letters)
_SCHEME_CHARACTERS = _LETTERS | frozenset(string.digits + "+.-")  # what a URL's scheme is made of
_TABS = str.maketrans("", "", "\t\n\r")
_C0_AND_SPACE = "".join(map(chr, range(33)))
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def sanitise(html: str) -> str:
    """`html` when the allowlist removes nothing from it, else the cleaned HTML."""
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, generic_attribute_prefixes=_PREFIXES,
                      url_schemes=SCHEMES, link_rel=None, strip_comments=True, attribute_filter=_allowed_value)
    schemes, authority = _schemes(html)
    if authority - SCHEMES:  # e.g. javascript://[ : both readings drop it, the page's text would keep it
        return clean
    return html if clean == canonical(html, schemes) else clean


def canonical(html: str, schemes: set[str] | None = None) -> str:
    """The HTML5 parser's reading of `html` written out with nothing removed: every tag, attribute,
    comment and element content kept (the comparison that says the allowlist removed nothing)."""
    return nh3.clean(html, tags=TAGS | _tag_names(html), clean_content_tags=set(), attributes={},
                     generic_attribute_prefixes={""}, url_schemes=SCHEMES | (_schemes(html)[0] if schemes is None else schemes),
                     link_rel=None, strip_comments=False)


def _allowed_value(tag: str, attribute: str, value: str) -> str | None:
    """No page loads anything from the network (a `src` must be relative), and a `style` is only
    Markdown's table alignment (no overlay drawn over the site)."""
    if attribute == "style":
        return value if _ALIGN.fullmatch(value) else None
    if attribute == "src":
        bare = value.translate(_TABS).lstrip(_C0_AND_SPACE)  # as a URL parser reads it
        if (len(bare) > 1 and bare[0] in "/\\" and bare[1] in "/\\") or re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", bare):
            return None
    return value


def _tag_names(html: str) -> set[str]:
    """Every name the parser could take for a tag, from the raw text: a superset (names inside
    comments, attributes or text count too), lowercased as HTML5 does (ASCII only)."""
    names = {name.replace("\0", "\ufffd") for name in _TAG_NAME.findall(html)}
    return {name.translate(_ASCII_LOWER) for name in names} | names


def _schemes(html: str) -> tuple[set[str], set[str]]:
    """Every URL scheme the text could spell, raw or with its character references read, with
    tabs and newlines removed as a URL parser does (WHATWG URL); and those written before `//`.
    A scheme is the letter-led run of scheme characters before a colon: a value's scheme starts
    the value, after a quote, "=", a space or a control character, so it is such a run."""
    schemes, authority = set(), set()
    for text in {html, entities.unescape(html) if "&" in html else html}:
        text = text.replace("\t", "").replace("\n", "").replace("\r", "")
        colon = text.find(":")
        while colon >= 0:
            start = colon
            while start and text[start - 1] in _SCHEME_CHARACTERS:
                start -= 1
            if start < colon and text[start] in _LETTERS:
                scheme = text[start:colon].translate(_ASCII_LOWER)
                schemes.add(scheme)
                if text.startswith("//", colon + 1):
                    authority.add(scheme)
            colon = text.find(":", colon + 1)
    return schemes, authority
