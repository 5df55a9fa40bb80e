"""One record of a results file -> an Answer, per format; a bad field is a located problem.

MMLU-Pro: `question_id` (int), the response in `model_outputs` or `generated_text`, `question`,
`options`, `answer_index` (and `answer`, which must be its letter). Every Eval Ever: `sample_id`,
`output.raw[0]`, the terminal `answer_attribution`'s `extracted_value`, `input.raw`,
`input.choices`, `input.reference[0]`. Mapped: the fields the spec's `results` mapping names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from builder.benchmarks.mcq.fields import LETTERS, MAX_CHOICES
from builder.benchmarks.mcq.results.mapping import ResultsMapping
from builder.benchmarks.mcq.results.sources import MMLU_PRO_RESPONSE, Answer, Element
from builder.core.redact import excerpt


class Bad(ValueError):
    """A field of one record is missing or of the wrong kind; `field` names it."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _text(record: Mapping[str, Any], name: str, *, required: bool = True) -> str | None:
    value = record.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise Bad(name, "missing" if name not in record else f"expected text, found {type(value).__name__}")
    return value


def _options(value: Any, name: str) -> tuple[str, ...]:
    """The options the file says it showed (one is a flaw of that revision, not of the file)."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise Bad(name, "expected a list of texts")
    if len(value) > MAX_CHOICES:
        raise Bad(name, f"{len(value)} options: an item has at most {MAX_CHOICES} (one per letter A-Z)")
    return tuple(value)


def _id(value: Any, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or str(value).strip() == "":
        raise Bad(name, "missing" if value is None else f"expected an integer or text id, found {type(value).__name__}")
    return str(value)


def mmlu_pro(element: Element, record: Mapping[str, Any]) -> Answer:
    key = next((k for k in MMLU_PRO_RESPONSE if k in record), MMLU_PRO_RESPONSE[0])
    options = _options(record.get("options"), "options")
    gold = record.get("answer_index")
    if isinstance(gold, bool) or not isinstance(gold, int) or not 0 <= gold < len(options):
        raise Bad("answer_index", f"expected an index of the {len(options)} options, found {gold!r}")
    letter = record.get("answer")
    note = None
    if letter is not None and letter != LETTERS[gold]:
        if not (isinstance(letter, str) and letter in LETTERS[:len(options)]):
            raise Bad("answer", f"{letter!r} is not a letter of the {len(options)} options")
        note = f"answer {letter!r} disagrees with answer_index {gold} ({LETTERS[gold]}): scored against the letter, " \
               "as the upstream scorer does"
        gold = LETTERS.index(letter)
    return Answer(element, _id(record.get("question_id"), "question_id"), _text(record, key), None,
                  _text(record, "question"), options, gold, note)


def eee(element: Element, record: Mapping[str, Any]) -> Answer:
    """An instance line: the terminal extracted value is the prediction (a letter, or an
    option's text resolved against `input.choices`)."""
    given = found if isinstance(found := record.get("input"), dict) else {}
    output = found if isinstance(found := record.get("output"), dict) else {}
    raw = output.get("raw") if isinstance(output.get("raw"), list) else []
    choices = given.get("choices")
    options = _options(choices, "input.choices") if choices is not None else None
    attributions = _objects(record.get("answer_attribution"), "answer_attribution")
    terminal = [a for a in attributions if a.get("is_terminal") is True] or attributions
    extracted = terminal[-1].get("extracted_value") if terminal else None
    if extracted is not None and not isinstance(extracted, str):
        raise Bad("answer_attribution.extracted_value", "expected text")
    reference = _objects(given.get("reference"), "input.reference", of=None)
    gold = _resolve(reference[0], options, "input.reference") if reference else None
    prediction = _letter(extracted, options)
    return Answer(element, _id(record.get("sample_id"), "sample_id"),
                  raw[0] if raw and isinstance(raw[0], str) else None, prediction,
                  given.get("raw") if isinstance(given.get("raw"), str) else None, options, gold,
                  gold_field="input.reference")


def _objects(value: Any, name: str, of: type | None = dict) -> list[Any]:
    """A list field (absent: empty) whose elements are all `of` (None: any JSON value)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Bad(name, f"expected a list, found {type(value).__name__}")
    if of is not None and not all(isinstance(v, of) for v in value):
        raise Bad(name, "expected a list of objects")
    return value


def mapped(mapping: ResultsMapping) -> Callable[[Element, Mapping[str, Any]], Answer]:
    def answer(element: Element, record: Mapping[str, Any]) -> Answer:
        options = _options(record.get(mapping.options), mapping.options) if mapping.options else None
        gold = None
        if mapping.gold and record.get(mapping.gold) not in (None, ""):
            gold = _resolve(record[mapping.gold], options, mapping.gold)
        prediction = _text(record, mapping.prediction, required=False) if mapping.prediction else None
        response = _text(record, mapping.response, required=mapping.prediction is None) if mapping.response else None
        question = _text(record, mapping.question, required=False) if mapping.question else None
        return Answer(element, _id(record.get(mapping.id), mapping.id), response, _letter(prediction, options),
                      question, options, gold, gold_field=mapping.gold)
    return answer


def _resolve(value: Any, options: tuple[str, ...] | None, name: str) -> int:
    """A gold written as a 0-based index (or a numeral), a letter, or an option's text."""
    if isinstance(value, int) and not isinstance(value, bool):
        index = value
    elif isinstance(value, str) and _NUMERAL.fullmatch(value.strip()):  # not "²": isdigit() yet no int
        index = int(value.strip())
    elif isinstance(value, str) and options and value.strip() in [o.strip() for o in options]:
        index = [o.strip() for o in options].index(value.strip())
    elif isinstance(value, str) and len(value.strip()) == 1 and value.strip().upper() in LETTERS:
        index = LETTERS.index(value.strip().upper())
    else:
        raise Bad(name, f"{excerpt(value)} is neither an index, a letter nor an option's text")
    if index < 0 or (options is not None and index >= len(options)):
        raise Bad(name, f"index {index} is not one of the {len(options or ())} options")
    return index


_NUMERAL = re.compile(r"[0-9]{1,6}")  # ASCII digits, few enough to be an index


def _letter(value: str | None, options: tuple[str, ...] | None) -> str | None:
    """A given prediction as a letter: a letter as it is (upper case), an option's text as its
    letter; anything else "" (unparsed, counted wrong)."""
    if value is None:
        return None
    text = value.strip()
    if len(text) == 1 and text.upper() in LETTERS:
        return text.upper()
    if options and text in [o.strip() for o in options]:
        return LETTERS[[o.strip() for o in options].index(text)]
    return ""
