"""The centroid rule's score over a benchmark too large for one option grid, a chunk of items
at a time.

The score of an item reads only that item's options, so chunks give each item what one grid
would (up to the rare hashed n-gram that collides differently); the n-gram matrices of a million
items at once would take gigabytes. The audit uses this only above its learned-probe sample size
(builder/benchmarks/mcq/analyses/audit.py), so no figure of a smaller benchmark moves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from builder.ranker.grid import option_grid
from builder.ranker.similarity import centroid, pair_overlaps
from builder.ranker.text import CHAR_NGRAM, char_sets, token_sets, tokens

CHUNK_ITEMS = 20_000


def centroid_scores(texts: Sequence[Sequence[str]], width: int) -> np.ndarray:
    """(n, width) the centroid score of every option; 0 in padded slots."""
    out = np.zeros((len(texts), width))
    for start in range(0, len(texts), CHUNK_ITEMS):
        part = texts[start:start + CHUNK_ITEMS]
        grid = option_grid(part, [0] * len(part))
        flat = grid.flat()
        _, char_j = pair_overlaps(char_sets(flat, CHAR_NGRAM), grid.n, grid.width)
        _, word_j = pair_overlaps(token_sets([tokens(t) for t in flat]), grid.n, grid.width)
        out[start:start + len(part), :grid.width] = centroid(char_j, word_j, grid.mask)
    return out
