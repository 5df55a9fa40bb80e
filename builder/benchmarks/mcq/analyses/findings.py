"""Flaws real benchmarks ship with, counted and located instead of refused.

Rules (docs/audit.md), applied in this order to the loaded items:
- varying_choice_counts: items whose number of choices differs from the most common number
  (ties: the larger number) are KEPT and counted: every probe ranks an item's own options,
  the headline is accuracy against the mean chance 1/k, and macro F1 over positions is
  reported only when every audited item has the same k (MMLU-Pro has 3-10 options,
  TruthfulQA MC1 2-13: excluding them would drop 17% and most of the items);
- gold_duplicated: items whose gold text equals a distractor's (compared after collapsing
  whitespace and case) are EXCLUDED: no reader of the options can tell which copy is gold;
- duplicate_choices: items with two equal choices (same comparison) are KEPT and counted
  (this count includes the gold_duplicated items);
- empty_choices: items with a blank choice are KEPT and counted;
- lettered_choices: items whose every choice starts with its own letter ("A. ...", "(B) ...")
  are KEPT and counted: shuffling moves the text but not the label written into it, so the
  spec should strip it (docs/audit.md shows how);
- shared_option_sets: items whose set of options (order ignored; NFKC, case and whitespace
  normalised: builder.ranker.groups) is another item's too are KEPT, counted, and kept on one
  side of every fold of the learned probe, so a twin cannot hand over its answer; the finding
  also gives the number of such sets and a few as short excerpts.

Listed only where the spec's data can produce them (the spec language, docs/audit.md):
- filtered_records (with a `filter`): records the filter skipped are EXCLUDED, counted, listed;
- multiple_answers (when a target is a list of several options): EXCLUDED from the option-only
  probes, which rank one gold; the items keep their set of answers (Item.answers);
- option_letters (with `options_from_text`): items whose options are not lettered A, B, C, ...
  in order (out of order, missing or repeated letters) are KEPT and counted: a letter target
  still names the option written after that letter.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.load import SpecData, Item
from builder.benchmarks.mcq.text_options import in_order
from builder.ranker.groups import option_key

EXAMPLES = 10  # locations listed per finding (the count is always complete)
EXCERPTS, EXCERPT_CHARS = 3, 80  # shared option sets quoted, each cut to this many characters
KEPT, EXCLUDED = "kept", "excluded"
_LETTERED = re.compile(r"\s*[(（\[]?\s*([A-Za-z])\s*[).、:：\]）]")


@dataclass(frozen=True)
class Location:
    id: str
    record: int  # 1-based record number in the data file
    line: int | None  # JSONL and CSV only


@dataclass(frozen=True)
class Finding:
    name: str
    rule: str  # KEPT or EXCLUDED
    count: int
    examples: tuple[Location, ...]  # the first EXAMPLES items in file order
    groups: int | None = None  # shared_option_sets only: how many option sets more than one item shares
    excerpts: tuple[str, ...] = ()  # shared_option_sets only: the first few sets, "a | b (n items)"


@dataclass(frozen=True)
class Findings:
    """All findings in a fixed order, plus the distribution of choice counts."""

    items: tuple[Finding, ...]
    choice_counts: dict[int, int]  # number of choices -> items, before exclusion
    options: int  # the most common number of choices (ties: the larger)

    def by_name(self) -> dict[str, Finding]:
        return {f.name: f for f in self.items}


def normalised(text: str) -> str:
    return " ".join(text.split()).casefold()


def _has_duplicates(item: Item) -> bool:
    keys = [normalised(c) for c in item.choices]
    return len(set(keys)) < len(keys)


def _gold_duplicated(item: Item) -> bool:
    keys = [normalised(c) for c in item.choices]
    return keys.count(keys[item.gold]) > 1


def _lettered(item: Item) -> bool:
    for letter, choice in zip(LETTERS, item.choices):
        match = _LETTERED.match(choice)
        if match is None or match.group(1).upper() != letter:
            return False
    return True


def examine(benchmark: SpecData) -> tuple[tuple[Item, ...], Findings]:
    """The items the audit keeps, and the findings over all loaded items."""
    items = benchmark.items
    counts = Counter(len(i.choices) for i in items)
    options = max(counts, key=lambda k: (counts[k], k))
    checks = (
        ("varying_choice_counts", KEPT, lambda i: len(i.choices) != options),
        ("gold_duplicated", EXCLUDED, _gold_duplicated),
        ("duplicate_choices", KEPT, _has_duplicates),
        ("empty_choices", KEPT, lambda i: any(not c.strip() for c in i.choices)),
        ("lettered_choices", KEPT, _lettered),
    )
    found = []
    excluded: set[int] = set()
    for name, rule, check in checks:
        hits = [i for i in items if check(i)]
        if rule == EXCLUDED:
            excluded.update(i.number for i in hits)
        found.append(Finding(name, rule, len(hits), _locations(hits)))
    found.append(shared_option_sets(items))
    found += _spec_language(benchmark, excluded)
    kept = tuple(i for i in items if i.number not in excluded)
    return kept, Findings(tuple(found), dict(sorted(counts.items())), options)


def _spec_language(benchmark: SpecData, excluded: set[int]) -> list[Finding]:
    """The findings of the spec keys for files as released, each where it can occur (adds the
    multi-answer items to `excluded`)."""
    spec, items = benchmark.spec, benchmark.items
    found = []
    if spec.filter is not None:
        skipped = benchmark.filtered
        found.append(Finding("filtered_records", EXCLUDED, len(skipped), _locations(list(skipped))))
    multi = [i for i in items if i.multiple_answers]
    if multi:
        excluded.update(i.number for i in multi)
        found.append(Finding("multiple_answers", EXCLUDED, len(multi), _locations(multi)))
    if spec.options_from_text is not None:
        odd = [i for i in items if i.option_letters and not in_order(i.option_letters)]
        found.append(Finding("option_letters", KEPT, len(odd), _locations(odd)))
    return found


def _locations(hits: list[Any]) -> tuple[Location, ...]:
    """The first EXAMPLES of the items (or skipped records) hit, as locations."""
    return tuple(Location(i.id, i.number, i.line) for i in hits[:EXAMPLES])


def shared_option_sets(items: tuple[Item, ...]) -> Finding:
    """Items whose option set another item has too (the learned probe folds them together)."""
    sets: dict[tuple[str, ...], list[Item]] = {}
    for item in items:
        sets.setdefault(option_key(item.choices), []).append(item)
    shared = [group for group in sets.values() if len(group) > 1]  # in order of first appearance
    hits = sorted((i for group in shared for i in group), key=lambda i: i.number)
    excerpts = tuple(_excerpt(group) for group in shared[:EXCERPTS])
    return Finding("shared_option_sets", KEPT, len(hits), _locations(hits), len(shared), excerpts)


def _excerpt(group: list[Item]) -> str:
    """The first item's options joined by " | ", control characters escaped, cut short."""
    text = " | ".join(" ".join(c.split()) for c in group[0].choices)
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    cut = text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS - 1] + "…"
    return f"{cut} ({len(group)} items)"
