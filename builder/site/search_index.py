"""The site search's index, written by the build (assets/search-index.js): every page, every
benchmark, every run and every model the pages name, so the search box works without a server
and without any request beyond the site's own files (the page loads the index on first use).

It is read back from the rendered pages themselves (their <title>, description, section
headings, the subject of a run page, the "Model" column of a table), so whatever a page shows
is findable and nothing here needs to know which benchmark wrote which page.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Mapping

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')
_HEADING = re.compile(r"<h[23][^>]*>(.*?)</h[23]>", re.S)
_SUBJECT = re.compile(r"<dt>Subject</dt><dd>model <strong>(.*?)</strong>", re.S)
_HEAD = re.compile(r"<thead>(.*?)</thead>", re.S)
_BODY = re.compile(r"\s*<tbody>(.*?)</tbody>", re.S)  # the body right after a head
_HEADER_CELL = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
_TAGS = re.compile(r"<[^>]+>")
_ANCHOR = re.compile(r'<a class="anchor"[^>]*>.*?</a>', re.S)
_MODEL_COLUMNS = ("Model",)
SKIPPED = ("404.html",)
# A run's further item pages (catalogue_pages: runs/<id>-items-<n>.html) repeat its page's entry.
_ITEM_PART = re.compile(r"^runs/.+-items-\d+\.html$")
_MAX_TEXT = 400  # characters of headings kept per page: enough to find a section by name


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAGS.sub(" ", _ANCHOR.sub("", fragment))).split())


def _kind(path: str) -> str:
    if path.startswith("benchmarks/") or path == "benchmarks.html":
        return "benchmark"
    return "run" if path.startswith("runs/") else "page"


def _model_names(page: str) -> Iterator[str]:
    """The cells of every table column headed "Model", and a model run page's subject."""
    yield from (_text(m) for m in _SUBJECT.findall(page))
    for head in _HEAD.finditer(page):
        headers = [_text(h) for h in _HEADER_CELL.findall(head.group(1))]
        columns = [i for i, h in enumerate(headers) if h in _MODEL_COLUMNS]
        body = _BODY.match(page, head.end()) if columns else None  # a run's item table is not read
        for row in _ROW.findall(body.group(1)) if body else ():
            cells = _CELL.findall(row)
            # "model · option set" labels name the model first
            yield from (_text(cells[i]).split(" · ", 1)[0] for i in columns if i < len(cells))


def _page_entry(path: str, page: str, site_title: str) -> list[str]:
    found = _TITLE.search(page)
    title = html.unescape(found.group(1)) if found else path
    title = title.removesuffix(f" · {site_title}") if site_title else title
    description = _DESCRIPTION.search(page)
    headings = " · ".join(_text(h) for h in _HEADING.findall(page))[:_MAX_TEXT]
    subject = " ".join(_text(m) for m in _SUBJECT.findall(page))  # a run is found by its model's name
    text = " ".join(x for x in (subject, html.unescape(description.group(1)) if description else "", headings) if x)
    return [_kind(path), title, path, text]


def search_index(files: Mapping[str, bytes], site_title: str = "") -> bytes:
    """A script defining `window.buzzprobeSearchIndex`: {"entries": [[kind, title, path, text]]},
    pages in path order, then one entry per model (linked to the first page naming it, models.html
    first). Deterministic: sorted, no dates. JSON inside a script file, so it loads from file:// too."""
    entries: list[list[str]] = []
    models: dict[str, list[str]] = {}
    pages = sorted(p for p in files if p.endswith(".html") and p not in SKIPPED and not _ITEM_PART.match(p))
    for path in sorted(pages, key=lambda p: (p != "models.html", p)):
        page = files[path].decode("utf-8")
        for name in _model_names(page):
            if name and name not in ("–", "-"):
                models.setdefault(name, []).append(path)
    for path in pages:
        entries.append(_page_entry(path, files[path].decode("utf-8"), site_title))
    for name in sorted(models):
        where = list(dict.fromkeys(models[name]))
        entries.append(["model", name, where[0], f"{len(where)} page(s): " + ", ".join(where[:6])])
    data = json.dumps({"entries": entries}, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return f"window.buzzprobeSearchIndex = {data};\n".encode("ascii")
