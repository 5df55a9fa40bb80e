"""Machine-readable extras: FAQPage structured data and the sitemap."""

from __future__ import annotations

import html
import json
import re
from xml.sax.saxutils import escape

_QUESTION = re.compile(r"<h3[^>]*>(.*?)</h3>(.*?)(?=<h[23][ >]|\Z)", re.S)
_TAGS = re.compile(r"<[^>]+>")
_PERMALINK = re.compile(r'<a class="anchor"[^>]*>.*?</a>', re.S)


def _text(fragment: str) -> str:
    without_links = _PERMALINK.sub("", fragment)
    return " ".join(html.unescape(_TAGS.sub(" ", without_links)).split())


def faq_jsonld(body_html: str) -> str:
    """schema.org FAQPage from the page's h3 questions and the text under each."""
    entities = [
        {"@type": "Question", "name": _text(q), "acceptedAnswer": {"@type": "Answer", "text": _text(a)}}
        for q, a in _QUESTION.findall(body_html)
    ]
    data = {"@context": "https://schema.org", "@type": "FAQPage", "mainEntity": entities}
    # "<" is escaped so the JSON can never close its <script> element.
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


def sitemap(slugs: list[str], base_url: str) -> bytes:
    base = base_url.rstrip("/") + "/" if base_url else ""
    entries = "".join(f"  <url><loc>{escape(base + slug)}.html</loc></url>\n" for slug in sorted(slugs))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + entries + "</urlset>\n").encode("utf-8")
