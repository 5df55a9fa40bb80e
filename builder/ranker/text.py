"""CJK-aware tokens and n-gram set matrices, vectorised and stateless (nothing is fitted on
labels, so nothing leaks from held-out items; an n-gram's column is its exact key modulo a prime).

A CJK character is one token (Chinese has no spaces, so whitespace words would make every
Chinese option one word); a run of other letters or digits is one token. Character n-grams run
over the casefolded text with whitespace collapsed; numpy builds them for all options at once
(a Python loop over 120,000 options of MMLU-Pro took most of its audit).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from builder.ranker.sparse import sp

CHAR_NGRAM = 3
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
CJK_CHAR = re.compile(rf"[{_CJK}]")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.casefold())


BUCKETS = 1_048_573  # a prime near 2^20: n-gram keys modulo it (sorting 7M keys to number them cost seconds)


def _sets(rows: np.ndarray, keys: np.ndarray, n_rows: int) -> sp.csr_matrix:
    """0/1 matrix: row r holds column key % BUCKETS when some (r, key) pair occurs."""
    m = sp.csr_matrix((np.ones(len(rows)), (rows, keys % BUCKETS)), shape=(n_rows, BUCKETS))
    m.sum_duplicates()
    m.data[:] = 1.0  # duplicates were summed
    return m


def _codes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(code points of all texts, row of each), casefolded, whitespace collapsed to one space."""
    clean = [" ".join(t.casefold().split()) for t in texts]
    lengths = np.fromiter(map(len, clean), dtype=np.intp, count=len(clean))
    codes = np.frombuffer("".join(clean).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    return codes, np.repeat(np.arange(len(clean)), lengths)


def char_sets(texts: Sequence[str], n: int) -> sp.csr_matrix:
    """Which character n-grams (n=1: characters, spaces excluded) each text holds."""
    codes, rows = _codes(texts)
    if n == 1:
        keep = codes != 32
        return _sets(rows[keep], codes[keep], len(texts))
    same = rows[n - 1:] == rows[: len(rows) - n + 1]
    for j in range(1, n - 1):
        same &= rows[j:len(rows) - n + 1 + j] == rows[: len(rows) - n + 1]
    key = np.zeros(len(rows) - n + 1, dtype=np.int64)
    for j in range(n):
        key = key * (1 << 21) + codes[j:len(codes) - n + 1 + j]
    return _sets(rows[: len(rows) - n + 1][same], key[same], len(texts))


def token_sets(toks: Sequence[Sequence[str]]) -> sp.csr_matrix:
    """Which tokens and token bigrams each option holds."""
    vocab: dict[str, int] = {}
    ids = np.fromiter((vocab.setdefault(w, len(vocab)) for ts in toks for w in ts), dtype=np.int64)
    lengths = np.fromiter(map(len, toks), dtype=np.intp, count=len(toks))
    rows = np.repeat(np.arange(len(toks)), lengths)
    v = max(len(vocab), 1)
    pair = rows[1:] == rows[:-1]
    keys = np.concatenate([ids, v + ids[:-1][pair] * v + ids[1:][pair]])
    return _sets(np.concatenate([rows, rows[1:][pair]]), keys, len(toks))
