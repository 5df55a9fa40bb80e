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


def char_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Characters (code points) per option, (n, k)."""
    return np.array([len(t) for t in flat(texts)], dtype=float).reshape(len(texts), -1)


def word_lengths(texts: Sequence[Sequence[str]]) -> np.ndarray:
    """Whitespace-separated words per option, (n, k)."""
    return np.array([len(t.split()) for t in flat(texts)], dtype=float).reshape(len(texts), -1)
