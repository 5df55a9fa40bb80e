"""CIBuzzBench's part of the run format (docs/run-format.md): its header values and item schema.

The envelope (header fields, line types, unique row_ids, footer) is read by builder.runs.reader;
this module checks what only CIBuzzBench runs have — splits, dataset variants, the option seed
of Task 2 — and reads an item line into its `Item`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION, TASKS
from builder.runs.formats import Checker, RunFormat
from builder.runs.lines import MAX_RESPONSE_CHARS
from builder.runs.reader import ItemFields, is_instance

CONDITIONS = ("sighted", "blind", "probe")
SELECTIONS = ("all", "split", "sample", "first")  # first: the first n rows (file order) of a split or of all
VARIANTS = ("original", "gold_pool", "gold_pool_slot")  # gold_pool*: docs/gold-pool.md
SPLITS = ("train", "test")


@dataclass(frozen=True)
class Item:
    row_id: int
    prediction: str  # a label, or "" when the response could not be parsed
    response: str | None = None  # raw model output, kept verbatim
    letter_map: dict[str, str] | None = None  # letter -> source, Task 2 only
    error: str | None = None
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    response_truncated: bool | None = None  # True: `response` keeps only its first MAX_RESPONSE_CHARS

    def to_json(self) -> dict[str, Any]:
        """Optional fields that are unset are left out, which keeps probe runs small."""
        out: dict[str, Any] = {"type": "item", "row_id": self.row_id}
        if self.letter_map is not None:
            out["letter_map"] = self.letter_map
        if self.response is not None:
            out["response"] = self.response
        out["prediction"] = self.prediction
        for name in ("error", "latency_ms", "usage", "response_truncated"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out



_ITEM_FIELDS: dict[str, type | tuple[type, ...]] = {
    "row_id": int, "prediction": str, "response": (str, type(None)), "error": (str, type(None)),
    "latency_ms": (int, float, type(None)), "usage": (dict, type(None)),
    "letter_map": (dict, type(None)), "response_truncated": (bool, type(None)),
}
_REQUIRED_ITEM = ("row_id", "prediction")


def check_header(c: Checker, line: int, data: dict[str, Any]) -> None:
    """Selections (a split, a sample or the first N of one), the dataset variant and the
    option seed each task needs."""
    items = data["items"]
    if items.get("selection") not in SELECTIONS:
        c.add(f"expected one of: {', '.join(SELECTIONS)}", line, "items.selection")
    if items.get("selection") == "split" and items.get("split") not in SPLITS:
        c.add(f"expected one of: {', '.join(SPLITS)}", line, "items.split")
    if items.get("selection") in ("sample", "first") and items.get("split") not in (None, *SPLITS):
        c.add(f"a {items['selection']} selection is taken from all items or one of: {', '.join(SPLITS)}",
              line, "items.split")
    if items.get("selection") == "first" and not (is_instance(items.get("n"), int) and items["n"] > 0):
        c.add("a first-N selection needs a positive integer n", line, "items.n")
    if items.get("selection") == "sample" and not is_instance(items.get("sample_seed"), int):
        c.add("a sample needs an integer sample_seed", line, "items.sample_seed")
    if items.get("selection") == "sample" and "n" not in items:
        c.add("a sample needs its size n", line, "items.n")
    if items.get("selection") == "all" and "split" in items:
        c.add("selection 'all' takes no split (use selection 'split')", line, "items.split")
    if data["dataset"].get("variant", "original") not in VARIANTS:
        c.add(f"expected one of: {', '.join(VARIANTS)}", line, "dataset.variant")
    if data["task"] == EQUIVALENT_SELECTION and data["option_seed"] is None:
        c.add("equivalent_selection runs need an option seed", line, "option_seed")
    if data["task"] == HARMFULNESS_DETECTION and data["option_seed"] is not None:
        c.add("harmfulness_detection has no options: option_seed must be null", line, "option_seed")
    if data["task"] == HARMFULNESS_DETECTION and data["condition"] == "blind":
        c.add("harmfulness_detection has no blind condition (without the term there is nothing to judge)",
              line, "condition")


def read_item(c: Checker, line: int, data: dict[str, Any], header: dict[str, Any]) -> Item | None:
    if _ITEM.plainly_valid(data):  # the common, valid line skips the detailed diagnosis
        del data["type"]
        return _capped(Item(**data))
    if not c.check_fields(line, data, _ITEM_FIELDS, _REQUIRED_ITEM):
        return None
    unknown = sorted(set(data) - set(_ITEM_FIELDS) - {"type"})
    for name in unknown:
        c.add("unknown field", line, name)
    if unknown:
        return None
    return _capped(Item(**{k: data[k] for k in _ITEM_FIELDS if k in data}))


def _capped(item: Item) -> Item:
    """A response longer than any probe stores (a hand-made or imported file) is cut the same way."""
    if item.response is None or len(item.response) <= MAX_RESPONSE_CHARS:
        return item
    return replace(item, response=item.response[:MAX_RESPONSE_CHARS], response_truncated=True)


_ITEM = ItemFields(_ITEM_FIELDS, _REQUIRED_ITEM)


FORMAT = RunFormat("cibuzzbench", TASKS, CONDITIONS, check_header, read_item)
