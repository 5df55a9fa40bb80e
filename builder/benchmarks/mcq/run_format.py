"""The run format of spec'd multiple-choice benchmarks (docs/audit.md, *Probing*).

One format serves every spec: a run's header names the spec (`benchmark: <spec name>`), its
task is `multiple_choice`, its condition `sighted` or `blind`, its `option_seed` the seed of the
per-item option shuffle (shuffle.order). An item line keys the record by `row_id` (its 1-based
record number) and `id` (the spec's item id, so a run made on a reordered file is caught), and
keeps `letter_map` (letter -> the published choice index shown under it), the raw `response`
and its parsed `prediction` (a letter, or "" when unparsed: counted wrong). Items never copy
the data set's text or its gold: both come from the data when the build reads the run.

A run imported from published results (`buzzprobe import results`, results/importer.py) says
where it came from in the header's `source`, shows the options in the published order
(`option_seed: null`, every `letter_map` the identity), and may keep, instead of the raw
response, its `response_sha256` and `response_chars`; `official` is the letter the upstream's
own scorer counts when it differs from the strict `prediction` (its random pick for an
unparsed answer); `revision` is what the file said about an item whose question, options or
gold differ from the benchmark's reference revision (`differs`, the file's number of options
`k` and its `gold` index, and `sha256` of its text), so the run is scored against the gold
its own file carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.runs.formats import Checker, RunFormat
from builder.runs.reader import ItemFields, is_instance

TASK = "multiple_choice"
CONDITIONS = ("sighted", "blind")
SELECTIONS = ("all", "split", "sample")
_ENVELOPE = ("error", "latency_ms", "usage", "response_truncated", "response_sha256", "response_chars", "official",
             "revision")
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "row_id": int, "id": str, "letter_map": dict, "prediction": str, "response": (str, type(None)),
    "error": (str, type(None)), "latency_ms": (int, float, type(None)), "usage": (dict, type(None)),
    "response_truncated": (bool, type(None)), "response_sha256": (str, type(None)),
    "response_chars": (int, type(None)), "official": (str, type(None)), "revision": (dict, type(None)),
}
_REVISION = {"differs": list, "k": int, "gold": int, "sha256": str}
_REQUIRED = ("row_id", "id", "letter_map", "prediction")


@dataclass(frozen=True, slots=True)
class ChoiceItem:
    """One answered item; `letter_map[letter]` = the published index of the choice shown there.
    Slotted, and equal letter maps are one shared dict (`_shared`): a cold build holds 424,000 of
    these at once (the 144 imported runs), and a per-item __dict__ and map cost hundreds of MB."""

    row_id: int
    id: str
    letter_map: dict[str, int]
    prediction: str
    response: str | None = None
    error: str | None = None
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    response_truncated: bool | None = None
    response_sha256: str | None = None
    response_chars: int | None = None
    official: str | None = None  # the upstream scorer's letter, when it differs from `prediction`
    revision: dict[str, Any] | None = None  # the file's own version of an item that differs from the reference

    @property
    def scored(self) -> str:
        """The official letter: the upstream scorer's when it differs, else the strict one."""
        return self.official if self.official is not None else self.prediction

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "item", "row_id": self.row_id, "id": self.id, "letter_map": self.letter_map,
                               "response": self.response, "prediction": self.prediction}
        for name in _ENVELOPE:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


def check_header(c: Checker, line: int, data: dict[str, Any]) -> None:
    """An option seed always (the options are always shuffled), and all items, a split or a sample."""
    items = data["items"]
    if not is_instance(data["option_seed"], int) and not (data["option_seed"] is None and imported(data)):
        c.add("multiple-choice runs need an option seed (null only for an import in the published order)", line,
              "option_seed")
    if "source" in data and not imported(data):
        c.add("expected an object with kind 'import' and option_order 'published'", line, "source")
    if items.get("selection") not in SELECTIONS:
        c.add(f"expected one of: {', '.join(SELECTIONS)}", line, "items.selection")
    if items.get("selection") == "split" and not isinstance(items.get("split"), str):
        c.add("a split selection names its split", line, "items.split")
    if items.get("selection") == "sample" and not is_instance(items.get("sample_seed"), int):
        c.add("a sample needs an integer sample_seed", line, "items.sample_seed")
    if data["subject"].get("kind") != "model":
        c.add("multiple-choice runs are a model's answers", line, "subject.kind")


def imported(header: dict[str, Any]) -> bool:
    """A run imported from published results, its options in the published order."""
    source = header.get("source")
    return isinstance(source, dict) and source.get("kind") == "import" and source.get("option_order") == "published"


def read_item(c: Checker, line: int, data: dict[str, Any], header: dict[str, Any]) -> ChoiceItem | None:
    """The item, or None with every problem of the line recorded in `c`."""
    fields = _well_formed(data)
    if fields is None:
        fields = _diagnosed(c, line, data)
    if fields is None:
        return None
    fields["letter_map"] = _shared(fields["letter_map"])
    return ChoiceItem(**fields)


_ITEM = ItemFields(_FIELDS, _REQUIRED)


def _well_formed(data: dict[str, Any]) -> dict[str, Any] | None:
    """The item's fields when the line is plainly valid (ItemFields.plainly_valid, and a letter map
    and revision of exact types), else None and _diagnosed finds and names what is wrong: a
    shortcut for the common line of a run read whole (a cold build reads 424,000)."""
    if not _ITEM.plainly_valid(data):
        return None
    letters = data["letter_map"]
    if not letters or not all(type(k) is str and type(v) is int for k, v in letters.items()):
        return None
    if not _revision_ok(data.get("revision")):
        return None
    return {name: value for name, value in data.items() if name != "type"}


def _letters_ok(letters: dict[str, Any]) -> bool:
    return bool(letters) and all(isinstance(k, str) and is_instance(v, int) for k, v in letters.items())


def _revision_ok(revision: dict[str, Any] | None) -> bool:
    return revision is None or (set(revision) == set(_REVISION) and
                                all(is_instance(revision[k], t) for k, t in _REVISION.items()))


def _diagnosed(c: Checker, line: int, data: dict[str, Any]) -> dict[str, Any] | None:
    """Every problem of the line, recorded in `c` (None), or its fields when it has none."""
    ok = c.check_fields(line, data, _FIELDS, _REQUIRED)
    for name in sorted(set(data) - set(_FIELDS) - {"type"}):
        c.add("unknown field", line, name)
        ok = False
    if not ok:
        return None
    if not _letters_ok(data["letter_map"]):
        c.add("must map letters to choice indices (integers)", line, "letter_map")
        return None
    if not _revision_ok(data.get("revision")):
        c.add(f"expected an object with {', '.join(_REVISION)}", line, "revision")
        return None
    return {k: data[k] for k in _FIELDS if k in data}


_LETTER_MAPS: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
_SHARED_MAPS = 50_000  # distinct maps kept (a shuffled probe has one per permutation: few)


def _shared(letters: dict[str, int]) -> dict[str, int]:
    """One dict per distinct letter map (items never change theirs)."""
    key = tuple(letters.items())
    found = _LETTER_MAPS.get(key)
    if found is None:
        found = letters
        if len(_LETTER_MAPS) < _SHARED_MAPS:
            _LETTER_MAPS[key] = letters
    return found


FORMAT = RunFormat("mcq", (TASK,), CONDITIONS, check_header, read_item, header_extra={"source": dict}, any_name=True)
