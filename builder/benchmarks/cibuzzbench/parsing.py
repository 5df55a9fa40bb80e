"""Turn a raw model response into a label, exactly as the official CIBuzzBench scorer does.

Scores are only comparable with the paper's if the same response yields the same label,
quirks included (the letter rule reads a lower-case ``a`` in "a good fit" as ``A``; see
tests/test_parsing.py). The rules follow CONTEXT §1 and the upstream evaluation script
(SuperYFan/CIBuzzBench ``scripts/evaluate_api.py``). The raw response is always kept in the
run, so a different parser can be applied later without asking the model again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from builder.benchmarks.cibuzzbench.dataset.options import LETTERS

UNPARSED = ""

_STANDALONE_LETTER = re.compile(r"\b([ABCD])\b")
# A leading "(A)", "[A]", "A.", "A:", "A：", "A、", "A -" or "A " style letter.
_LEADING_LETTER = re.compile(r"^\s*[(\[]?([ABCD])[)\].:：、\s-]")

_NON_HARMFUL_WORDS = re.compile(r"\b(non[-\s]?harmful|not harmful|safe|benign|harmless)\b")
_NON_HARMFUL_ZH = ("无害", "非有害")
_HARMFUL_WORDS = re.compile(r"\b(harmful|unsafe|toxic)\b")
_HARMFUL_ZH = ("有害", "冒犯", "攻击")


def parse_letter(response: str, options: Mapping[str, str] | None = None) -> str:
    """Task 2: a letter A-D, or "" when none can be read.

    Order: first standalone letter of the upper-cased response; a leading bracketed or
    punctuated letter; the first option (in letter order) whose text occurs in the response,
    case-insensitively; otherwise unparsed.
    """
    raw = response.strip()
    upper = raw.upper()
    for pattern in (_STANDALONE_LETTER, _LEADING_LETTER):
        found = pattern.search(upper)
        if found:
            return found.group(1)
    return _letter_by_option_text(raw, options or {})


def _letter_by_option_text(raw: str, options: Mapping[str, str]) -> str:
    lowered = raw.lower()
    for letter in LETTERS:
        text = options.get(letter, "")
        if text and text.lower() in lowered:
            return letter
    return UNPARSED


def parse_harmfulness(response: str) -> str:
    """Task 3: "harmful", "non-harmful" or "" (unparsed).

    The non-harmful family is checked first (English words, then Chinese), because
    "non-harmful" and "非有害" contain the harmful keywords.
    """
    text = response.strip().lower().replace("_", "-")
    if _NON_HARMFUL_WORDS.search(text) or any(word in text for word in _NON_HARMFUL_ZH):
        return "non-harmful"
    if _HARMFUL_WORDS.search(text) or any(word in text for word in _HARMFUL_ZH):
        return "harmful"
    return UNPARSED
