"""What `buzzprobe probe` prints when a CIBuzzBench run is finished: its official scores with
their intervals (analyses.run_scores, as the site computes them) and, when its other arm is
already in the same folder and pairs with it (analyses.paired_facts.find_pairs, the site's
rule), the sighted - blind gap on their items."""

from __future__ import annotations

from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.probing.summary import Figures, gap_figures, score_figures, siblings
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.analyses.paired import analyse_pair
from builder.benchmarks.cibuzzbench.analyses.paired_facts import find_pairs
from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run


def probe_report(path: Path, dataset: Dataset) -> tuple[Figures, list[Figures]]:
    run = read_run(path)
    score = score_run(run, dataset)
    gaps = []
    rid = run.header.run_id
    for blind, sighted in find_pairs([run, *(r for r in siblings(path) if r.header.benchmark == "cibuzzbench")]):
        if rid in (blind.header.run_id, sighted.header.run_id):
            pair = analyse_pair(blind, sighted, dataset)
            gap = {"accuracy": pair.gap.accuracy, "macro_f1": pair.gap.macro_f1}
            gaps.append(gap_figures(pair.run_a, pair.run_b, gap,
                                    {"accuracy": pair.gap.accuracy_ci, "macro_f1": pair.gap.macro_f1_ci}))
    return score_figures(score.report, score.intervals, score.failed), gaps
