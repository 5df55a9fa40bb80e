"""Machine-readable extras: FAQPage structured data and the sitemap."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any
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
    return _script_safe(data)


def _script_safe(data: Mapping[str, Any]) -> str:
    # "<" is escaped so the JSON can never close its <script> element.
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


def dataset_jsonld(common: Mapping[str, Any], description: str) -> str:
    """schema.org Dataset for the front page: what the report publishes (every figure in
    facts.json, their provenance, the tables), which data it is based on (at the pinned commit)
    and when it was built. Links are relative unless the site's published address is set."""
    site = common["site"]
    base = (site.get("url") or "").rstrip("/")
    def link(path: str) -> str:
        return f"{base}/{path}" if base else path
    data: dict[str, Any] = {
        "@context": "https://schema.org", "@type": "Dataset",
        "name": f"{site['title']}: {site['tagline']}", "description": description,
        "version": common["version"], "dateModified": common["build_date"],
        "isBasedOn": [{"@type": "Dataset", "name": s.title, **({"url": s.url} if s.url else {}),
                       **({"version": s.commit} if s.commit else {})} for s in common["data_sources"]],
        "distribution": [{"@type": "DataDownload", "encodingFormat": "application/json", "contentUrl": link(name)}
                         for name in ("facts.json", "provenance.json")],
        "measurementTechnique": "multiple-choice evaluation runs scored with the benchmarks' official metrics; "
                                "95% bootstrap intervals; exact McNemar tests on paired runs",
    }
    if base:
        data["url"] = base + "/"
    if site.get("repository"):
        data["codeRepository"] = site["repository"]
    if site.get("licence"):
        data["license"] = site["licence"]
    return _script_safe(data)


def sitemap(slugs: list[str], base_url: str) -> bytes:
    base = base_url.rstrip("/") + "/" if base_url else ""
    entries = "".join(f"  <url><loc>{escape(base + slug)}.html</loc></url>\n" for slug in sorted(slugs))
    # Search engines want absolute <loc>s; without a known address the entries stay relative
    # and the file says why (nothing else can be absolute without inventing an address).
    note = "" if base else RELATIVE_SITEMAP_NOTE
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + note +
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + entries + "</urlset>\n").encode("utf-8")


RELATIVE_SITEMAP_NOTE = ("<!-- Relative locations: this build does not know the site's published address "
                         "(set url in content/site.yaml or BUZZPROBE_SITE_URL to make them absolute). -->\n")
