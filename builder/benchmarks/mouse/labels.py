"""Mouse task names and label sets, shared by the schema, parsers, metrics and runs.

Labels are the values the official prompts ask for: digits for IR, TD and RC, letters
for MS and CC. Keeping them as ints/letters (not strings) lets a label read from a CSV
cell, a JSON number and a parsed answer compare equal without conversion.
"""

from __future__ import annotations

TR, RC, IR, TD, MS, CC = "tr", "rc", "ir", "td", "ms", "cc"
TASKS: tuple[str, ...] = (TR, RC, IR, TD, MS, CC)
# Conditions: sighted (the official protocol) and blind (ms, cc: the options without the question).
SIGHTED, BLIND = "sighted", "blind"

# Intent Recognition: the official prompt's numbering (main.py, build_intention_prompt).
INTENTS: dict[int, str] = {
    0: "comment (complaint/praise)",
    1: "general statement",
    2: "group identity",
    3: "humour & memes",
    4: "emotional expression",
    5: "sexualised reference",
    6: "urging",
    7: "other",
}
IR_LABELS: tuple[int, ...] = tuple(INTENTS)
TD_LABELS: tuple[int, ...] = (0, 1)  # 0 non-toxic, 1 toxic
RC_LABELS: tuple[int, ...] = (0, 1)  # 0 component absent, 1 present
# Representational components, in the order of the paper's tables.
RC_COMPONENTS: tuple[str, ...] = ("homophonic", "semantic", "visual")
MS_LABELS: tuple[str, ...] = ("A", "B", "C")
JUDGE_LABELS: tuple[int, ...] = (0, 1, 2)
