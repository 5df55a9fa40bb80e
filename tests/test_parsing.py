"""Response parsing must give the official scorer's label for every response, quirks included."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from builder.benchmarks.cibuzzbench.parsing import parse_harmfulness, parse_letter

OPTIONS = {"A": "peanut gallery", "B": "say it louder", "C": "speak up for me", "D": "feed me peanuts"}


@pytest.mark.parametrize(("response", "expected"), [
    ("A", "A"), (" b\n", "B"), ("C.", "C"), ("D:", "D"), ("(A)", "A"), ("[B]", "B"),
    ("Answer: C", "C"), ("The answer is B.", "B"), ("**D**", "D"), ("答案：B", "B"), ("B、", "B"),
    ("A or B", "A"),  # the first standalone letter wins
    ("", ""), ("   ", ""), ("E", ""), ("None of these", ""),
    ("ABCD", ""),  # no standalone letter, no leading style (B is not punctuation)
    ("选B", ""),  # a CJK character is a word character: no word boundary before B
])
def test_letter_hand_cases(response: str, expected: str) -> None:
    assert parse_letter(response) == expected


@pytest.mark.parametrize(("response", "expected"), [
    # Official quirks, reproduced on purpose: the response is upper-cased before the search.
    ("It is a pun", "A"),  # the article "a" becomes a standalone A
    ("I'd pick B", "D"),  # the D of "I'd" is standalone after the apostrophe
])
def test_letter_quirks_match_the_official_scorer(response: str, expected: str) -> None:
    assert parse_letter(response) == expected


@pytest.mark.parametrize(("response", "expected"), [
    ("feed me peanuts", "D"),
    ("FEED ME PEANUTS!", "D"),  # case-insensitive
    ("'speak up for me', surely", "C"),
    ("peanut gallery or feed me peanuts", "A"),  # several texts: the first in letter order
    ("something else entirely", ""),
])
def test_letter_by_option_text(response: str, expected: str) -> None:
    assert parse_letter(response, OPTIONS) == expected


def test_letter_standalone_beats_option_text() -> None:
    assert parse_letter("B: feed me peanuts", OPTIONS) == "B"


def test_empty_option_text_never_matches() -> None:
    assert parse_letter("whatever", {"A": "", "B": "whatever"}) == "B"


@pytest.mark.parametrize(("response", "expected"), [
    ("harmful", "harmful"), ("Harmful.", "harmful"), ("non-harmful", "non-harmful"),
    ("Non_harmful", "non-harmful"), ("nonharmful", "non-harmful"), ("non harmful", "non-harmful"),
    ("not harmful", "non-harmful"), ("Safe", "non-harmful"), ("benign", "non-harmful"),
    ("harmless", "non-harmful"), ("unsafe", "harmful"),  # word boundaries: "unsafe" is not "safe"
    ("toxic", "harmful"), ("TOXIC!", "harmful"), ("有害", "harmful"), ("无害", "non-harmful"),
    ("非有害", "non-harmful"), ("冒犯性", "harmful"), ("攻击", "harmful"),
    ("harmful? no: harmless", "non-harmful"),  # the non-harmful family is checked first
    ("有害还是无害", "non-harmful"),
    ("harmful（有害）", "harmful"),
    ("harmfulness", ""),  # no word boundary after "harmful"
    ("", ""), ("I cannot help with that", ""), ("label", ""),
])
def test_harmfulness_hand_cases(response: str, expected: str) -> None:
    assert parse_harmfulness(response) == expected


# --- properties -------------------------------------------------------------------------

LETTER = st.sampled_from("ABCD")
# Text with no letter a-d in either case: it cannot contain a standalone A-D.
NO_LETTERS = st.text(st.characters(blacklist_characters="abcdABCD", blacklist_categories=("Cs",)), max_size=40)


@given(st.text(max_size=80), st.dictionaries(LETTER, st.text(max_size=10)))
def test_letter_result_is_a_label_or_unparsed(response: str, options: dict[str, str]) -> None:
    assert parse_letter(response, options) in ("", "A", "B", "C", "D")


@given(LETTER, st.sampled_from(["{}", "({})", "[{}]", "{}.", "{}:", "{}：", "{}、"]), st.booleans(),
       st.text(max_size=60), st.text(" \t\n", max_size=3))
def test_leading_letter_in_any_style(letter: str, style: str, lower: bool, rest: str, pad: str) -> None:
    shown = letter.lower() if lower else letter
    assert parse_letter(pad + style.format(shown) + " " + rest, OPTIONS) == letter


@given(NO_LETTERS)
def test_no_letter_and_no_option_text_is_unparsed(response: str) -> None:
    assume(not any(text in response.lower() for text in OPTIONS.values()))
    assert parse_letter(response, OPTIONS) == ""


WORD = st.text(st.sampled_from("efghijklmnopqrstuvwxyz"), min_size=3, max_size=8)


@given(st.lists(WORD, min_size=4, max_size=4, unique=True), LETTER, NO_LETTERS)
def test_option_text_picks_its_letter(words: list[str], letter: str, filler: str) -> None:
    options = dict(zip("ABCD", words, strict=True))
    response = filler + " " + options[letter].upper()
    assume(all(w not in response.lower() for k, w in options.items() if k != letter))
    assert parse_letter(response, options) == letter


@given(st.text(max_size=80))
def test_harmfulness_result_is_a_label_or_unparsed(response: str) -> None:
    assert parse_harmfulness(response) in ("", "harmful", "non-harmful")


ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@given(ASCII)
def test_harmfulness_ignores_case_and_underscores(response: str) -> None:
    expected = parse_harmfulness(response)
    assert parse_harmfulness(response.swapcase()) == expected
    assert parse_harmfulness(response.replace("-", "_")) == expected


@given(ASCII, ASCII)
def test_a_non_harmful_word_always_wins(before: str, after: str) -> None:
    assert parse_harmfulness(f"{before} harmless {after}") == "non-harmful"
    assert parse_harmfulness(f"{before}非有害{after}") == "non-harmful"
