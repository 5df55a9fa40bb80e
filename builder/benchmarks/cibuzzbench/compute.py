"""Compute stage: dataset + validated runs -> one FactTable (and the run scores behind it).

Fact keys are documented in docs/facts.md; percentages, accuracy and F1 are on a
0-100 scale and left unrounded (rounding is the renderer's job).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from builder.benchmarks.cibuzzbench.analyses.audits import audit_figures
from builder.benchmarks.cibuzzbench.analyses.model_facts import add_model_facts, add_pair_summary_facts
from builder.benchmarks.cibuzzbench.analyses.model_summaries import ModelSummary, PairSummary, summarise_models, summarise_pairs
from builder.benchmarks.cibuzzbench.analyses.categories import category_figures
from builder.benchmarks.cibuzzbench.analyses.option_lengths import length_distribution, length_figures
from builder.benchmarks.cibuzzbench.analyses.paired import PairedAnalysis
from builder.benchmarks.cibuzzbench.analyses.paired_facts import add_paired_facts, analyse_pairs, pair_id
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore, score_run
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset
from builder.core.facts import FactTable
from builder.stats import HARMFUL, summarise_seeds
from builder.runs.schema import Run
from builder.runs.validate import declared_count
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION

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
            facts: FactTable | None = None) -> Computed:
    """`variants` maps other dataset variants (e.g. gold_pool) to their datasets; their
    figures go under `variant.<name>.*` so they never mix with the original's. `facts` is the
    build's table when other benchmarks add to it too."""
    datasets = {ORIGINAL: dataset, **(variants or {})}
    facts = FactTable() if facts is None else facts
    add_dataset_facts(facts, dataset)
    for name, variant in sorted(datasets.items()):
        if name != ORIGINAL:
            _add_length_facts(facts, variant, f"variant.{name}.leak")
            _add_audit_facts(facts, variant, f"variant.{name}.audit")
    ordered = sorted(runs, key=lambda r: r.header.run_id)
    scores = {s.run_id: s for s in (score_run(r, datasets[r.header.variant]) for r in ordered)}
    for score in scores.values():
        add_run_facts(facts, score, declared_count(score.run, datasets[score.run.header.variant]))
    finished = [s for s in scores.values() if s.run.complete]  # headline figures: complete runs only
    add_probe_facts(facts, finished)
    pairs = [p for name, ds in sorted(datasets.items())
             for p in analyse_pairs([s.run for s in finished if s.run.header.variant == name], ds)]
    add_paired_facts(facts, pairs)
    models = summarise_models(scores.values())
    pair_summaries = summarise_pairs(models, pairs)
    add_model_facts(facts, models)
    add_pair_summary_facts(facts, pair_summaries)
    return Computed(facts, scores, length_distribution(dataset), pairs, models, pair_summaries)


def add_dataset_facts(facts: FactTable, dataset: Dataset) -> None:
    frame = dataset.frame
    count = "count of CSV rows"
    facts.add("dataset.rows", len(frame), count)
    for split in ("train", "test"):
        facts.add(f"dataset.{split}", int((frame["split"] == split).sum()), f"{count} with split={split}")
    harmful = int((frame["harmful_label"] == HARMFUL).sum())
    facts.add("dataset.harmful", harmful, f"{count} with harmful_label=harmful")
    facts.add("dataset.non_harmful", len(frame) - harmful, f"{count} with harmful_label=non-harmful")
    facts.add("dataset.harmful_rate", 100.0 * harmful / len(frame), "harmful rows / rows x100")
    for c in category_figures(dataset):
        base = f"dataset.category.{c.label}"
        facts.add(f"{base}.count", c.count, f"{count} with category_label={c.label}")
        facts.add(f"{base}.share", c.share, "category rows / rows x100")
        facts.add(f"{base}.harmful", c.harmful, "harmful rows in the category")
        facts.add(f"{base}.harmful_rate", c.harmful_rate, "harmful rows / category rows x100")
        facts.add(f"{base}.test_count", c.test_count, "test rows in the category")
    _add_length_facts(facts, dataset)
    _add_audit_facts(facts, dataset)


def _add_length_facts(facts: FactTable, dataset: Dataset, root: str = "leak") -> None:
    for split, infix in ((None, ""), ("test", ".test")):
        f = length_figures(dataset, split)
        how = "characters per option slot (Python len)" + (" on the test split" if split else "")
        base = f"{root}{infix}"
        facts.add(f"{base}.gold_strictly_longest.count", f.gold_strictly_longest,
                  f"items whose gold is longer than all three distractors; {how}")
        facts.add(f"{base}.gold_strictly_longest.share", 100.0 * f.gold_strictly_longest / f.items,
                  f"share of items whose gold is strictly the longest option x100; {how}")
        facts.add(f"{base}.gold_strictly_shortest.share", 100.0 * f.gold_strictly_shortest / f.items,
                  f"share of items whose gold is strictly the shortest option x100; {how}")
        facts.add(f"{base}.options_within_10pct.count", f.options_within_10pct,
                  f"items whose four options are pairwise within 10% in length, |a-b| <= 0.1*max(a,b); {how}")
        facts.add(f"{base}.options_within_10pct.share", 100.0 * f.options_within_10pct / f.items,
                  f"share of items whose four options are pairwise within 10% in length x100; {how}")
        for kind, n in f.gold_longer_than.items():
            facts.add(f"{base}.gold_longer_than.{kind}.share", 100.0 * n / f.items,
                      f"share of items whose gold is longer than the {kind} distractor x100; {how}")
        for slot, mean in f.mean_chars.items():
            name = "gold" if slot == "correct" else slot
            facts.add(f"{base}.mean_chars.{name}", mean, f"mean {how}")
            facts.add(f"{base}.median_chars.{name}", f.median_chars[slot], f"median {how}")


def _add_audit_facts(facts: FactTable, dataset: Dataset, root: str = "audit") -> None:
    a = audit_figures(dataset)
    how = "case-insensitive, whitespace-trimmed comparison"
    facts.add(f"{root}.distractor_is_other_gold.count", a.distractor_is_other_gold,
              f"distractor strings equal to another item's gold; {how}")
    facts.add(f"{root}.distractor_is_other_gold.share", 100.0 * a.distractor_is_other_gold / a.distractor_strings,
              f"share of all {a.distractor_strings} distractor strings x100; {how}")
    exact = "exact string comparison (letter case and spaces count)"
    facts.add(f"{root}.distractor_is_other_gold.exact.count", a.distractor_is_other_gold_exact,
              f"distractor strings equal to another item's gold; {exact}")
    facts.add(f"{root}.distractor_is_other_gold.exact.share", 100.0 * a.distractor_is_other_gold_exact / a.distractor_strings,
              f"share of all {a.distractor_strings} distractor strings x100; {exact}")
    for kind, n in a.distractor_is_other_gold_by_type.items():
        facts.add(f"{root}.distractor_is_other_gold.{kind}.count", n, f"{kind} distractors equal to another item's gold; {how}")
    facts.add(f"{root}.duplicate_option_items", a.duplicate_option_items, f"items with two equal options; {how}")
    facts.add(f"{root}.distinct_terms", a.distinct_terms, "distinct term_zh values")
    facts.add(f"{root}.train_test_term_overlap", a.train_test_term_overlap, "distinct term_zh values in both splits")


def add_run_facts(facts: FactTable, score: RunScore, selected: int) -> None:
    """`selected` is N of "n of N": the size of the run's declared item selection. A run is
    complete when it has its footer (validation guarantees every declared item is then there);
    an incomplete run keeps its own facts but is left out of probe figures, pairs and the tracker."""
    rid = score.run_id
    runs = (rid,)
    r = score.report
    facts.add(f"run.{rid}.n", r.n, "items in the run", runs)
    facts.add(f"run.{rid}.selected", selected, "items in the run's declared selection (n of N: this is N)", runs)
    facts.add(f"run.{rid}.complete", int(score.run.complete),
              "1 when the run is finished (footer present, every declared item answered), else 0", runs)
    failed = sum(1 for item in score.run.items if item.error is not None)
    facts.add(f"run.{rid}.failed", failed, "items whose request failed (error set, no answer); scored as wrong", runs)
    facts.add(f"run.{rid}.unparsed", r.unparsed - sum(1 for item in score.run.items if item.error is not None
                                                      and item.prediction == ""),
              "items with a response that could not be parsed (failed requests not included); scored as wrong", runs)
    _add_headline(facts, f"run.{rid}", score)
    for label, scores in r.per_label.items():
        facts.add(f"run.{rid}.f1.{_label_key(label)}", scores.f1, f"F1 of label {label}; {SCORE}", runs)
    for category, report in score.by_category.items():
        facts.add(f"run.{rid}.category.{category}.accuracy", report.accuracy, f"accuracy within category; {SCORE}", runs)
        facts.add(f"run.{rid}.category.{category}.macro_f1", report.macro_f1, f"macro F1 within category; {SCORE}", runs)


def _label_key(label: str) -> str:
    return label.replace("-", "_")


def add_probe_facts(facts: FactTable, scores: list[RunScore]) -> None:
    """Model-free probe figures under `leak.*` (Task 2) and `harm.*` (Task 3); probes on
    another dataset variant go under `variant.<name>.leak.*`."""
    groups: dict[tuple[str, str, str, str], list[RunScore]] = defaultdict(list)
    for s in scores:
        if s.run.header.condition == "probe":
            groups[(s.run.header.variant, s.run.header.task, s.run.header.subject_name, s.run.header.scope)].append(s)
    for (variant, task, probe, scope), members in sorted(groups.items()):
        infix = "" if scope == "all" else f".{scope}"
        root = "" if variant == ORIGINAL else f"variant.{variant}."
        if task == EQUIVALENT_SELECTION:
            _add_seed_group(facts, f"{root}leak.{probe}{infix}", members)
            if scope == "all":
                _add_category_group(facts, f"{root}leak.{probe}.category", members)
        elif task == HARMFULNESS_DETECTION and len(members) == 1:
            _add_harm_probe(facts, f"{root}harm.{probe}{infix}", members[0])


def _add_seed_group(facts: FactTable, base: str, members: list[RunScore]) -> None:
    runs = tuple(m.run_id for m in members)
    for metric in ("accuracy", "macro_f1"):
        values = {}
        for m in members:
            seed = int(m.run.header.option_seed or 0)
            values[seed] = getattr(m.report, metric)
            key = f"{base}.{metric}.seed_{seed}"
            facts.add(key, values[seed], f"{metric} at option seed {seed}; {SCORE}", (m.run_id,))
            facts.add(f"{key}.ci95_low", m.intervals[metric].low, BOOT, (m.run_id,))
            facts.add(f"{key}.ci95_high", m.intervals[metric].high, BOOT, (m.run_id,))
        summary = summarise_seeds(values)
        facts.add(f"{base}.{metric}.mean", summary.mean, f"mean of {metric} over {summary.n} option seeds", runs)
        if summary.sd is not None:
            facts.add(f"{base}.{metric}.sd", summary.sd, f"sample standard deviation of {metric} over {summary.n} option seeds", runs)


def _add_headline(facts: FactTable, base: str, score: RunScore) -> None:
    """Accuracy and macro F1 with their bootstrap intervals, under `base`."""
    runs = (score.run_id,)
    facts.add(f"{base}.accuracy", score.report.accuracy, f"accuracy; {SCORE}", runs)
    facts.add(f"{base}.macro_f1", score.report.macro_f1, f"macro F1; {SCORE}", runs)
    for metric, interval in score.intervals.items():
        facts.add(f"{base}.{metric}.ci95_low", interval.low, BOOT, runs)
        facts.add(f"{base}.{metric}.ci95_high", interval.high, BOOT, runs)


CATEGORY_SEED = 1111  # per-category intervals are bootstrapped for this seed only (cost)


def _add_category_group(facts: FactTable, base: str, members: list[RunScore]) -> None:
    """Per-category scores of a probe: mean over seeds, and seed 1111 with intervals."""
    runs = tuple(m.run_id for m in members)
    for category in CATEGORIES:
        present = [m for m in members if category in m.by_category]
        if not present:
            continue
        for metric in ("accuracy", "macro_f1"):
            values = {int(m.run.header.option_seed or 0): getattr(m.by_category[category], metric) for m in present}
            facts.add(f"{base}.{category}.{metric}.mean", summarise_seeds(values).mean,
                      f"mean over option seeds of {metric} within the category; {SCORE}", runs)
        for m in present:
            if m.run.header.option_seed == CATEGORY_SEED:
                _add_category_seed(facts, f"{base}.{category}", m, category)


def _add_category_seed(facts: FactTable, base: str, member: RunScore, category: str) -> None:
    intervals = member.category_intervals(category)
    for metric in ("accuracy", "macro_f1"):
        key = f"{base}.{metric}.seed_{CATEGORY_SEED}"
        facts.add(key, getattr(member.by_category[category], metric),
                  f"{metric} within the category at option seed {CATEGORY_SEED}; {SCORE}", (member.run_id,))
        facts.add(f"{key}.ci95_low", intervals[metric].low, f"{BOOT}, within the category", (member.run_id,))
        facts.add(f"{key}.ci95_high", intervals[metric].high, f"{BOOT}, within the category", (member.run_id,))


def _add_harm_probe(facts: FactTable, base: str, score: RunScore) -> None:
    runs = (score.run_id,)
    r = score.report
    _add_headline(facts, base, score)
    for label, scores in r.per_label.items():
        key = _label_key(label)
        facts.add(f"{base}.f1.{key}", scores.f1, f"F1 of class {label}; {SCORE}", runs)
        facts.add(f"{base}.precision.{key}", scores.precision, f"precision of class {label}; {SCORE}", runs)
        facts.add(f"{base}.recall.{key}", scores.recall, f"recall of class {label}; {SCORE}", runs)
