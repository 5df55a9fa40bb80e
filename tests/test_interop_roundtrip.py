"""Real round trips: export, run the harness itself (lm-evaluation-harness, Inspect) against the
loopback OpenAI-compatible server, import its output, and check the run equals the one
`buzzprobe probe` makes against the same server, item by item.

Needs the `interop` extra (`pip install -e '.[interop]'`, which `.ci/run` installs): skipped
locally without it, a failure in CI. Synthetic data only; everything is written to tmp.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builder.cli import main
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer, reply
from tests.test_interop import answer

REPO = Path(__file__).resolve().parents[1]

SAMPLE = "120"  # items per arm; the closing note measures 400
ARMS = ("t2-sighted", "t2-blind", "t3")
MODEL = "loopmodel"
# What each harness adds to the request body beyond buzzprobe's own (model, messages,
# temperature, max_tokens): asserted, so a new release that sends more is noticed.
EXTRA_BODY = {"lm-eval": {"stop": [], "seed": 1234}, "inspect": {}}


def need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the interop extra ({module} is missing)")
        pytest.skip(f"{module} not installed (pip install -e '.[interop]')")


@pytest.fixture()
def server():
    with LoopbackServer(lambda request: reply(answer(request.body["messages"]))) as s:
        yield s


def harness_env(root: Path) -> dict[str, str]:
    """The environment a harness runs in: kept off any network, its caches and logs under root,
    this checkout's modules importable by the tasks buzzprobe exports."""
    return {**os.environ, "HF_HOME": str(root / "hf"), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
            "LOOPBACK_API_KEY": "loopback", "INSPECT_LOG_DIR": str(root / "logs"), "NO_COLOR": "1",
            "PYTHONPATH": str(REPO)}


@pytest.fixture()
def env(synthetic_csv, monkeypatch, tmp_path):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return harness_env(tmp_path)


# `lm_eval run` indexes every task lm-eval ships (thousands of YAML files) before it looks at
# --include_path: about 13 s of CPU a start, a third of a harness test. This test runs the command
# as a user types it; the harness tests that only need their own tasks start lm-eval's own CLI
# with the built-in tasks left unindexed (its TaskManager's include_defaults=False) and every
# other step unchanged: arguments, evaluation, the samples files.
LM_EVAL_OWN_TASKS = (sys.executable, "-c", """
import functools, sys
from lm_eval.tasks import manager
manager.TaskManager.__init__ = functools.partialmethod(manager.TaskManager.__init__, include_defaults=False)
from lm_eval.__main__ import cli_evaluate
sys.argv[0] = "lm_eval"
cli_evaluate()
""")


def run_tool(args: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def probe_runs(server: LoopbackServer, out: Path) -> dict[str, Path]:
    """What `buzzprobe probe` writes for the same arms, by run id."""
    for extra in (["--condition", "sighted"], ["--condition", "blind"], ["--task", "harmfulness_detection"]):
        assert main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", SAMPLE, "--quiet",
                     "--out", str(out / "{run_id}.jsonl"), *extra]) == 0
    return {p.stem: p for p in out.glob("*.jsonl")}


def imported_and_probed(path: Path, probed: dict[str, Path], harness: str) -> tuple[Any, Any]:
    """An imported run and the probe's run of the same arm, their headers checked equal but for
    what an import differs in (its id, time, tool and the harness it came through)."""
    run = read_run(path)
    twin = read_run(probed[run.header.run_id.removeprefix(f"{harness}-")])
    mine, theirs = run.header.to_json(), twin.header.to_json()
    params = mine["subject"].pop("parameters")
    assert params.pop("source").startswith({"lm-eval": "lm-eval ", "inspect": "inspect_ai "}[harness])
    assert params == theirs["subject"].pop("parameters")  # no import_warnings either
    for key in ("run_id", "created", "tool"):
        mine.pop(key), theirs.pop(key)
    assert mine == theirs
    return run, twin


def assert_same_runs(imported: Path, probed: dict[str, Path], harness: str, *, usage: bool) -> None:
    runs = sorted(imported.rglob("*.jsonl"))
    assert len(runs) == 3
    for path in runs:
        run, twin = imported_and_probed(path, probed, harness)
        assert [i.row_id for i in run.items] == [i.row_id for i in twin.items] and len(run.items) == int(SAMPLE)
        for a, b in zip(run.items, twin.items):
            assert (a.row_id, a.letter_map, a.response, a.prediction, a.error) == \
                   (b.row_id, b.letter_map, b.response, b.prediction, b.error)
            if usage:
                assert a.usage == b.usage
        assert len({i.prediction for i in run.items}) > 2  # answers vary, so equality means something


def assert_same_requests(server: LoopbackServer, harness: str) -> None:
    """The harness sent exactly the messages the probe sent, and only the known extra fields."""
    requests = server.requests
    half = len(requests) // 2
    assert half == 3 * int(SAMPLE)
    key = lambda r: json.dumps(r.body["messages"], ensure_ascii=False)  # noqa: E731
    assert sorted(map(key, requests[:half])) == sorted(map(key, requests[half:]))
    first, probe = requests[0].body, requests[-1].body
    extra = {k: v for k, v in first.items() if k not in probe}
    assert extra == EXTRA_BODY[harness]
    assert {k: first[k] for k in ("model", "temperature", "max_tokens")} == \
           {k: probe[k] for k in ("model", "temperature", "max_tokens")}


def test_lm_eval_round_trip_equals_probe(server, env, tmp_path):
    need("lm_eval")
    tasks = tmp_path / "tasks"
    assert main(["export", "lm-eval", "--out", str(tasks), "--sample", SAMPLE]) == 0
    run_tool([sys.executable, "-m", "lm_eval", "run", "--model", "local-chat-completions",
              "--model_args", f"model={MODEL},base_url={server.url}/chat/completions,num_concurrent=8",
              "--tasks", "cibuzzbench_buzzprobe", "--include_path", str(tasks), "--apply_chat_template",
              "--log_samples", "--output_path", str(tmp_path / "lm-out")], env, tmp_path)
    assert main(["import", "lm-eval", str(tmp_path / "lm-out"), "--out", str(tmp_path / "imported")]) == 0
    probed = probe_runs(server, tmp_path / "probe")
    assert_same_runs(tmp_path / "imported", probed, "lm-eval", usage=False)
    assert_same_requests(server, "lm-eval")


def test_inspect_round_trip_equals_probe(server, env, tmp_path):
    need("inspect_ai")
    tasks = tmp_path / "tasks"
    assert main(["export", "inspect", "--out", str(tasks), "--sample", SAMPLE]) == 0
    run_tool([sys.executable, "-m", "inspect_ai", "eval", "cibuzzbench_tasks.py",
              "--model", f"openai-api/loopback/{MODEL}", "--model-base-url", server.url,
              "--log-format", "eval", "--display", "none"], env, tasks)
    assert main(["import", "inspect", str(tmp_path / "logs"), "--out", str(tmp_path / "imported")]) == 0
    probed = probe_runs(server, tmp_path / "probe")
    assert_same_runs(tmp_path / "imported", probed, "inspect", usage=True)
    assert_same_requests(server, "inspect")
