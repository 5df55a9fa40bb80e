"""`buzzprobe probe` when its inputs or its disk fail (issue 25, item 7): a prompt template that
fails on some items is refused before anything is asked or written, and a full disk is a
clean message (the run resumes from what was written)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builder.cli import main
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
