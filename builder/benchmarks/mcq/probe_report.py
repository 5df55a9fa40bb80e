"""What `buzzprobe probe --benchmark NAME` prints when a spec'd benchmark's run is finished: its
strict accuracy and macro F1 over the letters with 95% intervals (the site's statistics) and,
when the other arm is already in the same folder and pairs with it (the site's own rule,
analyses.compute.find_pairs), the sighted - blind gap on their shared items."""

from __future__ import annotations

from pathlib import Path

from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.fields import LETTERS
from builder.probing.summary import Figures, paired_gap, score_from_labels, siblings
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.benchmarks.mcq.analyses.compute import find_pairs


def spec_probe_report(path: Path, data: ChoiceSet) -> tuple[Figures, list[Figures]]:
    run = read_run(path)
    labels = LETTERS[:max(len(item.letter_map) for item in run.items)]
    gold, pred = _letters(run, data, sorted(run.row_ids))
    score = score_from_labels(gold, pred, labels, sum(1 for item in run.items if item.error is not None))
    gaps = []
    rid = run.header.run_id
    others = [r for r in siblings(path) if r.header.benchmark == run.header.benchmark]
    for pair in find_pairs([run, *others]):
        if rid in (pair.sighted.header.run_id, pair.blind.header.run_id):
            gold, sighted = _letters(pair.sighted, data, pair.row_ids)
            _, blind = _letters(pair.blind, data, pair.row_ids)
            gaps.append(paired_gap(pair.blind.header.run_id, pair.sighted.header.run_id, gold, blind, sighted,
                                   labels))
    return score, gaps


def _letters(run: Run, data: ChoiceSet, row_ids: list[int] | tuple[int, ...]) -> tuple[list[str], list[str]]:
    """(gold letter, predicted letter) per item, in the order of `row_ids`."""
    items = {item.row_id: item for item in run.items}
    gold = [next(letter for letter, index in items[r].letter_map.items() if index == data.items[r].gold)
            for r in row_ids]
    return gold, [items[r].prediction for r in row_ids]
