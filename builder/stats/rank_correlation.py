"""Kendall's tau-b between two rankings of the same models (ties in either count as neither
concordant nor discordant, and shrink the denominator), as scipy.stats.kendalltau computes it;
the tests hold the two equal. Here because importing scipy.stats costs about a second of every
build, for a statistic over a few dozen values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """tau-b of the paired values; NaN when either side is constant (no untied pair)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"need two equal-length sequences, got {a.shape} and {b.shape}")
    upper = np.triu_indices(len(a), k=1)
    sa = np.sign(a[:, None] - a[None, :])[upper]
    sb = np.sign(b[:, None] - b[None, :])[upper]
    untied = float(np.count_nonzero(sa)) * float(np.count_nonzero(sb))
    return float(np.sum(sa * sb) / np.sqrt(untied)) if untied else float("nan")
