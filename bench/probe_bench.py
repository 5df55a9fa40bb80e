"""Probe client throughput against the loopback server (run in its own process).

1. Zero server latency, one request at a time: wall time per item of the whole probe loop
   (build prompt, POST, retry wrapper, parse, append + fsync), next to a bare keep-alive
   `http.client` round trip to the same server; the difference is buzzprobe's overhead. The
   client's CPU time per item is printed too: unlike wall time it barely moves with machine load.
   A bare `httpx.AsyncClient` loop shows how much of that the HTTP library itself costs.
2. 200 ms server latency, concurrency 16: items per second against the ideal 16 / 0.2 = 80/s.

Prints medians over several repetitions. Usage: .venv/bin/python bench/probe_bench.py [--reps N]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset  # noqa: E402
from builder.probing.client import RetryPolicy  # noqa: E402
from builder.benchmarks.cibuzzbench.prompts import load_protocols  # noqa: E402
from builder.probing.protocols import find_protocol  # noqa: E402
from builder.benchmarks.cibuzzbench.probes.plan import plan_run
from builder.probing.runner import ProbeSettings, execute  # noqa: E402
from builder.runs.selection import make_selection  # noqa: E402
from tests.synthetic import write_synthetic_csv  # noqa: E402


class ServerProcess:
    """The loopback server in a child process, so it does not share our GIL."""

    def __init__(self, latency: float):
        self.process = subprocess.Popen([sys.executable, "-m", "tests.loopback_server", "--latency", str(latency)],
                                        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


def probe_seconds(dataset: Dataset, url: str, folder: Path, n: int, concurrency: int, rep: int) -> tuple[float, float]:
    """Wall and CPU seconds of one complete probe run of n items (a fresh file each time)."""
    settings = ProbeSettings(model="bench", base_url=url, temperature=0.0, top_p=None, max_tokens=8,
                             selection=make_selection(None, n, rep), concurrency=concurrency, timeout=30,
                             policy=RetryPolicy(retries=0), progress=False)
    protocol = find_protocol(load_protocols(), "equivalent_selection", "sighted", "en")
    plan = plan_run(dataset, protocol, settings, 1111, str(folder / f"rep{concurrency}-{rep}.jsonl"))
    started, cpu = time.perf_counter(), time.process_time()
    outcome = asyncio.run(execute(plan, "bench-key"))
    took, cpu_took = time.perf_counter() - started, time.process_time() - cpu
    assert outcome.complete and outcome.errors == 0, outcome
    return took, cpu_took


def raw_round_trip_ms(url: str, n: int) -> float:
    """Median of bare keep-alive round trips with the standard library: the server's own floor."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port)
    body = json.dumps({"model": "bench", "messages": [{"role": "user", "content": "Options:\nA. gold x"}]})
    times = []
    for _ in range(n):
        started = time.perf_counter()
        connection.request("POST", parts.path + "/chat/completions", body, {"Content-Type": "application/json"})
        connection.getresponse().read()
        times.append(time.perf_counter() - started)
    connection.close()
    return statistics.median(times) * 1000


def bare_httpx_ms(url: str, n: int) -> float:
    """Median of bare httpx.AsyncClient posts: the HTTP library's share of the probe loop."""
    import httpx
    body = {"model": "bench", "messages": [{"role": "user", "content": "Options:\nA. gold x"}]}

    async def go() -> float:
        times = []
        async with httpx.AsyncClient() as client:
            for _ in range(n):
                started = time.perf_counter()
                (await client.post(url + "/chat/completions", json=body)).json()
                times.append(time.perf_counter() - started)
        return statistics.median(times) * 1000
    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(dir=REPO) as tmp:  # on the project's disk: fsync cost is real
        folder = Path(tmp)
        dataset = load_dataset(write_synthetic_csv(folder / "synthetic.csv"))
        with ServerProcess(latency=0.0) as server:
            n = 400
            probe_seconds(dataset, server.url, folder, 50, 1, 99)  # warm up
            runs = [probe_seconds(dataset, server.url, folder, n, 1, rep) for rep in range(args.reps)]
            raw = [raw_round_trip_ms(server.url, n) for _ in range(args.reps)]
            bare = [bare_httpx_ms(server.url, n) for _ in range(args.reps)]
        per_item = [wall / n * 1000 for wall, _ in runs]
        cpu_item = [cpu / n * 1000 for _, cpu in runs]
        item_ms, raw_ms = statistics.median(per_item), statistics.median(raw)
        print(f"zero latency, concurrency 1, {n} items x {args.reps}:")
        print(f"  probe loop      {item_ms:5.2f} ms/item wall (median; reps {_list(per_item)})")
        print(f"  client CPU      {statistics.median(cpu_item):5.2f} ms/item (median; reps {_list(cpu_item)})")
        print(f"  bare round trip {raw_ms:5.2f} ms (http.client to the same server)")
        print(f"  bare httpx      {statistics.median(bare):5.2f} ms (httpx.AsyncClient alone, same server)")
        print(f"  overhead        {item_ms - raw_ms:5.2f} ms/item (probe loop minus bare round trip)")

        with ServerProcess(latency=0.2) as server:
            n, concurrency = 640, 16
            rates = [n / probe_seconds(dataset, server.url, folder, n, concurrency, rep)[0]
                     for rep in range(args.reps)]
        rate = statistics.median(rates)
        print(f"200 ms latency, concurrency {concurrency}, {n} items x {args.reps} (whole runs, start-up included):")
        print(f"  {rate:5.1f} items/s (median; reps {_list(rates, 1)}) = {rate / 80 * 100:.1f}% of the ideal 80/s")


def _list(values: list[float], digits: int = 2) -> str:
    return ", ".join(f"{v:.{digits}f}" for v in values)

if __name__ == "__main__":
    main()
