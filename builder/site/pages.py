"""Markdown pages with YAML front matter, as authors write them in content/pages/."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem, gather
from builder.core.textfiles import MAX_DOCUMENT_BYTES, decode_utf8, read_input
from builder.core.yamlfile import parse_yaml

_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
REQUIRED = ("title", "description")
KNOWN = {"title", "description", "template", "nav", "order", "jsonld"}


@dataclass(frozen=True)
class Page:
    path: Path
    slug: str  # output name without .html
    meta: dict[str, Any]
    body: str  # Markdown with Jinja expressions
    body_line: int  # line of the file where `body` starts, for error messages

    @property
    def title(self) -> str:
        return str(self.meta["title"])


def load_pages(folder: Path) -> list[Page]:
    found = folder.iterdir() if folder.is_dir() else ()
    return gather(sorted(p for p in found if p.suffix.lower() == ".md" and p.is_file()), read_page)


def read_page(path: Path) -> Page:
    try:
        raw = read_input(path, MAX_DOCUMENT_BYTES)  # a FIFO, device or huge file is refused, not read
    except OSError as exc:
        raise InputError.single(path, f"cannot read page: {exc.strerror or exc}") from exc
    text = decode_utf8(path, raw).replace("\r\n", "\n")
    match = _FRONT.match(text)
    if match is None:
        raise InputError.single(path, "a page starts with YAML front matter between '---' lines", line=1)
    meta = parse_yaml(match.group(1), path, first_line=2)[0] or {}  # the one YAML reader (limits, duplicate keys)
    _check_meta(path, meta)
    body_line = match.group(0).count("\n") + 1
    return Page(path, path.stem, meta, text[match.end():], body_line)


def _check_meta(path: Path, meta: Any) -> None:
    if not isinstance(meta, dict):
        raise InputError.single(path, "front matter must be a mapping", line=2)
    problems = [Problem(str(path), "required front matter field is missing", 1, f) for f in REQUIRED if f not in meta]
    problems += [Problem(str(path), "unknown front matter field", 1, f) for f in sorted(set(meta) - KNOWN)]
    if problems:
        raise InputError(problems)
