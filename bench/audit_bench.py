"""Audit bench: wall time and peak memory of `buzzprobe audit` on a synthetic benchmark of N items,
against the budgets of docs/audit.md (200,000 items: 120 s and 2 GB; 1,000,000: 600 s and 4 GB).

The benchmark is written to a temporary folder: 4 options an item, a category field, and option
texts that read like a test's (words of an English-like vocabulary, 1 to 12 of them, numbers,
units, "All of the above", casing and punctuation that vary), with a mild length cue on the gold,
as real benchmarks have. Each audit runs in a child process; its peak resident memory is the
child's own `ru_maxrss` (os.wait4), so this process's memory does not count. The machine may be
shared: the 1-minute load average is printed with each figure.

Usage: python bench/audit_bench.py [--items 200000 ...] [--million] [--json OUT] [--strict]
(BUZZPROBE_BENCH_MILLION=1 adds 1,000,000 items too: about 10 minutes; --strict exits 1 over budget)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGETS = {200_000: (120.0, 2048.0), 1_000_000: (600.0, 4096.0)}  # items -> (seconds, MiB)
WORDS = ("the", "of", "a", "cell", "energy", "water", "force", "market", "law", "court", "protein", "light",
         "temperature", "pressure", "reaction", "price", "demand", "supply", "theory", "model", "growth",
         "rate", "increase", "decrease", "because", "which", "most", "least", "only", "when", "after",
         "before", "system", "function", "value", "number", "species", "population", "gene", "acid", "base",
         "current", "voltage", "mass", "speed", "distance", "time", "state", "federal", "contract", "policy",
         "income", "tax", "capital", "labour", "atom", "electron", "bond", "charge", "field", "wave",
         "signal", "memory", "brain", "muscle", "blood", "heart", "disease", "patient", "treatment",
         "dose", "effect", "cause", "result", "process", "structure", "layer", "surface", "volume",
         "area", "angle", "triangle", "circle", "square", "equation", "solution", "variable", "constant")
UNITS = ("m", "kg", "s", "J", "N", "%", "mol", "K", "V", "Hz")
CATEGORIES = ("biology", "chemistry", "physics", "economics", "law", "medicine", "mathematics", "history",
              "psychology", "engineering", "business", "philosophy", "computer science", "other")


def option(rng: random.Random, longer: bool) -> str:
    kind = rng.random()
    if kind < 0.15:
        return f"{rng.choice((rng.randint(1, 999), round(rng.uniform(0, 100), 2)))} {rng.choice(UNITS)}"
    if kind < 0.18:
        return rng.choice(("All of the above", "None of the above", "Cannot be determined"))
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 8) + (rng.randint(0, 4) if longer else 0))]
    text = " ".join(words)
    text = text.capitalize() if rng.random() < 0.7 else text
    return text + ("." if rng.random() < 0.3 else "")


def item(rng: random.Random, index: int) -> dict[str, object]:
    gold = rng.randrange(4)
    choices = [option(rng, j == gold and rng.random() < 0.4) for j in range(4)]
    for j in range(4):  # distinct options, as the findings require of an auditable item
        while choices[j] in choices[:j]:
            choices[j] += f" {rng.choice(WORDS)}"
    stem = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))).capitalize() + "?"
    return {"id": f"q{index:07d}", "question": stem, "options": choices, "answer": "ABCD"[gold],
            "category": rng.choice(CATEGORIES)}


def write_benchmark(folder: Path, items: int, seed: int = 7) -> Path:
    """data.jsonl and bench.yaml in `folder`; returns the spec's path."""
    rng = random.Random(seed)
    with (folder / "data.jsonl").open("w", encoding="utf-8") as f:
        for i in range(items):
            f.write(json.dumps(item(rng, i)) + "\n")
    spec = folder / "bench.yaml"
    spec.write_text(f"name: audit-bench\ntitle: Audit bench ({items:,} synthetic items)\n"
                    "dataset_path: data.jsonl\nid: id\ndoc_to_text: question\n"
                    "doc_to_choice: options\ndoc_to_target: answer\ncategory: category\n", encoding="utf-8")
    return spec


def measure(spec: Path) -> dict[str, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one `buzzprobe audit --json` child (the
    data named by the spec's variable, as a user's own copy is)."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "BUZZPROBE_DATA_AUDIT_BENCH": str(spec.parent / "data.jsonl")}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "builder.cli", "audit", str(spec), "--json"], cwd=REPO, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the audit failed: {child.stderr.read().decode()[-2000:] if child.stderr else ''}")
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "load_1min": round(os.getloadavg()[0], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, nargs="*", default=[200_000])
    parser.add_argument("--million", action="store_true", help="add 1,000,000 items (about 10 minutes)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a size is over its budget")
    args = parser.parse_args()
    sizes = list(args.items) + ([1_000_000] if args.million or os.environ.get("BUZZPROBE_BENCH_MILLION") == "1" else [])
    results, over = {}, False
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="audit-bench-") as folder:
            figures = measure(write_benchmark(Path(folder), n))
        seconds, mib = BUDGETS.get(n, (None, None))
        within = None if seconds is None else figures["wall_s"] <= seconds and figures["peak_rss_mib"] <= mib
        over |= within is False
        results[n] = figures | {"budget_s": seconds, "budget_mib": mib, "within": within}
        print(f"audit of {n:,} items: {figures['wall_s']} s wall, {figures['cpu_s']} s CPU, "
              f"peak {figures['peak_rss_mib']} MiB (load {figures['load_1min']})"
              + ("" if within is None else f"; budget {seconds:g} s, {mib:g} MiB: {'within' if within else 'OVER'}")
              + (" (the machine is busy: wall time is mostly waiting, CPU time is the audit's own)"
                 if figures["load_1min"] > (os.cpu_count() or 1) else ""), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 1 if over and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
