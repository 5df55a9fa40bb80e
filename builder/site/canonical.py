"""Each page's own address, when the build knows where the site is published (site.yaml's `url`
or BUZZPROBE_SITE_URL): `<link rel="canonical">` and `og:url`, so a shared link or a search
engine names one address per page (issue 32 item 6). Without the address nothing is added: a
relative canonical link would name the wrong page on a mirror.

A pass over the finished files rather than a template variable: every page (Markdown pages,
the benchmarks' generated pages, the run pages, the split parts of long tables) gets its tag
from its own file name, whoever rendered it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

# base.html writes this line into every page's <head>; the tags go right after it.
_ANCHOR = b'<meta property="og:type" content="website">\n'
NOT_FOUND = "404.html"  # served at any missing address: it has no address of its own


def with_canonical(files: Mapping[str, bytes], site_url: str) -> dict[str, bytes]:
    """`files` with each HTML page's canonical link and og:url added, when `site_url` is known."""
    if not site_url:
        return dict(files)
    base = site_url.rstrip("/") + "/"
    out = {}
    for name, data in files.items():
        if name.endswith(".html") and name != NOT_FOUND and _ANCHOR in data:
            address = html.escape(base + name, quote=True)
            tags = (f'<link rel="canonical" href="{address}">\n'
                    f'<meta property="og:url" content="{address}">\n').encode("utf-8")
            data = data.replace(_ANCHOR, tags + _ANCHOR, 1)
        out[name] = data
    return out
