"""Tests of a paired comparison of two arms on the same items (shared by every benchmark).

Exact McNemar counts only the discordant items (fixed by the second arm, broken by it), and
Holm's step-down adjustment keeps the family-wise error of several such tests (one per
category) at the nominal level.
"""

from __future__ import annotations

from collections.abc import Sequence


def mcnemar_exact(fixes: int, breaks: int) -> float:
    """Exact McNemar: two-sided binomial test of fixes among the discordant items, p=0.5."""
    if fixes < 0 or breaks < 0:
        raise ValueError(f"counts must be >= 0, got fixes={fixes}, breaks={breaks}")
    discordant = fixes + breaks
    if discordant == 0:
        return 1.0
    # The binomial with p=0.5 is symmetric, so the two-sided p is twice the smaller tail (at
    # most 1); exact integers, and no scipy.stats import (about 1.5 s of a cold build).
    # Each term from the last (C(n, k+1) = C(n, k)(n-k)/(k+1)): the same integers as math.comb
    # without recomputing each one (29 models' MMLU-Pro ranks took 3.7 s that way).
    term = tail = 1
    for k in range(min(fixes, breaks)):
        term = term * (discordant - k) // (k + 1)
        tail += term
    return min(1.0, 2 * tail / 2**discordant)


def holm(pvalues: Sequence[float]) -> tuple[float, ...]:
    """Holm step-down adjusted p-values, in input order (controls family-wise error)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return tuple(adjusted)


def discordant(gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str]) -> tuple[int, int]:
    """(fixes, breaks): a wrong & b right, a right & b wrong."""
    fixes = breaks = 0
    for g, x, y in zip(gold, pred_a, pred_b):
        if x != g and y == g:
            fixes += 1
        elif x == g and y != g:
            breaks += 1
    return fixes, breaks
