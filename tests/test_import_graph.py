"""What a cache keyed on some modules' code covers: the modules reachable from its roots, by
module-level and deferred imports, and nothing else (so a page edit keeps the audits)."""

from __future__ import annotations

from pathlib import Path

from builder.benchmarks.mcq.analyses import audit_cache
from builder.core.import_graph import reachable
from builder.core.paths import PACKAGE_DIR


def _package(root: Path, modules: dict[str, str]) -> None:
    for name, source in modules.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")


def test_reachable_follows_deferred_and_relative_imports_only_from_its_roots(tmp_path: Path) -> None:
    _package(tmp_path, {
        "builder.__init__": "",
        "builder.a": "from builder import b\n\ndef f():\n    from .sub import c\n",
        "builder.b": "import json\n",
        "builder.sub.__init__": "",
        "builder.sub.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from builder import d\n",
        "builder.d": "",
        "builder.e": "from builder import a\n",
    })
    assert reachable(tmp_path, ["builder.a"]) == {"builder", "builder.a", "builder.b", "builder.sub", "builder.sub.c"}


def test_the_audit_key_covers_the_ranker_and_not_the_pages() -> None:
    covered = reachable(PACKAGE_DIR.parent, audit_cache._ROOTS)
    assert {"builder.ranker.model", "builder.benchmarks.mcq.analyses.findings", "builder.stats.bootstrap"} <= covered
    assert not covered & {"builder.benchmarks.mcq.views.spec_tables", "builder.benchmarks.mcq.analyses.compute", "builder.site.render"}


def test_the_audit_code_hash_is_the_same_from_its_cache(tmp_path: Path) -> None:
    audit_cache.code_hash.cache_clear()
    audit_cache._closure_hash.cache_clear()  # computed here, not remembered from an earlier test
    try:
        fresh = audit_cache.code_hash(tmp_path)
        assert list(tmp_path.glob("mcq-code-*.pickle"))
        audit_cache.code_hash.cache_clear()
        assert audit_cache.code_hash(tmp_path) == fresh == audit_cache.code_hash(None)
    finally:
        audit_cache.code_hash.cache_clear()
