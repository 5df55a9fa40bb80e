"""Imports that tell the truth and types that say what is computed (issue 29 items 2 and 4):
the shared layers import nothing above them at run time, no cycle exists even with typing-only
imports, every function-level import says why it is deferred, the run reader reads by the
formats it is given, two plug-ins may not give one id, and mypy runs in `make test`."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import builder.benchmarks as registry
from builder.benchmarks.base import Benchmark, SiteParts
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.core.import_graph import import_graph, lazy_imports, unexplained_lazy_imports, upward_imports
from builder.runs.formats import RunFormat
from builder.runs.reader import read_run

REPO = Path(__file__).resolve().parents[1]


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("import_cycles", REPO / "scripts" / "import_cycles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(root: Path, modules: dict[str, str]) -> Path:
    for name, source in modules.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


# ---------------------------------------------------------------- the layers, in this checkout

def test_no_shared_layer_imports_upward_at_run_time() -> None:
    assert upward_imports(import_graph(REPO)) == {}


def test_no_cycle_even_with_typing_only_imports() -> None:
    assert _script().cycles(import_graph(REPO, typing=True)) == []


def test_every_function_level_import_says_why() -> None:
    assert unexplained_lazy_imports(REPO) == []


# ---------------------------------------------------------------- the checks see what they look for

def test_the_layer_check_sees_a_deferred_upward_import(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "builder.__init__": "", "builder.benchmarks.__init__": "", "builder.cli": "",
        "builder.runs.__init__": "",
        "builder.runs.ok": "from builder.runs import helper\n",
        "builder.runs.helper": "",
        "builder.runs.bad": "def f():\n    from builder.benchmarks import registered\n",
        "builder.site.__init__": "",
        "builder.site.worse": "import builder.cli\n",
    })
    assert upward_imports(import_graph(root)) == {"builder.runs.bad": ["builder.benchmarks"],
                                                  "builder.site.worse": ["builder.cli"]}


def test_the_cycle_check_sees_a_typing_only_cycle(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "builder.__init__": "",
        "builder.a": "from builder import b\n",
        "builder.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from builder.a import X\n",
    })
    assert _script().cycles(import_graph(root)) == []
    assert _script().cycles(import_graph(root, typing=True)) == [["builder.a", "builder.b"]]


def test_a_deferred_import_needs_a_comment_on_it_or_above_its_run(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "def said_above():\n"
        "    # deferred: heavy\n"
        "    import json\n"
        "    from os import (\n"
        "        path,\n"
        "    )\n"
        "    return json, path\n"
        "\n"
        "def said_on_the_line():\n"
        "    import json  # deferred: heavy\n"
        "\n"
        "def unsaid():\n"
        "    x = 1\n"
        "    import json\n"
        "    def inner():\n"
        "        import csv\n", encoding="utf-8")
    assert sorted(lazy_imports(path)) == [(3, "json", True), (4, "os", True), (10, "json", True),
                                          (14, "json", False), (16, "csv", False)]


def test_the_script_reports_all_three_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _package(tmp_path, {
        "builder.__init__": "", "builder.benchmarks.__init__": "", "builder.core.__init__": "",
        "builder.core.up": "def f():\n    from builder.benchmarks import x\n",
    })
    assert _script().main(["import_cycles.py", str(root)]) == 1
    out = capsys.readouterr().out
    assert "upward: builder.core.up -> builder.benchmarks" in out
    assert "lazy: builder/core/up.py:2: builder.benchmarks" in out


# ---------------------------------------------------------------- the reader is given its formats

class _OneFormat:
    """A stand-in lookup: one format, named `toy`, no registry involved."""

    def __init__(self, fmt: RunFormat) -> None:
        self.fmt = fmt

    def format_for(self, benchmark: str, task: str | None) -> RunFormat | None:
        return self.fmt if benchmark == self.fmt.benchmark else None

    def names(self) -> tuple[str, ...]:
        return (self.fmt.benchmark,)


def _toy_run(path: Path, benchmark: str) -> Path:
    header = {"type": "header", "schema": "buzzprobe.run/1", "run_id": "toy-run", "benchmark": benchmark,
              "task": "count", "condition": "plain", "subject": {"kind": "model", "name": "toy-model"},
              "option_seed": None, "items": {"selection": "all", "n": 1}, "dataset": {"content_sha256": "0" * 64},
              "created": "2026-01-01T00:00:00Z", "tool": {"name": "buzzprobe", "version": "0.1.0"}}
    path.write_text(json.dumps(header) + "\n" + json.dumps({"type": "item", "row_id": 1, "words": 3}) + "\n",
                    encoding="utf-8")
    return path


def test_the_reader_reads_by_the_lookup_it_is_given(tmp_path: Path) -> None:
    fmt = RunFormat("toy", ("count",), ("plain",), lambda c, line, header: None,
                    lambda c, line, item, header: SimpleNamespace(row_id=item["row_id"], words=item["words"]))
    run = read_run(_toy_run(tmp_path / "toy.jsonl", "toy"), formats=_OneFormat(fmt))
    assert (run.items[0].row_id, run.items[0].words) == (1, 3)
    with pytest.raises(InputError, match=r"unknown value 'toy' \(expected one of: cibuzzbench"):
        read_run(tmp_path / "toy.jsonl")  # the registry's default knows no `toy`
    with pytest.raises(InputError, match=r"unknown value 'cibuzzbench' \(expected one of: toy\)"):
        read_run(_toy_run(tmp_path / "other.jsonl", "cibuzzbench"), formats=_OneFormat(fmt))


def test_the_registry_is_the_installed_default() -> None:
    from builder.runs.formats import installed
    assert installed() is registry.FORMATS
    assert registry.FORMATS.names() == registry.run_format_names()


# ---------------------------------------------------------------- ids unique across plug-ins

class _Clashing(Benchmark[None, None]):
    name = "clash"
    title = "Clash"

    def load(self, settings: Any, runs: Any) -> None:
        return None

    def compute(self, loaded: None, facts: FactTable, settings: Any) -> None:
        return None

    def site(self, computed: None, facts: FactTable, svg: Any) -> SiteParts:
        return SiteParts(tables={"shared-table": object()}, context={"own_name": 1})  # type: ignore[dict-item]


class _Other(_Clashing):
    name = "other"


def test_two_plugins_giving_one_table_id_is_a_located_error_when_parts_are_collected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from builder import pipeline
    monkeypatch.setattr(registry, "registered", lambda: (_Clashing(), _Other()))
    with pytest.raises(InputError) as raised:
        pipeline._site_parts({"clash": None, "other": None}, FactTable(), None)
    problems = raised.value.problems
    assert [(p.path, p.field) for p in problems] == [
        ("tests/test_typecheck_and_layers.py", "site().tables['shared-table']"),
        ("tests/test_typecheck_and_layers.py", "site().context['own_name']")]
    assert "table 'shared-table' is defined by both clash and other" in problems[0].message


def test_distinct_ids_collect_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    from builder import pipeline
    monkeypatch.setattr(registry, "registered", lambda: (_Clashing(),))
    assert set(pipeline._site_parts({"clash": None}, FactTable(), None)) == {"clash"}


# ---------------------------------------------------------------- the type checker runs in `make test`

def test_make_test_runs_the_pinned_type_checker() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: typecheck\b", makefile, re.M)
    assert re.search(r"^typecheck: .*\n\t\$\(BIN\)/python -m mypy$", makefile, re.M)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    constraints = (REPO / "constraints.txt").read_text(encoding="utf-8")
    for pin in re.findall(r'"((?:mypy|pandas-stubs|types-PyYAML)==[^"]+)"', pyproject):
        assert pin in constraints.splitlines()
    assert 'files = ["builder"]' in pyproject
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
