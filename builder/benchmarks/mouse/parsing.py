"""Turn raw Mouse model answers and judge outputs into labels, or None when unparsed.

The official prompts (csdq777/Mouse main.py) ask for a bare digit (IR 0-7, TD and RC
0/1) or a bare option letter (MS, CC). We accept that bare answer plus only the
harmless wrappers a compliant model adds: surrounding whitespace, a complete leading
`<think>...</think>` block, an echo of the prompt's cue ("毒性：", "意图分类：", "分类：",
"结果：") or "答案：", markdown bold/quotes/brackets around the label, one trailing full
stop, full-width forms (NFKC), and pandas' float spelling "1.0" of a digit. Anything
else (an explanation, two labels, a label outside the task) is unparsed: it counts as a
wrong answer and is counted, never guessed. The raw answer is always kept, so a
different rule can be applied later without asking the model again.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from builder.benchmarks.mouse.labels import IR_LABELS, JUDGE_LABELS, MS_LABELS, RC_LABELS, TD_LABELS

Options = Sequence[tuple[str, str]]  # (letter, option text) in letter order

_THINK = re.compile(r"\A\s*<think>.*?</think>", re.S)
_PAIRS = {"*": "*", '"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』", "【": "】",
          "[": "]", "(": ")", "<": ">"}
_TRAILING = ".。!"
_DIGIT = re.compile(r"(\d)(?:\.0)?")
# A letter, optionally "A选项", optionally followed by a delimiter and that option's text.
_LETTER = re.compile(r"(?:选项|选)?\s*([A-Z])\s*(?:选项)?\s*(?:[.、:)]\s*(.*))?", re.S)
# An option marker: "A." "A、" "A:" "A)" "(A)" "（A）", half- or full-width, not inside a word.
_MARKER = re.compile(r"(?<![A-Za-z0-9Ａ-Ｚａ-ｚ０-９])[(（\[【]?\s*([A-ZＡ-Ｚ])\s*[)）\]】.．、:：]")
# The judge's verdict: the text must END with 分数：0/1/2 (full-width colon, nothing after).
_JUDGE = re.compile(r"分数：([012])\Z")

IR_CUES = ("意图分类", "意图")
TD_CUES = ("毒性",)
RC_CUES = ("分类",)
CHOICE_CUES = ("结果",)


def normalise_ws(text: str) -> str:
    """Text with all (Unicode) whitespace removed: spacing is not content in Chinese."""
    return "".join(text.split())


def _comparable(text: str) -> str:
    """Option or answer text for equality: no whitespace, no final full stop."""
    return normalise_ws(text).rstrip(_TRAILING)


def is_copy(source: str, translation: str | None) -> bool:
    """True when the translation merely repeats the source (whitespace ignored)."""
    return translation is not None and normalise_ws(translation) == normalise_ws(source)


def _core(raw: str | None, cues: Sequence[str]) -> str | None:
    """The answer with the accepted wrappers removed (see module docstring)."""
    if raw is None:
        return None
    text = _THINK.sub("", unicodedata.normalize("NFKC", raw), count=1).strip()
    for cue in (*cues, "答案"):
        match = re.match(rf"{re.escape(cue)}\s*:\s*", text)
        if match:
            text = text[match.end():]
            break
    text = _unwrap(text)
    if text.endswith(tuple(_TRAILING)):
        text = _unwrap(text[:-1])
    return text or None


def _unwrap(text: str) -> str:
    """Remove matched wrapper pairs around the whole text ("**2**", "(B)", "“A”")."""
    text = text.strip()
    while len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def parse_digit(raw: str | None, allowed: Sequence[int], cues: Sequence[str] = ()) -> int | None:
    text = _core(raw, cues)
    match = _DIGIT.fullmatch(text) if text else None
    if match is None:
        return None
    value = int(match.group(1))
    return value if value in allowed else None


def parse_intention(raw: str | None) -> int | None:
    """IR: one digit 0-7."""
    return parse_digit(raw, IR_LABELS, IR_CUES)


def parse_toxicity(raw: str | None) -> int | None:
    """TD: 0 non-toxic, 1 toxic."""
    return parse_digit(raw, TD_LABELS, TD_CUES)


def parse_component(raw: str | None) -> int | None:
    """RC (each of homophonic, semantic, visual): 0 absent, 1 present."""
    return parse_digit(raw, RC_LABELS, RC_CUES)


def parse_options(text: str) -> tuple[tuple[str, str], ...]:
    """Split a CC `选项` cell into (letter, text) pairs A, B, C, ...; () if it has no such list.

    The cell must start with the "A" marker; each next marker is the first one with the
    next letter, so a stray "D." inside option text is only a problem if D is expected next.
    """
    marks, expected = [], "A"
    for match in _MARKER.finditer(text):
        if unicodedata.normalize("NFKC", match.group(1)) == expected:
            marks.append(match)
            expected = chr(ord(expected) + 1)
    if len(marks) < 2 or text[:marks[0].start()].strip():
        return ()
    ends = [m.start() for m in marks[1:]] + [len(text)]
    options = tuple((unicodedata.normalize("NFKC", m.group(1)), text[m.end():end].strip())
                    for m, end in zip(marks, ends))
    return options if all(t for _, t in options) else ()


def strip_marker(option: str) -> str:
    """Option text without a leading "A." style marker (MS cells may carry one)."""
    text = unicodedata.normalize("NFKC", option).strip()
    match = _MARKER.match(text)
    return text[match.end():].strip() if match else text


def parse_choice(raw: str | None, options: Options) -> str | None:
    """MS/CC: the chosen letter, by letter ("B", "B. text-of-B") or by the exact text of
    exactly one option. A letter with another option's text, or with any other words, is
    unparsed."""
    text = _core(raw, CHOICE_CUES)
    if text is None:
        return None
    by_letter = {letter: _comparable(strip_marker(t)) for letter, t in options}
    match = _LETTER.fullmatch(text)
    if match:
        letter, rest = match.group(1), match.group(2)
        if letter not in by_letter:
            return None
        if rest is None or not rest.strip() or _comparable(rest) == by_letter[letter]:
            return letter
        return None
    wanted = _comparable(strip_marker(text))
    hits = [letter for letter, t in by_letter.items() if t == wanted]
    return hits[0] if len(hits) == 1 else None


def parse_ms(raw: str | None, options: Sequence[str]) -> str | None:
    """MS: A, B or C; `options` are the three option cells in A, B, C order."""
    return parse_choice(raw, tuple(zip(MS_LABELS, options)))


def parse_judge(raw: str | None) -> int | None:
    """The LLM judge's score 0/1/2 from a text ending with `分数：<score>`, else None.

    The official script stores `re.search("分数：[0-2]", output).group(0)`, so its cells
    hold exactly "分数：2"; a full judge output ("分析：...\\n分数：2") parses too. A half-width
    colon, a space, "2分" or markdown after the score is unparsed: flagged, not guessed.
    """
    if raw is None:
        return None
    match = _JUDGE.search(raw.rstrip())
    value = int(match.group(1)) if match else None
    return value if value in JUDGE_LABELS else None
