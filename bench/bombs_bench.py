"""Peak memory and time of hostile inputs against the bounded readers (docs/input-limits.md).

Each case is written to a temporary folder and read in a child process of its own, which
prints its peak resident memory (getrusage) and wall time, and what it raised:

- `gzip-newlines`: a run `.jsonl.gz` of newlines only (SCALE MiB inflated; 652 KB of gzip is 640);
- `blank-lines`: a plain run of SCALE MiB of blank lines;
- `zip-bomb`: an MMLU-Pro results `.zip` whose one member inflates to SCALE MiB of spaces,
  read by `import results` (its zip header says the true size);
- `zip-liar`: the same member with a zip header claiming 1,000 bytes (read while streaming).

Usage: python bench/bombs_bench.py [--scale MIB] [case ...]   (nothing real is read)
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = """
import resource, sys, time
sys.path.insert(0, {repo!r})
start = time.monotonic()
try:
    {call}
    outcome = "read"
except BaseException as exc:
    outcome = type(exc).__name__ + ": " + " ".join(str(exc).split())[-160:]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{peak:.0f}} MB peak, {{time.monotonic() - start:.1f}} s; {{outcome}}")
"""

_READ_RUN = "from builder.runs.reader import read_run; read_run({path!r})"
_READ_RESULTS = ("from pathlib import Path; from builder.benchmarks.mcq.results.sources import read_source; "
                 "read_source(Path({path!r}), 'mmlu-pro')")


def gzip_newlines(folder: Path, mib: int) -> tuple[Path, str]:
    path = folder / "bomb.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        for _ in range(mib):
            out.write(b"\n" * 2**20)
    return path, _READ_RUN


def blank_lines(folder: Path, mib: int) -> tuple[Path, str]:
    path = folder / "blank.jsonl"
    with path.open("wb") as out:
        for _ in range(mib):
            out.write(b"\n" * 2**20)
    return path, _READ_RUN


def zip_bomb(folder: Path, mib: int, lie: bool = False) -> tuple[Path, str]:
    path = folder / "model_outputs_bomb_5shots.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("model_outputs_bomb_5shots.json", "w", force_zip64=True) as member:
            member.write(b"[")
            for _ in range(mib):
                member.write(b" " * 2**20)
            member.write(json.dumps({"question_id": 1}).encode() + b"]")
    if lie:
        with zipfile.ZipFile(path) as archive:
            _claim_small(path, archive.infolist()[0].file_size)
    return path, _READ_RESULTS


def _claim_small(path: Path, true_size: int) -> None:
    """Rewrite the member's size (8 bytes in the zip64 local header, 4 in the central
    directory) so both headers claim 1,000 bytes."""
    data = path.read_bytes()
    wide, narrow = true_size.to_bytes(8, "little"), true_size.to_bytes(4, "little")
    assert data.count(wide) + data.count(narrow) >= 2, "sizes not found"
    data = data.replace(wide, (1000).to_bytes(8, "little")).replace(narrow, (1000).to_bytes(4, "little"))
    path.write_bytes(data)


CASES = {"gzip-newlines": gzip_newlines, "blank-lines": blank_lines, "zip-bomb": zip_bomb,
         "zip-liar": lambda folder, mib: zip_bomb(folder, mib, lie=True)}


def measure(case: str, mib: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path, call = CASES[case](Path(tmp), mib)
        size = path.stat().st_size
        code = _CHILD.format(repo=str(REPO), call=call.format(path=str(path)))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
        result = done.stdout.strip() or done.stderr.strip().splitlines()[-1]
        return f"{case} ({size / 1024:,.0f} KB on disk, {mib} MiB inflated): {result}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=64, help="MiB each bomb inflates to (default 64)")
    parser.add_argument("cases", nargs="*", help=f"some of: {', '.join(CASES)} (default all)")
    args = parser.parse_args()
    for case in args.cases or CASES:
        print(measure(case, args.scale), flush=True)


if __name__ == "__main__":
    main()
