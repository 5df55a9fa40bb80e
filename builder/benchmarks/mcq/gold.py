"""Each item's gold letter and predicted letter in a spec'd benchmark's run: the gold its own
run carries when it was imported against another data revision (`revision.gold`), else the
benchmark's; both through the letter order the run recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from builder.benchmarks.mcq.run_format import ChoiceItem
from builder.runs.schema import Run

if TYPE_CHECKING:
    from builder.benchmarks.mcq.loading import Loaded


def gold_letters(run: Run, loaded: "Loaded", row_ids: Sequence[int] | None = None) -> tuple[list[str], list[str]]:
    """(gold letter, predicted letter) per item, in row_id order."""
    items: dict[int, ChoiceItem] = {i.row_id: i for i in run.items}
    gold, pred = [], []
    for row_id in sorted(items) if row_ids is None else row_ids:
        item = items[row_id]
        answer = item.revision["gold"] if item.revision is not None else loaded.data.items[row_id].gold
        gold.append(next(letter for letter, index in item.letter_map.items() if index == answer))
        pred.append(item.prediction)
    return gold, pred
