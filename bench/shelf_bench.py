"""Shelf bench: the audit time of every shipped spec (content/benchmarks/), cold and cached, and a
forced site build with all of them against the import floor.

Per spec, in this process: loading the spec and its data, the audit with an empty cache (cold)
and again (cached by content: the spec's bytes, the data's hash, the audit's code), wall and CPU
seconds. Then, interleaved with the import floor (bench/scale_bench.py's), `buzzprobe build
--force` with a warm cache: the issue's budget is MMLU-Pro <= 60 s cold and the forced build
<= 3x the floor. The machine is shared (2 cores): the 1-minute load average is printed too, and
CPU seconds say what the work itself cost.

Usage: python bench/shelf_bench.py [--repeat 3] [--json OUT]   (data: `make data`, or the
BUZZPROBE_DATA_* variables and CIBUZZBENCH_CSV naming local copies)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from scale_bench import child_env, floor, run_child, summary  # noqa: E402


def timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)


def audit_times(cache: Path) -> dict[str, dict[str, object]]:
    from builder.benchmarks.mcq.analyses.audit_cache import cached_audit
    from builder.benchmarks.mcq.load import load_benchmark
    from builder.benchmarks.mcq.spec import spec_files
    out: dict[str, dict[str, object]] = {}
    for path in spec_files(REPO / "content", environ={}):
        bench, load_wall, load_cpu = timed(lambda: load_benchmark(path, root=REPO))
        audit, cold_wall, cold_cpu = timed(lambda: cached_audit(bench, cache))
        _, warm_wall, warm_cpu = timed(lambda: cached_audit(bench, cache))
        out[path.stem] = {"items": audit.items, "options": list(audit.options_range),
                          "load_s": load_wall, "load_cpu_s": load_cpu, "audit_cold_s": cold_wall,
                          "audit_cold_cpu_s": cold_cpu, "audit_cached_s": warm_wall, "audit_cached_cpu_s": warm_cpu,
                          "load_average_1m": round(os.getloadavg()[0], 2)}
        print(f"{path.stem}: {out[path.stem]}", file=sys.stderr, flush=True)
    return out


def forced_builds(cache: Path, repeat: int) -> dict[str, object]:
    env = child_env(PYTHONPATH=str(REPO), BUZZPROBE_CACHE=str(cache))
    env.pop("BUZZPROBE_SKIP_BENCHMARKS", None)
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "builder.cli", "build", "--out", str(Path(tmp) / "site"), "--force"]
        run_child(command, env)  # fills the per-run and chart caches (the audits are cached already)
        without = {**env, "BUZZPROBE_SKIP_BENCHMARKS": ",".join(p.stem for p in (REPO / "content" / "benchmarks")
                                                                  .glob("*.yaml"))}
        floors, forced, bare = [], [], []
        for _ in range(repeat):
            floors.append(floor())
            forced.append(run_child(command, env)[0])
            bare.append(run_child(command, without)[0])
    return {"import_floor_s": summary(floors), "forced_build_warm_s": summary(forced),
            "forced_build_without_specs_s": summary(bare),
            "ratio_forced_to_floor": round(statistics.median(forced) / statistics.median(floors), 2),
            "ratio_without_specs_to_floor": round(statistics.median(bare) / statistics.median(floors), 2),
            "load_average_1m_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        report = {"audits": audit_times(cache), "site": forced_builds(cache, args.repeat)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
