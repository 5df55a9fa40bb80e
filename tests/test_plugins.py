"""The plug-in contract: benchmarks are found by folder, and a new one reaches the site
(facts, a table, a page-context name, a generated page) without touching the pipeline."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import builder.benchmarks as benchmarks
from builder.benchmarks import registered
from builder.benchmarks.base import Benchmark, SiteParts
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.site.prepare import merge_parts
from tests.synthetic import synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]

TOY_PLUGIN = '''
"""A toy benchmark written by tests/test_plugins.py."""
from builder.benchmarks.base import Benchmark, RunBrief, SiteParts
from builder.site.tables import Cell, FactCells, Table


class Toy(Benchmark):
    name = "toybench"
    title = "Toy"

    def load(self, settings, runs):
        return (settings.content_dir / "toy.txt").read_text(encoding="utf-8").split()

    def compute(self, words, facts, settings):
        facts.add("toy.words", len(words), "count of words in content/toy.txt", runs=("toy-run-1",))
        return words

    def site(self, words, facts, svg):
        cells = FactCells(facts)
        table = Table("toy-table", "Toy words", ("What", "Count"), ((Cell("words"), cells("toy.words", "count")),))
        return SiteParts(tables={table.id: table}, context={"toy_first_word": words[0]},
                         runs=[RunBrief("toy-run-1", "2026-01-01T00:00:00Z", True)])  # a run without a page

    def pages(self, words, facts, settings):
        return {"toy/words.txt": "\\n".join(words).encode("utf-8")}


BENCHMARK = Toy()
'''

TOY_PAGE = """---
title: Toy
description: A page of the toy benchmark.
---
The toy file has {{ fact("toy.words", "count") }} words; the first is {{ toy_first_word }}.

{{ table("toy-table") }}
"""


@pytest.fixture
def toy_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A benchmark folder added next to the real ones (on the package path), nothing else."""
    folder = tmp_path / "plugins" / "toybench"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "plugin.py").write_text(TOY_PLUGIN)
    monkeypatch.setattr(benchmarks, "__path__", [*benchmarks.__path__, str(tmp_path / "plugins")])
    _clear_registry()
    yield folder
    _clear_registry()
    for name in [m for m in sys.modules if m.startswith("builder.benchmarks.toybench")]:
        del sys.modules[name]


def _clear_registry() -> None:
    for cached in (registered, benchmarks.run_owner, benchmarks.run_format_names):
        cached.cache_clear()


TOY_FORMAT = '''
"""The toy benchmark's run format (tests/test_plugins.py)."""
from types import SimpleNamespace

from builder.runs.formats import RunFormat


def check_header(c, line, header):
    if header["subject"].get("name") == "rejected":
        c.add("the toy format refuses this subject", line, "subject.name")


def read_item(c, line, item, header):
    return SimpleNamespace(row_id=item["row_id"], words=item["words"])


FORMAT = RunFormat("toybench", ("count",), ("plain",), check_header, read_item)
'''


def _toy_run(subject: str = "toy-model") -> str:
    header = {"type": "header", "schema": "buzzprobe.run/1", "run_id": "toy-run", "benchmark": "toybench",
              "task": "count", "condition": "plain", "subject": {"kind": "model", "name": subject},
              "option_seed": None, "items": {"selection": "all", "n": 1}, "dataset": {"content_sha256": "0" * 64},
              "created": "2026-01-01T00:00:00Z", "tool": {"name": "buzzprobe", "version": "0.1.0"}}
    return json.dumps(header) + "\n" + json.dumps({"type": "item", "row_id": 1, "words": 3}) + "\n"


def test_a_plugin_declares_its_run_format_and_the_reader_takes_it_from_the_registry(toy_benchmark, tmp_path: Path):
    from builder.runs.reader import read_run
    (toy_benchmark / "run_format.py").write_text(TOY_FORMAT)
    path = tmp_path / "toy-run.jsonl"
    path.write_text(_toy_run(), encoding="utf-8")
    with pytest.raises(InputError, match="unknown value 'toybench'"):  # no declaration: not readable
        read_run(path)
    toy = next(b for b in registered() if b.name == "toybench")
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(type(toy), "run_format_module", "builder.benchmarks.toybench.run_format", raising=False)
    _clear_registry()
    try:
        assert "toybench" in benchmarks.FORMATS.names()
        assert benchmarks.FORMATS.format_for("toybench", "count").benchmark == "toybench"
        item = read_run(path).items[0]
        assert (item.row_id, item.words) == (1, 3)
        path.write_text(_toy_run("rejected"), encoding="utf-8")
        with pytest.raises(InputError, match=r"\[subject.name\]: the toy format refuses this subject"):
            read_run(path)
    finally:
        monkeypatch.undo()
        _clear_registry()


def test_one_rule_decides_a_runs_owner():
    from builder.benchmarks import run_owner
    assert run_owner("cibuzzbench", "equivalent_selection").name == "cibuzzbench"
    assert run_owner("mouse", "tr").name == "mouse"
    mcq_task = next(b for b in registered() if b.name == "mcq").run_format().tasks[0]
    assert run_owner("any-spec-name", mcq_task).name == "mcq"  # the plug-in that serves any name
    assert run_owner("any-spec-name", "equivalent_selection") is None
    assert run_owner("cibuzzbench", mcq_task).name == "cibuzzbench"  # a plug-in's own name comes first


def test_no_convention_finds_run_formats_behind_the_registry():
    source = (REPO / "builder" / "runs" / "formats.py").read_text(encoding="utf-8")
    assert "glob(" not in source and "import_module" not in source


def test_the_registry_finds_each_benchmark_folder_in_name_order():
    """Every folder of builder/benchmarks/ with a plugin.py, whatever plug-ins exist today."""
    folders = sorted(p.parent.name for p in (REPO / "builder" / "benchmarks").glob("*/plugin.py"))
    found = registered()
    assert len(folders) > 1 and sorted(type(b).__module__.split(".")[2] for b in found) == folders
    names = [b.name for b in found]
    assert names == sorted(names)
    assert all(isinstance(b, Benchmark) for b in found)


def test_a_new_benchmark_folder_reaches_the_site(toy_benchmark, tmp_path: Path):
    assert "toybench" in [b.name for b in registered()]
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    (content / "toy.txt").write_text("alpha <beta> gamma\n", encoding="utf-8")
    (content / "pages" / "toy.md").write_text(TOY_PAGE, encoding="utf-8")
    csv = write_synthetic_csv(tmp_path / "data.csv", synthetic_rows(n=60, test=12, seed=3))
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec
    out = tmp_path / "site"
    build(BuildConfig(options=cibuzzbench_options(csv, DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})), runs_dir=tmp_path / "runs", content_dir=content, out=out, charts=False, cache_dir=tmp_path / "cache"))
    html = (out / "toy.html").read_text(encoding="utf-8")
    assert 'data-fact="toy.words"' in html and ">3</td>" in html
    assert "the first is alpha." in html
    assert (out / "toy" / "words.txt").read_bytes() == b"alpha\n<beta>\ngamma"
    assert '"toy.words": 3' in (out / "facts.json").read_text(encoding="utf-8")
    assert (out / "tables" / "toy-table.csv").read_text(encoding="utf-8").splitlines()[1] == "words,3"
    provenance = (out / "provenance.html").read_text(encoding="utf-8")
    assert "toy-run-1" in provenance and "runs/toy-run-1.html" not in provenance  # it has no page to link
    assert "and 1 run(s)" in html


def test_two_benchmarks_may_not_share_a_table_id():
    one, two = SiteParts(tables={"t": object()}), SiteParts(tables={"t": object()})
    with pytest.raises(InputError, match="table 't' is defined by both a and b"):
        merge_parts({"a": one, "b": two})


def test_a_run_of_no_known_benchmark_is_a_located_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from builder.pipeline import _load, _settings
    from builder.runs import load as run_load
    from builder.runs.load import RunStore

    class FakeRun:
        path = str(tmp_path / "runs" / "x.jsonl")
        header = type("Header", (), {"task": "equivalent_selection"})()

    monkeypatch.setattr(run_load, "read_store", lambda *_: RunStore(runs={"nobench": [FakeRun()]}))
    config = BuildConfig(options=cibuzzbench_options(tmp_path / "missing.csv"), runs_dir=tmp_path / "runs", content_dir=REPO / "content")
    with pytest.raises(InputError) as caught:
        _load(_settings(config), config.runs_dir)
    text = str(caught.value)
    assert f"{FakeRun.path}:1 [benchmark]: no benchmark 'nobench' in this build" in text


def test_the_pipeline_names_no_benchmark():
    source = (REPO / "builder" / "pipeline.py").read_text(encoding="utf-8").lower()
    for benchmark in registered():
        assert benchmark.name not in source and textwrap.dedent(benchmark.title).lower() not in source


def test_each_plugin_reads_only_its_own_typed_options(tmp_path: Path):
    from builder.benchmarks.base import BuildSettings
    from builder.benchmarks.cibuzzbench.build_options import BuildOptions, options
    settings = BuildSettings(content_dir=tmp_path, cache_dir=tmp_path, options=options(tmp_path / "x.csv"))
    assert settings.options_for("cibuzzbench", BuildOptions).dataset == tmp_path / "x.csv"
    assert settings.options_for("mouse", BuildOptions) == BuildOptions()  # none given: the defaults
    wrong = BuildSettings(content_dir=tmp_path, cache_dir=tmp_path, options={"cibuzzbench": {"dataset": "x.csv"}})
    with pytest.raises(TypeError, match="options for 'cibuzzbench' must be a BuildOptions"):
        wrong.options_for("cibuzzbench", BuildOptions)
