"""Model summaries as facts: `model.<id>.*` and `paired.<id>.*` (docs/model-facts.md).

Means and sample sds are over option seeds (sd only with two or more seeds: it is undefined
for one); intervals are those of the seed-1111 run or pair, so a single-seed model still
has its uncertainty on the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from builder.benchmarks.cibuzzbench.analyses.model_summaries import INTERVAL_SEED, ModelSummary, PairSummary
from builder.benchmarks.cibuzzbench.analyses.paired import ERROR_SOURCES, PairedAnalysis
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.core.factkeys import FactPattern
from builder.core.facts import FactTable
from builder.stats import summarise_seeds
from builder.benchmarks.cibuzzbench.tasks import HARMFULNESS_DETECTION, labels_for

SCORE = "official metric, x100"
OVER = "over option seeds"
ARMS = {"a": "blind", "b": "sighted"}


def _interval_note(seed: int | None) -> str:
    which = f"the seed-{seed} run" if seed is not None else "the run"
    return f"95% percentile bootstrap (2000 resamples) of {which}"


def _add_spread(facts: FactTable, pattern: FactPattern, on: dict[str, str], values: Sequence[float], what: str,
                runs: tuple[str, ...]) -> None:
    """stat=mean and, with two or more seeds, stat=sd (sample sd, ddof=1)."""
    summary = summarise_seeds(dict(enumerate(values)))
    facts.add(pattern.key(**on, stat="mean"), summary.mean, f"mean over {summary.n} option seeds: {what}", runs)
    if summary.sd is not None:
        facts.add(pattern.key(**on, stat="sd"), summary.sd, f"sample sd over {summary.n} option seeds: {what}", runs)


def _add_range(facts: FactTable, pattern: FactPattern, on: dict[str, str], values: Sequence[float], what: str,
               runs: tuple[str, ...]) -> None:
    facts.add(pattern.key(**on, range="min"), min(values), f"smallest over option seeds: {what}", runs)
    facts.add(pattern.key(**on, range="max"), max(values), f"largest over option seeds: {what}", runs)


def add_model_facts(facts: FactTable, models: Iterable[ModelSummary]) -> None:
    for m in models:
        on = {"id": m.id}
        runs = tuple(s.run_id for s in m.members)
        rep = m.representative
        facts.add(K.MODEL_SEEDS.key(**on), len(m.members), "runs of the model differing only in the option seed", runs)
        facts.add(K.MODEL_ITEMS.key(**on), min(s.report.n for s in m.members), "items in each run (the smallest run)",
                  runs)
        declared = m.selection.get("n")
        if isinstance(declared, int):
            facts.add(K.MODEL_ITEMS_DECLARED.key(**on), declared, "items the runs' headers declare", runs)
        for metric in ("accuracy", "macro_f1"):
            _add_spread(facts, K.MODEL_SPREAD, {**on, "metric": metric},
                        [getattr(s.report, metric) for s in m.members], f"{metric}; {SCORE}", runs)
            note = _interval_note(rep.run.header.option_seed)
            facts.add(K.MODEL_INTERVAL.low(**on, metric=metric), rep.intervals[metric].low, note, (rep.run_id,))
            facts.add(K.MODEL_INTERVAL.high(**on, metric=metric), rep.intervals[metric].high, note, (rep.run_id,))
        if m.task == HARMFULNESS_DETECTION:
            _add_spread(facts, K.MODEL_HARMFUL_F1, on, [s.report.per_label["harmful"].f1 for s in m.members],
                        f"F1 of class harmful; {SCORE}", runs)


def add_pair_summary_facts(facts: FactTable, summaries: Sequence[PairSummary]) -> None:
    if summaries:
        facts.add(K.PAIRED_MODELS.key(), len({s.subject for s in summaries}), "models with paired sighted/blind runs",
                  tuple(r for s in summaries for p in s.pairs for r in (p.run_a, p.run_b)))
    for s in summaries:
        on = {"id": s.id}
        runs = tuple(r for p in s.pairs for r in (p.run_a, p.run_b))
        rep = s.representative
        seed_note = _interval_note(rep.option_seed).replace("percentile bootstrap", "paired percentile bootstrap")
        facts.add(K.PAIRED_SEEDS.key(**on), len(s.pairs), "blind/sighted pairs of the model, one per option seed", runs)
        facts.add(K.PAIRED_N.key(**on), min(p.n for p in s.pairs), "shared items in each pair (the smallest pair)", runs)
        chance = 100.0 / len(labels_for(s.blind.task))
        facts.add(K.PAIRED_CHANCE.key(**on), chance,
                  "accuracy of a uniformly random label, x100 (1 / number of labels)", runs)
        for metric in ("accuracy", "macro_f1"):
            for arm, pick in (("a", lambda p: p.a), ("b", lambda p: p.b)):
                _add_spread(facts, K.PAIRED_ARM, {**on, "arm": arm, "metric": metric},
                            [getattr(pick(p), metric) for p in s.pairs],
                            f"{ARMS[arm]} {metric} on shared items; {SCORE}", runs)
            _add_spread(facts, K.PAIRED_GAP, {**on, "metric": metric}, [getattr(p.gap, metric) for p in s.pairs],
                        f"sighted - blind {metric} on shared items, points", runs)
            interval = getattr(rep.gap, f"{metric}_ci")
            facts.add(K.PAIRED_GAP_INTERVAL.low(**on, metric=metric), interval.low, seed_note, (rep.run_a, rep.run_b))
            facts.add(K.PAIRED_GAP_INTERVAL.high(**on, metric=metric), interval.high, seed_note,
                      (rep.run_a, rep.run_b))
            ratios = [getattr(p, f"ratio_{metric}") for p in s.pairs]
            if all(r is not None for r in ratios):
                _add_spread(facts, K.PAIRED_RATIO, {**on, "metric": metric}, ratios,
                            f"blind / sighted {metric} x100", runs)
        _add_spread(facts, K.PAIRED_B_ABOVE_CHANCE, on, [p.b.accuracy - chance for p in s.pairs],
                    "sighted accuracy minus chance, points", runs)
        above = [100.0 * (p.a.accuracy - chance) / (p.b.accuracy - chance) for p in s.pairs if p.b.accuracy > chance]
        if len(above) == len(s.pairs):
            _add_spread(facts, K.PAIRED_ABOVE_CHANCE, on, above,
                        "(blind - chance) / (sighted - chance) accuracy x100", runs)
        _add_counts(facts, on, s.pairs, runs)
        _add_errors(facts, on, s.pairs, runs)
        _add_categories(facts, on, s.pairs, runs)


def _add_counts(facts: FactTable, on: dict[str, str], pairs: Sequence[PairedAnalysis], runs: tuple[str, ...]) -> None:
    _add_spread(facts, K.PAIRED_AGREEMENT, on, [p.agreement_share for p in pairs],
                "shared items with the same answer, % of shared items", runs)
    _add_spread(facts, K.PAIRED_FIXES, on, [p.fixes for p in pairs], "items wrong blind, right sighted", runs)
    _add_spread(facts, K.PAIRED_BREAKS, on, [p.breaks for p in pairs], "items right blind, wrong sighted", runs)
    _add_range(facts, K.PAIRED_MCNEMAR, on, [p.mcnemar_p for p in pairs], "exact McNemar p", runs)


def _add_errors(facts: FactTable, on: dict[str, str], pairs: Sequence[PairedAnalysis], runs: tuple[str, ...]) -> None:
    errors = [p.errors_a for p in pairs if p.errors_a is not None]
    if len(errors) != len(pairs):
        return
    _add_spread(facts, K.PAIRED_ERRORS_TOTAL, on, [e.total for e in errors], "blind wrong answers on shared items",
                runs)
    total = sum(e.total for e in errors)
    if total == 0:
        return
    for source in ERROR_SOURCES:
        facts.add(K.PAIRED_ERRORS_COUNT.key(**on, source=source), sum(e.counts[source] for e in errors),
                  f"blind wrong answers on the {source} option, summed {OVER}", runs)
        facts.add(K.PAIRED_ERRORS_SHARE.key(**on, source=source),
                  100.0 * sum(e.counts[source] for e in errors) / total,
                  f"blind wrong answers on the {source} option, % of all, pooled {OVER}", runs)


def _add_categories(facts: FactTable, on: dict[str, str], pairs: Sequence[PairedAnalysis],
                    runs: tuple[str, ...]) -> None:
    labels = [c.label for c in pairs[0].categories]
    for label in labels:
        found = [next((c for c in p.categories if c.label == label), None) for p in pairs]
        parts = [c for c in found if c is not None]
        if len(parts) < len(found):
            continue
        at_category = {**on, "category": label}
        where = f"within category {label}"
        pick: list[tuple[FactPattern, dict[str, str], str, Callable]] = [
            (K.PAIRED_CATEGORY_ARM, {"arm": "a"}, "blind accuracy", lambda c: c.a.accuracy),
            (K.PAIRED_CATEGORY_ARM, {"arm": "b"}, "sighted accuracy", lambda c: c.b.accuracy),
            (K.PAIRED_CATEGORY_GAP, {}, "sighted - blind accuracy, points", lambda c: c.gap.accuracy)]
        facts.add(K.PAIRED_CATEGORY_N.key(**at_category), min(c.n for c in parts),
                  f"shared items {where} (the smallest pair)", runs)
        for pattern, more, what, get in pick:
            _add_spread(facts, pattern, {**at_category, **more}, [get(c) for c in parts], f"{what} {where}", runs)
        at = next((i for i, p in enumerate(pairs) if p.option_seed == INTERVAL_SEED), 0)
        rep, note = parts[at], f"{_interval_note(pairs[at].option_seed)} (paired), {where}"
        facts.add(K.PAIRED_CATEGORY_GAP_INTERVAL.low(**at_category), rep.gap.accuracy_ci.low, note, runs)
        facts.add(K.PAIRED_CATEGORY_GAP_INTERVAL.high(**at_category), rep.gap.accuracy_ci.high, note, runs)
        _add_range(facts, K.PAIRED_CATEGORY_MCNEMAR, at_category, [c.mcnemar_p for c in parts],
                   f"exact McNemar p {where}", runs)
        _add_range(facts, K.PAIRED_CATEGORY_HOLM, at_category, [c.holm_p for c in parts],
                   f"Holm-adjusted McNemar p {where}", runs)
