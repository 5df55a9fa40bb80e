"""Which revision of the data set a results file was made on.

MMLU-Pro's published files embed each question as they asked it, and not all against the same
revision: the same id can carry other text, options or gold. Each item the file describes is
compared with the benchmark's reference revision (the spec's data); what differs is kept per
item (`revision` in the run: what differs, the file's option count and gold, a hash of its
text), and the set of differing items is hashed (`delta_sha256`), so files made on one revision
share a fingerprint even when they cover different items.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
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
