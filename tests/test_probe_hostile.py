"""`buzzprobe probe` when its inputs or its disk fail (issue 25, item 7): a prompt template that
fails on some items is refused before anything is asked or written, and a full disk is a
clean message (the run resumes from what was written)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from builder.cli import main
from builder.core.errors import InputError
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer
from tests.test_mcq_probe import NAME, answer, probe, project  # noqa: F401 - a fixture
from tests.test_probe_cli import KEY, KEY_ENV, env, server  # noqa: F401 - fixtures

FAILS_ON_TWO_DIGITS = ("sighted: |\n  {{ question }} {{ 1 // (question | length - 22) }}\n  {{ options }}\n"
                       "  Answer with {{ letters }}.\n")


def test_a_template_failing_on_some_items_is_refused_before_any_request(project: Path, monkeypatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(project)
    spec = project / "content" / "benchmarks" / f"{NAME}.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + FAILS_ON_TWO_DIGITS, encoding="utf-8")
    with LoopbackServer(answer) as server:
        assert probe(project, server, "--benchmark", NAME) == 2
        assert server.requests == []
    err = capsys.readouterr().err
    assert "the prompt cannot be made for 21 of 30 items" in err and "ZeroDivisionError" in err
    assert "ZeroDivisionError: integer division or modulo by zero (row_id 10, 11, 12, 13, 14 and 16 more)" in err
    assert "Traceback" not in err
    assert not (project / "runs").exists() or list((project / "runs").rglob("*.jsonl")) == []


def test_a_full_disk_is_a_message_and_the_run_resumes(env: None, server: LoopbackServer, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    os.symlink("/dev/full", out)  # every write: ENOSPC, as on a full disk
    args = ["probe", "--model", "loop-model", "--base-url", server.url, "--api-key-env", KEY_ENV, "--out", str(out),
            "--sample", "12", "--retries", "0", "--quiet"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "cannot read or write a file: No space left on device" in err and "re-run the same command" in err
    assert "Traceback" not in err and KEY not in err
    out.unlink()
    assert main(args) == 0
    run = read_run(out)
    assert run.footer is not None and len(run.items) == 12


# ------------------------------------------------------------------ spec'd runs get the run checks (item 5)

def _probed_sighted_run(project: Path, monkeypatch) -> Path:
    monkeypatch.chdir(project)
    with LoopbackServer(answer) as server:
        assert probe(project, server, "--benchmark", NAME, "--condition", "sighted") == 0
    (path,) = (project / "runs" / "loop-model").glob("*.jsonl")
    return path


def _spec_problems(project: Path, path: Path) -> list[str]:
    from builder.benchmarks.mcq.loading import load_specs
    with pytest.raises(InputError) as caught:
        load_specs(project / "content", project / ".cache", [read_run(path)])
    return [str(p) for p in caught.value.problems]


def _rewrite(path: Path, keep, edit=lambda record: record) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    kept = [edit(r) for r in records if r["type"] != "item" or keep(r)]
    items = [r for r in kept if r["type"] == "item"]
    footer = kept[-1]
    footer["items"] = len(items)
    footer["usage_totals"] = {k: sum(i["usage"][k] for i in items) for k in footer["usage_totals"]}
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")


def test_a_spec_run_cut_to_its_correct_items_is_not_published_as_complete(project: Path, monkeypatch) -> None:
    path = _probed_sighted_run(project, monkeypatch)
    from builder.benchmarks.mcq.loading import load_specs
    assert load_specs(project / "content", project / ".cache", [read_run(path)])  # as probed: valid
    _rewrite(path, keep=lambda item: item["row_id"] % 3 == 0)  # 10 of 30 kept, footer made to agree
    (problem,) = _spec_problems(project, path)
    assert "footer marks the run finished, but 20 of the 30 declared items are missing" in problem


def test_a_spec_run_with_negative_usage_or_a_wrong_selection_is_refused(project: Path, monkeypatch) -> None:
    path = _probed_sighted_run(project, monkeypatch)
    original = path.read_text(encoding="utf-8")

    def negative(record: dict) -> dict:
        if record["type"] == "item" and record["row_id"] == 4:
            record["usage"]["completion_tokens"] = -7
        return record
    _rewrite(path, keep=lambda item: True, edit=negative)
    found = _spec_problems(project, path)
    assert any("[usage.completion_tokens]: token count -7 is not an integer >= 0" in p for p in found)
    path.write_text(original.replace('"selection":"all","n":30', '"selection":"all","n":12', 1), encoding="utf-8")
    assert any("header declares n=12, but its selection" in p for p in _spec_problems(project, path))
    path.write_text(original.replace('"prediction":"', '"prediction":"Z', 1), encoding="utf-8")
    assert any("is not a letter A-D" in p for p in _spec_problems(project, path))


def test_a_probe_stopped_before_its_first_answer_leaves_no_header_only_run(env: None, server: LoopbackServer,
                                                                          tmp_path: Path, capsys) -> None:
    """A header-only file would make every later build refuse the run (issue 25, item 7)."""
    from tests.loopback_server import status
    out = tmp_path / "run.jsonl"
    server.set_responder(lambda request: status(401))
    args = ["probe", "--model", "loop-model", "--base-url", server.url, "--api-key-env", KEY_ENV, "--out", str(out),
            "--sample", "6", "--quiet"]
    assert main(args) == 4
    assert not out.exists()
    server.set_responder(lambda request: status(400))  # every item fails: each an answer line, none answered
    assert main([*args, "--retries", "0"]) == 1  # so the run is set aside, out of the build's reach (issue 33)
    assert not out.exists() and len(read_run(out.with_name("run.jsonl.failed")).items) == 6
