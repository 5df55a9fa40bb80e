"""Scale bench: forced and one-added-run builds on the committed corpus and on synthetic ones.

For each corpus (the committed runs; the committed runs plus 100 and plus 1,000 simulated runs,
written by bench/synthetic_corpus.py to a temporary folder) it measures, interleaved with the
import floor (a bare `import` of the build's heavy dependencies in a fresh interpreter):
- the forced build (`buzzprobe build --force`) with a warm per-run cache,
- the cold build (`--force` with the cache folder deleted),
- the one-added-run build: one more run file appears, then `buzzprobe build`,
- the peak memory of every build (max RSS of the child, from os.wait4) and the site size.
Medians with min/max; the machine is shared, so the 1-minute load average is printed too.
Children run as a user's shell runs them: PYTHONDONTWRITEBYTECODE is dropped from their
environment (a sandbox may set it, and then every build compiles the package afresh, about 0.3 s,
while the floor's libraries come precompiled); the output says whether it was set.

Usage: CIBUZZBENCH_CSV=... python bench/scale_bench.py [--repeat 5] [--sizes 0,100,1000]
       [--repeat-large 2] [--json OUT]
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from build_bench import page_weights  # noqa: E402
from synthetic_corpus import make_corpus  # noqa: E402

FLOOR_MODULES = "pandas, altair, sklearn, scipy, jinja2, markdown, yaml, vl_convert"


def child_env(**extra: str) -> dict[str, str]:
    """This environment for a child build or floor, less PYTHONDONTWRITEBYTECODE (see above)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def run_child(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{error}")
    return seconds, usage.ru_maxrss * 1024


def summary(samples: list[float]) -> dict[str, object]:
    return {"median": round(statistics.median(samples), 3), "min": round(min(samples), 3),
            "max": round(max(samples), 3), "n": len(samples), "samples": [round(s, 3) for s in samples]}


def site_bytes(site: Path) -> tuple[int, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


class Corpus:
    """One runs folder, its spare run, and the site and cache a build writes for it."""

    def __init__(self, root: Path, runs: Path, spare: Path):
        self.root, self.runs, self.spare = root, runs, spare
        self.site, self.cache = root / "site", root / "cache"
        self.added = runs / spare.parent.name / spare.name

    def build(self, *flags: str) -> tuple[float, int]:
        env = child_env(PYTHONPATH=str(REPO), BUZZPROBE_CACHE=str(self.cache))
        command = [sys.executable, "-m", "builder.cli", "build", "--runs", str(self.runs),
                   "--out", str(self.site), *flags]
        return run_child(command, env)

    def without_added(self) -> None:
        self.added.unlink(missing_ok=True)

    def with_added(self) -> None:
        self.added.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.spare, self.added)


def floor() -> float:
    return run_child([sys.executable, "-c", f"import {FLOOR_MODULES}"], child_env())[0]


def measure(corpus: Corpus, repeat: int, cold_builds: int = 1) -> dict[str, object]:
    corpus.without_added()
    corpus.build("--force")  # warm the OS file cache and fill the per-run cache
    floors, forced, cold, added, peaks = [], [], [], [], {"forced": [], "cold": [], "added": []}
    ratios = []  # each forced build over the import floor measured just before it
    for _ in range(repeat):
        floors.append(floor())
        corpus.without_added()
        seconds, peak = corpus.build("--force")
        forced.append(seconds)
        ratios.append(seconds / floors[-1])
        peaks["forced"].append(peak)
        corpus.with_added()
        seconds, peak = corpus.build()
        added.append(seconds)
        peaks["added"].append(peak)
        if len(cold) >= cold_builds:
            continue
        floors.append(floor())
        corpus.without_added()
        shutil.rmtree(corpus.cache, ignore_errors=True)
        seconds, peak = corpus.build("--force")
        cold.append(seconds)
        peaks["cold"].append(peak)
    files, size = site_bytes(corpus.site)
    floor_median = statistics.median(floors)
    return {
        "runs": sum(1 for p in corpus.runs.rglob("*") if p.name.endswith((".jsonl", ".jsonl.gz"))) - corpus.added.exists(),
        "import_floor_s": summary(floors),
        "forced_build_s": summary(forced),
        "cold_build_no_cache_s": summary(cold) if cold else None,
        "one_added_run_build_s": summary(added),
        "ratio_forced_to_floor": round(statistics.median(forced) / floor_median, 2),
        "ratio_forced_to_floor_per_pair": summary(ratios),
        "ratio_cold_to_floor": round(statistics.median(cold) / floor_median, 2) if cold else None,
        "ratio_added_to_forced": round(statistics.median(added) / statistics.median(forced), 3),
        "peak_rss_mb": {k: round(max(v) / 2**20) for k, v in peaks.items() if v},
        "site_files": files, "site_mb": round(size / 2**20, 1),
        "pages": {k: v for k, v in page_weights(corpus.site).items() if k in ("pages", "largest", "over_300KB")},
        "load_average_1m_after": round(os.getloadavg()[0], 2),
        "bytecode_writing_disabled_here": "PYTHONDONTWRITEBYTECODE" in os.environ,  # and enabled for the children
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repeat-large", type=int, default=2, help="repeats for corpora of 1,000+ extra runs")
    parser.add_argument("--sizes", default="0,100,1000", help="simulated runs added to the committed corpus")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--cold", type=int, default=1, help="builds with the cache deleted, per corpus (slow; 0 before a cache existed)")
    args = parser.parse_args()
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    dataset = load_dataset(dataset_path())
    report: dict[str, object] = {"cpus": os.cpu_count(), "load_average_1m_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="buzzprobe-scale-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            root = Path(tmp) / f"corpus-{size}"
            spare = make_corpus(dataset, size, root / "runs")
            result = measure(Corpus(root, root / "runs", spare), args.repeat if size < 1000 else args.repeat_large,
                             args.cold)
            report[f"committed+{size}"] = result
            print(json.dumps({f"committed+{size}": result}, indent=1), flush=True)
            shutil.rmtree(root)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
