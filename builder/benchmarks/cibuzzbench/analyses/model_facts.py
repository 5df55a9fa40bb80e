"""Model summaries as facts: `model.<id>.*` and `paired.<id>.*` (docs/model-facts.md).

Means and sample sds are over option seeds (sd only with two or more seeds: it is undefined
for one); intervals are those of the seed-1111 run or pair, so a single-seed model still
has its uncertainty on the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from builder.benchmarks.cibuzzbench.analyses.model_summaries import INTERVAL_SEED, ModelSummary, PairSummary
from builder.benchmarks.cibuzzbench.analyses.paired import ERROR_SOURCES, PairedAnalysis
from builder.core.facts import FactTable
from builder.stats import summarise_seeds
from builder.benchmarks.cibuzzbench.tasks import HARMFULNESS_DETECTION, labels_for

SCORE = "official metric, x100"
OVER = "over option seeds"
ARMS = {"a": "blind", "b": "sighted"}


def _interval_note(seed: int | None) -> str:
    which = f"the seed-{seed} run" if seed is not None else "the run"
    return f"95% percentile bootstrap (2000 resamples) of {which}"


def _add_spread(facts: FactTable, base: str, values: Sequence[float], what: str, runs: tuple[str, ...]) -> None:
    """`base.mean` and, with two or more seeds, `base.sd` (sample sd, ddof=1)."""
    summary = summarise_seeds(dict(enumerate(values)))
    facts.add(f"{base}.mean", summary.mean, f"mean over {summary.n} option seeds: {what}", runs)
    if summary.sd is not None:
        facts.add(f"{base}.sd", summary.sd, f"sample sd over {summary.n} option seeds: {what}", runs)


def _add_range(facts: FactTable, base: str, values: Sequence[float], what: str, runs: tuple[str, ...]) -> None:
    facts.add(f"{base}.min", min(values), f"smallest over option seeds: {what}", runs)
    facts.add(f"{base}.max", max(values), f"largest over option seeds: {what}", runs)


def add_model_facts(facts: FactTable, models: Iterable[ModelSummary]) -> None:
    for m in models:
        base = f"model.{m.id}"
        runs = tuple(s.run_id for s in m.members)
        rep = m.representative
        facts.add(f"{base}.seeds", len(m.members), "runs of the model differing only in the option seed", runs)
        facts.add(f"{base}.items", min(s.report.n for s in m.members), "items in each run (the smallest run)", runs)
        declared = m.selection.get("n")
        if isinstance(declared, int):
            facts.add(f"{base}.items_declared", declared, "items the runs' headers declare", runs)
        for metric in ("accuracy", "macro_f1"):
            _add_spread(facts, f"{base}.{metric}", [getattr(s.report, metric) for s in m.members],
                        f"{metric}; {SCORE}", runs)
            note = _interval_note(rep.run.header.option_seed)
            facts.add(f"{base}.{metric}.ci95_low", rep.intervals[metric].low, note, (rep.run_id,))
            facts.add(f"{base}.{metric}.ci95_high", rep.intervals[metric].high, note, (rep.run_id,))
        if m.task == HARMFULNESS_DETECTION:
            _add_spread(facts, f"{base}.f1.harmful", [s.report.per_label["harmful"].f1 for s in m.members],
                        f"F1 of class harmful; {SCORE}", runs)


def add_pair_summary_facts(facts: FactTable, summaries: Sequence[PairSummary]) -> None:
    if summaries:
        facts.add("paired_models.count", len(summaries), "models with paired sighted/blind runs",
                  tuple(r for s in summaries for p in s.pairs for r in (p.run_a, p.run_b)))
    for s in summaries:
        base = f"paired.{s.id}"
        runs = tuple(r for p in s.pairs for r in (p.run_a, p.run_b))
        rep = s.representative
        seed_note = _interval_note(rep.option_seed).replace("percentile bootstrap", "paired percentile bootstrap")
        add = lambda key, value, how: facts.add(f"{base}.{key}", value, how, runs)  # noqa: E731
        add("seeds", len(s.pairs), "blind/sighted pairs of the model, one per option seed")
        add("n", min(p.n for p in s.pairs), "shared items in each pair (the smallest pair)")
        chance = 100.0 / len(labels_for(s.blind.task))
        add("chance.accuracy", chance, "accuracy of a uniformly random label, x100 (1 / number of labels)")
        for metric in ("accuracy", "macro_f1"):
            for arm, pick in (("a", lambda p: p.a), ("b", lambda p: p.b)):
                _add_spread(facts, f"{base}.{arm}.{metric}", [getattr(pick(p), metric) for p in s.pairs],
                            f"{ARMS[arm]} {metric} on shared items; {SCORE}", runs)
            _add_spread(facts, f"{base}.gap.{metric}", [getattr(p.gap, metric) for p in s.pairs],
                        f"sighted - blind {metric} on shared items, points", runs)
            interval = getattr(rep.gap, f"{metric}_ci")
            facts.add(f"{base}.gap.{metric}.ci95_low", interval.low, seed_note, (rep.run_a, rep.run_b))
            facts.add(f"{base}.gap.{metric}.ci95_high", interval.high, seed_note, (rep.run_a, rep.run_b))
            ratios = [getattr(p, f"ratio_{metric}") for p in s.pairs]
            if all(r is not None for r in ratios):
                _add_spread(facts, f"{base}.ratio.{metric}", ratios, f"blind / sighted {metric} x100", runs)
        _add_spread(facts, f"{base}.b.above_chance.accuracy", [p.b.accuracy - chance for p in s.pairs],
                    "sighted accuracy minus chance, points", runs)
        above = [100.0 * (p.a.accuracy - chance) / (p.b.accuracy - chance) for p in s.pairs if p.b.accuracy > chance]
        if len(above) == len(s.pairs):
            _add_spread(facts, f"{base}.above_chance.accuracy", above,
                        "(blind - chance) / (sighted - chance) accuracy x100", runs)
        _add_counts(facts, base, s.pairs, runs)
        _add_errors(facts, base, s.pairs, runs)
        _add_categories(facts, base, s.pairs, runs)


def _add_counts(facts: FactTable, base: str, pairs: Sequence[PairedAnalysis], runs: tuple[str, ...]) -> None:
    _add_spread(facts, f"{base}.agreement.share", [p.agreement_share for p in pairs],
                "shared items with the same answer, % of shared items", runs)
    _add_spread(facts, f"{base}.fixes", [p.fixes for p in pairs], "items wrong blind, right sighted", runs)
    _add_spread(facts, f"{base}.breaks", [p.breaks for p in pairs], "items right blind, wrong sighted", runs)
    _add_range(facts, f"{base}.mcnemar_p", [p.mcnemar_p for p in pairs], "exact McNemar p", runs)


def _add_errors(facts: FactTable, base: str, pairs: Sequence[PairedAnalysis], runs: tuple[str, ...]) -> None:
    errors = [p.errors_a for p in pairs if p.errors_a is not None]
    if len(errors) != len(pairs):
        return
    _add_spread(facts, f"{base}.errors.total", [e.total for e in errors], "blind wrong answers on shared items", runs)
    total = sum(e.total for e in errors)
    if total == 0:
        return
    for source in ERROR_SOURCES:
        facts.add(f"{base}.errors.{source}.count", sum(e.counts[source] for e in errors),
                  f"blind wrong answers on the {source} option, summed {OVER}", runs)
        facts.add(f"{base}.errors.{source}.share", 100.0 * sum(e.counts[source] for e in errors) / total,
                  f"blind wrong answers on the {source} option, % of all, pooled {OVER}", runs)


def _add_categories(facts: FactTable, base: str, pairs: Sequence[PairedAnalysis], runs: tuple[str, ...]) -> None:
    labels = [c.label for c in pairs[0].categories]
    for label in labels:
        parts = [next((c for c in p.categories if c.label == label), None) for p in pairs]
        if any(c is None for c in parts):
            continue
        key = f"{base}.category.{label}"
        where = f"within category {label}"
        pick: dict[str, tuple[str, Callable]] = {
            "a.accuracy": ("blind accuracy", lambda c: c.a.accuracy),
            "b.accuracy": ("sighted accuracy", lambda c: c.b.accuracy),
            "gap.accuracy": ("sighted - blind accuracy, points", lambda c: c.gap.accuracy)}
        facts.add(f"{key}.n", min(c.n for c in parts), f"shared items {where} (the smallest pair)", runs)
        for name, (what, get) in pick.items():
            _add_spread(facts, f"{key}.{name}", [get(c) for c in parts], f"{what} {where}", runs)
        at = next((i for i, p in enumerate(pairs) if p.option_seed == INTERVAL_SEED), 0)
        rep, note = parts[at], f"{_interval_note(pairs[at].option_seed)} (paired), {where}"
        facts.add(f"{key}.gap.accuracy.ci95_low", rep.gap.accuracy_ci.low, note, runs)
        facts.add(f"{key}.gap.accuracy.ci95_high", rep.gap.accuracy_ci.high, note, runs)
        _add_range(facts, f"{key}.mcnemar_p", [c.mcnemar_p for c in parts], f"exact McNemar p {where}", runs)
        _add_range(facts, f"{key}.holm_p", [c.holm_p for c in parts], f"Holm-adjusted McNemar p {where}", runs)
