"""Cold-build budget (issue 35): the committed site with every run and shipped spec, against
Inspect's `inspect view bundle` of the 29 MMLU-Pro runs, measured in the same run.

Rounds, interleaved so that the machine's load falls on both alike: the import floor (a bare
import of the build's heavy libraries, bench/scale_bench.py's), a COLD build (`buzzprobe build
--force` with an empty cache folder: a fresh clone, CI) and `inspect view bundle` of the same
runs converted to Inspect logs with inspect-ai's own API (bench/inspect_bench.py), in both of
Inspect's formats: .eval (its default, the budget's peer) and .json (the older format). Then, on a
copy of runs/ less one MMLU-Pro run, a forced build with the cache warm and the one-added-run
build (the run copied back, no --force). Medians over the rounds; budget: cold <= Inspect's
bundle, peak memory < 1.5 GB, forced <= 3x the floor, one added run <= 2x the floor.

Memory: `peak_rss_mb` is the largest resident set of any one process of the build (the kernel's
ru_maxrss of the child and its workers, as /usr/bin/time reports it); `tree_peak_mb` is the
largest sum over the build's processes sampled every 0.1 s (forked workers share pages with the
parent, which this counts twice: an upper bound). The 1-minute load average is printed per round:
the machine is shared (2 cores), and wall time there is partly waiting.

Usage: python bench/cold_bench.py [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from build_bench import page_weights  # noqa: E402
from inspect_bench import FORMATS, RUNS, bundle, convert, log_dir  # noqa: E402
from scale_bench import child_env, floor, summary  # noqa: E402

PEAK_BUDGET_MB = 1500
PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _tree(pid: int) -> list[int]:
    """pid and its descendants, from /proc/<pid>/task/*/children."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    todo.extend(int(c) for c in handle.read().split())
        except OSError:
            continue
    return found


def run_sampled(command: list[str], env: dict[str, str]) -> dict[str, float]:
    """Wall seconds, the largest single-process RSS (ru_maxrss) and the sampled tree peak (MB)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tree_peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            tree_peak[0] = max(tree_peak[0], sum(_rss(p) for p in _tree(child.pid)))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    error = child.stderr.read().decode() if child.stderr else ""
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{error[-4000:]}")
    return {"s": seconds, "peak_rss_mb": usage.ru_maxrss / 1024, "tree_peak_mb": tree_peak[0] / 2**20,
            "cpu_s": usage.ru_utime + usage.ru_stime}


def build_command(runs: Path, site: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "builder.cli", "build", "--runs", str(runs), "--out", str(site), *flags]


def cold_rounds(repeat: int, root: Path, logs: Path) -> dict[str, object]:
    """Floor, cold build and Inspect bundle, `repeat` times, interleaved."""
    cache, site = root / "cache", root / "site"
    env = child_env(PYTHONPATH=str(REPO), BUZZPROBE_CACHE=str(cache))
    env.pop("BUZZPROBE_SKIP_BENCHMARKS", None)
    floors, cold, loads = [], [], []
    inspect: dict[str, list[float]] = {fmt: [] for fmt in FORMATS}
    inspect_peaks: dict[str, list[float]] = {fmt: [] for fmt in FORMATS}
    for _ in range(repeat):
        floors.append(floor())
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(run_sampled(build_command(REPO / "runs", site, "--force"), env))
        for fmt in FORMATS:
            seconds, peak = bundle(log_dir(logs, fmt), root / "bundle")
            inspect[fmt].append(seconds)
            inspect_peaks[fmt].append(peak / 2**20)
        loads.append(round(os.getloadavg()[0], 2))
        print(f"round: cold {cold[-1]}, inspect {({f: v[-1] for f, v in inspect.items()})} s, load {loads[-1]}",
              file=sys.stderr, flush=True)
    median = {k: statistics.median(c[k] for c in cold) for k in ("s", "peak_rss_mb", "tree_peak_mb", "cpu_s")}
    peer = statistics.median(inspect["eval"])
    weights = page_weights(site)
    sizes = sorted(((p.stat().st_size, str(p.relative_to(site))) for p in site.rglob("*.html")), reverse=True)[:5]
    return {"import_floor_s": summary(floors), "cold_build_s": summary([c["s"] for c in cold]),
            "cold_build_cpu_s": summary([c["cpu_s"] for c in cold]),
            "cold_peak_rss_mb": summary([c["peak_rss_mb"] for c in cold]),
            "cold_tree_peak_mb": summary([c["tree_peak_mb"] for c in cold]),
            "inspect_default_format": "eval",
            "inspect_bundle_s": {fmt: summary(v) for fmt, v in inspect.items()},
            "inspect_bundle_peak_rss_mb": {fmt: summary(v) for fmt, v in inspect_peaks.items()},
            "ratio_cold_to_inspect": {fmt: round(median["s"] / statistics.median(v), 2) for fmt, v in inspect.items()},
            "cold_within_budget": median["s"] <= peer,
            "peak_within_budget": median["peak_rss_mb"] < PEAK_BUDGET_MB,
            "largest_pages_bytes": {name: size for size, name in sizes},
            "pages_over_300KB": weights["over_300KB"], "load_average_1m": loads}


def warm_rounds(repeat: int, root: Path) -> dict[str, object]:
    """Forced build (cache warm) and one added run, on a copy of runs/ less one MMLU-Pro run."""
    runs, cache, site = root / "runs", root / "cache", root / "site"
    shutil.rmtree(runs, ignore_errors=True)
    shutil.copytree(REPO / "runs", runs)
    spare = sorted(RUNS.glob("*.jsonl.gz"))[-1]
    added = runs / "mmlu-pro" / spare.name
    env = child_env(PYTHONPATH=str(REPO), BUZZPROBE_CACHE=str(cache))
    env.pop("BUZZPROBE_SKIP_BENCHMARKS", None)
    shutil.copyfile(spare, added)
    run_sampled(build_command(runs, site, "--force"), env)  # the cache knows every run, the spare too
    floors, forced, one = [], [], []
    for _ in range(repeat):
        added.unlink()
        floors.append(floor())
        forced.append(run_sampled(build_command(runs, site, "--force"), env))
        shutil.copyfile(spare, added)
        one.append(run_sampled(build_command(runs, site), env))
    floor_s = statistics.median(floors)
    return {"import_floor_s": summary(floors), "forced_build_warm_s": summary([f["s"] for f in forced]),
            "one_added_run_s": summary([o["s"] for o in one]),
            "ratio_forced_to_floor": round(statistics.median(f["s"] for f in forced) / floor_s, 2),
            "ratio_added_to_floor": round(statistics.median(o["s"] for o in one) / floor_s, 2),
            "peak_rss_mb": {"forced": round(max(f["peak_rss_mb"] for f in forced)),
                            "added": round(max(o["peak_rss_mb"] for o in one))},
            "load_average_1m_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--logs", type=Path, default=REPO / ".cache" / "bench-inspect-logs",
                        help="the converted Inspect logs, kept between benches (converting takes minutes)")
    args = parser.parse_args()
    report: dict[str, object] = {"cpus": os.cpu_count(), "load_average_1m_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="buzzprobe-cold-") as tmp:
        root, logs = Path(tmp), args.logs
        convert(logs)
        report["cold"] = cold_rounds(args.repeat, root, logs)
        report["warm"] = warm_rounds(args.repeat, root)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
