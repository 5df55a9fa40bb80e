"""Page weights as models accumulate: simulated models probed through the loopback server.

Each simulated model is asked, like a real one, through `buzzprobe probe`'s runner against
the loopback server (tests/loopback_server.py) on the SYNTHETIC dataset (tests/synthetic.py):
Task 2 sighted and blind on a 400-item sample (sample seed 1111) for the five official option
seeds, and Task 3 on the test split; 11 runs per model. The site is then built with the
model-free probe runs plus the first 1 and the first N models, and the sizes of the article,
categories, models and largest run page are printed as JSON.

Everything is written under a temporary folder (or --work); nothing goes to runs/.
Usage: PYTHONPATH=. .venv/bin/python bench/model_pages_bench.py [--models 5] [--work DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options  # noqa: E402
from builder.pipeline import BuildConfig, build  # noqa: E402
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset  # noqa: E402
from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS  # noqa: E402
from builder.probing.client import RetryPolicy  # noqa: E402
from builder.benchmarks.cibuzzbench.prompts import load_protocols  # noqa: E402
from builder.probing.protocols import find_protocol  # noqa: E402
from builder.benchmarks.cibuzzbench.probes.plan import plan_run
from builder.probing.runner import ProbeSettings, execute  # noqa: E402
from builder.runs.selection import make_selection  # noqa: E402
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs  # noqa: E402
from tests.loopback_server import LoopbackServer, Request, reply  # noqa: E402
from tests.synthetic import write_synthetic_csv  # noqa: E402

CREATED = "2026-01-01T00:00:00Z"
_OPTION = re.compile(r"^([ABCD])\. (\S+)", re.MULTILINE)
PAGES = ("article.html", "categories.html", "models.html")


def _chance(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts (same question, same answer)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def simulated_model(request: Request):
    """Skill depends on the model's name; sighted (the term is shown) beats blind."""
    body = request.body or {}
    model, text = body.get("model", ""), request.all_text
    skill = 0.55 + 0.08 * (int(model.rsplit("-", 1)[-1]) % 5)
    options = _OPTION.findall(request.user_text)
    if not options:  # Task 3
        return reply("harmful" if _chance(model, text) < 0.2 else "non-harmful")
    sighted = "buzzword/slang term:" in request.user_text
    gold = next((letter for letter, word in options if word == "gold"), "A")
    if _chance(model, "right", text) < (skill + 0.25 if sighted else skill):
        return reply(gold)
    others = [letter for letter, _ in options if letter != gold]
    return reply(others[int(_chance(model, "wrong", text) * len(others))])


def probe_model(dataset: Dataset, url: str, name: str, out: Path) -> None:
    protocols = load_protocols()
    policy = RetryPolicy(retries=1, backoff=0.01, max_backoff=0.02)
    jobs = [("equivalent_selection", condition, seed, make_selection(None, 400, 1111))
            for condition in ("sighted", "blind") for seed in OFFICIAL_SEEDS]
    jobs.append(("harmfulness_detection", "sighted", None, make_selection("test", None, 1111)))
    for task, condition, seed, selection in jobs:
        settings = ProbeSettings(model=name, base_url=url, temperature=0.0, top_p=None, max_tokens=8,
                                 selection=selection, concurrency=8, timeout=10, policy=policy, progress=False)
        plan = plan_run(dataset, find_protocol(protocols, task, condition, "en"), settings, seed,
                        str(out / "{model_slug}" / "{run_id}.jsonl"))
        outcome = asyncio.run(execute(plan, "sk-simulated"))
        assert outcome.complete and outcome.errors == 0, outcome


def page_sizes(site: Path) -> dict[str, int]:
    sizes = {name: (site / name).stat().st_size for name in PAGES}
    run_pages = {p.name: p.stat().st_size for p in (site / "runs").glob("*.html")}
    largest = max(run_pages, key=run_pages.get)
    sizes[f"largest run page ({largest})"] = run_pages[largest]
    every = {str(p.relative_to(site)): p.stat().st_size for p in site.rglob("*.html")}
    top = max(every, key=every.get)
    sizes[f"largest page ({top})"] = every[top]
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--work", type=Path, help="keep runs and sites here (default: a temporary folder)")
    parser.add_argument("--content", type=Path, default=REPO / "content")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="buzzprobe-model-pages-"))
    work.mkdir(parents=True, exist_ok=True)
    csv_path = work / "synthetic.csv"
    if not csv_path.exists():
        write_synthetic_csv(csv_path)
    dataset = load_dataset(csv_path)
    probes = work / "probe-runs"
    if not probes.exists():
        generate_probe_runs(dataset, probes, CREATED)
    models = work / "model-runs"
    names = [f"simulated/model-{i}" for i in range(1, args.models + 1)]
    with LoopbackServer(simulated_model) as server:
        for name in names:
            if not (models / name.replace("/", "-")).exists():
                probe_model(dataset, server.url, name, models)
    report = {}
    for count in sorted({1, args.models}):
        runs = work / f"runs-{count}"
        shutil.rmtree(runs, ignore_errors=True)
        shutil.copytree(probes, runs / "probes")
        for name in names[:count]:
            slug = name.replace("/", "-")
            shutil.copytree(models / slug, runs / slug)
        site = work / f"site-{count}"
        build(BuildConfig(runs, args.content, site, options=cibuzzbench_options(csv_path), force=True))
        report[f"{count} model(s)"] = page_sizes(site)
    print(json.dumps({"work": str(work), "sizes_bytes": report}, indent=1))


if __name__ == "__main__":
    main()
