"""Pages rendered once and reused: what lets a build re-render only what changed.

A run's page depends on its run alone, except for the site-wide footer (build date, run count,
newest run), which every build may change. Such a page is rendered with a placeholder in
place of each of those values and kept (in the per-run cache) under a key of everything else
it reads: the templates, the site configuration, the version and the datasets. Each build
then only fills the placeholders in, which gives the same bytes as a fresh rendering: the
values are plain numbers and ISO dates, which HTML escaping leaves as they are.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

# Context values every page shows and any build may change; they must print as plain text.
VOLATILE = ("build_date", "run_count", "newest_run", "complete_run_count")
# Context values a kept page was rendered with; `provenance` is excluded: a run page reads
# only its own run's facts, whose computation texts are part of the code.
_IGNORED = ("provenance",)


def _placeholder(name: str) -> str:
    return f"@@buzzprobe-volatile-{name}@@"


def reusable_context(common: dict[str, Any]) -> dict[str, Any]:
    """`common` with every volatile value replaced by its placeholder."""
    return {**common, **{name: _placeholder(name) for name in VOLATILE if name in common}}


def context_key(common: dict[str, Any], templates: Path) -> str:
    """What a kept page was rendered from besides its run: the stable context and the templates."""
    digest = hashlib.sha256()
    stable = {k: v for k, v in common.items() if k not in VOLATILE and k not in _IGNORED}
    digest.update(json.dumps(stable, sort_keys=True, default=str).encode())
    for path in sorted(p for p in templates.rglob("*") if p.is_file()):
        digest.update(path.relative_to(templates).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def fill(page: bytes, common: dict[str, Any]) -> bytes:
    """The kept page with this build's volatile values in place."""
    for name in VOLATILE:
        if name in common:
            page = page.replace(_placeholder(name).encode(), str(common[name]).encode())
    return page
