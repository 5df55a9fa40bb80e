"""Feedback at the terminal and the CLI's conventions (issue 33 items 5 and 7): progress that is
a bar on a terminal and whole lines elsewhere (never a carriage return in a log), `probe` (the
Mouse one too) ending with the run's score rather than a usage dict, `buzzprobe score RUN…` for
any benchmark's run, `--json` on every command that reports, and help on every option.

Data: the synthetic spec of tests/fixtures/mcq/results_reference.* and the synthetic Mouse
fixtures, answered by the loopback server; nothing third-party.
"""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli import _parser, main
from builder.probing.progress import LineProgress, counter, progress_bar
from tests.loopback_server import LoopbackServer
from tests.test_cli_shared_commands import SPEC, _import_results, workdir  # noqa: F401  (a fixture)
from tests.test_mouse_probe import FIXTURES as MOUSE, oracle

# The commands that report what they did; each takes --json (one document on stdout).
REPORTING = [("build",), ("probe",), ("score",), ("list",), ("data", "check"), ("data", "gold-pool"), ("import",),
             ("export",), ("audit",), ("runs",), ("mouse", "probe"),
             ("mouse", "judge"), ("mouse", "import"), ("mouse", "score")]


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


def test_every_command_and_option_has_help() -> None:
    """`--help` is the reference a user reads: no option may be a bare flag in it."""
    missing = []
    for path, parser in _walk(_parser()):
        assert parser.format_help(), path  # renders: a bare "%" in a help string breaks `--help`
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helped = {a.dest for a in action._choices_actions if a.help}
                missing += [" ".join((*path, name)) for name in action.choices if name not in helped]
            elif not (action.help or "").strip():
                missing.append(f"{' '.join(path) or 'buzzprobe'} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_every_command_that_reports_takes_json() -> None:
    commands = dict(_walk(_parser()))
    assert [c for c in REPORTING if "--json" not in commands[c]._option_string_actions] == []


def test_off_a_terminal_the_audit_and_the_import_count_records_in_whole_lines(workdir: Path, capsys) -> None:
    assert main(["audit", SPEC, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["items"] == 12  # stdout keeps the one document
    assert "audit: 12/12 records" in err and "\r" not in err
    assert [line.split(" [")[0] for line in err.splitlines() if not line.endswith("records")] == [
        f"audit: reading the records of content/benchmarks/{SPEC}.yaml",
        "audit: auditing 12 items: rule probes over 5 option seeds, then the learned probe (the longest step)",
        "audit: done"]
    assert _import_results() == 0
    out, err = capsys.readouterr()
    assert "import: the spec's records: 12/12 records" in err and "import: done, 1 run(s)" in err
    assert "\r" not in err and out.startswith("wrote imported/")


def test_on_a_terminal_the_count_is_a_bar() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    bar = progress_bar(10, 0, "audit", True, Terminal(), unit="record")
    assert not isinstance(bar, LineProgress) and bar.unit == "record"
    bar.close()
    lines = io.StringIO()
    with progress_bar(100, 0, "audit", True, lines, unit="record") as quiet:
        quiet.update(100)
    assert lines.getvalue().splitlines() == ["audit: 0/100 records", "audit: 100/100 records"]
    assert callable(counter("audit", "record"))


def test_import_and_export_print_one_json_document(workdir: Path, capsys) -> None:
    assert main(["import", "results", "answers.csv", "--benchmark", SPEC, "--model", "Synth 7B", "--format", "mapped",
                 "--out", "imported", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (record,) = doc["records"]
    assert doc["command"] == "import" and record["changed"] is True and record["items"] == 12
    run = Path(record["path"])
    assert main(["export", "eee", "--run", str(run), "--out", str(workdir / "eee"), "--json"]) == 0
    written = json.loads(capsys.readouterr().out)["records"]
    assert len(written) == 2 and all(Path(r["path"]).is_file() for r in written)
    assert main(["data", "check", "--json"]) == 0
    csv, spec = json.loads(capsys.readouterr().out)["records"]
    assert csv["benchmark"] == "cibuzzbench" and csv["rows"] > 0 and len(csv["content_sha256"]) == 64
    assert spec["benchmark"] == SPEC and spec["files"] == 1 and len(spec["sha256"]) == 64


def test_data_check_finds_a_spec_file_that_is_not_the_pinned_one(workdir: Path, capsys) -> None:
    """A spec that pins its download: the copy in data_dir must carry the pinned sha256."""
    spec = workdir / "content" / "benchmarks" / f"{SPEC}.yaml"
    text = spec.read_text(encoding="utf-8")
    folder = workdir / "content" / "benchmarks"
    pin = "0" * 64
    spec.write_text(text.replace(f"dataset_path: {folder}/results_reference.json",
                                 f"data_dir: {folder}\ndataset_path: {folder}/results_reference.json\n"
                                 f"download:\n  url: https://example.org/{{path}}\n  files:\n"
                                 f"    results_reference.json: '{pin}'"), encoding="utf-8")
    assert main(["data", "check", "--benchmark", SPEC]) == 2
    err = capsys.readouterr().err
    assert "results_reference.json is not the pinned file" in err and f"data fetch --benchmark {SPEC}" in err


def test_score_prints_any_benchmarks_run_as_a_table_or_json(workdir: Path, capsys) -> None:
    assert _import_results() == 0
    spec_run = next((workdir / "imported").iterdir())
    capsys.readouterr()
    assert main(["score", str(spec_run), "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["benchmark"] == SPEC and doc["score"]["items"] == 12
    assert doc["score"]["accuracy"]["low"] <= doc["score"]["accuracy"]["value"] <= doc["score"]["accuracy"]["high"]
    assert main(["score", str(spec_run)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["run", "benchmark", "items", "failed", "accuracy", "macro", "f1"]
    assert table[1].startswith(doc["run_id"]) and "[" in table[1]
    assert main(["score", str(spec_run), "missing.jsonl"]) == 2
    assert "missing.jsonl: no such run file" in capsys.readouterr().err


def test_the_mouse_probe_ends_with_its_score_not_a_usage_dict(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with LoopbackServer(oracle) as server:
        assert main(["mouse", "probe", "--task", "ms", "--data", str(MOUSE / "single_choice.csv"), "--model", "Loop-M",
                     "--base-url", server.url, "--quiet", "--retries", "1", "--timeout", "2"]) == 0
    out = capsys.readouterr().out
    assert "usage {" not in out and "complete; asked" in out
    assert "score: accuracy 1 (95% interval 1 to 1), mcc 1 (95% interval 1 to 1) on 6 items" in out
    with LoopbackServer(oracle) as server:  # done already: --json says so with its score, as `probe --json` does
        assert main(["mouse", "probe", "--task", "ms", "--data", str(MOUSE / "single_choice.csv"), "--model", "Loop-M",
                     "--base-url", server.url, "--quiet", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["complete"] and done["score"]["accuracy"]["value"] == 1.0 and done["score"]["unit"] == "0-1"
    run = next((tmp_path / "runs").rglob("*.jsonl"))
    monkeypatch.setenv("MOUSE_DATA", str(MOUSE))  # `score` finds Mouse's data as the build does
    assert main(["score", str(run), "--json"]) == 0  # the shared command, Mouse's metrics
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["benchmark"] == "mouse" and doc["score"]["accuracy"]["value"] == 1.0
