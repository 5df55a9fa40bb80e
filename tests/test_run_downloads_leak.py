"""The per-run downloads carry each item's leak score where the item has one (issue 35 item 5):
on the golden build, CIBuzzBench's Task 2 runs on the original options (model or probe, sighted
or blind) give every item its one score; its Task 3 runs give none."""

from __future__ import annotations

import csv
import json
from pathlib import Path

RUNS = "downloads/runs"


def _scores(site: Path, run_id: str) -> dict[str, str]:
    with (site / RUNS / f"{run_id}.csv").open(encoding="utf-8", newline="") as f:
        return {row["item_id"]: row["leak_score"] for row in csv.DictReader(f)}


def test_task2_runs_carry_the_items_leak_scores(small_site: Path) -> None:
    sighted = _scores(small_site, "synthetic-demo-t2-sighted-s1111-all")
    assert sighted and all(0.0 <= float(s) <= 1.0 for s in sighted.values())
    for other in ("synthetic-demo-t2-blind-s1111-all", "probe-longest_chars-t2-s2222-test"):
        scores = _scores(small_site, other)  # the item's score, whoever answered it, in any order
        assert scores and all(scores[i] == sighted[i] for i in scores), other
    lines = (small_site / RUNS / "synthetic-demo-t2-sighted-s1111-all.jsonl").read_text(encoding="utf-8").splitlines()
    assert {str(json.loads(line)["item_id"]): json.loads(line)["leak_score"] for line in lines} == \
        {i: float(s) for i, s in sighted.items()}


def test_task3_runs_have_none(small_site: Path) -> None:
    assert set(_scores(small_site, "probe-always_non_harmful-t3-all").values()) == {""}
