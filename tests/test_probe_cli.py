"""`buzzprobe probe` as a user runs it: dry runs, several seeds, the key kept secret, fatal
answers, and a process killed with SIGKILL mid-run that resumes without duplicates."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli import main
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_checks import validate_run
from tests.loopback_server import LoopbackServer, Request, gold_responder, status

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-FAKE-buzzprobe-7c1e9a44-do-not-leak"
KEY_ENV = "BUZZPROBE_TEST_KEY"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as s:
        yield s


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, synthetic_csv: Path) -> None:
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    monkeypatch.setenv(KEY_ENV, KEY)


def probe(server: LoopbackServer, out: Path, *extra: str) -> int:
    return main(["probe", "--model", "loop-model", "--base-url", server.url, "--api-key-env", KEY_ENV,
                 "--out", str(out / "{run_id}.jsonl"), "--retries", "1", "--backoff", "0.01",
                 "--timeout", "2", *extra])


def files_text(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file())


def test_dry_run_prints_exact_bodies_and_sends_nothing(env: None, server: LoopbackServer, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, tmp_path, "--condition", "blind", "--sample", "5", "--dry-run", "2") == 0
    out = capsys.readouterr().out
    assert server.requests == [] and list(tmp_path.iterdir()) == []
    assert out.count("POST body") == 2 and "loop-model-t2-blind-en-s1111-n5-r0" in out
    assert '"content": "Options:\\nA. ' in out and "合成词" not in out and KEY not in out


def test_several_seeds_make_one_valid_run_each(env: None, server: LoopbackServer, tmp_path: Path,
                                               synthetic_dataset: Dataset,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, tmp_path, "--sample", "6", "--split", "test", "--seeds", "1111", "2222", "--quiet") == 0
    paths = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in paths] == ["loop-model-t2-sighted-en-s1111-test-n6-r0.jsonl",
                                       "loop-model-t2-sighted-en-s2222-test-n6-r0.jsonl"]
    for path in paths:
        run = read_run(path)
        validate_run(run, synthetic_dataset)
        assert run.footer is not None and len(run.items) == 6
    assert "complete; asked 6, 0 failed" in capsys.readouterr().out


def test_the_key_appears_nowhere_even_when_requests_fail(env: None, server: LoopbackServer, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    def echo_key(request: Request):
        number = int(re.search(r"合成词(\d+)", request.user_text).group(1))
        header = request.headers["Authorization"]
        if number % 3 == 0:
            return status(500, body=f"internal error; you sent {header}")
        if number % 3 == 1:
            return status(400, body=f"rejected: {header}")
        return gold_responder()(request)
    server.set_responder(echo_key)
    assert probe(server, tmp_path, "--task", "harmfulness_detection", "--sample", "30") == 0
    captured = capsys.readouterr()
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in server.requests)  # it was used
    errors = [i.error for i in read_run(next(tmp_path.glob("*.jsonl"))).items if i.error]
    assert errors and any("HTTP 500" in e for e in errors) and any("HTTP 400" in e for e in errors)
    assert all("[redacted]" in e for e in errors)
    assert KEY not in captured.out + captured.err + files_text(tmp_path)
    assert "errors=" in captured.err and "--retry-errors" in captured.err


def test_a_bad_key_stops_the_run_and_names_no_key(env: None, server: LoopbackServer, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    server.set_responder(lambda request: status(401, body=f"invalid key {request.headers['Authorization']}"))
    assert probe(server, tmp_path, "--sample", "20", "--quiet") == 4
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "re-run the same command" in err and KEY not in err
    assert KEY not in files_text(tmp_path)
    assert len(server.requests) <= 8  # stops at once: at most one request per worker


def test_usage_errors_exit_2(env: None, server: LoopbackServer, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, tmp_path, "--task", "harmfulness_detection", "--condition", "blind") == 2
    assert probe(server, tmp_path, "--task", "harmfulness_detection", "--seeds", "1111") == 2
    assert probe(server, tmp_path, "--items", "all", "--split", "test") == 2
    assert main(["probe", "--model", "m"]) == 2  # no --base-url
    assert server.requests == []


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_sigkill_mid_run_then_resume_has_every_item_once(synthetic_csv: Path, synthetic_dataset: Dataset,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "builder.cli", "probe", "--model", "loop-model", "--split", "test",
               "--concurrency", "4", "--out", str(out), "--api-key-env", KEY_ENV, "--quiet"]
    env = {**os.environ, "CIBUZZBENCH_CSV": str(synthetic_csv), KEY_ENV: KEY, "PYTHONPATH": str(REPO)}
    with LoopbackServer(latency=0.02) as server:
        command += ["--base-url", server.url]
        process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while _lines(out) < 120 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        complete_lines = out.read_bytes().split(b"\n")[1:-1]  # after the header, before a torn tail
        killed = [json.loads(line)["row_id"] for line in complete_lines]
        assert 100 < len(killed) < 600 and len(set(killed)) == len(killed)
        asked_before = len(server.requests)

        resumed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert resumed.returncode == 0, resumed.stderr
        final = read_run(out)
        validate_run(final, synthetic_dataset)
        assert final.row_ids == sorted(synthetic_dataset.row_ids("test"))  # each exactly once, in order
        assert final.footer is not None and final.footer.items == 600
        asked_after = len(server.requests) - asked_before
        # Only the unwritten items are asked again (those in flight at the kill are asked twice).
        assert 600 - len(killed) <= asked_after <= 600 - len(killed) + 4
        assert KEY not in resumed.stdout + resumed.stderr + out.read_text(encoding="utf-8")


def test_retry_errors_reasks_only_the_failed_items(env: None, server: LoopbackServer, tmp_path: Path,
                                                   synthetic_dataset: Dataset,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    server.set_responder(lambda request: status(503) if "合成词00" in request.user_text else
                         gold_responder()(request))
    assert probe(server, tmp_path, "--sample", "120", "--quiet") == 0
    path = next(tmp_path.glob("*.jsonl"))
    failed = {i.row_id for i in read_run(path).items if i.error}
    assert failed and failed == {i for i in read_run(path).row_ids if i < 100}
    assert probe(server, tmp_path, "--sample", "120", "--quiet") == 0  # plain re-run: complete, nothing asked
    assert "already complete" in capsys.readouterr().out

    server.set_responder(gold_responder())
    before = len(server.requests)
    assert probe(server, tmp_path, "--sample", "120", "--quiet", "--retry-errors") == 0
    asked = [int(re.search(r"合成词(\d+)", r.user_text).group(1)) for r in server.requests[before:]]
    assert sorted(asked) == sorted(failed)
    final = read_run(path)
    validate_run(final, synthetic_dataset)
    assert not any(i.error for i in final.items) and final.footer is not None and len(final.items) == 120


def test_a_key_with_a_newline_is_trimmed_and_a_broken_key_refused(env: None, server: LoopbackServer,
                                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(KEY_ENV, KEY + "\r\n")
    assert probe(server, tmp_path, "--sample", "2", "--quiet") == 0
    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    monkeypatch.setenv(KEY_ENV, KEY.replace("-", " ", 1))
    assert probe(server, tmp_path / "other", "--sample", "2", "--quiet") == 2
    captured = capsys.readouterr()
    assert "whitespace or non-ASCII" in captured.err and "7c1e9a44" not in captured.out + captured.err
    assert len(server.requests) == 2
