"""Cue families: per-option dense features, each a function of one item's option texts only.

Every model-free rule's score is among them (length and its rank, sibling similarity, the
centroid), plus cue families a test writer leaves behind: numbers (magnitude rank, extremes,
digits), "all / none of the above", an option that contains or negates a sibling, and casing and
final punctuation. Features are invariant to the options' order. A linear softmax over an item's
options ignores anything constant within the item, so item means are never features; ranks,
extremes and z-scores are, because they are not linear in the raw value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from builder.ranker.grid import OptionGrid, masked_extreme, masked_rank_desc, sibling_mean
from builder.ranker.similarity import centroid, pair_overlaps, sibling_stats
from builder.ranker.sparse import sp
from builder.ranker.text import CHAR_NGRAM, CJK_CHAR, char_sets, token_sets, tokens

NGRAMS = "ngrams"


@dataclass(frozen=True)
class Texts:
    """What every cue family reads, computed once per grid."""

    grid: OptionGrid
    flat: list[str]
    tokens: list[list[str]]
    chars: sp.csr_matrix  # 0/1 characters, one row per slot
    char: sp.csr_matrix  # 0/1 character n-grams
    word: sp.csr_matrix  # 0/1 tokens and token bigrams
    distinct: list[str]  # each text of `flat` once, in the order first met
    where: np.ndarray  # (len(flat),) each slot's text in `distinct`

    def column(self, fn: Callable[[str], float]) -> np.ndarray:
        """(n, K) of fn(text), 0 in padded slots; fn runs once per distinct text (options repeat
        across items, and every padded slot is the empty text)."""
        values = np.fromiter(map(fn, self.distinct), dtype=float, count=len(self.distinct))[self.where]
        return np.where(self.grid.mask, values.reshape(self.grid.n, -1), 0.0)


def read_texts(grid: OptionGrid) -> Texts:
    flat = grid.flat()
    seen: dict[str, int] = {}
    where = np.fromiter((seen.setdefault(t, len(seen)) for t in flat), dtype=np.intp, count=len(flat))
    distinct = list(seen)
    distinct_tokens = [tokens(t) for t in distinct]
    toks = [distinct_tokens[i] for i in where.tolist()]
    return Texts(grid, flat, toks, char_sets(flat, 1), char_sets(flat, CHAR_NGRAM), token_sets(toks), distinct, where)


def _length(t: Texts) -> dict[str, np.ndarray]:
    m = t.grid.mask
    chars = t.column(len)
    toks = np.where(m, np.array([len(x) for x in t.tokens], dtype=float).reshape(m.shape), 0.0)
    k = np.maximum(m.sum(axis=1, keepdims=True), 1)
    mean = np.where(m, chars, 0).sum(axis=1, keepdims=True) / k
    sd = np.sqrt(np.where(m, (chars - mean) ** 2, 0).sum(axis=1, keepdims=True) / k)
    return {
        "chars": chars, "tokens": toks, "log_chars": np.log1p(chars),
        "chars_rank": masked_rank_desc(chars, m), "tokens_rank": masked_rank_desc(toks, m),
        "is_longest_chars": masked_extreme(chars, m, True), "is_shortest_chars": masked_extreme(chars, m, False),
        "is_most_tokens": masked_extreme(toks, m, True), "is_fewest_tokens": masked_extreme(toks, m, False),
        "chars_z": np.where(m, (chars - mean) / np.maximum(sd, 1e-9), 0.0),
        "chars_over_max": chars / np.maximum(np.where(m, chars, 0).max(axis=1, keepdims=True), 1),
        "chars_per_token": chars / np.maximum(toks, 1),
        "cjk_share": t.column(lambda s: len(CJK_CHAR.findall(s)) / max(len(s), 1)),
    }


def _similarity(t: Texts) -> dict[str, np.ndarray]:
    g, out = t.grid, {}
    shared_chars, char_set_j = pair_overlaps(t.chars, g.n, g.width)
    _, char_j = pair_overlaps(t.char, g.n, g.width)
    _, word_j = pair_overlaps(t.word, g.n, g.width)
    for name, pairs in (("char_gram_jaccard", char_j), ("token_gram_jaccard", word_j),
                        ("char_set_jaccard", char_set_j), ("shared_chars", shared_chars)):
        mean, top = sibling_stats(pairs, g.mask)
        out[f"{name}_mean"], out[f"{name}_max"] = mean, top
    out["shared_chars_mean_rank"] = masked_rank_desc(out["shared_chars_mean"], g.mask)
    score = centroid(char_j, word_j, g.mask)
    out["centroid"], out["centroid_rank"] = score, masked_rank_desc(score, g.mask)
    out["is_centroid"] = masked_extreme(score, g.mask, True)
    return out


_NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _value(text: str) -> float:
    """The first number in the text on a signed log scale; NaN when there is none."""
    found = _NUMBER.search(text)
    if not found:
        return math.nan
    try:
        x = float(found.group().replace(",", "").replace("−", "-"))
    except ValueError:
        return math.nan
    return math.copysign(math.log1p(abs(x)), x) if math.isfinite(x) else math.nan


def _numeric(t: Texts) -> dict[str, np.ndarray]:
    m = t.grid.mask
    value = t.column(_value)
    has = m & ~np.isnan(value)
    enough = has.sum(axis=1, keepdims=True) >= 2
    ranked = has & enough
    digits = t.column(lambda s: float(sum(map(str.isdigit, s))))
    return {
        "has_number": has.astype(float), "digits": digits, "digit_rank": masked_rank_desc(digits, m),
        "mostly_digits": t.column(lambda s: sum(map(str.isdigit, s)) / max(len(s.strip()), 1)),
        "value_rank": np.where(ranked, masked_rank_desc(np.nan_to_num(value), ranked), 0.5),
        "value_is_max": masked_extreme(np.nan_to_num(value), ranked, True),
        "value_is_min": masked_extreme(np.nan_to_num(value), ranked, False),
        "value_is_median": np.where(ranked, 1.0 - 2.0 * np.abs(masked_rank_desc(np.nan_to_num(value), ranked) - 0.5), 0.0),
    }


_ALL = re.compile(r"\b(all|each|both) (of )?(the )?(above|these|of the above|options|answers)\b|以上(都|皆|均|全)(是|对|正确)|都(对|正确)")
_NONE = re.compile(r"\bnone of (the )?(above|these|them)\b|\bneither\b|以上(都|皆|均|全)(不|非|错)|都不(对|是|正确)")
_UNKNOWN = re.compile(r"\b(cannot be determined|not enough information|unknown|i have no comment|not possible to tell)\b|无法(确定|判断)")


def _meta(t: Texts) -> dict[str, np.ndarray]:
    return {"all_of_the_above": t.column(lambda s: float(bool(_ALL.search(s.casefold())))),
            "none_of_the_above": t.column(lambda s: float(bool(_NONE.search(s.casefold())))),
            "cannot_tell": t.column(lambda s: float(bool(_UNKNOWN.search(s.casefold()))))}


_NEGATIONS = frozenset({"not", "no", "never", "n't", "cannot", "nor", "without", "不", "没", "没有", "无", "非", "未", "否"})


def _relations_of(toks: list[tuple[str, ...]], norms: list[str]) -> list[tuple[float, float, float, float]]:
    """Per option of one item: contains a sibling, is contained in one, negates one (adds a
    negation word to a sibling's tokens), is negated by one."""
    bare = [tuple(w for w in ts if w not in _NEGATIONS) for ts in toks]
    nneg = [len(ts) - len(b) for ts, b in zip(toks, bare)]
    out = []
    for i, (ti, ni) in enumerate(zip(toks, norms)):
        others = [j for j in range(len(toks)) if j != i and norms[j] != ni]
        contains = any(norms[j] and norms[j] in ni for j in others)
        inside = any(ni and ni in norms[j] for j in others)
        same = [j for j in others if bare[j] == bare[i] and bare[i]]
        out.append((float(contains), float(inside), float(any(nneg[i] > nneg[j] for j in same)),
                    float(any(nneg[i] < nneg[j] for j in same))))
    return out


def _relations(t: Texts) -> dict[str, np.ndarray]:
    g = t.grid
    values = np.zeros((g.n, g.width, 4))
    for i, row in enumerate(g.texts):
        start = i * g.width
        toks = [tuple(x) for x in t.tokens[start:start + len(row)]]
        values[i, :len(row)] = _relations_of(toks, [" ".join(x) for x in toks])
    names = ("contains_sibling", "inside_sibling", "negates_sibling", "negated_by_sibling")
    return {name: values[:, :, j] for j, name in enumerate(names)}


def _style(t: Texts) -> dict[str, np.ndarray]:
    m = t.grid.mask
    out = {
        "first_upper": t.column(lambda s: float(s.strip()[:1].isupper())),
        "all_words_capitalised": t.column(lambda s: float(bool(s.split()) and all(w[:1].isupper() for w in s.split()))),
        "upper_share": t.column(lambda s: sum(map(str.isupper, s)) / max(len(s), 1)),
        "ends_with_period": t.column(lambda s: float(s.rstrip()[-1:] in (".", "。"))),
        "ends_with_other_punct": t.column(lambda s: float(s.rstrip()[-1:] in ("!", "?", "！", "？", ";", "；"))),
        "punctuation": t.column(lambda s: float(len(s) - sum(map(str.isalnum, s)) - sum(map(str.isspace, s)))),
        "has_quote": t.column(lambda s: float(any(q in s for q in "\"“”「」'‘’"))),
        "has_parenthesis": t.column(lambda s: float(any(p in s for p in "()（）"))),
        "has_hyphen": t.column(lambda s: float("-" in s)),
        "non_ascii_share": t.column(lambda s: (len(s) - len(s.encode("ascii", "ignore"))) / max(len(s), 1)),
    }
    for name in ("first_upper", "ends_with_period", "all_words_capitalised", "has_parenthesis"):
        out[f"{name}_odd"] = np.where(m, np.abs(out[name] - sibling_mean(out[name], m)), 0.0)
    return out


FAMILIES: dict[str, Callable[[Texts], dict[str, np.ndarray]]] = {
    "length": _length, "similarity": _similarity, "numeric": _numeric, "meta": _meta,
    "relations": _relations, "style": _style,
}
GROUPS: tuple[str, ...] = (*FAMILIES, NGRAMS)


@dataclass(frozen=True)
class Dense:
    """Dense features, one row per grid slot; `groups[j]` is column j's cue family."""

    names: tuple[str, ...]
    groups: tuple[str, ...]
    values: np.ndarray  # (n * K, len(names))

    def columns(self, groups: tuple[str, ...]) -> np.ndarray:
        return np.array([j for j, g in enumerate(self.groups) if g in groups], dtype=np.intp)


def dense_features(t: Texts) -> Dense:
    names, groups, cols = [], [], []
    for family, fn in FAMILIES.items():
        for name, values in fn(t).items():
            names.append(name)
            groups.append(family)
            cols.append(values.reshape(-1))
    return Dense(tuple(names), tuple(groups), np.column_stack(cols))
