"""`buzzprobe mouse probe | judge | import | score` as a user runs them, on the SYNTHETIC
Mouse fixtures and the loopback server: exit codes, located errors, the key kept secret,
dry runs that send nothing, the default `runs/<model>/` folder, and a probe killed with
SIGKILL that resumes with every item exactly once."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli import main
from builder.benchmarks.mouse.dataset import load_main
from builder.benchmarks.mouse.runs import score_run
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer, Request, reply, status
from tests.test_mouse_probe import FIXTURES, MAIN, answer_for, oracle

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-FAKE-mouse-cli-91d2e0b3-do-not-leak"
KEY_ENV = "BUZZPROBE_MOUSE_TEST_KEY"
DATA = {"main": FIXTURES / "main_eval.csv", "ms": FIXTURES / "single_choice.csv", "cc": FIXTURES / "icc.csv"}
FAST = ["--retries", "1", "--backoff", "0.01", "--timeout", "2", "--quiet", "--api-key-env", KEY_ENV]


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(oracle) as s:
        yield s


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)  # default output folders land in the test's own folder


def probe(server: LoopbackServer, task: str, data: Path, *extra: str) -> int:
    return main(["mouse", "probe", "--task", task, "--data", str(data), "--model", "Loop-M",
                 "--base-url", server.url, *FAST, *extra])


def files_text(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file())


def test_probe_writes_under_runs_and_score_prints_intervals(server: LoopbackServer, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, "ir", DATA["main"]) == 0
    run = tmp_path / "runs" / "loop-m" / "mouse-loop-m-ir-sighted.jsonl"
    assert run.is_file() and not (tmp_path / "runs-mouse").exists()
    assert read_run(run).header.benchmark == "mouse"
    assert "complete; asked 12, 0 failed after retries; 0 unparsed" in capsys.readouterr().out
    assert probe(server, "ir", DATA["main"]) == 0
    assert "already complete, nothing to ask" in capsys.readouterr().out

    assert main(["mouse", "score", str(run), "--data", str(DATA["main"]), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "mouse-loop-m-ir-sighted: Loop-M on ir (sighted); n 12, unparsed 0" in out
    assert "95% interval" in out and "balanced_accuracy" in out and "1.000  [1.000, 1.000]" in out
    assert main(["mouse", "score", str(run), "--data", str(DATA["ms"]), "--data", str(DATA["main"]),
                 "--no-intervals", "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["task"] == "ir" and doc["metrics"]["accuracy"] == {"value": 1.0, "low": None, "high": None}


def test_translate_judge_score(server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, "tr", DATA["main"]) == 0
    assert "translations only: judge them" in capsys.readouterr().out
    tr = tmp_path / "runs" / "loop-m" / "mouse-loop-m-tr-sighted.jsonl"
    assert main(["mouse", "score", str(tr)]) == 2
    assert "translations not judged yet" in capsys.readouterr().err

    assert main(["mouse", "judge", "--run", str(tr), "--data", str(DATA["main"]), "--model", "Judge-J",
                 "--base-url", server.url, *FAST]) == 0
    judged = tr.with_name("mouse-loop-m-tr-sighted-judge-judge-j.jsonl")
    assert main(["mouse", "score", str(judged), "--no-intervals"]) == 0
    out = capsys.readouterr().out
    assert "semantic_accuracy" in out and "perfect_rate" in out and "missing 0, copied 0, judge_unparsed 0" in out
    assert score_run(read_run(judged), boot=None).perfect_rate == 1.0


def test_dry_run_sends_nothing_and_writes_nothing(server: LoopbackServer, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert probe(server, "ms", DATA["ms"], "--condition", "blind", "--dry-run", "2") == 0
    out = capsys.readouterr().out
    assert server.requests == [] and list(tmp_path.iterdir()) == []
    assert out.count("POST body") == 2 and "mouse-loop-m-ms-blind" in out
    assert "【合成】甲1" in out and "【合成】题目" not in out and KEY not in out
    # a dry run needs no endpoint at all
    assert main(["mouse", "probe", "--task", "cc", "--data", str(DATA["cc"]), "--model", "m", "--dry-run"]) == 0
    assert capsys.readouterr().out.count("POST body") == 3 and list(tmp_path.iterdir()) == []


def test_the_key_appears_in_no_file_and_no_output(server: LoopbackServer, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def echo_key(request: Request):
        header = request.headers["Authorization"]
        number = int(request.user_text.split("源句", 1)[1][:2])
        if number % 3 == 0:
            return status(500, body=f"internal error; you sent {header}")
        if number % 3 == 1:
            return status(400, body=f"rejected: {header}")
        return oracle(request)
    server.set_responder(echo_key)
    assert probe(server, "td", DATA["main"]) == 0
    captured = capsys.readouterr()
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert "8 failed after retries" in captured.out and "--retry-errors" in captured.err
    written = files_text(tmp_path)
    assert "HTTP 500" in written and "HTTP 400" in written and "[redacted]" in written
    assert KEY not in captured.out + captured.err + written


def test_a_bad_key_stops_with_exit_4(server: LoopbackServer, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    server.set_responder(lambda request: status(401, body=f"invalid key {request.headers['Authorization']}"))
    assert probe(server, "rc", DATA["main"]) == 4
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "re-run the same command" in err and KEY not in err
    assert KEY not in files_text(tmp_path)


def test_bad_input_exits_2_with_a_located_error(server: LoopbackServer, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    no_source = tmp_path / "main_eval.csv"
    no_source.write_text("\n".join(line.split(",", 1)[1] for line in
                                   DATA["main"].read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    assert probe(server, "ir", no_source) == 2
    assert f"{no_source}:1 [Source language]: missing column" in capsys.readouterr().err
    assert probe(server, "ir", DATA["cc"]) == 2  # the wrong file for the task
    assert f"{DATA['cc']}:1 [Source language]: missing column" in capsys.readouterr().err
    assert probe(server, "ir", DATA["main"], "--condition", "blind") == 2
    assert "blind arm exists for ms and cc only" in capsys.readouterr().err
    assert probe(server, "ms", DATA["ms"], "--sample", "7") == 2
    assert "sample size 7 must be between 1 and 6" in capsys.readouterr().err
    assert probe(server, "ms", DATA["ms"], "--out", "{nope}.jsonl") == 2
    assert main(["mouse", "probe", "--task", "ms", "--data", str(DATA["ms"]), "--model", "m"]) == 2
    assert "--base-url: required" in capsys.readouterr().err
    assert server.requests == [] and not (tmp_path / "runs").exists()

    assert probe(server, "ms", DATA["ms"]) == 0
    ms_run = tmp_path / "runs" / "loop-m" / "mouse-loop-m-ms-sighted.jsonl"
    capsys.readouterr()
    assert main(["mouse", "score", str(ms_run)]) == 2  # no --data
    assert f"{ms_run}:1 [dataset.content_sha256]: no Mouse data file has this run's content" in capsys.readouterr().err
    assert main(["mouse", "judge", "--run", str(ms_run), "--data", str(DATA["main"]), "--model", "j",
                 "--base-url", server.url, *FAST]) == 2
    assert f"{ms_run}:1 [task]: not a translation run" in capsys.readouterr().err
    torn = tmp_path / "torn.jsonl"
    torn.write_text(ms_run.read_text(encoding="utf-8").replace('"row_id":3', '"row_id":"3"'), encoding="utf-8")
    assert main(["mouse", "score", str(torn), "--data", str(DATA["ms"])]) == 2
    assert f"{torn}:5 [row_id]: must be an integer >= 0" in capsys.readouterr().err


def test_import_official_outputs_then_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = sorted((FIXTURES / "outputs").glob("*.csv"))
    assert main(["mouse", "import", *map(str, outputs), "--model", "Synthetic Model 0.6B",
                 "--data", str(DATA["main"]), "--data", str(DATA["ms"]), "--temperature", "0"]) == 0
    written = sorted((tmp_path / "runs" / "synthetic-model-0_6b").glob("*.jsonl"))
    assert [p.name for p in written] == [f"mouse-synthetic-model-0_6b-{t}.jsonl" for t in
                                         ("cc", "ir", "ms", "rc", "td", "tr")]
    assert "wrote" in capsys.readouterr().out
    tr = read_run(written[-1])
    assert tr.header.dataset["content_sha256"] == MAIN.content_sha256
    assert tr.header.subject["parameters"] == {"temperature": 0.0}
    assert main(["mouse", "score", *map(str, written), *(a for k in DATA for a in ("--data", str(DATA[k]))),
                 "--no-intervals"]) == 0
    out = capsys.readouterr().out
    assert out.count("file ") == 6 and "f1_toxic" in out and "visual.mcc" in out
    assert main(["mouse", "import", str(FIXTURES / "main_eval.csv"), "--model", "m"]) == 2
    assert "not a Mouse output file" in capsys.readouterr().err


def _big_main(path: Path, rows: int) -> Path:
    """A larger SYNTHETIC main_eval (placeholders only), for the kill-and-resume test."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["Source language", "Reference", "Toxicity", "Intention", "Homophonic", "Semantic", "Visual"])
        for i in range(rows):
            out.writerow([f"【合成】源句{i:04d}", f"【合成】参考{i:04d}", i % 2, i % 8, i % 2, (i // 2) % 2, (i // 4) % 2])
    return path


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_sigkill_mid_run_then_resume_has_every_item_once(tmp_path: Path) -> None:
    data = _big_main(tmp_path / "big.csv", 400)
    big = load_main(data)
    out = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "builder.cli", "mouse", "probe", "--task", "ir", "--data", str(data),
               "--model", "loop-model", "--concurrency", "4", "--out", str(out), "--api-key-env", KEY_ENV, "--quiet"]
    env = {**os.environ, KEY_ENV: KEY, "PYTHONPATH": str(REPO)}
    with LoopbackServer(lambda r: reply(answer_for(r, main=big)), latency=0.02) as server:
        command += ["--base-url", server.url]
        process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while _lines(out) < 80 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        complete_lines = out.read_bytes().split(b"\n")[1:-1]  # after the header, before a torn tail
        killed = [json.loads(line)["row_id"] for line in complete_lines]
        assert 50 < len(killed) < 400 and len(set(killed)) == len(killed)
        asked_before = len(server.requests)

        resumed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert resumed.returncode == 0, resumed.stderr
        final = read_run(out)
        assert [i.row_id for i in final.items] == list(range(400))  # each exactly once, in order
        assert score_run(final, big, boot=None).accuracy == 1.0
        asked_after = len(server.requests) - asked_before
        # Only unwritten items are asked again (those in flight at the kill may be asked twice).
        assert 400 - len(killed) <= asked_after <= 400 - len(killed) + 4
        assert final.footer.items == 400 and all(i.usage and i.error is None for i in final.items)
        everything = resumed.stdout + resumed.stderr + files_text(tmp_path)
        assert KEY not in everything

