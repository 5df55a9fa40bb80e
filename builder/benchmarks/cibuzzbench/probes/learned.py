"""The learned option-only probe for Task 2: CIBuzzBench's adapter to the shared ranker.

The model (builder.ranker, docs/ranker.md) sees only the four English options of an item — never
the term, the explanations, the meaning or any label — and learns which option looks like the
gold. What it scores above the surface heuristics is how much the option set gives away to a
reader that has studied the dataset; on the gold-pool variants it tests whether curated glosses
used as distractors remove that signal.

This module only maps CIBuzzBench's columns to option texts (in a canonical order sorted by
text, so nothing depends on letters, sources or the Chinese term) and the ranker's scores back to
letters (from the official shuffle; letters never change a score, ties go to the earliest letter),
and writes the runs:
- `learned_options`: every cue family of the ranker; `learned_lengths`: the length family only
  (characters, tokens, their ranks and relative sizes), which asks whether length alone still
  identifies the gold — the article's gold-pool set must rule that out;
- two evaluations: train split -> test split, and 5-fold cross-fitting over whole items.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, SOURCES, DatasetKey, OptionSet, option_sets
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION
from builder.ranker import evaluate as ranker
from builder.ranker.cues import GROUPS
from builder.ranker.evaluate import (ALPHAS, CROSS_VALIDATION, FOLDS, FOLD_SEED, TRAIN_TEST, Evaluation, Options,
                                     folds_label)
from builder.runs.schema import Header, new_header

NAME = "learned_options"
LENGTHS = "learned_lengths"
PROBES: tuple[str, ...] = (NAME, LENGTHS)
PROBE_GROUPS: dict[str, tuple[str, ...]] = {NAME: GROUPS, LENGTHS: ("length",)}
OPTION_COLUMNS: tuple[str, ...] = tuple(column for _, column in SOURCES)
GOLD_SOURCE = "correct"
__all__ = ["CROSS_VALIDATION", "FOLDS", "TRAIN_TEST", "Evaluation"]


@dataclass(frozen=True)
class OptionTable:
    """Every item's four option texts in canonical order, and which position is the gold.

    Built from the option columns and `split` only; `gold` is used for training labels,
    and `sources` only to map scores back to letters.
    """

    row_ids: tuple[int, ...]
    splits: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]  # per item, four texts sorted by (casefold, text)
    sources: tuple[tuple[str, ...], ...]  # the option source of each position
    gold: np.ndarray  # per item, the gold's position in `texts`

    def split_items(self) -> tuple[np.ndarray, np.ndarray]:
        split = np.array(self.splits)
        return np.flatnonzero(split == "train"), np.flatnonzero(split == "test")


def option_table(dataset: Dataset) -> OptionTable:
    frame = dataset.frame[["split", *OPTION_COLUMNS]]
    names = [name for name, _ in SOURCES]
    row_ids, splits, texts, sources = [], [], [], []
    for row_id, split, *options in frame.itertuples(index=True):
        ordered = sorted(zip(options, names), key=lambda pair: (pair[0].casefold(), pair[0], pair[1]))
        row_ids.append(int(row_id))
        splits.append(str(split))
        texts.append(tuple(str(text) for text, _ in ordered))
        sources.append(tuple(source for _, source in ordered))
    gold = np.array([s.index(GOLD_SOURCE) for s in sources], dtype=np.intp)
    return OptionTable(tuple(row_ids), tuple(splits), tuple(texts), tuple(sources), gold)


def options(table: OptionTable) -> Options:
    return Options.build(table.texts, table.gold)


def train_test(table: OptionTable, opts: Options, probe: str = NAME) -> Evaluation:
    train, test = table.split_items()
    return ranker.fit_evaluate(opts, train, test, PROBE_GROUPS[probe])


def cross_validation(opts: Options, probe: str = NAME) -> Evaluation:
    return ranker.fit_evaluate(opts, groups=PROBE_GROUPS[probe])


def evaluate(dataset: Dataset, probe: str = NAME) -> tuple[OptionTable, Evaluation, Evaluation]:
    """Both evaluations; a pure function of the option columns and the split, cached by content."""
    return _evaluate_cached(DatasetKey(dataset), probe)


@lru_cache(maxsize=8)
def _evaluate_cached(key: DatasetKey, probe: str) -> tuple[OptionTable, Evaluation, Evaluation]:
    table = option_table(key.dataset)
    opts = _options_cached(key)
    return table, train_test(table, opts, probe), cross_validation(opts, probe)


@lru_cache(maxsize=4)
def _options_cached(key: DatasetKey) -> Options:
    return options(option_table(key.dataset))


# ----------------------------------------------------------------- answers and runs


def choose_letter(scores: np.ndarray, sources: tuple[str, ...], options: OptionSet) -> str:
    """The best-scored option's letter; ties go to the earliest letter."""
    by_source = dict(zip(sources, (float(s) for s in scores)))
    best = max(options.options, key=lambda o: (by_source[o.source], -LETTERS.index(o.letter)))
    return best.letter


def parameters(evaluation: str, probe: str = NAME, folds: int = FOLDS,
               inner: tuple[int, ...] = ()) -> dict[str, Any]:
    """The probe's recorded settings; `folds`: the outer folds the cross-fitting actually used,
    `inner`: per fit, the folds the penalty's inner CV used (Evaluation.inner_folds)."""
    return {
        "inputs": "the four English options only" if probe == NAME else "the lengths of the four English options only",
        "model": "listwise linear ranker (softmax over an item's options, L2, Newton)", "ranker": "builder.ranker",
        "cue_families": list(PROBE_GROUPS[probe]), "alphas": list(ALPHAS),
        "alpha_selection": f"{folds_label(inner)} inner CV on the training items, mean log loss",
        "ties": "earliest letter", "evaluation": evaluation,
        **({"folds": folds, "fold_seed": FOLD_SEED} if evaluation != TRAIN_TEST else {"trained_on": "train"}),
    }


def run_id(evaluation: str, seed: int, variant: str = "original", probe: str = NAME) -> str:
    name = probe if evaluation == TRAIN_TEST else f"{probe}-cv"
    scope = "test" if evaluation == TRAIN_TEST else "all"
    suffix = "" if variant == "original" else f"-{variant}"
    return f"probe-{name}-t2-s{seed}-{scope}{suffix}"


def learned_probe_runs(dataset: Dataset, *, seeds: Iterable[int], created: str, variant: str = "original",
                       probe: str = NAME) -> list[tuple[Header, list[Item]]]:
    """Train->test and CV runs for each option seed (the model is trained once)."""
    table, *evaluations = evaluate(dataset, probe)
    runs = []
    for seed in seeds:
        sets = option_sets(dataset, seed)
        for evaluation in evaluations:
            runs.append(_run(dataset, table, evaluation, sets, seed, created, variant, probe))
    return runs


def _run(dataset: Dataset, table: OptionTable, evaluation: Evaluation, sets: Any, seed: int,
         created: str, variant: str, probe: str) -> tuple[Header, list[Item]]:
    items = []
    for index, scores in zip(evaluation.items, evaluation.scores):
        row_id = table.row_ids[int(index)]
        letter = choose_letter(scores, table.sources[int(index)], sets[row_id])
        items.append(Item(row_id=row_id, prediction=letter, letter_map=sets[row_id].letter_map))
    selection = ({"selection": "split", "split": "test"} if evaluation.evaluation == TRAIN_TEST
                 else {"selection": "all"})
    settings = parameters(evaluation.evaluation, probe, evaluation.folds, evaluation.inner_folds)
    header = new_header(
        run_id=run_id(evaluation.evaluation, seed, variant, probe), benchmark="cibuzzbench",
        task=EQUIVALENT_SELECTION, condition="probe",
        subject={"kind": "probe", "name": probe, "parameters": settings},
        option_seed=seed, items={**selection, "n": len(items)},
        dataset={"name": "CIBuzzBench", "variant": variant, "content_sha256": dataset.content_sha256},
        created=created,
    )
    return header, items


# ----------------------------------------------------------------- importance


PERMUTATION_REPEATS = 5


def feature_importance(dataset: Dataset) -> list[tuple[str, float]]:
    """Which features carry the signal, from the train-split model.

    `coef:<feature>`: coefficient of each standardised feature (sorted by absolute value);
    `permutation:<feature>`: drop in test-split accuracy (points) when that feature's values are
    shuffled across test options, mean of five seeded shuffles (sorted, largest first).
    """
    table = option_table(dataset)
    opts = _options_cached(DatasetKey(dataset))
    train, test = table.split_items()
    fitted, design = ranker.fit_ranker(opts, train, GROUPS, None)
    names = ranker.feature_names(opts, GROUPS)
    by_coef = sorted(zip(names, fitted.w), key=lambda p: (-abs(p[1]), p[0]))
    held = design.subset(test)
    base = _accuracy(fitted.scores(held), held.gold)
    perm = {}
    for j, name in enumerate(names):
        drops = []
        for repeat in range(PERMUTATION_REPEATS):
            x = held.x.copy()
            x[:, j] = held.x[np.random.default_rng(repeat).permutation(len(x)), j]
            drops.append(base - _accuracy(fitted.scores(ranker.model.Design(x, held.mask, held.gold)), held.gold))
        perm[name] = float(np.mean(drops))
    by_perm = sorted(perm.items(), key=lambda p: (-p[1], p[0]))
    return ([(f"coef:{n}", round(float(v), 6)) for n, v in by_coef]
            + [(f"permutation:{n}", round(float(v), 4)) for n, v in by_perm])


def _accuracy(scores: np.ndarray, gold: np.ndarray) -> float:
    return 100.0 * float(np.mean(scores.argmax(axis=1) == gold))
