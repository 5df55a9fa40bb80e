"""Mouse answer and judge parsing (builder.benchmarks.mouse.parsing): what parses, and what is
deliberately left unparsed so it counts as wrong instead of being guessed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.benchmarks.mouse.parsing import (is_copy, normalise_ws, parse_choice, parse_component, parse_digit,
                                   parse_intention, parse_judge, parse_ms, parse_options, parse_toxicity,
                                   strip_marker)


@pytest.mark.parametrize("raw, expected", [
    ("0", 0), ("7", 7), (" 3\n", 3), ("3。", 3), ("3.", 3), ("**5**", 5), ("“2”", 2), ("(6)", 6),
    ("【4】", 4), ("３", 3),  # full-width digit (NFKC)
    ("意图分类：1", 1), ("意图分类: 1", 1), ("意图：2", 2), ("答案：7", 7),
    ("<think>想一想</think>\n5", 5),
    ("4.0", 4),  # pandas re-saved a numeric answer column as float
    # unparsed: outside 0-7, several digits, words, explanations, empty
    ("8", None), ("9", None), ("12", None), ("1,2", None), ("1 或 2", None), ("评价", None),
    ("0 评价", None), ("我认为是3", None), ("3，因为……", None), ("", None), ("   ", None), (None, None),
    ("<think>未完", None), ("4.5", None), ("-1", None),
])
def test_intention(raw, expected):
    assert parse_intention(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("0", 0), ("1", 1), ("毒性：1", 1), ("毒性:0", 0), ("1。", 1), ("1.0", 1),
    ("2", None), ("有毒", None), ("无毒", None), ("toxic", None), ("1 有毒", None), ("01", None),
])
def test_toxicity(raw, expected):
    assert parse_toxicity(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("0", 0), ("1", 1), ("分类：1", 1), ("`0`", 0), ("是", None), ("有", None), ("2", None), ("yes", None),
])
def test_component(raw, expected):
    assert parse_component(raw) == expected


def test_cue_of_another_task_is_not_accepted():
    # "毒性：" is TD's cue; an IR answer that echoes it is not a bare IR answer.
    assert parse_intention("毒性：1") is None
    assert parse_digit("毒性：1", (0, 1), ("毒性",)) == 1


@given(st.integers(0, 7), st.sampled_from(["{}", " {} ", "**{}**", "({})", "{}。", "意图分类：{}", "“{}”"]))
@settings(max_examples=80, deadline=None)
def test_wrapped_digit_round_trips(digit, template):
    assert parse_intention(template.format(digit)) == digit


@given(st.text(max_size=12))
@settings(max_examples=300, deadline=None)
def test_parsers_only_return_labels(text):
    assert parse_intention(text) in (None, *range(8))
    assert parse_toxicity(text) in (None, 0, 1)
    assert parse_component(text) in (None, 0, 1)
    assert parse_judge(text) in (None, 0, 1, 2)
    assert parse_ms(text, ["甲", "乙", "丙"]) in (None, "A", "B", "C")


CC_CELL = "A. 今天吃饭\nB. 明天再说\nC. 随便\nD. 不知道"


@pytest.mark.parametrize("cell, expected", [
    (CC_CELL, (("A", "今天吃饭"), ("B", "明天再说"), ("C", "随便"), ("D", "不知道"))),
    ("A、甲 B、乙 C、丙", (("A", "甲"), ("B", "乙"), ("C", "丙"))),
    ("(A) 甲\n(B) 乙", (("A", "甲"), ("B", "乙"))),
    ("（A）甲（B）乙", (("A", "甲"), ("B", "乙"))),  # full-width brackets, no spaces
    ("A：甲；B：乙", (("A", "甲；"), ("B", "乙"))),
    ("A.DNA. 测序\nB. 乙", (("A", "DNA. 测序"), ("B", "乙"))),  # "A." inside "DNA." is not a marker
    ("A. Plan B\nB. 乙", (("A", "Plan B"), ("B", "乙"))),  # "B" without a delimiter is text
])
def test_parse_options(cell, expected):
    assert parse_options(cell) == expected


@pytest.mark.parametrize("cell", [
    "", "甲 乙 丙", "A. 只有一个", "前言 A. 甲 B. 乙", "B. 乙 C. 丙", "A. 甲 B.", "A. B. 乙",
])
def test_parse_options_rejects(cell):
    assert parse_options(cell) == ()


OPTIONS = (("A", "今天吃饭"), ("B", "明天再说"), ("C", "随便"), ("D", "不知道"))


@pytest.mark.parametrize("raw, expected", [
    ("A", "A"), ("D", "D"), (" B\n", "B"), ("B。", "B"), ("(C)", "C"), ("**C**", "C"), ("C选项", "C"),
    ("选C", "C"), ("结果：B", "B"), ("答案: A", "A"), ("Ｂ", "B"),
    ("B. 明天再说", "B"), ("B、明天再说。", "B"), ("B: 明 天 再 说", "B"),
    ("明天再说", "B"), ("“随便”", "C"), ("D. 不知道", "D"),
    # unparsed
    ("E", None), ("AB", None), ("A或B", None), ("B. 随便", None),  # letter with another option's text
    ("B，因为……", None), ("b", None), ("明天", None), ("", None), (None, None), ("我选 B", None),
])
def test_parse_choice(raw, expected):
    assert parse_choice(raw, OPTIONS) == expected


def test_choice_text_matching_two_options_is_unparsed():
    assert parse_choice("一样", (("A", "一样"), ("B", "一样"), ("C", "不同"))) is None
    assert parse_choice("B", (("A", "一样"), ("B", "一样"))) == "B"


def test_ms_options_may_carry_their_own_letters():
    cells = ["A. 苹果", "B. 香蕉", "C. 橙子"]
    assert parse_ms("香蕉", cells) == "B"
    assert parse_ms("B. 香蕉", cells) == "B"
    assert parse_ms("C. 香蕉", cells) is None
    assert parse_ms("D", cells) is None
    assert strip_marker("A. 苹果") == "苹果" and strip_marker("苹果") == "苹果"


@pytest.mark.parametrize("raw, expected", [
    ("分数：2", 2), ("分数：0", 0), ("分数：1\n", 1), ("分析：照抄原文。\n分数：0", 0),
    ("分析：语义一致\n分数：2  ", 2), ("分数：1\n分数：2", 2),  # only the end counts
    # unparsed: half-width colon, space, suffix, markdown, out of range, missing
    ("分数: 2", None), ("分数： 2", None), ("分数：2分", None), ("**分数：2**", None), ("分数：3", None),
    ("分数：12", None), ("2", None), ("分数：", None), ("分数：2\n理由：……", None), ("", None), (None, None),
])
def test_parse_judge(raw, expected):
    assert parse_judge(raw) == expected


def test_copy_detection_ignores_only_whitespace():
    assert normalise_ws(" a\tb\u3000c \n") == "abc"
    assert is_copy("你好 世界", "你好世界")
    assert is_copy("你好世界", " 你好\u3000世界\n")
    assert not is_copy("你好世界", "你好，世界")
    assert not is_copy("你好世界", None)
