"""Compute stage: dataset + validated runs -> one FactTable (and the run scores behind it).

Fact keys come from the patterns of fact_keys.py (docs/facts.md is generated from them);
percentages, accuracy and F1 are on a 0-100 scale and left unrounded (rounding is the
renderer's job).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from builder.benchmarks.cibuzzbench.analyses.audits import audit_figures
from builder.benchmarks.cibuzzbench.analyses.model_facts import add_model_facts, add_pair_summary_facts
from builder.benchmarks.cibuzzbench.analyses.model_summaries import ModelSummary, PairSummary, summarise_models, summarise_pairs
from builder.benchmarks.cibuzzbench.analyses.categories import category_figures
from builder.benchmarks.cibuzzbench.analyses.chance import ChanceScore, chance_on_items, has_chance_line
from builder.benchmarks.cibuzzbench.probes.generate import RANDOM_SEED
from builder.benchmarks.cibuzzbench.analyses.option_lengths import length_distribution, length_figures
from builder.benchmarks.cibuzzbench.analyses.paired import PairedAnalysis, analyse_pair
from builder.benchmarks.cibuzzbench.analyses.paired_facts import add_paired_facts, analyse_pairs, pair_id
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore, score_run
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset
from builder.core.errors import InputError
from builder.core.factkeys import FactPattern
from builder.core.names import slug
from builder.core.facts import FactTable
from builder.stats import summarise_seeds
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.run_checks import declared_count
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, EQUIVALENT_SELECTION, HARMFUL, HARMFULNESS_DETECTION

SCORE = "official metric (scikit-learn, macro over labels, x100)"
BOOT = "seeded percentile bootstrap over items, 2000 resamples, 95%"
ORIGINAL = "original"


@dataclass(frozen=True)
class Computed:
    facts: FactTable
    scores: dict[str, RunScore]  # by run_id, in run_id order
    length_distribution: list[tuple[str, int, int]]  # (slot, characters, items), for the chart
    pairs: list[PairedAnalysis]  # blind (a) vs sighted (b) runs of the same subject, items and options
    models: list[ModelSummary] = field(default_factory=list)  # a model's runs over option seeds, by id
    pair_summaries: list[PairSummary] = field(default_factory=list)  # a model's per-seed pairs, by id

    def pair_triples(self) -> list[tuple[str, RunScore, RunScore]]:
        return [(pair_id(p.run_a, p.run_b), self.scores[p.run_a], self.scores[p.run_b]) for p in self.pairs]


def compute(dataset: Dataset, runs: list[Run], variants: Mapping[str, Dataset] | None = None,
            facts: FactTable | None = None, score: Callable[[Run, Dataset], RunScore] = score_run,
            pair: Callable[[Run, Run, Dataset], PairedAnalysis] = analyse_pair) -> Computed:
    """`variants` maps other dataset variants (e.g. gold_pool) to their datasets; their
    figures go under `variant.<name>.*` so they never mix with the original's. `facts` is the
    build's table when other benchmarks add to it too. `score` scores one run and `pair` one
    blind/sighted pair (the build passes ones that keep their results in the per-run cache)."""
    datasets = {ORIGINAL: dataset, **(variants or {})}
    facts = FactTable() if facts is None else facts
    add_dataset_facts(facts, dataset)
    for name, variant in sorted(datasets.items()):
        if name != ORIGINAL:
            _add_length_facts(facts, variant, name)
            _add_audit_facts(facts, variant, name)
    ordered = sorted(runs, key=lambda r: r.header.run_id)
    scores = {s.run_id: s for s in (score(r, datasets[r.header.variant]) for r in ordered)}
    selected = _selection_sizes(datasets)
    for run_score in scores.values():
        add_run_facts(facts, run_score, selected(run_score.run))
    finished = [s for s in scores.values() if s.run.in_aggregates]  # headline figures: complete, no import warnings
    add_probe_facts(facts, finished)
    pairs = [p for name, ds in sorted(datasets.items())
             for p in analyse_pairs([s.run for s in finished if s.run.header.variant == name], ds, pair)]
    add_paired_facts(facts, pairs)
    models = summarise_models(s for s in scores.values() if not s.run.header.import_warnings)
    pair_summaries = summarise_pairs(models, pairs)
    add_model_facts(facts, models)
    add_pair_summary_facts(facts, pair_summaries)
    return Computed(facts, scores, length_distribution(dataset), pairs, models, pair_summaries)


def _selection_sizes(datasets: Mapping[str, Dataset]) -> Callable[[Run], int]:
    """N of "n of N" for a run; runs share few selections and recomputing one (a seeded sample
    over the dataset) costs milliseconds, which adds up over 1,000 runs."""
    known: dict[tuple[str, str], int] = {}

    def size(run: Run) -> int:
        key = (run.header.variant, json.dumps(run.header.items, sort_keys=True))
        if key not in known:
            known[key] = declared_count(run, datasets[run.header.variant])
        return known[key]
    return size


def add_dataset_facts(facts: FactTable, dataset: Dataset) -> None:
    frame = dataset.frame
    count = "count of CSV rows"
    facts.add(K.DATASET_ROWS.key(), len(frame), count)
    for split in ("train", "test"):
        facts.add(K.DATASET_SPLIT.key(split=split), int((frame["split"] == split).sum()), f"{count} with split={split}")
    harmful = int((frame["harmful_label"] == HARMFUL).sum())
    facts.add(K.DATASET_HARM.key(harm="harmful"), harmful, f"{count} with harmful_label=harmful")
    facts.add(K.DATASET_HARM.key(harm="non_harmful"), len(frame) - harmful,
              f"{count} with harmful_label=non-harmful")
    facts.add(K.DATASET_HARMFUL_RATE.key(), 100.0 * harmful / len(frame), "harmful rows / rows x100")
    for c in category_figures(dataset):
        facts.add(K.CATEGORY_COUNT.key(category=c.label), c.count, f"{count} with category_label={c.label}")
        facts.add(K.CATEGORY_SHARE.key(category=c.label), c.share, "category rows / rows x100")
        facts.add(K.CATEGORY_HARMFUL.key(category=c.label), c.harmful, "harmful rows in the category")
        facts.add(K.CATEGORY_HARMFUL_RATE.key(category=c.label), c.harmful_rate, "harmful rows / category rows x100")
        facts.add(K.CATEGORY_TEST.key(category=c.label), c.test_count, "test rows in the category")
    _add_length_facts(facts, dataset)
    _add_audit_facts(facts, dataset)


def _add_length_facts(facts: FactTable, dataset: Dataset, variant: str = ORIGINAL) -> None:
    for scope in ("all", "test"):
        f = length_figures(dataset, None if scope == "all" else scope)
        how = "characters per option slot (Python len)" + (" on the test split" if scope == "test" else "")
        on = {"variant": variant, "scope": scope}
        facts.add(K.GOLD_LONGEST_COUNT.key(**on), f.gold_strictly_longest,
                  f"items whose gold is longer than all three distractors; {how}")
        facts.add(K.GOLD_LONGEST_SHARE.key(**on), 100.0 * f.gold_strictly_longest / f.items,
                  f"share of items whose gold is strictly the longest option x100; {how}")
        facts.add(K.GOLD_SHORTEST_SHARE.key(**on), 100.0 * f.gold_strictly_shortest / f.items,
                  f"share of items whose gold is strictly the shortest option x100; {how}")
        facts.add(K.WITHIN_10PCT_COUNT.key(**on), f.options_within_10pct,
                  f"items whose four options are pairwise within 10% in length, |a-b| <= 0.1*max(a,b); {how}")
        facts.add(K.WITHIN_10PCT_SHARE.key(**on), 100.0 * f.options_within_10pct / f.items,
                  f"share of items whose four options are pairwise within 10% in length x100; {how}")
        for kind, n in f.gold_longer_than.items():
            facts.add(K.GOLD_LONGER_THAN.key(**on, distractor=kind), 100.0 * n / f.items,
                      f"share of items whose gold is longer than the {kind} distractor x100; {how}")
        for slot, mean in f.mean_chars.items():
            name = "gold" if slot == "correct" else slot
            facts.add(K.MEAN_CHARS.key(**on, slot=name), mean, f"mean {how}")
            facts.add(K.MEDIAN_CHARS.key(**on, slot=name), f.median_chars[slot], f"median {how}")


def _add_audit_facts(facts: FactTable, dataset: Dataset, variant: str = ORIGINAL) -> None:
    a = audit_figures(dataset)
    how = "case-insensitive, whitespace-trimmed comparison"
    facts.add(K.OTHER_GOLD_COUNT.key(variant), a.distractor_is_other_gold,
              f"distractor strings equal to another item's gold; {how}")
    facts.add(K.OTHER_GOLD_SHARE.key(variant), 100.0 * a.distractor_is_other_gold / a.distractor_strings,
              f"share of all {a.distractor_strings} distractor strings x100; {how}")
    exact = "exact string comparison (letter case and spaces count)"
    facts.add(K.OTHER_GOLD_EXACT_COUNT.key(variant), a.distractor_is_other_gold_exact,
              f"distractor strings equal to another item's gold; {exact}")
    facts.add(K.OTHER_GOLD_EXACT_SHARE.key(variant), 100.0 * a.distractor_is_other_gold_exact / a.distractor_strings,
              f"share of all {a.distractor_strings} distractor strings x100; {exact}")
    for kind, n in a.distractor_is_other_gold_by_type.items():
        facts.add(K.OTHER_GOLD_BY_TYPE.key(variant, distractor=kind), n,
                  f"{kind} distractors equal to another item's gold; {how}")
    facts.add(K.DUPLICATE_OPTIONS.key(variant), a.duplicate_option_items, f"items with two equal options; {how}")
    facts.add(K.DISTINCT_TERMS.key(variant), a.distinct_terms, "distinct term_zh values")
    facts.add(K.TERM_OVERLAP.key(variant), a.train_test_term_overlap, "distinct term_zh values in both splits")


def add_run_facts(facts: FactTable, score: RunScore, selected: int) -> None:
    """`selected` is N of "n of N": the size of the run's declared item selection. A run is
    complete when it has its footer (validation guarantees every declared item is then there);
    an incomplete run keeps its own facts but is left out of probe figures, pairs and the tracker."""
    rid = score.run_id
    runs = (rid,)
    r = score.report
    facts.add(K.RUN_N.key(run_id=rid), r.n, "items in the run", runs)
    facts.add(K.RUN_SELECTED.key(run_id=rid), selected, "items in the run's declared selection (n of N: this is N)", runs)
    facts.add(K.RUN_COMPLETE.key(run_id=rid), int(score.run.complete),
              "1 when the run is finished (footer present, every declared item answered), else 0", runs)
    facts.add(K.RUN_FAILED.key(run_id=rid), score.failed,
              "items whose request failed (error set, no answer); scored as wrong", runs)
    facts.add(K.RUN_UNPARSED.key(run_id=rid), r.unparsed - score.failed_unanswered,
              "items with a response that could not be parsed (failed requests not included); scored as wrong", runs)
    _add_headline(facts, K.RUN_SCORE, {"run_id": rid}, score)
    if has_chance_line(score):
        _add_chance(facts, rid, chance_on_items(score))
    for label, scores in r.per_label.items():
        facts.add(K.RUN_F1.key(run_id=rid, label=_label_key(label)), scores.f1, f"F1 of label {label}; {SCORE}", runs)
    for category, report in score.by_category.items():
        facts.add(K.RUN_CATEGORY.key(run_id=rid, category=category, metric="accuracy"), report.accuracy,
                  f"accuracy within category; {SCORE}", runs)
        facts.add(K.RUN_CATEGORY.key(run_id=rid, category=category, metric="macro_f1"), report.macro_f1,
                  f"macro F1 within category; {SCORE}", runs)


def _add_chance(facts: FactTable, rid: str, chance: ChanceScore) -> None:
    how = (f"a uniformly random letter (the random probe's rule, rng seed {RANDOM_SEED}) on the run's own items "
           "and option order")
    for metric, interval in chance.intervals.items():
        on = {"run_id": rid, "metric": metric}
        facts.add(K.RUN_CHANCE.key(**on), getattr(chance.report, metric), f"{metric} of {how}; {SCORE}", (rid,))
        facts.add(K.RUN_CHANCE.low(**on), interval.low, f"{BOOT}; {how}", (rid,))
        facts.add(K.RUN_CHANCE.high(**on), interval.high, f"{BOOT}; {how}", (rid,))


def _label_key(label: str) -> str:
    return label.replace("-", "_")


def add_probe_facts(facts: FactTable, scores: list[RunScore]) -> None:
    """Model-free probe figures under `leak.*` (Task 2) and `harm.*` (Task 3); probes on
    another dataset variant go under `variant.<name>.leak.*`."""
    groups: dict[tuple[str, str, str, str], list[RunScore]] = defaultdict(list)
    for s in scores:
        if s.run.header.condition == "probe":
            groups[(s.run.header.variant, s.run.header.task, s.run.header.subject_name, s.run.header.scope)].append(s)
    keys = _probe_keys(groups)
    for (variant, task, probe, scope), members in sorted(groups.items()):
        on = {"variant": variant, "probe": keys[probe]}
        if task == EQUIVALENT_SELECTION:
            _add_seed_group(facts, {**on, "scope": scope}, members)
            if scope == "all":
                _add_category_group(facts, on, members)
        elif task == HARMFULNESS_DETECTION and len(members) == 1:
            _add_harm_probe(facts, {**on, "scope": scope}, members[0])


def _probe_keys(groups: Mapping[tuple[str, str, str, str], list[RunScore]]) -> dict[str, str]:
    """A probe's name as one part of its fact keys: the name itself when it is a valid name
    (every probe buzzprobe writes), else its slug, so no name can add or blur a key segment.
    Two names with one slug are a located error, not two probes writing the same keys."""
    keys: dict[str, str] = {}
    owners: dict[str, RunScore] = {}
    for (_, _, name, _), members in sorted(groups.items()):
        key = keys.setdefault(name, slug(name))
        first = owners.setdefault(key, members[0])
        if first.run.header.subject_name != name:
            raise InputError.single(members[0].run.path, f"probe {name!r} and probe "
                                    f"{first.run.header.subject_name!r} ({first.run.path}) would share the fact "
                                    f"keys leak.{key}.*; rename one", line=1, field="subject.name")
    return keys


def _add_seed_group(facts: FactTable, on: dict[str, str], members: list[RunScore]) -> None:
    runs = tuple(m.run_id for m in members)
    for metric in ("accuracy", "macro_f1"):
        values = {}
        for m in members:
            seed = int(m.run.header.option_seed or 0)
            values[seed] = getattr(m.report, metric)
            at: dict[str, Any] = {**on, "metric": metric, "seed": seed}  # part values (and variant), spread into key()
            facts.add(K.PROBE_SEED.key(**at), values[seed], f"{metric} at option seed {seed}; {SCORE}", (m.run_id,))
            facts.add(K.PROBE_SEED.low(**at), m.intervals[metric].low, BOOT, (m.run_id,))
            facts.add(K.PROBE_SEED.high(**at), m.intervals[metric].high, BOOT, (m.run_id,))
        summary = summarise_seeds(values)
        facts.add(K.PROBE_SPREAD.key(**on, metric=metric, stat="mean"), summary.mean,
                  f"mean of {metric} over {summary.n} option seeds", runs)
        if summary.sd is not None:
            facts.add(K.PROBE_SPREAD.key(**on, metric=metric, stat="sd"), summary.sd,
                      f"sample standard deviation of {metric} over {summary.n} option seeds", runs)


def _add_headline(facts: FactTable, pattern: FactPattern, on: dict[str, str], score: RunScore) -> None:
    """Accuracy and macro F1 with their bootstrap intervals (`pattern` has a metric part)."""
    runs = (score.run_id,)
    facts.add(pattern.key(**on, metric="accuracy"), score.report.accuracy, f"accuracy; {SCORE}", runs)
    facts.add(pattern.key(**on, metric="macro_f1"), score.report.macro_f1, f"macro F1; {SCORE}", runs)
    for metric, interval in score.intervals.items():
        facts.add(pattern.low(**on, metric=metric), interval.low, BOOT, runs)
        facts.add(pattern.high(**on, metric=metric), interval.high, BOOT, runs)


CATEGORY_SEED = DEFAULT_SEED  # per-category intervals are bootstrapped for this seed only (cost)


def _add_category_group(facts: FactTable, on: dict[str, str], members: list[RunScore]) -> None:
    """Per-category scores of a probe: mean over seeds, and seed 1111 with intervals."""
    runs = tuple(m.run_id for m in members)
    for category in CATEGORIES:
        present = [m for m in members if category in m.by_category]
        if not present:
            continue
        for metric in ("accuracy", "macro_f1"):
            values = {int(m.run.header.option_seed or 0): getattr(m.by_category[category], metric) for m in present}
            facts.add(K.PROBE_CATEGORY_MEAN.key(**on, category=category, metric=metric), summarise_seeds(values).mean,
                      f"mean over option seeds of {metric} within the category; {SCORE}", runs)
        for m in present:
            if m.run.header.option_seed == CATEGORY_SEED:
                _add_category_seed(facts, {**on, "category": category}, m, category)


def _add_category_seed(facts: FactTable, on: dict[str, str], member: RunScore, category: str) -> None:
    intervals = member.category_intervals(category)
    for metric in ("accuracy", "macro_f1"):
        at: dict[str, Any] = {**on, "metric": metric, "seed": CATEGORY_SEED}
        facts.add(K.PROBE_CATEGORY_SEED.key(**at), getattr(member.by_category[category], metric),
                  f"{metric} within the category at option seed {CATEGORY_SEED}; {SCORE}", (member.run_id,))
        facts.add(K.PROBE_CATEGORY_SEED.low(**at), intervals[metric].low, f"{BOOT}, within the category",
                  (member.run_id,))
        facts.add(K.PROBE_CATEGORY_SEED.high(**at), intervals[metric].high, f"{BOOT}, within the category",
                  (member.run_id,))


def _add_harm_probe(facts: FactTable, on: dict[str, str], score: RunScore) -> None:
    runs = (score.run_id,)
    r = score.report
    _add_headline(facts, K.HARM_PROBE, on, score)
    for label, scores in r.per_label.items():
        harm = _label_key(label)
        for name in ("f1", "precision", "recall"):
            facts.add(K.HARM_PROBE_CLASS.key(**on, score=name, harm=harm), getattr(scores, name),
                      f"{'F1' if name == 'f1' else name} of class {label}; {SCORE}", runs)
