"""Per-option lengths the model-free length probes rank by.

A score belongs to an option's text, never to its position, so one (n, k) matrix serves every
option order: the probes permute it and take the first maximum (ties go to the earliest shown
position). Sibling similarity (the `centroid` probe) is one of the shared ranker's cues
(builder.ranker.similarity), read from its features.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def flat(texts: Sequence[Sequence[str]]) -> list[str]:
    return [t for row in texts for t in row]


def padded(values: Sequence[float], counts: np.ndarray, fill: float = np.nan) -> np.ndarray:
    """(n, max k) from the item-major flat `values` of items with `counts` options each; the
    positions an item does not have hold `fill` (varying k: MMLU-Pro has 3-10 options)."""
    width = int(counts.max())
    out = np.full((len(counts), width), fill, dtype=float)
    out[np.arange(width)[None, :] < counts[:, None]] = values
    return out


def char_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Characters (code points) per option, (n, max k); NaN where an item has fewer options."""
    return padded([len(t) for t in flat(texts)], np.array([len(row) for row in texts]))


def word_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Whitespace-separated words per option, (n, max k); NaN where an item has fewer options."""
    return padded([len(t.split()) for t in flat(texts)], np.array([len(row) for row in texts]))
