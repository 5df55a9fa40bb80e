"""One of each utility: the shared helpers behave as every caller relies on, and the
package's import graph has no cycle (a cycle is how a second copy of a helper starts)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import stat
from pathlib import Path

import pytest

from builder.core.build_date import created_stamp, utc_stamp
from builder.core.errors import InputError
from builder.core.fileio import atomic_write
from builder.core.names import fact_anchor, identifier

REPO = Path(__file__).resolve().parents[1]


def _cycles_script():
    spec = importlib.util.spec_from_file_location("import_cycles", REPO / "scripts" / "import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_builder_has_no_import_cycle() -> None:
    script = _cycles_script()
    assert script.cycles(script.import_graph(REPO)) == []


def test_cycle_script_runs_without_the_package_installed(tmp_path: Path) -> None:
    """`python scripts/import_cycles.py` with a bare interpreter (-S: no site-packages, so no
    installed buzzprobe) from another folder reads this checkout: exit 0 means no cycle, not a
    crash whose status 1 reads as 'cycle found'."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-S", str(REPO / "scripts" / "import_cycles.py")], cwd=tmp_path,
                          capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "")}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "0 import cycle(s)" in done.stdout


SHARED_LAYERS = ("core", "stats", "runs", "probing", "site", "claims")
# The shared layers may name the plug-in contract and the registry, never a benchmark.
CONTRACT = {"builder.benchmarks", "builder.benchmarks.base"}


def benchmark_imports(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """{shared-layer module: the benchmark modules it imports}, typing-only imports included."""
    shared = [m for m in graph if m.split(".")[1:2] and m.split(".")[1] in SHARED_LAYERS]
    found = {m: sorted(i for i in graph[m] if i.startswith("builder.benchmarks") and i not in CONTRACT)
             for m in shared}
    return {m: imports for m, imports in found.items() if imports}


def test_shared_layers_import_no_benchmark() -> None:
    script = _cycles_script()
    assert benchmark_imports(script.import_graph(REPO, typing=True)) == {}


# Plug-ins reach one another only through the contract and the registry. The one import left:
def cross_plugin_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) pairs of modules in two different plug-ins, typing-only imports included."""
    plugins = {m.split(".")[2] for m in graph if m.startswith("builder.benchmarks.") and m.endswith(".plugin")}

    def plugin(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if parts[:2] == ["builder", "benchmarks"] and len(parts) > 2 and parts[2] in plugins else None
    return {(a, b) for a, imports in graph.items() for b in imports
            if plugin(a) and plugin(b) and plugin(a) != plugin(b)}


def test_no_plugin_imports_another() -> None:
    script = _cycles_script()
    assert cross_plugin_imports(script.import_graph(REPO, typing=True)) == set()


def _tree(root: Path, packages: tuple[str, ...], modules: dict[str, str]) -> dict[str, set[str]]:
    """The import graph (typing-only imports included) of a package tree written under `root`."""
    for folder in ("builder", "builder/benchmarks", *packages):
        (root / folder).mkdir(exist_ok=True)
        (root / folder / "__init__.py").write_text("")
    for path, text in {"builder/benchmarks/base.py": "", **modules}.items():
        (root / path).write_text(text)
    return _cycles_script().import_graph(root, typing=True)


def test_the_plugin_check_sees_a_cross_plugin_import(tmp_path: Path) -> None:
    graph = _tree(tmp_path, ("builder/benchmarks/one", "builder/benchmarks/two"), {
        "builder/benchmarks/one/plugin.py": "from builder.benchmarks import base\n",
        "builder/benchmarks/two/plugin.py": "def f():\n    from builder.benchmarks.one.plugin import BENCHMARK\n"})
    assert cross_plugin_imports(graph) == {("builder.benchmarks.two.plugin", "builder.benchmarks.one.plugin")}


def test_the_layer_check_sees_a_benchmark_import(tmp_path: Path) -> None:
    graph = _tree(tmp_path, ("builder/runs", "builder/benchmarks/toy"), {
        "builder/benchmarks/toy/tasks.py": "",
        "builder/runs/ok.py": "from builder.benchmarks import base\n",
        "builder/runs/bad.py": "def f():\n    from builder.benchmarks.toy.tasks import X\n"})
    assert benchmark_imports(graph) == {
        "builder.runs.bad": ["builder.benchmarks.toy.tasks"]}


def test_cycle_finder_sees_deferred_imports(tmp_path: Path) -> None:
    """A function-level import closes a cycle too; an `if TYPE_CHECKING:` one only with typing."""
    package = tmp_path / "builder"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from builder import b\n")
    (package / "b.py").write_text("def f():\n    from builder.a import x\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from builder import a\n"
                                  "from builder import d\n")
    (package / "d.py").write_text("from . import c\n")
    script = _cycles_script()
    assert script.cycles(script.import_graph(tmp_path)) == [["builder.a", "builder.b"], ["builder.c", "builder.d"]]
    (package / "d.py").write_text("")
    assert script.cycles(script.import_graph(tmp_path)) == [["builder.a", "builder.b"]]


def test_identifier_is_a_harness_task_name() -> None:
    assert identifier("cibuzzbench_t2_Sighted_en_s1111_n400-r7_gold_pool") == \
        "cibuzzbench_t2_sighted_en_s1111_n400_r7_gold_pool"
    assert identifier("a--.b") == "a_b"  # a run of other characters is one "_"
    assert identifier("t3_zh_t3-zh.v2").isidentifier()


def test_fact_anchor_keeps_dotted_keys_readable() -> None:
    assert fact_anchor("leak.longest_chars.macro_f1.seed_1111") == "f-leak.longest_chars.macro_f1.seed_1111"
    assert fact_anchor("mouse.x y/é") == "f-mouse.x_y__"  # one "_" per character, not per run


def test_atomic_write_replaces_whole_with_the_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "entry.json"
    atomic_write(target, b"first")
    atomic_write(target, b"second", fsync=False)
    assert target.read_bytes() == b"second"
    assert [p.name for p in target.parent.iterdir()] == ["entry.json"]  # no temporary file left
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_utc_stamp_converts_to_utc() -> None:
    east = dt.timezone(dt.timedelta(hours=8))
    assert utc_stamp(dt.datetime(2026, 1, 1, 8, 0, 1, 999_999, tzinfo=east)) == "2026-01-01T00:00:01Z"


def test_created_stamp_needs_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    assert created_stamp() == "2026-12-01T00:00:00Z"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    with pytest.raises(InputError, match="SOURCE_DATE_EPOCH"):
        created_stamp()
