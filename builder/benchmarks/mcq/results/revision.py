"""Which revision of the data set a results file was made on.

MMLU-Pro's published files embed each question as they asked it, and not all against the same
revision: the same id can carry other text, options or gold. Each item the file describes is
compared with the benchmark's reference revision (the spec's data); what differs is kept per
item (`revision` in the run: what differs, the file's option count and gold, a hash of its
text), and the set of differing items is hashed (`delta_sha256`), so files made on one revision
share a fingerprint even when they cover different items.

A run read at build is checked against the data, not against itself (`revision_problem`,
`summary_problem`): an item may differ from the reference only as its `differs` says (a gold
other than the data's needs `gold` or `options` there), and the header's summary must count and
hash exactly the items that carry a revision, so a gold changed after the import is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from builder.benchmarks.mcq.load import Item
from builder.benchmarks.mcq.results.sources import Answer


def _sha256(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()


def item_revision(answer: Answer, reference: Item) -> dict[str, Any] | None:
    """None when the file's item is the reference's (as far as the file describes it); else
    what differs, the file's k and gold, and the hash of its question, options and gold."""
    differs = []
    if answer.question is not None and answer.question != reference.stem:
        differs.append("question")
    if answer.options is not None and tuple(answer.options) != tuple(reference.choices):
        differs.append("options")
    options = answer.options if answer.options is not None else reference.choices
    gold = answer.gold if answer.gold is not None else reference.gold
    if answer.gold is not None and (options[gold] != reference.choices[reference.gold] or
                                    (options == reference.choices and gold != reference.gold)):
        differs.append("gold")  # another answer (the gold option's text), not the same one moved
    if not differs:
        return None
    question = answer.question if answer.question is not None else reference.stem
    return {"differs": differs, "k": len(options), "gold": gold, "sha256": _sha256([question, list(options), gold])}


def delta_sha256(differing: Sequence[tuple[str, dict[str, Any]]]) -> str | None:
    """One hash for the items a file differs on (id and the file's own version), None when none."""
    if not differing:
        return None
    return _sha256(sorted([item_id, rev["sha256"]] for item_id, rev in differing))


PARTS = ("question", "options", "gold")


def revision_problem(revision: dict[str, Any], reference: Item) -> tuple[str, str] | None:
    """(message, field) when an item's own revision contradicts the data it names: a part that
    differs without `differs` saying so, or a gold outside its options; None when consistent."""
    differs, k, gold = revision["differs"], revision["k"], revision["gold"]
    if not differs or not all(isinstance(d, str) and d in PARTS for d in differs) or len(set(differs)) < len(differs):
        return f"expected some of {', '.join(PARTS)}, each once", "revision.differs"
    if not 0 <= gold < k:
        return f"gold {gold} is not one of its {k} options", "revision.gold"
    if "options" in differs:
        return None  # its own options: what the gold indexes is the file's, hashed in sha256
    if k != len(reference.choices):
        return (f"{k} options, but the data has {len(reference.choices)} and `differs` does not name options",
                "revision.k")
    if "gold" not in differs and gold != reference.gold:
        return (f"gold {gold} is not the data's gold {reference.gold}, and `differs` does not name gold: "
                "a gold that differs from the data must be declared", "revision.gold")
    if "question" not in differs and revision["sha256"] != _sha256([reference.stem, list(reference.choices), gold]):
        return "not the hash of the data's question and options with this gold", "revision.sha256"
    return None


def summary_problem(declared: Any, differing: Iterable[tuple[str, dict[str, Any]]]) -> str | None:
    """A message when the header's `source.revision` does not count and hash exactly the items
    that carry their own revision (`differing`: id and revision); None when it does."""
    found = list(differing)
    if declared is None and not found:
        return None  # nothing differs, and no summary says otherwise
    expected = {"items_differ": len(found), "delta_sha256": delta_sha256(found)}
    shown = {k: declared.get(k) for k in expected} if isinstance(declared, dict) else declared
    if shown == expected:
        return None
    return (f"declares {str(shown)[:160]}, but the items carry their own revision on {len(found)} item(s) "
            f"({expected}): every item that differs from the data must be counted and hashed here")
