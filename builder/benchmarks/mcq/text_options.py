"""`options_from_text`: a text field that holds the question and its lettered options in one
string, as many releases ship them (`A. … B. …`, `A．…`, `A:…;B:…;C:…`, `(A)…`), split into
the stem (the text before the first option) and the options, each with the letter written
before it, so that a letter target names that option wherever it stands.

A letter is an option marker only where a line, a space, a `;`, a colon, a comma, a closing
parenthesis, a question mark or a Chinese or full-width character precedes it (Chinese sets
write `…的是A．…B．…`), and after the first `A` only in the same style (parentheses, a dot or
a colon) and at most one letter past those seen: `J. K. Rowling` inside an option stays text.
When the text holds several `A` markers (a stem mentioning "part A."), the run of markers
from each is compared and the longest wins (ties: the last), so a stray `A.` before or inside
the options does not split it. The full stop closing the whole text (`…;D:丁。`) is not part
of the last option. Letters out of order or missing (A, C, B, D; A, B, D) are kept as written
and counted by the audit (finding `option_letters`); `{field, pattern}` takes a regular
expression for any other layout, whose group (`letter`, else the first) is the letter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import regex  # a spec's own pattern runs with a timeout (_pattern_markers)

from builder.benchmarks.mcq.fields import LETTERS, RecordProblem, Rule, text_value

_BEFORE = r"(?:^|(?<=[\s;；:：,，。)）?!\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]))"  # what may precede a marker
_MARKER = re.compile(_BEFORE + r"(?:[(（]([A-Z])[)）]|([A-Z])[ \t]*([.．、:：]))")
_STYLES = {".": "dot", "．": "dot", "、": "dot", ":": "colon", "：": "colon"}
_SEPARATORS = " \t\r\n;；"
_STOPS = "。.．"  # a full stop closing the text, stripped from the last option when only it has one
KIND = "from_text"  # the kind of the doc_to_text/doc_to_choice Rule standing for the split


class Marker(NamedTuple):
    start: int
    end: int
    letter: str
    style: str


class Split(NamedTuple):
    stem: str
    options: tuple[str, ...]
    letters: tuple[str, ...]  # as written, in the text's order


@dataclass(frozen=True)
class TextOptions:
    field: str
    pattern: Any = None  # a compiled `regex` pattern; None: the common layouts

    def rule(self, key: str) -> Rule:
        """The stand-in for an omitted doc_to_text or doc_to_choice (load.py reads the split)."""
        return Rule(key, KIND, (self.field,))

    def split(self, record: Mapping[str, Any], context: Mapping[str, Any]) -> Split:
        """The record's stem and lettered options; a located problem when fewer than two are found."""
        if self.field in record:
            value = record[self.field]
        elif self.field in context:
            value = context[self.field]
        else:
            raise RecordProblem(f"field {self.field!r} is missing")
        text = text_value(value, f"options_from_text field {self.field!r}")
        markers = _pattern_markers(text, self.pattern) if self.pattern is not None else _markers(text)
        if len(markers) < 2:
            layouts = "its pattern" if self.pattern is not None else "A. … B. …, A．…, A:…;B:…, (A)…"
            raise RecordProblem(f"field {self.field!r} holds {len(markers)} lettered option(s) ({layouts}); an "
                                "item needs two or more (skip such records with `filter`)")
        ends = [m.start for m in markers[1:]] + [len(text)]
        options = _closed([text[m.end:end].strip(_SEPARATORS) for m, end in zip(markers, ends)])
        return Split(text[:markers[0].start].strip(), options, tuple(m.letter for m in markers))


def _closed(options: list[str]) -> tuple[str, ...]:
    """The options less the full stop that closes the whole text (`…;D:丁。`), which runs into the
    last option: a mark only it would carry (a cue). Kept when another option ends with it too,
    unless the last option ends with it twice (`…;D:丁。。`: its own and the text's)."""
    last = options[-1]
    stop = last[-1:]
    if stop in _STOPS and len(last) > 1 and (last[-2] == stop or not any(o.endswith(stop) for o in options[:-1])):
        options[-1] = last[:-1].rstrip()
    return tuple(options)


def in_order(letters: tuple[str, ...]) -> bool:
    """Whether options are lettered A, B, C, ... with none missing, repeated or out of order."""
    return letters == tuple(LETTERS[:len(letters)])


def _markers(text: str) -> list[Marker]:
    """The longest run of consistent markers that starts at an `A` (ties: the last such run)."""
    found = [Marker(m.start(), m.end(), m.group(1) or m.group(2), "paren" if m.group(1) else _STYLES[m.group(3)])
             for m in _MARKER.finditer(text)]
    best: list[Marker] = []
    for i, first in enumerate(found):
        if first.letter == "A":
            run = _run(first, found[i + 1:])
            if len(run) >= len(best):
                best = run
    return best


def _run(first: Marker, rest: list[Marker]) -> list[Marker]:
    """`first` and the later markers of its style whose letter is new and at most one past those seen."""
    run, seen = [first], {first.letter}
    for marker in rest:
        if marker.style == first.style and marker.letter not in seen and LETTERS.index(marker.letter) <= len(seen) + 1:
            run.append(marker)
            seen.add(marker.letter)
    return run


PATTERN_SECONDS = 0.25  # a spec's own pattern on one record: far above any sane layout's cost


def _pattern_markers(text: str, pattern: Any) -> list[Marker]:
    """The markers a spec's pattern finds. The pattern is the spec author's, so it runs under the
    `regex` engine's timeout: a catastrophic pattern (nested quantifiers) is a located error on its
    first record instead of a build that never ends (Python's `re` cannot be interrupted)."""
    markers = []
    try:
        for m in pattern.finditer(text, timeout=PATTERN_SECONDS):
            letter = m.group("letter") if "letter" in pattern.groupindex else m.group(1)
            if m.end() > m.start():
                markers.append(Marker(m.start(), m.end(), (letter or "").strip().upper(), "pattern"))
    except TimeoutError:
        raise RecordProblem(f"the options_from_text pattern took over {PATTERN_SECONDS} s on this record's "
                            f"{len(text):,} characters: simplify it (no nested repetition such as (a+)+)") from None
    return markers


def text_options(value: object, problem: Callable[[str, str], None]) -> TextOptions | None:
    """`options_from_text: FIELD` or `{field: FIELD, pattern: REGEX}` (a group captures the letter)."""
    if isinstance(value, str) and value.strip():
        return TextOptions(value)
    if not (isinstance(value, dict) and set(value) == {"field", "pattern"}
            and all(isinstance(value[k], str) and value[k].strip() for k in ("field", "pattern"))):
        problem("options_from_text", "must be a field name, or {field: FIELD, pattern: REGEX} where the "
                "pattern matches each option's marker and a group captures its letter")
        return None
    try:
        pattern = regex.compile(value["pattern"], regex.VERSION0)
    except (regex.error, ValueError, OverflowError) as exc:
        problem("options_from_text", f"pattern does not compile: {exc}")
        return None
    if pattern.groups < 1:
        problem("options_from_text", "pattern needs a group capturing the letter, e.g. '(?:^|\\s)([A-H])\\)'")
        return None
    return TextOptions(value["field"], pattern)
