"""Benchmark `make site`: cold builds (no site/) and no-change rebuilds.

Reports medians over repeated runs, with min/max and the load average, because
this 2-core machine is shared and single timings are noisy. Run via `make bench`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def summary(samples: list[float]) -> dict[str, float]:
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples),
            "samples_s": [round(s, 3) for s in samples]}


PAGE_LIMIT = 300 * 1024


def page_weights(site: Path) -> dict[str, object]:
    """HTML page sizes against the 300 KB budget (the shared chart bundle is reported apart)."""
    sizes = {str(p.relative_to(site)): p.stat().st_size for p in sorted(site.rglob("*.html"))}
    largest = max(sizes, key=sizes.get)
    bundle = site / "assets" / "vega-bundle.js"
    return {
        "pages": len(sizes), "median_bytes": statistics.median(sizes.values()),
        "largest": {largest: sizes[largest]},
        "over_300KB": sorted(name for name, size in sizes.items() if size > PAGE_LIMIT),
        "site_bytes": sum(p.stat().st_size for p in site.rglob("*") if p.is_file()),
        "chart_bundle_bytes": bundle.stat().st_size if bundle.exists() else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    site = ROOT / "site"
    command = ["make", "--no-print-directory", "site"]
    timed(command)  # warm the OS file cache and make sure the venv and data exist
    cold = []
    for _ in range(args.repeat):
        shutil.rmtree(site, ignore_errors=True)
        cold.append(timed(command))
    warm = [timed(command) for _ in range(args.repeat)]
    report = {
        "command": " ".join(command),
        "cold_build": summary(cold),
        "no_change_rebuild": summary(warm),
        "ratio_cold_to_no_change": statistics.median(cold) / statistics.median(warm),
        "load_average_1m": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "page_weights": page_weights(site),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
