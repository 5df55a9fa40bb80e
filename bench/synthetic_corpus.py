"""A synthetic corpus for scale benches: the committed runs plus N runs of simulated models.

Simulated models answer Task 2 on a 400-item sample (sample_seed 0, so their blind and sighted
runs pair up) over the five official option seeds. A model of skill s picks the gold option
with probability s when sighted and 0.25 + (s - 0.25) / 2 when blind, otherwise a random
wrong letter; everything is drawn from `random.Random` seeded by the run's name, so the corpus
is a pure function of (dataset, N). Runs are written in the real run format with the real
writer and options from the official shuffle, so the real validator accepts them. They go to
a temporary folder and are never committed.

Usage: CIBUZZBENCH_CSV=... python bench/synthetic_corpus.py N OUT_FOLDER
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset  # noqa: E402
from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, option_sets  # noqa: E402
from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS  # noqa: E402
from builder.runs.selection import Selection  # noqa: E402
from builder.benchmarks.cibuzzbench.run_format import Item  # noqa: E402
from builder.runs.schema import Footer, Header, usage_totals  # noqa: E402
from builder.runs.writer import write_run  # noqa: E402

SAMPLE = Selection("sample", None, 400, 0)
CONDITIONS = ("sighted", "blind")
CREATED = "2026-11-01T00:00:00Z"
FOLDER = "simulated"  # under the corpus's runs folder


def run_names(count: int) -> list[tuple[str, int, str]]:
    """(model, seed, condition) for `count` runs: models in order, each with its 10 runs."""
    out = []
    model = 0
    while len(out) < count:
        for seed in OFFICIAL_SEEDS:
            for condition in CONDITIONS:
                out.append((f"sim-model-{model:04d}", seed, condition))
        model += 1
    return out[:count]


def simulated_run(dataset: Dataset, model: str, seed: int, condition: str) -> tuple[Header, list[Item], Footer]:
    rng = random.Random(f"{model}:{seed}:{condition}")
    skill = random.Random(model).uniform(0.35, 0.95)
    right = skill if condition == "sighted" else 0.25 + (skill - 0.25) / 2
    sets = option_sets(dataset, seed)
    items = []
    for row_id in SAMPLE.row_ids(dataset):
        options = sets[row_id]
        letter_map = {o.letter: o.source for o in options.options}
        gold = options.gold_letter
        answer = gold if rng.random() < right else rng.choice([x for x in LETTERS if x != gold])
        usage = {"prompt_tokens": 140 + rng.randrange(20), "completion_tokens": 1}
        usage["total_tokens"] = usage["prompt_tokens"] + 1
        items.append(Item(row_id, answer, answer, letter_map, None, round(rng.uniform(200, 900), 1), usage))
    protocol = f"t2-{condition}-en"
    parameters = {"temperature": 0.0, "top_p": None, "max_tokens": 8, "lang": "en", "protocol": protocol,
                  "protocol_version": 1, "prompt_sha256": "0" * 64, "endpoint_host": "127.0.0.1"}
    header = Header(
        run_id=f"{model}-t2-{condition}-en-s{seed}-{SAMPLE.tag}", benchmark="cibuzzbench",
        task="equivalent_selection", condition=condition,
        subject={"kind": "model", "name": model, "parameters": parameters}, option_seed=seed,
        items=SAMPLE.header(len(items)),
        dataset={"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
        created=CREATED, tool={"name": "buzzprobe", "version": "0.1.0"})
    return header, items, Footer(len(items), CREATED, usage_totals(items))


def write_simulated(dataset: Dataset, runs_dir: Path, names: list[tuple[str, int, str]]) -> list[Path]:
    paths = []
    for model, seed, condition in names:
        header, items, footer = simulated_run(dataset, model, seed, condition)
        path = runs_dir / FOLDER / f"{header.run_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_run(path, header, items, footer)
        paths.append(path)
    return paths


def make_corpus(dataset: Dataset, extra: int, runs_dir: Path) -> Path:
    """Committed runs (copied) plus `extra` simulated runs in `runs_dir`; returns the path of one
    more simulated run, written apart (beside `runs_dir`) for one-added-run builds."""
    shutil.copytree(REPO / "runs", runs_dir, dirs_exist_ok=True)
    names = run_names(extra + 1)
    write_simulated(dataset, runs_dir, names[:extra])
    spare_dir = runs_dir.parent / f"{runs_dir.name}-spare"
    (spare,) = write_simulated(dataset, spare_dir, names[extra:])
    return spare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, help="simulated runs added to the committed ones")
    parser.add_argument("out", type=Path, help="runs folder to create")
    args = parser.parse_args()
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    spare = make_corpus(load_dataset(dataset_path()), args.count, args.out)
    print(f"{args.out}: committed runs + {args.count} simulated; one more in {spare}")


if __name__ == "__main__":
    main()
