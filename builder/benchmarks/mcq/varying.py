"""The probes that compare an item's options with one another (centroid, the learned ranker)
on a benchmark whose number of options varies: computed per option count and padded.

The learned probe (learned.py) ranks a fixed number of options, so it is fitted once per
option count k, on the items with k options only (train -> test, or 5-fold CV within them). A
group too small to fit (fewer than FOLDS items under CV, or no training or no test item) is
left unscored: `LearnedScores.items` says which items the probe answered. With one k this is
exactly the fixed-k probe. Matrices are (n, max k); positions an item lacks hold -inf.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from builder.benchmarks.cibuzzbench.probes.learned import FOLDS
from builder.benchmarks.mcq.learned import CROSS_VALIDATION, TRAIN_TEST, LearnedScores, learned_scores, option_features
from builder.benchmarks.mcq.option_scores import centroid


def by_option_count(texts: Sequence[tuple[str, ...]], gold: np.ndarray, splits: Sequence[str | None],
                    train_split: str | None, test_split: str | None) -> tuple[np.ndarray, LearnedScores]:
    """(centroid scores (n, max k), the learned probe's held-out scores) in the published order."""
    counts = np.array([len(t) for t in texts])
    width = int(counts.max())
    cent = np.full((len(texts), width), -np.inf)
    learned = np.full((len(texts), width), -np.inf)
    scored: list[np.ndarray] = []
    evaluation = TRAIN_TEST if train_split is not None and test_split is not None else CROSS_VALIDATION
    for k in sorted(set(counts.tolist())):
        rows = np.flatnonzero(counts == k)
        options = option_features([texts[r] for r in rows], gold[rows])
        cent[rows, :k] = options.published(centroid(options.char_sim, options.word_sim))
        group = [splits[r] for r in rows]
        if not _fits(group, train_split, test_split):
            continue
        result = learned_scores(options, group, train_split, test_split)
        learned[rows[result.items], :k] = result.scores
        scored.append(rows[result.items])
    items = np.sort(np.concatenate(scored)) if scored else np.zeros(0, dtype=np.intp)
    return cent, LearnedScores(evaluation, items, learned[items])


def _fits(splits: Sequence[str | None], train_split: str | None, test_split: str | None) -> bool:
    if train_split is not None and test_split is not None:
        return train_split in splits and test_split in splits
    return len(splits) >= FOLDS
