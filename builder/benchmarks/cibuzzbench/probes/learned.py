"""The learned option-only probe: a "hypothesis-only" baseline for Task 2.

A linear model that sees only the four English options of an item (never the term, the
explanations, the meaning or any label) learns which option looks like the gold. What it
scores above the surface heuristics is how much the option set gives away to a reader that
has studied the dataset; on the gold-pool variant it tests whether curated glosses used as
distractors remove that signal.

Design (docs/gold-pool.md):
- each item's options are put in a canonical order that reveals nothing (sorted by text),
  so features, training and scores never see letters, sources or the Chinese term; letters
  come last, from the official shuffle, and do not change any score;
- per option: hand-made dense features, many relative to the item's other options (length
  rank, length minus the item mean, share of the item's words, word overlap), plus hashed
  character and word n-grams (stateless, so nothing is fitted on held-out items);
- pairwise logistic regression (a linear ranker): trained on gold-minus-distractor feature
  differences, it scores each option and the item's answer is the argmax, ties to the
  earliest letter; fitted by SGD with a fixed seed and a fixed number of epochs, which is
  deterministic, single-threaded and about ten times faster than liblinear here;
- two evaluations: train split -> test split, and 5-fold cross-validation over whole items;
- a second probe, `learned_lengths`, is the same model restricted to the length features
  (characters, words, their ranks and relative lengths; no n-grams, no style features): it
  asks whether length alone still identifies the gold, which the article's gold-pool set
  must rule out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

from builder import __version__
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, SOURCES, OptionSet, option_sets
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Header
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION

NAME = "learned_options"
LENGTHS = "learned_lengths"
PROBES: tuple[str, ...] = (NAME, LENGTHS)
OPTION_COLUMNS: tuple[str, ...] = tuple(column for _, column in SOURCES)
GOLD_SOURCE = "correct"
FOLDS = 5
FOLD_SEED = 0
MODEL_SEED = 0
ALPHA = 1e-4
EPOCHS = 50
HASH_FEATURES = 2 ** 18
CHAR_NGRAMS = (2, 4)
WORD_NGRAMS = (1, 2)
TRAIN_TEST = "train→test"
CROSS_VALIDATION = "5-fold CV"

DENSE_FEATURES: tuple[str, ...] = (
    "chars", "words", "log_chars", "chars_minus_item_mean", "words_minus_item_mean",
    "share_of_item_chars", "share_of_item_words", "chars_rank", "words_rank", "is_longest_chars",
    "is_shortest_chars", "is_most_words", "mean_word_length", "uppercase_share", "all_words_capitalised",
    "punctuation", "has_apostrophe", "has_hyphen", "has_quote", "ends_with_punctuation", "digits",
    "word_overlap_with_other_options", "non_ascii_share",
)
LENGTH_FEATURES: tuple[str, ...] = DENSE_FEATURES[:DENSE_FEATURES.index("mean_word_length") + 1]


# ----------------------------------------------------------------- inputs


@dataclass(frozen=True)
class OptionTable:
    """Every item's four option texts in canonical order, and which position is the gold.

    Built from the option columns and `split` only; `gold` is used for training labels,
    and `sources` only to map scores back to letters.
    """

    row_ids: tuple[int, ...]
    splits: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]  # per item, four texts sorted by (casefold, text)
    sources: tuple[tuple[str, ...], ...]  # the option source of each position
    gold: np.ndarray  # per item, the gold's position in `texts`

    def flat_texts(self) -> list[str]:
        return [t for four in self.texts for t in four]


def option_table(dataset: Dataset) -> OptionTable:
    frame = dataset.frame[["split", *OPTION_COLUMNS]]
    names = [name for name, _ in SOURCES]
    row_ids, splits, texts, sources = [], [], [], []
    for row_id, split, *options in frame.itertuples(index=True):
        ordered = sorted(zip(options, names), key=lambda pair: (pair[0].casefold(), pair[0], pair[1]))
        row_ids.append(int(row_id))
        splits.append(str(split))
        texts.append(tuple(str(text) for text, _ in ordered))
        sources.append(tuple(source for _, source in ordered))
    gold = np.array([s.index(GOLD_SOURCE) for s in sources], dtype=np.intp)
    return OptionTable(tuple(row_ids), tuple(splits), tuple(texts), tuple(sources), gold)


# ----------------------------------------------------------------- features


@dataclass(frozen=True)
class Features:
    """One row per option, item-major: row 4*i+j is position j of item i (k*i+j in the
    multiple-choice audit, whose items have k options)."""

    dense: np.ndarray  # (items * 4, len(DENSE_FEATURES))
    char: sp.csr_matrix  # hashed character n-grams
    word: sp.csr_matrix  # hashed word n-grams


def _rank_desc(values: np.ndarray) -> np.ndarray:
    """1 = largest within the item; ties share the mean rank (permutation-invariant)."""
    greater = (values[:, None, :] > values[:, :, None]).sum(axis=2)
    equal = (values[:, None, :] == values[:, :, None]).sum(axis=2) - 1
    return 1.0 + greater + 0.5 * equal


def _per_text(text: str) -> list[float]:
    """Counts by `map` over str methods (C loops): the audit of a 10,000-item benchmark calls this
    40,000 times. No character is both alphanumeric and whitespace, so punctuation is the rest."""
    words = text.split()
    n = max(len(text), 1)
    return [
        sum(map(str.isupper, text)) / n,
        float(bool(words) and all(w[:1].isupper() for w in words)),
        float(len(text) - sum(map(str.isalnum, text)) - sum(map(str.isspace, text))),
        float("'" in text or "\u2019" in text),
        float("-" in text),
        float('"' in text or "\u201c" in text or "\u201d" in text),
        float(text.rstrip()[-1:] in ("!", "?", ".")),
        float(sum(map(str.isdigit, text))),
        (len(text) - len(text.encode("ascii", "ignore"))) / n,
    ]


def _overlap(four: tuple[str, ...]) -> list[float]:
    """Share of each option's word types that also occur in the item's other options."""
    bags = [set(t.casefold().split()) for t in four]
    out = []
    for i, bag in enumerate(bags):
        others = set().union(*(b for j, b in enumerate(bags) if j != i))
        out.append(len(bag & others) / max(len(bag), 1))
    return out


def dense_features(texts: Sequence[tuple[str, ...]]) -> np.ndarray:
    """Rows item-major; every item must have the same number of options (four here; the
    generic multiple-choice audit passes k)."""
    flat = [t for four in texts for t in four]
    chars = np.array([len(t) for t in flat], dtype=float).reshape(len(texts), -1)
    words = np.array([len(t.split()) for t in flat], dtype=float).reshape(len(texts), -1)
    columns = [
        chars, words, np.log1p(chars), chars - chars.mean(axis=1, keepdims=True),
        words - words.mean(axis=1, keepdims=True),
        chars / np.maximum(chars.sum(axis=1, keepdims=True), 1),
        words / np.maximum(words.sum(axis=1, keepdims=True), 1),
        _rank_desc(chars), _rank_desc(words),
        (chars == chars.max(axis=1, keepdims=True)).astype(float),
        (chars == chars.min(axis=1, keepdims=True)).astype(float),
        (words == words.max(axis=1, keepdims=True)).astype(float),
        chars / np.maximum(words, 1),
    ]
    per_text = np.array([_per_text(t) for t in flat], dtype=float)
    overlap = np.array([v for four in texts for v in _overlap(four)], dtype=float)
    dense = np.column_stack([c.reshape(-1) for c in columns] + [per_text, overlap])
    assert dense.shape[1] == len(DENSE_FEATURES)
    return dense


def _vectorizers() -> tuple[HashingVectorizer, HashingVectorizer]:
    common = {"n_features": HASH_FEATURES, "alternate_sign": False, "lowercase": True, "norm": "l2"}
    return (HashingVectorizer(analyzer="char_wb", ngram_range=CHAR_NGRAMS, **common),
            HashingVectorizer(analyzer="word", ngram_range=WORD_NGRAMS, **common))


def features(table: OptionTable, probe: str = NAME) -> Features:
    """All features, or for `learned_lengths` only the length columns (no n-grams at all)."""
    dense = dense_features(table.texts)
    if probe == LENGTHS:
        empty = sp.csr_matrix((dense.shape[0], 0))
        return Features(dense[:, [DENSE_FEATURES.index(n) for n in LENGTH_FEATURES]], empty, empty)
    flat = table.flat_texts()
    char, word = _vectorizers()
    return Features(dense, char.transform(flat).tocsr(), word.transform(flat).tocsr())


# ----------------------------------------------------------------- model


@dataclass(frozen=True)
class Scorer:
    """A fitted ranker: standardise dense features (fitted on training options only), score."""

    scaler: StandardScaler
    model: SGDClassifier
    k: int = 4  # options per item

    def scores(self, feats: Features, items: np.ndarray) -> np.ndarray:
        """(len(items), k) option scores in canonical order."""
        return self.model.decision_function(_design(self.scaler, feats, items, self.k)).reshape(-1, self.k)


def _option_rows(items: np.ndarray, k: int = 4) -> np.ndarray:
    return (k * np.asarray(items, dtype=np.intp)[:, None] + np.arange(k)).reshape(-1)


def _design(scaler: StandardScaler, feats: Features, items: np.ndarray, k: int = 4) -> sp.csr_matrix:
    rows = _option_rows(items, k)
    dense = sp.csr_matrix(scaler.transform(feats.dense[rows]))
    return sp.hstack([dense, feats.char[rows], feats.word[rows]], format="csr")


def _pairs(items: np.ndarray, gold: np.ndarray, k: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local row indices (first, second) into the items' design matrix, and label 1 when
    `first` is the gold; which comes first alternates deterministically so both classes occur.
    Item by item, distractors in position order (vectorised: the audit fits on 8,000 items)."""
    items = np.asarray(items, dtype=np.intp)
    g = np.asarray(gold, dtype=np.intp)[items][:, None]
    other = np.broadcast_to(np.arange(k), (len(items), k))
    keep = other != g
    gold_first = (items[:, None] + other) % 2 == 0
    base = (k * np.arange(len(items), dtype=np.intp))[:, None]
    first = base + np.where(gold_first, g, other)
    second = base + np.where(gold_first, other, g)
    return first[keep], second[keep], gold_first[keep].astype(int)


def fit_scorer(feats: Features, gold: np.ndarray, train: np.ndarray, k: int = 4,
               epochs: int = EPOCHS) -> Scorer:
    """Fit on the items `train` only (indices into the table); nothing else is read.
    `k` options per item (CIBuzzBench: 4; the multiple-choice audit passes its own)."""
    train = np.sort(np.asarray(train, dtype=np.intp))
    scaler = StandardScaler().fit(feats.dense[_option_rows(train, k)])
    x = _design(scaler, feats, train, k)
    first, second, label = _pairs(train, gold, k)
    model = SGDClassifier(loss="log_loss", alpha=ALPHA, max_iter=epochs, tol=None, fit_intercept=False,
                          random_state=MODEL_SEED)
    model.fit(x[first] - x[second], label)
    return Scorer(scaler, model, k)


def cv_folds(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Whole-item folds: (train, held-out) index arrays; every item is held out once."""
    folds = KFold(n_splits=FOLDS, shuffle=True, random_state=FOLD_SEED).split(np.arange(n))
    return [(np.sort(a), np.sort(b)) for a, b in folds]


@dataclass(frozen=True)
class Evaluation:
    """Scores per item (canonical order) for the items an evaluation predicts."""

    name: str  # TRAIN_TEST or CROSS_VALIDATION
    items: np.ndarray  # table indices, ascending
    scores: np.ndarray  # (len(items), 4)


def train_test(table: OptionTable, feats: Features) -> Evaluation:
    split = np.array(table.splits)
    train, test = np.flatnonzero(split == "train"), np.flatnonzero(split == "test")
    return Evaluation(TRAIN_TEST, test, fit_scorer(feats, table.gold, train).scores(feats, test))


def cross_validation(table: OptionTable, feats: Features) -> Evaluation:
    n = len(table.row_ids)
    scores = np.zeros((n, 4))
    for train, held_out in cv_folds(n):
        scores[held_out] = fit_scorer(feats, table.gold, train).scores(feats, held_out)
    return Evaluation(CROSS_VALIDATION, np.arange(n), scores)


# ----------------------------------------------------------------- answers and runs


def choose_letter(scores: np.ndarray, sources: tuple[str, ...], options: OptionSet) -> str:
    """The best-scored option's letter; ties go to the earliest letter."""
    by_source = dict(zip(sources, (float(s) for s in scores)))
    best = max(options.options, key=lambda o: (by_source[o.source], -LETTERS.index(o.letter)))
    return best.letter


def parameters(evaluation: str, probe: str = NAME) -> dict[str, Any]:
    ngrams = {} if probe == LENGTHS else {
        "char_ngrams": {"analyzer": "char_wb", "range": list(CHAR_NGRAMS), "hashed": HASH_FEATURES},
        "word_ngrams": {"analyzer": "word", "range": list(WORD_NGRAMS), "hashed": HASH_FEATURES}}
    return {
        "inputs": "the four English options only" if probe == NAME else "the lengths of the four English options only",
        "model": "pairwise logistic regression (SGD, log loss)", "alpha": ALPHA, "epochs": EPOCHS,
        "random_state": MODEL_SEED, "ties": "earliest letter",
        "dense_features": list(LENGTH_FEATURES if probe == LENGTHS else DENSE_FEATURES), **ngrams,
        "evaluation": evaluation,
        **({"folds": FOLDS, "fold_seed": FOLD_SEED} if evaluation == CROSS_VALIDATION
           else {"trained_on": "train"}),
    }


def run_id(evaluation: str, seed: int, variant: str = "original", probe: str = NAME) -> str:
    name = probe if evaluation == TRAIN_TEST else f"{probe}-cv"
    scope = "test" if evaluation == TRAIN_TEST else "all"
    suffix = "" if variant == "original" else f"-{variant}"
    return f"probe-{name}-t2-s{seed}-{scope}{suffix}"


def evaluate(dataset: Dataset, probe: str = NAME) -> tuple[OptionTable, Evaluation, Evaluation]:
    """Both evaluations; a pure function of the option columns and the split."""
    return _evaluate_cached(_Key(dataset), probe)


class _Key:
    """Cache key by content hash: one training serves every seed and both run writers."""

    def __init__(self, dataset: Dataset):
        self.dataset = dataset

    def __hash__(self) -> int:
        return hash(self.dataset.content_sha256)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and other.dataset.content_sha256 == self.dataset.content_sha256


@lru_cache(maxsize=8)
def _evaluate_cached(key: _Key, probe: str) -> tuple[OptionTable, Evaluation, Evaluation]:
    table = option_table(key.dataset)
    feats = features(table, probe)
    return table, train_test(table, feats), cross_validation(table, feats)


def learned_probe_runs(dataset: Dataset, *, seeds: Iterable[int], created: str, variant: str = "original",
                       probe: str = NAME) -> list[tuple[Header, list[Item]]]:
    """Train->test and CV runs for each option seed (the model is trained once)."""
    table, *evaluations = evaluate(dataset, probe)
    runs = []
    for seed in seeds:
        sets = option_sets(dataset, seed)
        for evaluation in evaluations:
            runs.append(_run(dataset, table, evaluation, sets, seed, created, variant, probe))
    return runs


def _run(dataset: Dataset, table: OptionTable, evaluation: Evaluation, sets: Any, seed: int,
         created: str, variant: str, probe: str) -> tuple[Header, list[Item]]:
    items = []
    for index, scores in zip(evaluation.items, evaluation.scores):
        row_id = table.row_ids[int(index)]
        letter = choose_letter(scores, table.sources[int(index)], sets[row_id])
        items.append(Item(row_id=row_id, prediction=letter, letter_map=sets[row_id].letter_map))
    selection = ({"selection": "split", "split": "test"} if evaluation.name == TRAIN_TEST
                 else {"selection": "all"})
    header = Header(
        run_id=run_id(evaluation.name, seed, variant, probe), benchmark="cibuzzbench",
        task=EQUIVALENT_SELECTION, condition="probe",
        subject={"kind": "probe", "name": probe, "parameters": parameters(evaluation.name, probe)},
        option_seed=seed, items={**selection, "n": len(items)},
        dataset={"name": "CIBuzzBench", "variant": variant, "content_sha256": dataset.content_sha256},
        created=created, tool={"name": "buzzprobe", "version": __version__},
    )
    return header, items


# ----------------------------------------------------------------- importance


PERMUTATION_REPEATS = 5


def feature_importance(dataset: Dataset) -> list[tuple[str, float]]:
    """Which features carry the signal, from the train-split model.

    `coef:<feature>`: coefficient of each standardised dense feature (sorted by absolute
    value); `permutation:<feature>` and `permutation:char_ngrams|word_ngrams`: drop in
    test-split accuracy (points) when that feature's values (or the block's rows) are
    shuffled across test options, mean of five seeded shuffles (sorted, largest first).
    """
    table = option_table(dataset)
    feats = features(table)
    split = np.array(table.splits)
    train, test = np.flatnonzero(split == "train"), np.flatnonzero(split == "test")
    scorer = fit_scorer(feats, table.gold, train)
    coefs = scorer.model.coef_.ravel()[: len(DENSE_FEATURES)]
    by_coef = sorted(zip(DENSE_FEATURES, coefs), key=lambda p: (-abs(p[1]), p[0]))
    perm = _permutation_importance(scorer, feats, table.gold, test)
    by_perm = sorted(perm.items(), key=lambda p: (-p[1], p[0]))
    return ([(f"coef:{n}", round(float(v), 6)) for n, v in by_coef]
            + [(f"permutation:{n}", round(float(v), 4)) for n, v in by_perm])


def _accuracy(scorer: Scorer, feats: Features, gold: np.ndarray, items: np.ndarray) -> float:
    return 100.0 * float(np.mean(scorer.scores(feats, items).argmax(axis=1) == gold[items]))


def _permutation_importance(scorer: Scorer, feats: Features, gold: np.ndarray,
                            items: np.ndarray) -> dict[str, float]:
    """Shuffle only the held-out items' rows, so the fitted model is untouched."""
    base = _accuracy(scorer, feats, gold, items)
    rows = _option_rows(items)
    out = {}
    names = [(j, name) for j, name in enumerate(DENSE_FEATURES)] + [(-1, "char_ngrams"), (-2, "word_ngrams")]
    for j, name in names:
        drops = [base - _accuracy(scorer, _shuffled(feats, rows, j, r), gold, items)
                 for r in range(PERMUTATION_REPEATS)]
        out[name] = float(np.mean(drops))
    return out


def _shuffled(feats: Features, rows: np.ndarray, column: int, repeat: int) -> Features:
    """Held-out options trade one dense column (column >= 0) or an n-gram block (-1 char, -2 word)."""
    order = np.arange(feats.dense.shape[0])
    order[rows] = np.random.default_rng(repeat).permutation(rows)
    if column == -1:
        return Features(feats.dense, feats.char[order], feats.word)
    if column == -2:
        return Features(feats.dense, feats.char, feats.word[order])
    dense = feats.dense.copy()
    dense[:, column] = feats.dense[order, column]
    return Features(dense, feats.char, feats.word)
