"""The model-free audit: how much of a multiple-choice benchmark its options give away.

Each probe predicts an option position per item, scored by accuracy and macro F1 over the k
positions (0-100) under five seeded option shuffles (`shuffle.SEEDS`) and, separately, in the
published order. A seeded block reports the mean and sample sd over the five seeds and the
95% percentile bootstrap interval over items of the seed-1111 shuffle, as the project's model
summaries do (docs/model-facts.md); the published block has one order, so its `mean` is the
score, `sd` is None and the interval is that order's bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.analyses.findings import Findings, examine
from builder.benchmarks.mcq.analyses.learned import LearnedScores, learned_scores
from builder.benchmarks.mcq.load import SpecData, Item
from builder.benchmarks.mcq.analyses.option_scores import char_lengths, word_lengths
from builder.benchmarks.mcq.analyses.position_prior import cross_fitted_prior
from builder.core.errors import InputError
from builder.ranker.chunked import centroid_scores
from builder.ranker.evaluate import FOLDS, Options
from builder.ranker.groups import item_groups
from builder.ranker.leak import CSV_COLUMNS, GroupAblation, LeakScores
from builder.stats import bootstrap_intervals, metric_on_resamples, summarise_seeds

PROBES: tuple[str, ...] = ("random", "position_prior", "longest_chars", "shortest_chars", "longest_words",
                           "centroid", "learned_options")
METRICS: tuple[str, ...] = ("accuracy", "macro_f1")
INTERVAL_SEED = shuffle.SEEDS[0]  # 1111, the official default seed
PUBLISHED = "published"
# Above this many audited items the learned probe (its evaluation, leak scores and ablation)
# reads a seeded sample of this many, and the centroid is scored a chunk of items at a time:
# its feature matrices grow with the items and a million did not fit in 4 GB (docs/audit.md).
# The shipped benchmarks are far smaller, so nothing of theirs is sampled.
LEARNED_ITEMS = 50_000
SAMPLE_SEED = 0


@dataclass(frozen=True)
class Score:
    """One metric of one probe on the 0-100 scale."""

    mean: float
    sd: float | None
    ci95_low: float
    ci95_high: float


@dataclass(frozen=True)
class ProbeScore:
    accuracy: Score
    macro_f1: Score | None  # None when the audited items' number of options varies
    items: int  # items the probe answered (the learned probe: the test split under train->test)
    per_seed: dict[int, tuple[float, float]] = field(default_factory=dict)  # seed -> (accuracy, macro F1)


@dataclass(frozen=True)
class Audit:
    """Everything `buzzprobe audit` prints; `as_json()` is the `--json` object."""

    benchmark: str
    title: str
    content_sha256: str
    items: int  # audited items (after the findings' exclusions)
    options: int  # the most common number of options
    findings: Findings
    probes: dict[str, ProbeScore]
    as_published: dict[str, ProbeScore]
    learned_evaluation: str
    seeds: tuple[int, ...] = shuffle.SEEDS
    chance: float = 0.0  # mean of 100/k over the audited items: a uniform guess's expected accuracy
    options_range: tuple[int, int] = (0, 0)  # fewest and most options of an audited item
    learned_chance: float = 0.0  # mean of 100/k over the items the learned probe answered
    # Option-solvable: % of the audited items whose gold the cross-fitted ranker scores
    # strictly highest (builder.ranker.leak); the index reads only this field.
    solvable: float = 0.0
    leak: LeakScores | None = None  # per audited item: cross-fitted probability of the gold, option-solvable
    ablation: tuple[GroupAblation, ...] = ()  # drop-one-cue-family, largest drop first
    learned_alphas: tuple[float, ...] = ()  # the ranker's L2 penalty per fit (inner CV)
    learned_choice: tuple[str, ...] = ()  # per fit, the model inner CV chose (builder.ranker.choice)
    learned_model: str = ""  # the one most fits chose
    shuffle_recipe: str = shuffle.recipe()  # the seeded shuffles' recipe as code (the spec's shuffle_key, else the id)
    learned_sample: int = 0  # items of the learned probe's seeded sample (0: it read every audited item)
    # Folds the cross-fitting used (leak scores; the learned probe without splits): group_folds gives
    # fewer than FOLDS when one group holds more than a fifth of the items, and every label reads this.
    learned_folds: int = FOLDS
    learned_inner_folds: tuple[int, ...] = ()  # per fit, the folds of the inner CV that chose its model

    @property
    def fixed_k(self) -> bool:
        """Every audited item has the same number of options: positions are labels, macro F1 applies."""
        return self.options_range[0] == self.options_range[1]

    def as_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "items": self.items,
            "options": self.options,
            "findings": {f.name: {"count": f.count, "rule": f.rule,
                                  "examples": [{"id": e.id, "record": e.record, "line": e.line} for e in f.examples],
                                  **({} if f.groups is None else {"sets": f.groups, "excerpts": list(f.excerpts)})}
                         for f in self.findings.items}
                        | {"choice_counts": {str(k): v for k, v in self.findings.choice_counts.items()}},
            "probes": {name: _probe_json(s) for name, s in self.probes.items()},
            "as_published": {name: _probe_json(s) for name, s in self.as_published.items()},
            "options_range": list(self.options_range),
            "chance": self.chance,
            "learned_chance": self.learned_chance,
            "solvable": self.solvable,
            "protocol": {"option_seeds": list(self.seeds), "shuffle": self.shuffle_recipe,
                         "interval": f"95% percentile bootstrap over items "
                         f"of the seed-{INTERVAL_SEED} shuffle (as_published: of the published order)",
                         "learned_options": self.learned_evaluation,
                         "learned_options_items": self.probes["learned_options"].items,
                         "content_sha256": self.content_sha256}
                        | ({"learned_sample": self.learned_sample, "learned_sample_seed": SAMPLE_SEED}
                           if self.learned_sample else {}),
            "learned": self._learned_json(),
        }

    def _learned_json(self) -> dict[str, Any]:
        leak = None if self.leak is None else {
            "solvable_share": self.leak.solvable_share, "mean_leak_score": float(np.mean(self.leak.leak_score)),
            "evaluation": f"{self.learned_folds}-fold cross-fitting by group over every audited item",
            "csv_columns": list(CSV_COLUMNS)}
        return {"evaluation": self.learned_evaluation, "alphas": list(self.learned_alphas),
                "chosen": list(self.learned_choice), "model": self.learned_model, "leak": leak,
                "ablation": [{"group": a.group, "accuracy": a.accuracy, "drop": a.drop, "ci95_low": a.ci95_low,
                              "ci95_high": a.ci95_high} for a in self.ablation]}


def _probe_json(score: ProbeScore) -> dict[str, Any]:
    return {m: None if s is None else {"mean": s.mean, "sd": s.sd, "ci95_low": s.ci95_low, "ci95_high": s.ci95_high}
            for m, s in (("accuracy", score.accuracy), ("macro_f1", score.macro_f1))}


@dataclass(frozen=True)
class _Inputs:
    """What the probes read: option scores in the published order, gold, ids."""

    ids: list[str]
    keys: list[str]  # the shuffle's key per item (Item.shuffle_key)
    gold: np.ndarray
    k: int  # the widest item's number of options (the width of every matrix)
    counts: np.ndarray  # (n,) each item's own number of options
    option_scores: dict[str, np.ndarray]  # probe -> (n, k), higher = chosen; -inf past an item's options
    learned: LearnedScores  # its items index all of `ids`
    groups: np.ndarray | None = None  # (n,) fold groups of every item (the position prior's folds)
    sample: int = 0  # the learned probe's sample size (0: every item)

    @property
    def fixed_k(self) -> bool:
        return bool((self.counts == self.k).all())


def run_audit(benchmark: SpecData) -> Audit:
    kept, findings = examine(benchmark)
    spec = benchmark.spec
    if len(kept) < FOLDS:
        raise InputError.single(spec.path, f"the audit needs at least {FOLDS} items; {len(kept)} remain after "
                                "the findings' exclusions")
    if spec.split is not None:
        for key in ("train_split", "test_split"):
            value = getattr(spec, key)
            if not any(i.split == value for i in kept):
                raise InputError.single(spec.path, f"no audited item is in split {value!r}", field=key)
    inputs = _inputs(kept, spec)
    if not len(inputs.learned.items):
        raise InputError.single(spec.path, f"the learned probe needs, for some number of options, at least {FOLDS} "
                                "items (or a training and a test item); no option count has that many")
    orders = {seed: shuffle.permutations(inputs.keys, inputs.counts.tolist(), seed) for seed in shuffle.SEEDS}
    probes = {p: _seeded(inputs, p, orders) for p in PROBES}
    published = shuffle.published(len(kept), inputs.k)
    as_published = {p: _single(inputs, p, published, INTERVAL_SEED) for p in PROBES}
    learned = inputs.learned
    return Audit(spec.name, spec.title, benchmark.content_sha256, len(kept), findings.options, findings, probes,
                 as_published, learned.evaluation, chance=float(np.mean(100.0 / inputs.counts)),
                 options_range=(int(inputs.counts.min()), int(inputs.counts.max())),
                 learned_chance=float(np.mean(100.0 / inputs.counts[learned.items])),
                 solvable=learned.leak.solvable_share, leak=learned.leak, ablation=learned.ablation,
                 learned_alphas=learned.alphas, shuffle_recipe=spec.shuffle_recipe, learned_sample=inputs.sample,
                 learned_choice=learned.chosen, learned_model=learned.chosen_majority, learned_folds=learned.folds,
                 learned_inner_folds=learned.inner_folds)


def _inputs(kept: Sequence[Item], spec: Any) -> _Inputs:
    """Every probe's option scores, padded to the widest item; the centroid and the learned probe
    come from the shared ranker, one model over every number of options (padding + mask)."""
    texts = [i.choices for i in kept]
    gold = np.array([i.gold for i in kept], dtype=np.intp)
    counts = np.array([len(t) for t in texts], dtype=np.intp)
    chars, words = char_lengths(texts), word_lengths(texts)
    missing = np.isnan(chars)
    ids = [i.id for i in kept]
    ties = [i.group for i in kept] if spec.group is not None else None
    sample = _learned_sample(len(kept))
    if sample is None:
        options = Options.build(texts, gold, ties)
        every_group = options.item_groups()
    else:
        every_group = item_groups(texts, ties)
        options = Options.build([texts[j] for j in sample], gold[sample],
                                None if ties is None else [ties[j] for j in sample])
    groups = len(set(options.item_groups().tolist()))
    if groups < FOLDS:
        raise InputError.single(spec.path, f"the learned probe folds by group (items sharing a set of options, or the "
                                f"spec's group, stay in one fold) and needs at least {FOLDS} groups; the audited "
                                f"items form {groups}", field="group" if spec.group is not None else None)
    if sample is None:
        learned = learned_scores(options, ids, [i.split for i in kept], spec.train_split, spec.test_split)
        centre = options.feature("centroid")
    else:
        learned = _on_every_item(learned_scores(options, [ids[j] for j in sample], [kept[j].split for j in sample],
                                                spec.train_split, spec.test_split), sample, int(counts.max()))
        centre = centroid_scores(texts, int(counts.max()))
    del options  # the feature matrices: the largest thing the audit holds
    scores = {"longest_chars": chars, "shortest_chars": -chars, "longest_words": words, "centroid": centre}
    return _Inputs(ids=ids, keys=[i.shuffle_key for i in kept], gold=gold, k=int(counts.max()), counts=counts,
                   option_scores={p: np.where(missing, -np.inf, v) for p, v in scores.items()}, learned=learned,
                   groups=every_group, sample=0 if sample is None else len(sample))


def _learned_sample(n: int) -> np.ndarray | None:
    """LEARNED_ITEMS items drawn with SAMPLE_SEED, in order; None when there are no more than that."""
    if n <= LEARNED_ITEMS:
        return None
    return np.sort(np.random.default_rng(SAMPLE_SEED).choice(n, LEARNED_ITEMS, replace=False))


def _on_every_item(learned: LearnedScores, sample: np.ndarray, k: int) -> LearnedScores:
    """A sample's learned scores indexed over every item, padded to the widest item's k."""
    scores = np.full((len(learned.items), k), -np.inf)
    scores[:, :learned.scores.shape[1]] = learned.scores
    return replace(learned, items=sample[learned.items], scores=scores)


def _predictions(inputs: _Inputs, probe: str, perm: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(gold positions, predicted positions) of the items the probe answers, under `perm`."""
    gold = np.argmax(perm == inputs.gold[:, None], axis=1)
    n, k = perm.shape
    if probe == "random":
        rng = np.random.default_rng(seed)
        return gold, np.asarray(rng.integers(0, k, size=n) if inputs.fixed_k else rng.integers(0, inputs.counts))
    if probe == "position_prior":  # cross-fitted: in-sample it beats chance on random golds
        assert inputs.groups is not None
        return gold, cross_fitted_prior(gold, inputs.groups, k)
    if probe == "learned_options":
        items = inputs.learned.items
        return gold[items], _first_max(inputs.learned.scores, perm[items])
    return gold, _first_max(inputs.option_scores[probe], perm)


def _first_max(scores: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Shown position of the best-scored option; ties go to the earliest shown position."""
    return np.take_along_axis(scores, perm, axis=1).argmax(axis=1)


def _point(gold: np.ndarray, pred: np.ndarray, k: int) -> dict[str, float]:
    identity = np.arange(len(gold))[None, :]
    return {m: float(v[0]) for m, v in metric_on_resamples(gold, pred, identity, k).items()}


def _intervals(gold: np.ndarray, pred: np.ndarray, k: int) -> dict[str, Any]:
    labels = LETTERS[:k]
    return bootstrap_intervals([labels[g] for g in gold], [labels[p] for p in pred], tuple(labels))


def _seeded(inputs: _Inputs, probe: str, orders: dict[int, np.ndarray]) -> ProbeScore:
    per_seed, interval, n = {}, None, 0
    for seed, perm in orders.items():
        gold, pred = _predictions(inputs, probe, perm, seed)
        point = _point(gold, pred, inputs.k)
        per_seed[seed] = (point["accuracy"], point["macro_f1"])
        if seed == INTERVAL_SEED:
            interval, n = _intervals(gold, pred, inputs.k), len(gold)
    assert interval is not None
    scores: dict[str, Score | None] = {}
    for i, metric in enumerate(METRICS):
        summary = summarise_seeds({seed: values[i] for seed, values in per_seed.items()})
        scores[metric] = Score(summary.mean, summary.sd, interval[metric].low, interval[metric].high)
    return _probe_score(inputs, scores, n, per_seed)


def _single(inputs: _Inputs, probe: str, perm: np.ndarray, seed: int) -> ProbeScore:
    gold, pred = _predictions(inputs, probe, perm, seed)
    point, interval = _point(gold, pred, inputs.k), _intervals(gold, pred, inputs.k)
    scores: dict[str, Score | None] = {m: Score(point[m], None, interval[m].low, interval[m].high) for m in METRICS}
    return _probe_score(inputs, scores, len(gold), {})


def _probe_score(inputs: _Inputs, scores: dict[str, Score | None], n: int,
                 per_seed: dict[int, tuple[float, float]]) -> ProbeScore:
    """Macro F1 over positions only where every item has the same k: with varying k a position
    is not one label (position 10 exists on some items only)."""
    accuracy = scores["accuracy"]
    assert accuracy is not None
    return ProbeScore(accuracy, scores["macro_f1"] if inputs.fixed_k else None, n, per_seed)
