"""Concurrency and crashes: one writer per run file (a real second process is refused), a
killed build's leftovers are removed by the next build and git-ignored, `site/` is never
missing during the swap, and files are written with the user's umask."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.core.errors import InputError
from builder.core.fileio import exclusive, lock_path
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Footer, Header
from builder.runs.writer import write_run
from builder.site.write import STAMP, exchange, leftovers, read_stamp, write_site
from tests.loopback_server import LoopbackServer
from tests.shared_builds import cli_here, cli_in_process
from tests.test_mouse_probe import execute as mouse_execute
from tests.test_mouse_probe import make_plan as mouse_plan
from tests.test_mouse_probe import oracle
from tests.test_run_checks import header, item, sample_ids, write

REPO = Path(__file__).resolve().parents[1]
KEY_ENV = "BUZZPROBE_TEST_KEY"


def _env(csv: Path) -> dict[str, str]:
    return {**os.environ, "CIBUZZBENCH_CSV": str(csv), KEY_ENV: "sk-test", "PYTHONPATH": str(REPO)}


def _probe_cmd(url: str, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "builder.cli", "probe", "--model", "lock-model", "--base-url", url,
            "--api-key-env", KEY_ENV, "--out", str(out / "{run_id}.jsonl"), "--quiet", *extra]


def _lines(path: Path) -> list[dict]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.split(b"\n")[:-1]]  # any torn line fails here


def test_second_probe_on_the_same_run_is_refused_and_the_first_finishes_clean(
        synthetic_csv: Path, tmp_path: Path) -> None:
    with LoopbackServer(latency=0.25) as server:  # slow enough that the second starts before the first ends
        first = subprocess.Popen(_probe_cmd(server.url, tmp_path, "--sample", "60", "--concurrency", "3"),
                                 cwd=tmp_path, env=_env(synthetic_csv), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        run = tmp_path / "lock-model-t2-sighted-en-s1111-n60-r0.jsonl"
        deadline = time.monotonic() + 60
        while not (run.is_file() and run.read_bytes().count(b"\n") > 5):
            assert time.monotonic() < deadline and first.poll() is None, first.communicate()
            time.sleep(0.02)
        # The second in this process (no start-up to wait for), so the first need last only 5 s.
        second = cli_in_process(tmp_path, *_probe_cmd(server.url, tmp_path, "--sample", "60")[3:],
                                env={"CIBUZZBENCH_CSV": str(synthetic_csv), KEY_ENV: "sk-test"})
        out, err = first.communicate(timeout=120)
    assert second.returncode == 2, second.stderr
    assert "being written by another buzzprobe process" in second.stderr and str(run) in second.stderr
    assert "Traceback" not in second.stderr
    assert first.returncode == 0, err
    records = _lines(run)
    ids = Counter(r["row_id"] for r in records if r["type"] == "item")
    assert len(ids) == 60 and set(ids.values()) == {1} and records[-1]["type"] == "footer"
    assert not lock_path(run).exists()  # released and removed


def _hold_lock(path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event) -> None:
    with exclusive(Path(path), "this run"):
        ready.set()
        release.wait(60)


@pytest.fixture
def held_by_other_process() -> Iterator:
    """Hold a path's lock from another process for the duration of a test."""
    context = multiprocessing.get_context("spawn")
    holders = []

    def hold(path: Path) -> None:
        ready, release = context.Event(), context.Event()
        process = context.Process(target=_hold_lock, args=(str(path), ready, release))
        process.start()
        assert ready.wait(30)
        holders.append((process, release))

    yield hold
    for process, release in holders:
        release.set()
        process.join(30)


def test_mouse_probe_takes_the_same_lock(held_by_other_process, tmp_path: Path) -> None:
    with LoopbackServer(oracle) as server:
        plan = mouse_plan("ms", server, tmp_path)
        held_by_other_process(plan.path)
        with pytest.raises(InputError, match="being written by another buzzprobe process"):
            asyncio.run(mouse_execute(plan, "sk-test"))
        assert not plan.path.exists() and server.requests == []


def test_a_lock_left_by_a_killed_process_does_not_block(synthetic_csv: Path, tmp_path: Path) -> None:
    run = tmp_path / "r.jsonl"
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                              "from builder.core.fileio import exclusive\n"
                              "with exclusive(Path(sys.argv[1]), 'x'):\n print('held', flush=True); time.sleep(60)",
                              str(run)], cwd=REPO, env=_env(synthetic_csv), stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    with pytest.raises(InputError):
        with exclusive(run, "this run"):
            pass
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    assert lock_path(run).exists()  # the kill left the file, but not the lock
    with exclusive(run, "this run"):
        pass
    assert not lock_path(run).exists()


# ---------------------------------------------------------------- builds killed mid-write

_KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
import builder.site.write as w
stage = sys.argv[2]
if stage == "staging":
    real, count = w._write_file, [0]
    def write_file(root, name, data):
        count[0] += 1
        if count[0] == 50:
            os.kill(os.getpid(), signal.SIGKILL)
        real(root, name, data)
    w._write_file = write_file
else:  # after the swap, before the replaced site is deleted
    w.shutil.rmtree = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
w.write_site({f"p{i}.html": b"new" for i in range(100)}, Path(sys.argv[1]), "new")
"""


@pytest.mark.parametrize("stage", ["staging", "swapped"])
def test_next_build_removes_what_a_killed_build_left(tmp_path: Path, stage: str) -> None:
    out = tmp_path / "site"
    write_site({"index.html": b"old"}, out, "old")
    result = subprocess.run([sys.executable, "-c", _KILLED_BUILD, str(out), stage], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=60)
    assert result.returncode == -signal.SIGKILL, result.stderr
    left = leftovers(out)
    assert left and all(p.name.startswith(".site.new-") for p in left)
    assert read_stamp(out) == ("old" if stage == "staging" else "new")  # one intact site
    write_site({"index.html": b"next"}, out, "next")
    assert leftovers(out) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert (out / "index.html").read_bytes() == b"next"


@pytest.mark.parametrize("name", [".site.new-abc123/x.html", ".site.old-abc123/site/x.html", ".site.lock",
                                  "runs/models/.demo-t2-sighted-en-s1111-all.jsonl.lock"])
def test_leftovers_and_locks_are_git_ignored(name: str) -> None:
    result = subprocess.run(["git", "check-ignore", "--no-index", "-q", name], cwd=REPO)
    assert result.returncode == 0, f"{name} is not ignored by .gitignore"


def _watch(out: str, ready, stop, result) -> None:
    missing = checks = 0
    while not stop.is_set():
        checks += 1
        missing += not os.path.isdir(out)
        if checks == 1:
            ready.set()
    result.put((missing, checks))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux-only")
def test_site_never_disappears_during_the_swap(tmp_path: Path) -> None:
    """Another process looks for site/ as fast as it can while builds swap it 40 times (the
    two-rename swap this replaced was seen missing about 40 times per swap here)."""
    out = tmp_path / "site"
    files = {f"p{i}.html": b"x" * 100 for i in range(200)}
    write_site(files, out, "0")
    context = multiprocessing.get_context("spawn")
    ready, stop, result = context.Event(), context.Event(), context.Queue()
    watcher = context.Process(target=_watch, args=(str(out), ready, stop, result))
    watcher.start()
    assert ready.wait(60), "the watcher process never started looking"  # a spawn can take seconds under load
    for i in range(40):
        write_site(files, out, str(i + 1))
    stop.set()
    missing, checks = result.get(timeout=30)
    watcher.join(30)
    assert checks > 1000 and missing == 0
    assert read_stamp(out) == "40" and leftovers(out) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux-only")
def test_exchange_swaps_two_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "from-a").touch()
    assert exchange(tmp_path / "a", tmp_path / "b")
    assert os.listdir(tmp_path / "b") == ["from-a"] and os.listdir(tmp_path / "a") == []


# ---------------------------------------------------------------- permissions


@pytest.fixture
def umask_002() -> Iterator[None]:
    old = os.umask(0o002)
    yield
    os.umask(old)


def test_probe_run_file_follows_the_umask(umask_002: None, synthetic_csv: Path, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        result = subprocess.run(_probe_cmd(server.url, tmp_path, "--sample", "3"), cwd=tmp_path,
                                env=_env(synthetic_csv), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    (run,) = tmp_path.glob("*.jsonl")
    assert read_run(run).footer is not None  # finished: rewritten whole, atomically
    assert run.stat().st_mode & 0o777 == 0o664


def test_whole_file_writers_follow_the_umask(umask_002: None, tmp_path: Path, synthetic_dataset) -> None:
    from builder.benchmarks.cibuzzbench.dataset.gold_pool import ensure_gold_pool
    header = Header(run_id="r", benchmark="cibuzzbench", task="harmfulness_detection", condition="sighted",
                    subject={"kind": "model", "name": "m"}, option_seed=None, items={"selection": "all"},
                    dataset={"content_sha256": "x"}, created="2026-01-01T00:00:00Z", tool={})
    write_run(tmp_path / "r.jsonl", header, [Item(0, "harmful")], Footer(1))
    pool = ensure_gold_pool(synthetic_dataset, tmp_path / "data")
    written = [tmp_path / "r.jsonl", *sorted((tmp_path / "data").iterdir())]
    assert pool.path in written and len(written) >= 3
    assert {oct(p.stat().st_mode & 0o777) for p in written} == {oct(0o664)}


def test_build_during_a_probe_reads_the_run_without_the_line_being_written(
        held_by_other_process, project: Path, synthetic_dataset) -> None:
    ids = sample_ids(synthetic_dataset)
    run = write(project / "runs" / "model", "live", [header(synthetic_dataset, "live")]
                + [item(synthetic_dataset, r) for r in ids[:12]])
    torn = json.dumps(item(synthetic_dataset, ids[12]))
    with open(run, "a", encoding="utf-8") as handle:
        handle.write(torn[: len(torn) // 2])  # the probe's next line, half written
    unlocked = cli_here(project, "build")  # the builds in this process; the lock is another process's
    assert unlocked.returncode == 2 and "truncated last line" in unlocked.stderr  # a crash: resume to repair
    held_by_other_process(run)
    result = cli_here(project, "build")
    assert result.returncode == 0, result.stderr
    assert ">12 of 40</td>" in (project / "site" / "runs" / "live.html").read_text()
