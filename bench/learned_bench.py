"""Gold-pool generation and the learned option-only probe on the real CSV: timings and scores.

Times (medians over --reps repetitions; this 2-core machine is shared, so min/max are shown):
generating the gold pool, writing and reloading it, building the probe's features, fitting
train->test and the 5-fold CV. Scores (seed 1111, 95% bootstrap intervals from
builder.stats, and the five-seed mean of macro F1) of the learned probe, the
longest-option heuristic and a uniformly random letter, on the original and on the gold-pool
variant, on the test split (train->test) and on all items (CV; the heuristics need no
training, so "all" is simply every item). Only numbers are printed, never dataset text.

Usage: CIBUZZBENCH_CSV=/path/to/cibuzzbench.csv .venv/bin/python bench/learned_bench.py [--reps N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from builder.benchmarks.cibuzzbench.dataset import gold_pool as gp  # noqa: E402
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset  # noqa: E402
from builder.benchmarks.cibuzzbench.dataset.options import option_sets  # noqa: E402
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, EQUIVALENT_SELECTION, OFFICIAL_SEEDS, TASK_LABELS  # noqa: E402
from builder.stats.bootstrap import bootstrap_intervals, paired_bootstrap_difference  # noqa: E402
from builder.stats.classification import classification_report  # noqa: E402
from builder.stats.seeds import summarise_seeds  # noqa: E402
from builder.benchmarks.cibuzzbench.probes import heuristics as h  # noqa: E402
from builder.benchmarks.cibuzzbench.probes import learned as lp  # noqa: E402

TASK2_LABELS = TASK_LABELS[EQUIVALENT_SELECTION]

SHARED = REPO.parent / "shared" / "data" / "cibuzzbench" / "cibuzzbench.csv"
SEED = DEFAULT_SEED


def csv_path() -> Path:
    value = os.environ.get("CIBUZZBENCH_CSV")
    path = Path(value) if value else SHARED
    if not path.is_file():
        sys.exit("set CIBUZZBENCH_CSV to the real CIBuzzBench CSV")
    return path


def timed(fn: Callable[[], Any], reps: int) -> tuple[dict[str, float], Any]:
    samples, result = [], None
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return {"median_s": round(statistics.median(samples), 3), "min_s": round(min(samples), 3),
            "max_s": round(max(samples), 3)}, result


def timings(original: Dataset, reps: int) -> tuple[dict[str, Any], Dataset, gp.GoldPool]:
    out: dict[str, Any] = {}
    out["gold_pool_generate"], pool = timed(lambda: gp.make_gold_pool(original), reps)
    folder = Path(tempfile.mkdtemp(prefix="gold-pool-bench-"))
    out["gold_pool_write_and_load"], variant = timed(
        lambda: (gp.write_gold_pool(pool, folder), gp.load_gold_pool(folder, original))[1], reps)
    for name, dataset in (("original", original), ("gold_pool", variant)):
        table = lp.option_table(dataset)
        out[f"{name}_features"], feats = timed(lambda: lp.features(table), reps)
        out[f"{name}_train_test_fit_and_score"], _ = timed(lambda: lp.train_test(table, feats), reps)
        out[f"{name}_5fold_cv"], _ = timed(lambda: lp.cross_validation(table, feats), reps)
        out[f"{name}_runs_5_seeds_cold"], _ = timed(lambda: _cold_runs(dataset), reps)
    return out, variant, pool


def _cold_runs(dataset: Dataset) -> object:
    lp._evaluate_cached.cache_clear()
    return lp.learned_probe_runs(dataset, seeds=OFFICIAL_SEEDS, created="2026-01-01T00:00:00Z")


def dense_only(dataset: Dataset) -> dict[str, dict[int, int]]:
    """Ablation: the same model without the n-gram blocks; scope -> row_id -> chosen position."""
    table = lp.option_table(dataset)
    full = lp.features(table)
    empty = sp.csr_matrix((full.dense.shape[0], 1))
    feats = lp.Features(full.dense, empty, empty)
    out = {}
    for scope, evaluation in (("test", lp.train_test(table, feats)), ("all", lp.cross_validation(table, feats))):
        out[scope] = {table.row_ids[int(i)]: (table.sources[int(i)], s)
                      for i, s in zip(evaluation.items, evaluation.scores)}
    return out


def predictions(dataset: Dataset, seed: int, ablation: dict[str, Any]) -> dict[str, dict[str, dict[int, str]]]:
    """scope -> predictor -> row_id -> letter."""
    runs = lp.learned_probe_runs(dataset, seeds=(seed,), created="2026-01-01T00:00:00Z")
    learned = {"test": {i.row_id: i.prediction for i in runs[0][1]},
               "all": {i.row_id: i.prediction for i in runs[1][1]}}
    sets = option_sets(dataset, seed)
    rand = h.uniform_random(0)
    out = {}
    for scope, split in (("test", "test"), ("all", None)):
        ids = dataset.row_ids(split)
        out[scope] = {"learned": learned[scope],
                      "learned_dense_only": {i: lp.choose_letter(ablation[scope][i][1], ablation[scope][i][0], sets[i])
                                             for i in ids},
                      "longest_chars": {i: h.longest_chars(sets[i]) for i in ids},
                      "random": {i: rand(sets[i]) for i in ids}}
    return out


PREDICTORS = ("learned", "learned_dense_only", "longest_chars", "random")


def scores(dataset: Dataset) -> dict[str, Any]:
    ablation = dense_only(dataset)
    per_seed = {seed: predictions(dataset, seed, ablation) for seed in OFFICIAL_SEEDS}
    out: dict[str, Any] = {}
    for scope in ("test", "all"):
        ids = dataset.row_ids("test" if scope == "test" else None)
        gold = {seed: [option_sets(dataset, seed)[i].gold_letter for i in ids] for seed in OFFICIAL_SEEDS}
        for name in PREDICTORS:
            pred = [per_seed[SEED][scope][name][i] for i in ids]
            report = classification_report(gold[SEED], pred, TASK2_LABELS)
            ci = bootstrap_intervals(gold[SEED], pred, TASK2_LABELS)
            seeds = summarise_seeds({s: classification_report(gold[s], [per_seed[s][scope][name][i] for i in ids],
                                                              TASK2_LABELS).macro_f1 for s in OFFICIAL_SEEDS})
            out[f"{scope}.{name}"] = {
                "n": len(ids), "accuracy": round(report.accuracy, 2),
                "accuracy_ci": [round(ci["accuracy"].low, 2), round(ci["accuracy"].high, 2)],
                "macro_f1": round(report.macro_f1, 2),
                "macro_f1_ci": [round(ci["macro_f1"].low, 2), round(ci["macro_f1"].high, 2)],
                "macro_f1_5_seeds": [round(seeds.mean, 2), round(seeds.sd, 2)],
            }
        learned = [per_seed[SEED][scope]["learned"][i] for i in ids]
        longest = [per_seed[SEED][scope]["longest_chars"][i] for i in ids]
        diff = paired_bootstrap_difference(gold[SEED], learned, longest, TASK2_LABELS)
        out[f"{scope}.learned_minus_longest_macro_f1_ci"] = [round(diff["macro_f1"].low, 2),
                                                            round(diff["macro_f1"].high, 2)]
    return out


def importance(dataset: Dataset, top: int = 6) -> dict[str, list[tuple[str, float]]]:
    ranked = lp.feature_importance(dataset)
    return {kind: [p for p in ranked if p[0].startswith(kind + ":")][:top] for kind in ("coef", "permutation")}


def print_report(result: dict[str, Any]) -> None:
    print(f"repetitions {result['reps']}, load average {result['load_average']}")
    for name, t in result["timings"].items():
        print(f"  {name:<38} median {t['median_s']:6.3f} s  (min {t['min_s']:.3f}, max {t['max_s']:.3f})")
    print("gold pool counts:", json.dumps(result["gold_pool"]["counts"]))
    for slot, m in result["gold_pool"]["length_means"].items():
        print(f"  mean length {slot:<10} before {m['before']:6.2f}  after {m['after']:6.2f}")
    print(f"scores, seed {SEED}: accuracy [95% CI] | macro F1 [95% CI] | macro F1 mean (sd) over 5 seeds")
    for variant, table in result["scores"].items():
        for key, v in table.items():
            if key.endswith("_ci"):
                print(f"  {variant:<9} {key:<42} {v}")
                continue
            print(f"  {variant:<9} {key:<26} n={v['n']:<5} {v['accuracy']:6.2f} {v['accuracy_ci']} | "
                  f"{v['macro_f1']:6.2f} {v['macro_f1_ci']} | {v['macro_f1_5_seeds'][0]:.2f} ({v['macro_f1_5_seeds'][1]:.2f})")
    for variant, kinds in result["feature_importance"].items():
        for kind, pairs in kinds.items():
            print(f"  {variant:<9} top {kind}: " + ", ".join(f"{n.split(':', 1)[1]} {v:+.3f}" for n, v in pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()
    original = load_dataset(csv_path())
    times, variant, pool = timings(original, args.reps)
    result = {
        "reps": args.reps, "load_average": [round(x, 2) for x in os.getloadavg()], "timings": times,
        "gold_pool": {"counts": pool.counts, "length_means": pool.length_means,
                      "widened": [[c.row_id, c.slot, c.tolerance] for c in pool.widened]},
        "scores": {"original": scores(original), "gold_pool": scores(variant)},
        "feature_importance": {"original": importance(original), "gold_pool": importance(variant)},
    }
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
