"""Where the site says it can be reused from: the repository's address.

`content/site.yaml`'s `repository` wins; when it is empty and the build runs in a GitHub
Actions workflow (the Pages workflow), the address is the workflow's own repository,
`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`. Both variables are build inputs (the fingerprint
hashes them), so the same inputs still give the same bytes; tests clear them (conftest.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from builder.core.errors import InputError

REPOSITORY_ENV = ("GITHUB_REPOSITORY", "GITHUB_SERVER_URL")
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
_SERVER = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?$")


def repository_url(configured: str, environ: Mapping[str, str]) -> str:
    """The repository link the footer, the citation and the Dataset record show."""
    slug = environ.get("GITHUB_REPOSITORY", "")
    if configured or not slug:
        return configured
    server = environ.get("GITHUB_SERVER_URL", "") or "https://github.com"
    if not _SLUG.match(slug):
        raise InputError.single("GITHUB_REPOSITORY", f"expected owner/name, got {slug!r}")
    if not _SERVER.match(server):
        raise InputError.single("GITHUB_SERVER_URL", f"expected an https:// host, got {server!r}")
    return f"{server}/{slug}"


def citation_cff(site: Mapping[str, Any], version: str, build_date: str) -> bytes:
    """The site's CITATION.cff (Citation File Format 1.2): what the footer's BibTeX says, with
    the published address and the repository when they are known. Strings are written as JSON,
    which YAML reads as double-quoted scalars."""
    def q(text: str) -> str:
        return json.dumps(text, ensure_ascii=False)
    lines = ["cff-version: 1.2.0", f"message: {q('If you use this report, its runs or its figures, please cite it as below.')}",
             f"title: {q(site['title'] + ': ' + site['tagline'])}", "type: dataset",
             "authors:", f"  - name: {q('buzzprobe contributors')}", f"version: {q(version)}",
             f"date-released: {q(build_date)}"]
    if site.get("url"):
        lines.append(f"url: {q(site['url'])}")
    if site.get("repository"):
        lines.append(f"repository-code: {q(site['repository'])}")
    if site.get("licence"):
        lines.append(f"notes: {q('Licence: ' + site['licence'])}")
    return ("\n".join(lines) + "\n").encode("utf-8")
