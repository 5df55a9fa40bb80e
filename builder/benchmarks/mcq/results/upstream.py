"""MMLU-Pro's own scoring, as its `compute_accuracy.py` (TIGER-AI-Lab/MMLU-Pro) does it.

Extraction ("level 2"): `answer is \\(?([A-J])\\)?`, else `.*[aA]nswer:\\s*([A-J])`, else the
last standalone letter A-J anywhere (DOTALL). The script then replaces each answer it could not
extract by `random.choice` of the ten letters A-J, from one `random.seed(12345)` made at start;
its level-1 pass (the first regex alone) runs first over the same entries and draws from the
same generator, so the level-2 draws depend on how many level-1 answers were missing. The
"official" accuracy reproduces the script run on a folder holding just that one file; the
"strict" accuracy counts an unextracted answer as wrong.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

SEED = 12345
LETTERS = tuple("ABCDEFGHIJ")
_FIRST = re.compile(r"answer is \(?([A-J])\)?")
# The script's second and third patterns, `.*[aA]nswer:\s*([A-J])` and
# `\b[A-J]\b(?!.*\b[A-J]\b)` (DOTALL), backtrack quadratically: seconds for one long answer. They
# are computed here in one linear pass each with the same result (tests hold the two equal):
_ANSWER_COLON = re.compile(r"[aA]nswer:\s*([A-J])")
_STANDALONE = re.compile(r"\b[A-J]\b")


def level1(text: str) -> str | None:
    """The first regex alone (the script's level-1 pass)."""
    found = _FIRST.search(text)
    return found.group(1) if found else None


def extract(text: str) -> str | None:
    """The script's level-2 chain: the letter it reads from a response, or None."""
    found = _FIRST.search(text)
    if found:
        return found.group(1)
    return _answer_colon(text) or _last_standalone(text)


def _answer_colon(text: str) -> str | None:
    r"""`re.search(r'.*[aA]nswer:\s*([A-J])', text)`: the search succeeds first at the start of the
    first line holding an `answer:` match, and the greedy `.*` (which stops at a newline) then
    settles on the last match that starts on that line."""
    matches = list(_ANSWER_COLON.finditer(text))
    if not matches:
        return None
    end = text.find("\n", matches[0].start())
    end = len(text) if end < 0 else end
    return [m for m in matches if m.start() < end][-1].group(1)


def _last_standalone(text: str) -> str | None:
    r"""`re.search(r'\b[A-J]\b(?!.*\b[A-J]\b)', text, re.DOTALL)`: the last standalone letter."""
    last = None
    for last in _STANDALONE.finditer(text):
        pass
    return last.group(0) if last else None


def official_letters(responses: Sequence[str]) -> list[str]:
    """Per response, the letter the script scores: the extracted one, else its seeded random
    draw. One generator over the level-1 pass, then the level-2 pass, in file order."""
    rng = random.Random(SEED)
    for text in responses:
        if level1(text) is None:
            rng.choice(LETTERS)
    out = []
    for text in responses:
        letter = extract(text)
        out.append(letter if letter is not None else rng.choice(LETTERS))
    return out
