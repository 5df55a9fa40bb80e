"""The shared commands (builder/commands/) belong to no plug-in: removing any one plug-in from
the registry leaves every other command working (issue 29 item 1), and each plug-in's part of a
shared command comes and goes with it.

Data: the synthetic CIBuzzBench CSV (conftest) and the synthetic spec of
tests/fixtures/mcq/results_reference.* (12 made-up items); nothing third-party.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder import benchmarks
from builder.cli import _parser, main

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"
SPEC = "synthetic-results"
PLUGINS = ("cibuzzbench", "mcq", "mouse")
SHARED = {"build", "probe", "list", "data", "import", "export", "audit", "score"}


REGISTERED = benchmarks.registered  # the cached registry itself, whatever a test puts in its place


def _clear() -> None:
    for cached in (REGISTERED, benchmarks.run_owner, benchmarks.run_format_names):
        cached.cache_clear()


@pytest.fixture
def workdir(tmp_path: Path, synthetic_csv: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder: the shipped content with one synthetic spec as its only spec, pages
    that name no benchmark's facts, no predictions; the synthetic CSV as CIBuzzBench's copy."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content, ignore=shutil.ignore_patterns("pages", "benchmarks"))
    (content / "pages").mkdir()
    (content / "pages" / "index.md").write_text("---\ntitle: Home\ndescription: A test site.\n---\n\nHello.\n",
                                                encoding="utf-8")
    (content / "predictions.yaml").write_text("predictions: []\n", encoding="utf-8")
    specs = content / "benchmarks"
    specs.mkdir()
    shutil.copy(FIXTURES / "results_reference.json", specs)
    text = (FIXTURES / "results_reference.yaml").read_text(encoding="utf-8")
    (specs / f"{SPEC}.yaml").write_text(text.replace("dataset_path: tests/fixtures/mcq/", f"dataset_path: {specs}/"),
                                        encoding="utf-8")
    reference = json.loads((FIXTURES / "results_reference.json").read_text(encoding="utf-8"))
    with (tmp_path / "answers.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qid", "picked", "text", "key"])
        writer.writerows([r["question_id"], "ABCD"[r["answer_index"]], "", r["answer_index"]] for r in reference)
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    monkeypatch.setenv("BUZZPROBE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("BUZZPROBE_SKIP_BENCHMARKS", raising=False)
    return tmp_path


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """`without(name)`: the registry without that plug-in, for the rest of the test."""
    _clear()

    def remove(name: str) -> None:
        there = benchmarks.registered()
        kept = tuple(b for b in there if b.name != name)
        assert len(kept) == len(there) - 1, name
        monkeypatch.setattr(benchmarks, "registered", lambda: kept)
        _clear()
    yield remove
    _clear()


def _commands() -> set[str]:
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def _import_results() -> int:
    return main(["import", "results", "answers.csv", "--benchmark", SPEC, "--model", "Synth 7B", "--format", "mapped",
                 "--out", "imported"])


@pytest.mark.parametrize("removed", PLUGINS)
def test_removing_one_plugin_leaves_every_other_command_working(removed: str, workdir: Path, without, capsys) -> None:
    assert _import_results() == 0  # with every plug-in: the spec'd run to export below
    run = next((workdir / "imported").iterdir())
    without(removed)
    assert SHARED <= _commands()
    for command in ("probe", "data", "import", "export", "audit", "score", "list"):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0, command
    capsys.readouterr()
    assert main(["data", "fetch"]) == 0  # local copies only: nothing is downloaded
    assert main(["data", "check", "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)["records"]
    assert [r["benchmark"] for r in checked] == [n for n in ("cibuzzbench", SPEC)
                                                 if n != {"mcq": SPEC}.get(removed, removed)]
    spec_rc = 2 if removed == "mcq" else 0
    if removed == "mcq":  # its options went with it: the word is then unknown, and said so
        assert main(["import", "results", "answers.csv", "--model", "Synth 7B"]) == 2
    else:
        assert _import_results() == 0
    assert main(["export", "eee", "--run", str(run), "--out", str(workdir / "eee")]) == spec_rc
    assert main(["audit", f"content/benchmarks/{SPEC}.yaml", "--json"]) == spec_rc
    err = capsys.readouterr().err
    if removed == "mcq":
        assert "no importer called 'results'" in err and "no installed plug-in audits" in err
    assert main(["build", "--out", "site"]) == 0
    assert (workdir / "site" / "index.html").is_file()
    assert (workdir / "site" / "assets" / "item-browser.js").is_file() == (removed != "cibuzzbench")


def test_each_plugins_part_of_a_shared_command_goes_with_it(without, capsys) -> None:
    """CIBuzzBench's own command, options and actions belong to it: without it they are gone,
    named as unknown; the harness words are the command's and stay (a spec's tasks still export)."""
    without("cibuzzbench")
    assert "runs" not in _commands()
    assert main(["import", "lm-eval", "x.jsonl"]) == 2
    assert "x.jsonl: no such file or folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", "lm-eval", "--arms", "t3", "--out", "x"])
    with pytest.raises(SystemExit):
        main(["data", "gold-pool"])


def test_harness_words_leave_only_with_every_plugin_that_writes_tasks(without, capsys) -> None:
    """`lm-eval` and `inspect` are offered while some plug-in has harness tasks: without both
    CIBuzzBench and the spec'd benchmarks, they are unknown words."""
    without("cibuzzbench")
    without("mcq")
    assert main(["import", "lm-eval", "x.jsonl"]) == 2
    assert "no importer called 'lm-eval'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", "lm-eval", "--out", "x"])


def test_probe_names_the_benchmarks_there_are_by_plugin(workdir: Path, without, capsys) -> None:
    """A name no plug-in probes gets the closest name and every name with its plug-in, whether
    the spec'd benchmarks' plug-in answers (it serves any name) or the command does."""
    assert main(["probe", "--benchmark", "synthetic-reslts", "--model", "m", "--dry-run", "1"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'synthetic-results'?" in err and "cibuzzbench, synthetic-results" in err
    without("mcq")
    assert main(["probe", "--benchmark", "cibuzbench", "--model", "m", "--dry-run", "1"]) == 2
    err = capsys.readouterr().err
    assert "no installed plug-in probes 'cibuzbench'; did you mean 'cibuzzbench'?" in err
    assert "(by plug-in: cibuzzbench: cibuzzbench)" in err
