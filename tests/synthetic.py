"""A synthetic CIBuzzBench-shaped CSV (labelled synthetic: no real dataset text).

Full size by default (3,001 rows, 2,401 train / 600 test) so the official shape
checks apply unchanged; option lengths are drawn so that the gold tends to be
longer, like the real data, which gives the leakage figures something to find.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, COLUMNS

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "fox", "golf", "hotel", "india", "kilo",
         "lima", "mike", "oscar", "papa", "romeo", "tango", "victor", "zulu")


def _phrase(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def synthetic_rows(n: int = 3001, test: int = 600, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    test_ids = set(rng.sample(range(n), test))
    rows = []
    for i in range(n):
        rows.append({
            "row_id": str(i),
            "split": "test" if i in test_ids else "train",
            "term_zh": f"合成词{i:04d}",
            "explanation_zh": f"合成解释{i}",
            "meaning_en": f"synthetic meaning {i}",
            "equivalent_en": f"gold {i} " + _phrase(rng, rng.randint(2, 6)),
            "distractor_literal_en": f"lit {i} " + _phrase(rng, rng.randint(1, 5)),
            "distractor_cultural_mismatch_en": f"cul {i} " + _phrase(rng, rng.randint(1, 4)),
            "distractor_pragmatic_neighbor_en": f"pra {i} " + _phrase(rng, rng.randint(1, 3)),
            "harmful_label": "harmful" if rng.random() < 0.15 else "non-harmful",
            "category_label": CATEGORIES[i % len(CATEGORIES)],
        })
    return rows


def csv_text(rows: list[dict[str, str]], columns: tuple[str, ...] = COLUMNS, newline: str = "\r\n") -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator=newline, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def write_synthetic_csv(path: Path, rows: list[dict[str, str]] | None = None, **kwargs) -> Path:
    path.write_text(csv_text(rows if rows is not None else synthetic_rows(), **kwargs), encoding="utf-8", newline="")
    return path


def load_runs(runs_dir: Path, datasets):
    """Every run under `runs_dir` read by the run store and checked as the CIBuzzBench plug-in
    checks them (read problems and check problems reported together, as a build does)."""
    from builder.benchmarks.cibuzzbench.run_checks import validate_runs
    from builder.core.errors import InputError
    from builder.runs.load import read_store
    store = read_store(runs_dir)
    runs = [run for named in store.runs.values() for run in named]
    problems = list(store.problems)
    try:
        runs = validate_runs(runs, datasets)
    except InputError as exc:
        problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return runs
