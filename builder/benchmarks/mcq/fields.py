"""How a spec turns one record into a stem, a list of choices and a gold index.

The vocabulary is lm-evaluation-harness's (`doc_to_text`, `doc_to_choice`, `doc_to_target`)
with the same meanings: a value is a field name, or a Jinja template over the record when it
contains `{{` or `{%`. Templates run in Jinja's immutable sandbox with undefined names as
errors: a spec is input, and a typo must fail on the first record, not yield empty text.
A template sees every field by name and the whole record as `doc` (for names that are not
identifiers, e.g. `doc['A选项']`).
"""

from __future__ import annotations

import ast
import math
import re
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template
from jinja2.exceptions import TemplateError
from builder.core.redact import excerpt
from builder.site.environment import describe
from builder.site.limits import LimitedSandbox
from builder.site.render_budget import BudgetSpent, RenderBudget, TemplateLimit, spending

LETTERS = string.ascii_uppercase  # position labels: A, B, C, ...
MAX_CHOICES = len(LETTERS)
_NUMERAL = re.compile(r"[0-9]+")
MESSAGE_EXCERPT = 100  # of an exception's message, which may quote a record's value after its own words
# One render budget for all of a spec's templates over all of its records (docs/audit.md): a
# legitimate template takes microseconds and makes about its record's size, so the allowance
# per record (time) and per byte of data (characters) is small, and a loop that is slow or big
# on every record stops within the base. Characters follow the data's size, not the count of
# records, so a million tiny records do not buy gigabytes.
SPEC_SECONDS = 30.0
SECONDS_PER_RECORD = 0.001
SPEC_CHARS = 64_000_000
CHARS_PER_DATA_BYTE = 4


class RecordProblem(Exception):
    """What is wrong with one record under one rule; the loader adds the location."""


@lru_cache(maxsize=1)
def environment() -> LimitedSandbox:
    """No autoescape: the output is data (a stem, a list literal, an answer), not HTML. Limited
    (time, output, `*`): a spec is input, and one record must not hang or fill the machine."""
    return LimitedSandbox(undefined=StrictUndefined, autoescape=False)


def new_spec_budget(records: int, data_bytes: int, what: str = "the spec's templates") -> RenderBudget:
    """The one budget of a spec's templates over `records` records (or items) read from
    `data_bytes` bytes of data files."""
    return RenderBudget(what, SPEC_SECONDS + records * SECONDS_PER_RECORD, SPEC_CHARS + data_bytes * CHARS_PER_DATA_BYTE)


@contextmanager
def spec_budget(records: int, data_bytes: int) -> Iterator[RenderBudget]:
    """Render every template of one spec's `records` records inside."""
    with spending(new_spec_budget(records, data_bytes)) as budget:
        yield budget


def is_template(value: str) -> bool:
    return "{{" in value or "{%" in value


@dataclass(frozen=True)
class Rule:
    """One `doc_to_*` entry: a field, a list of fields (choices only) or a template."""

    key: str
    kind: str  # "field" | "fields" | "template"
    fields: tuple[str, ...]
    template: Template | None = None
    source: str = ""  # the spec's text of a template (captions name it)

    def raw(self, record: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> Any:
        """The field's value, the fields' values, or the rendered template text. `context`
        holds the names a record gets from where it sits (file_name, file_stem, parent): a
        template sees them beside the fields (they win a clash; `doc` is the record itself),
        and a field rule falls back to them."""
        context = context or {}
        if self.kind == "template":
            assert self.template is not None
            try:
                return self.template.render({**record, **context, "doc": record})
            except BudgetSpent:
                raise  # the spec's, not the record's: the loader names the spec
            except TemplateLimit as exc:
                raise RecordProblem(f"template failed: {exc}") from None
            except TemplateError as exc:  # its message may quote the record: an excerpt only
                raise RecordProblem("template failed: "
                                    f"{excerpt(describe(exc), MESSAGE_EXCERPT, quoted=False)}") from None
            except Exception as exc:  # a template over data can raise anything (TypeError, ...)
                raise RecordProblem(f"template failed: {type(exc).__name__}: "
                                    f"{excerpt(exc, MESSAGE_EXCERPT, quoted=False)}") from None
        values = []
        for name in self.fields:
            if name in record:
                values.append(record[name])
            elif name in context:
                values.append(context[name])
            else:
                raise RecordProblem(f"field {name!r} is missing")
        return values if self.kind == "fields" else values[0]


def compile_rule(key: str, value: object, *, allow_fields: bool = False) -> Rule:
    """A Rule, or ValueError with the reason (the spec loader locates it)."""
    if isinstance(value, str) and value:
        if not is_template(value):
            return Rule(key, "field", (value,))
        try:
            return Rule(key, "template", (), environment().from_string(value), value)
        except TemplateError as exc:
            raise ValueError(f"template does not compile: {describe(exc)}") from None
    if allow_fields and isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return Rule(key, "fields", tuple(value))
    what = "a field name, a list of field names or a template" if allow_fields else "a field name or a template"
    raise ValueError(f"must be {what}, not {value!r}")


def text_value(value: Any, what: str) -> str:
    """A stem, id, split or category: text or a number, never null, a list or an object."""
    if isinstance(value, bool) or value is None or not isinstance(value, (str, int, float)):
        raise RecordProblem(f"{what} must be text or a number, not {_kind(value)}")
    if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN/Infinity: no answer text
        raise RecordProblem(f"{what} must be text or a finite number, not {value}")
    return str(value)


def labelled_choices(rule: Rule, record: Mapping[str, Any], context: Mapping[str, Any] | None = None
                     ) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The choices in order (a list, an object's values in key order, fields, or a list literal)
    and the object's keys when they are an object, so that a letter target can name the key it
    means rather than a position."""
    value = rule.raw(record, context)
    keys = None
    if rule.kind == "template":
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise RecordProblem(f"template must render a list literal, rendered {excerpt(value.strip())}") from None
    if isinstance(value, Mapping):
        keys = tuple(str(k) for k in value)
        value = list(value.values())
    if not isinstance(value, (list, tuple)):
        raise RecordProblem(f"choices must be a list (or an object), not {_kind(value)}")
    if not value:
        raise RecordProblem("record has no choices")
    if len(value) < 2:
        raise RecordProblem("record has only one choice; a multiple-choice item needs two or more")
    if len(value) > MAX_CHOICES:
        raise RecordProblem(f"record has {len(value)} choices; at most {MAX_CHOICES} can be lettered")
    return tuple(text_value(v, f"choice {LETTERS[i]}") for i, v in enumerate(value)), keys


TARGET_KINDS: tuple[str, ...] = ("index", "index1", "letter", "text")


def target(rule: Rule, record: Mapping[str, Any], options: tuple[str, ...],
           keys: tuple[str, ...] | None = None, context: Mapping[str, Any] | None = None,
           kind: str | None = None) -> int:
    """The gold's 0-based index, read as the spec's `target_kind` says: `index` (0-based),
    `index1` (1-based), `letter` (A, b, ...; with choices keyed by letters, the key wherever it
    stands) or `text` (a choice's text, surrounding spaces ignored). Without it: an integer or
    numeral is a 0-based index, other text a choice's text, then a letter; a target that reads
    as two different choices (a numeral or a single letter that is also another choice's text)
    is an error naming both readings, never a silent choice."""
    value = rule.raw(record, context)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise RecordProblem(f"target must be an integer or text, not {_kind(value)}")
    text = str(value).strip()
    if kind is not None:
        return _READERS[kind](text, options, keys)
    readings = {k: _reading(k, text, options, keys) for k in ("index", "text", "letter")}
    numeral = _NUMERAL.fullmatch(text) is not None
    first = "index" if numeral else "text" if readings["text"] is not None else "letter"
    other = "text" if first != "text" else "letter"
    a, b = readings[first], readings[other]
    if a is not None and b is not None and a != b:
        raise RecordProblem(f"target {excerpt(text)} reads two ways: as {_AS[first]} it is choice {LETTERS[a]} "
                            f"({excerpt(options[a])}), as {_AS[other]} choice {LETTERS[b]} ({excerpt(options[b])}); "
                            f"set target_kind: {first} or target_kind: {other} in the spec")
    return _READERS["index" if numeral else first](text, options, keys)


_AS = {"index": "a 0-based index", "text": "a choice's text", "letter": "a letter"}


def _reading(kind: str, text: str, options: tuple[str, ...], keys: tuple[str, ...] | None) -> int | None:
    """The choice `text` names under one reading, or None where that reading fails. No message is
    made here: most records fail two of the three readings, and a message (scrubbed of every
    secret variable's value) per failed reading took a tenth of a cold build's loading."""
    return _MATCHERS[kind](text, options, keys)


def _index_of(text: str, options: tuple[str, ...], base: int = 0) -> int | None:
    value = int(text) - base if _NUMERAL.fullmatch(text) else -1
    return value if 0 <= value < len(options) else None


def _text_of(text: str, options: tuple[str, ...]) -> int | None:
    stripped = [o.strip() for o in options]
    return stripped.index(text) if text in stripped else None


def _letter_of(text: str, options: tuple[str, ...], keys: tuple[str, ...] | None) -> int | None:
    lettered = _letter_keys(keys)
    if len(text) != 1:
        return None
    if lettered is not None:
        return lettered.index(text.upper()) if text.upper() in lettered else None
    return LETTERS.index(text.upper()) if text.upper() in LETTERS[:len(options)] else None


def _as_index(text: str, options: tuple[str, ...], keys: tuple[str, ...] | None, base: int = 0) -> int:
    found = _index_of(text, options, base)
    if found is not None:
        return found
    if not _NUMERAL.fullmatch(text):
        raise RecordProblem(f"target {excerpt(text)} is not a{' 1-based' if base else ' 0-based'} index")
    other = "" if base else ("; for 1-based answers set target_kind: index1 (or write a template such as "
                             "'{{ answer - 1 }}')")
    raise RecordProblem(f"target index {text} is out of range for {len(options)} choices "
                        f"({'1' if base else '0'}-based{other}; for answers that are a choice's text set "
                        "target_kind: text)")


def _as_text(text: str, options: tuple[str, ...], keys: tuple[str, ...] | None) -> int:
    found = _text_of(text, options)
    if found is None:
        raise RecordProblem(f"target {excerpt(text)} matches no choice's text")
    return found


def _as_letter(text: str, options: tuple[str, ...], keys: tuple[str, ...] | None) -> int:
    found = _letter_of(text, options, keys)
    if found is not None:
        return found
    if _letter_keys(keys) is not None and len(text) == 1:
        raise RecordProblem(f"target {excerpt(text)} is not one of the choices' keys "
                           f"{excerpt(', '.join(keys or ()), quoted=False)}")
    raise RecordProblem(f"target {excerpt(text)} matches no choice and is not a letter "
                        f"{LETTERS[0]}-{LETTERS[len(options) - 1]}")


_READERS = {"index": _as_index, "index1": lambda t, o, k: _as_index(t, o, k, 1), "letter": _as_letter,
            "text": _as_text}
_MATCHERS = {"index": lambda t, o, k: _index_of(t, o), "text": lambda t, o, k: _text_of(t, o), "letter": _letter_of}


def _letter_keys(keys: tuple[str, ...] | None) -> list[str] | None:
    """The keys upper-cased when every one is a single distinct letter, else None."""
    if not keys:
        return None
    upper = [k.strip().upper() for k in keys]
    single = all(len(k) == 1 and k in LETTERS for k in upper) and len(set(upper)) == len(upper)
    return upper if single else None


def _kind(value: object) -> str:
    return "null" if value is None else {dict: "an object", list: "a list", bool: "true/false"}.get(
        type(value), type(value).__name__)
