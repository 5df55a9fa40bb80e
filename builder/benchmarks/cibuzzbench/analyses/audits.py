"""Data-quality audits of the option sets and splits.

Duplicated options make an item unanswerable, a distractor that is another
item's gold is a real gloss rather than a fabricated one, and terms shared across
train and test leak the answer; each is counted so readers can weigh the scores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import DISTRACTOR_TYPES, GOLD, SOURCES


@dataclass(frozen=True)
class AuditFigures:
    items: int
    distractor_strings: int
    distractor_is_other_gold: int  # distractor strings equal to the gold of a different item
    distractor_is_other_gold_by_type: dict[str, int]
    distractor_is_other_gold_exact: int  # the same, comparing strings exactly (case and spaces count)
    duplicate_option_items: int  # items where two of the four options are equal
    distinct_terms: int
    train_test_term_overlap: int  # distinct terms present in both splits


def normalise(text: str) -> str:
    """Comparison key: case-insensitive, surrounding whitespace ignored."""
    return text.strip().casefold()


def audit_figures(dataset: Dataset) -> AuditFigures:
    frame = dataset.frame
    columns = dict(SOURCES)
    owners = _gold_owners(frame, columns[GOLD], normalise)
    by_type = {t: _other_gold_hits(frame, columns[t], owners, normalise) for t in DISTRACTOR_TYPES}
    exact = _gold_owners(frame, columns[GOLD], str)
    return AuditFigures(
        items=len(frame),
        distractor_strings=len(frame) * len(DISTRACTOR_TYPES),
        distractor_is_other_gold=sum(by_type.values()),
        distractor_is_other_gold_by_type=by_type,
        distractor_is_other_gold_exact=sum(_other_gold_hits(frame, columns[t], exact, str) for t in DISTRACTOR_TYPES),
        duplicate_option_items=_duplicate_option_items(frame, [c for _, c in SOURCES]),
        distinct_terms=len({normalise(t) for t in frame["term_zh"]}),
        train_test_term_overlap=_split_overlap(frame),
    )


def _gold_owners(frame, column: str, key: Callable[[str], str]) -> dict[str, set[int]]:
    """Comparison key of each gold -> the rows whose gold it is."""
    owners: dict[str, set[int]] = {}
    for row_id, text in zip(frame.index.tolist(), frame[column].tolist()):  # lists: iterating pandas' arrow
        owners.setdefault(key(text), set()).add(int(row_id))                # strings item by item is slow
    return owners


def _other_gold_hits(frame, column: str, owners: dict[str, set[int]], key: Callable[[str], str]) -> int:
    hits = 0
    for row_id, text in zip(frame.index.tolist(), frame[column].tolist()):
        holders = owners.get(key(text), set())
        hits += bool(holders - {int(row_id)})
    return hits


def _duplicate_option_items(frame, columns: list[str]) -> int:
    count = 0
    for values in zip(*(frame[c].tolist() for c in columns)):
        keys = [normalise(v) for v in values]
        count += len(set(keys)) < len(keys)
    return count


def _split_overlap(frame) -> int:
    train = {normalise(t) for t in frame.loc[frame["split"] == "train", "term_zh"]}
    test = {normalise(t) for t in frame.loc[frame["split"] == "test", "term_zh"]}
    return len(train & test)
