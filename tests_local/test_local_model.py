"""Opt-in, slow: the real llama.cpp server with the real local GGUF, probed through the CLI.

`make test-local-model` runs it (it needs `make local-model` first, which builds the runtime
for several minutes). Not part of `make test` or CI. It checks what the unit tests cannot:
that the recipe in docs/probing.md serves a real model that answers both conditions, and that
the runs it leaves are complete, parseable and say what served them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from builder.cli import dataset_path
from builder.runs.reader import read_run

REPO = Path(__file__).resolve().parents[1]
LOCAL = Path(os.environ.get("LOCAL_MODEL_DIR", REPO / ".local-model")).resolve()
ITEMS = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    if not (LOCAL / "venv" / "bin" / "python").exists():
        pytest.fail(f"no runtime in {LOCAL}: run `make local-model` first")
    port = _free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    info = tmp_path_factory.mktemp("info") / "runtime.json"  # never the shared one: real runs read that
    proc = subprocess.Popen([sys.executable, str(REPO / "scripts" / "local_model.py"), "--dir", str(LOCAL),
                             "serve", "--port", str(port), "--info", str(info)], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(1)
    else:
        proc.kill()
        pytest.fail(f"the llama.cpp server did not come up on {base}; see {log.name}")
    yield base, info
    proc.terminate()
    proc.wait(30)


@pytest.mark.parametrize("condition", ["sighted", "blind"])
def test_the_real_model_answers_every_item(server: tuple[str, Path], condition: str, tmp_path: Path) -> None:
    base, info = server
    out = tmp_path / "{run_id}.jsonl"
    cmd = [sys.executable, "-m", "builder.cli", "probe", "--base-url", base,
           "--model", "qwen2.5-coder-1.5b-instruct", "--condition", condition, "--sample", str(ITEMS),
           "--concurrency", "1", "--quiet", "--out", str(out), "--runtime-info", str(info)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=900,
                          env=dict(os.environ, CIBUZZBENCH_CSV=str(dataset_path())))
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*.jsonl")
    run = read_run(path)
    assert run.footer is not None and len(run.items) == ITEMS
    assert all(item.error in (None, "") and item.response for item in run.items)
    runtime = run.header.subject["runtime"]
    assert runtime == json.loads(info.read_text()) and runtime["endpoint"] == base
    assert runtime["quantisation"] == "Q4_K_M" and runtime["local"] is True
    params = run.header.subject["parameters"]
    assert params["protocol"] == ("t2-sighted-en" if condition == "sighted" else "t2-blind-article-en")
    # Whatever the model answers is the finding; but a server that answers at all must yield
    # some parseable letters on 20 items, or the recipe (chat template, max tokens) is broken.
    assert sum(1 for item in run.items if item.prediction) >= ITEMS // 2
