"""One cache (builder/core/cache.py): every cached thing is one of its shelves, and a cache never
changes output: a build with a warm cache equals a cold build byte for byte."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from builder.core import cache as C
from builder.core.cachefile import MAGIC
from tests.shared_builds import REPO, small_build, tree

# The sealing primitives: only the one cache module calls them (the site stamp's seal, not a
# cache, uses seal_hex and sealed_text_matches).
SEALING = re.compile(r"\b(read_sealed|write_sealed|read_sealed_pickle|write_sealed_pickle)\b")


@pytest.fixture(scope="module")
def cold_and_warm(small_inputs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The golden inputs built with charts into an empty cache folder, then again (forced) from
    the cache that build filled."""
    root = tmp_path_factory.mktemp("one-cache")
    folder = root / "cache"
    small_build(small_inputs, root / "cold", cache_dir=folder)
    small_build(small_inputs, root / "warm", cache_dir=folder, force=True)
    return root / "cold", root / "warm", folder


def test_a_warm_build_equals_a_cold_build_byte_for_byte(cold_and_warm: tuple[Path, Path, Path], small_site: Path) -> None:
    cold, warm, _ = cold_and_warm
    assert tree(warm) == tree(cold)
    assert tree(cold) == tree(small_site)  # and the session's site, built from the shared cache


def test_every_file_in_the_cache_is_a_sealed_entry_on_a_known_shelf(cold_and_warm: tuple[Path, Path, Path]) -> None:
    _, _, folder = cold_and_warm
    files = [p for p in folder.rglob("*") if p.is_file()]
    shelves = {place for place in C.LAYOUT.values() if place}
    kinds_seen = {p.relative_to(folder).parts[0] if len(p.relative_to(folder).parts) > 1 else "" for p in files}
    assert {"runs", "svg", "jinja", ""} <= kinds_seen  # the run cache, charts, templates and the bundle
    for path in files:
        parts = path.relative_to(folder).parts
        assert len(parts) == 1 or parts[0] in shelves or parts[0].startswith(C.SPEC_PREFIX), path
        assert path.read_bytes().startswith(MAGIC), f"{path} was not written through builder/core/cache.py"


def test_only_the_cache_module_seals_entries() -> None:
    allowed = {REPO / "builder" / "core" / "cache.py", REPO / "builder" / "core" / "cachefile.py"}
    callers = [str(p.relative_to(REPO)) for p in sorted((REPO / "builder").rglob("*.py"))
               if p not in allowed and SEALING.search(p.read_text(encoding="utf-8"))]
    assert callers == []


def test_a_shelf_is_named_by_the_layout_and_keeps_nothing_without_a_folder(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="no cache kind 'nonesuch'"):
        C.CacheFolder(tmp_path).shelf("nonesuch")
    off = C.CacheFolder(None).shelf("runs")
    off.write("x", b"data")
    assert off.read("x") is None and off.folder is None
    on = C.CacheFolder(tmp_path).shelf("svg")
    on.write("x", b"data")
    assert on.read("x") == b"data" and (tmp_path / "svg" / "x").is_file()
    assert C.CacheFolder(tmp_path).shelf("chart").read("x") is None  # another kind's seal: not read


def test_keys_hash_each_part() -> None:
    assert C.key("ab", "c") != C.key("a", "bc")
    assert C.key(b"ab", "c") == C.key("ab", b"c") and len(C.key("x", size=16)) == 16


def test_cached_keeps_the_entries_last_used_and_recomputes_on_other_inputs(tmp_path: Path) -> None:
    shelf = C.CacheFolder(tmp_path).shelf("variants")
    calls: list[str] = []

    def get(value: str) -> dict[str, str]:
        return C.cached(shelf, value, lambda: calls.append(value) or {"v": value}, dict)

    assert get("a") == {"v": "a"} and get("a") == {"v": "a"} and calls == ["a"]  # read back
    assert get("b") == {"v": "b"} and calls == ["a", "b"]
    for path in tmp_path.glob("variants-*.pickle"):  # both written long ago...
        os.utime(path, (1, 1))
    assert get("a") == {"v": "a"} and calls == ["a", "b"]  # ...and "a" used again since
    others = [f"other-{n}" for n in range(C.KEPT_INPUTS - 1)]
    for value in others:
        get(value)
    assert len(list(tmp_path.glob("variants-*.pickle"))) == C.KEPT_INPUTS
    get("a"), get("b")
    assert calls == ["a", "b", *others, "b"]  # "b", the least recently used, was the one removed


def test_a_warm_build_loads_neither_the_chart_library_nor_scikit_learn(cold_and_warm: tuple[Path, Path, Path],
                                                                        small_inputs: tuple[Path, Path],
                                                                        tmp_path: Path) -> None:
    """Charts are kept by their rows and audits by their inputs: a forced build from a warm cache, in
    a process of its own, builds no chart and fits nothing, so Altair (0.3 s) and scikit-learn (1 s)
    never load."""
    import subprocess
    import sys
    _, _, folder = cold_and_warm
    code = ("import sys; from pathlib import Path; from tests.shared_builds import small_build; "
            "small_build((Path(sys.argv[1]), Path(sys.argv[2])), Path(sys.argv[3]), cache_dir=Path(sys.argv[4]), "
            "force=True); print(sorted(m for m in ('altair', 'sklearn') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, *map(str, small_inputs), str(tmp_path / "site"), str(folder)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
