"""Paired comparisons as facts (`pair.<pair_id>.*`, documented in docs/paired-facts.md),
and the rule that finds which blind and sighted runs belong together.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from builder.benchmarks.cibuzzbench.analyses.paired import COMPARED_SETTINGS, ERROR_SOURCES, Gap, PairedAnalysis, analyse_pair
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.core.facts import FactTable
from builder.runs.schema import Run

SCORE = "official metric (scikit-learn, macro over labels, x100)"
PAIRING = "items in both runs, matched by row_id"
PAIRED_BOOT = "b - a; seeded paired percentile bootstrap over shared items, 2000 resamples, 95%"
MCNEMAR = "exact McNemar: two-sided binomial test of fixes among fixes + breaks, p = 0.5 (1 if none)"
HOLM = "Holm step-down adjustment of the category McNemar p-values"
BASELINE, TREATMENT = "blind", "sighted"


def pair_id(run_a: Run | str, run_b: Run | str) -> str:
    """Stable id of an ordered pair (a = baseline first); unique because run ids are."""
    ids = [r if isinstance(r, str) else r.header.run_id for r in (run_a, run_b)]
    return f"{ids[0]}__vs__{ids[1]}"


def find_pairs(runs: Iterable[Run]) -> list[tuple[Run, Run]]:
    """(blind, sighted) pairs of complete runs: same subject name, task, option seed, dataset
    variant and content, prompt language, and at least one shared item. Every overlapping
    blind x sighted combination within a group is returned, sorted by (blind run_id, sighted
    run_id). A run still in progress is left out: its gap would change as it fills in."""
    groups: dict[tuple, dict[str, list[Run]]] = defaultdict(lambda: {BASELINE: [], TREATMENT: []})
    for run in runs:
        if run.header.condition in (BASELINE, TREATMENT) and run.complete:
            groups[_pair_key(run)][run.header.condition].append(run)
    pairs = [(a, b) for group in groups.values() for a in group[BASELINE] for b in group[TREATMENT]
             if not set(a.row_ids).isdisjoint(b.row_ids)]
    return sorted(pairs, key=lambda p: (p[0].header.run_id, p[1].header.run_id))


def _pair_key(run: Run) -> tuple:
    """A blind English prompt against a sighted Chinese one is not a like-for-like pair, so the
    prompt language (parameter `lang`; absent means the official default, English) counts too."""
    h = run.header
    return (h.subject_name, h.task, h.option_seed, h.variant,
            h.dataset.get("content_sha256"), (h.subject.get("parameters") or {}).get("lang", "en"))


def analyse_pairs(runs: Iterable[Run], dataset: Dataset,
                  analyse: Callable[[Run, Run, Dataset], PairedAnalysis] = analyse_pair) -> list[PairedAnalysis]:
    """Every automatically found pair, analysed (blind = a, sighted = b); `analyse` analyses
    one pair (the build passes one that keeps analyses in the per-run cache)."""
    return [analyse(a, b, dataset) for a, b in find_pairs(runs)]


def add_paired_facts(facts: FactTable, results: Iterable[PairedAnalysis]) -> None:
    for r in sorted(results, key=lambda r: pair_id(r.run_a, r.run_b)):
        base = f"pair.{pair_id(r.run_a, r.run_b)}"
        runs = (r.run_a, r.run_b)
        _add_overall(facts, base, r, runs)
        _add_categories(facts, base, r, runs)
        _add_errors(facts, base, r, runs)


def _add_overall(facts: FactTable, base: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    def add(key: str, value: float, how: str) -> None:
        facts.add(f"{base}.{key}", value, how, runs)

    add("n", r.n, PAIRING)
    add("only_a", r.only_a, "items only in run a (not analysed)")
    add("only_b", r.only_b, "items only in run b (not analysed)")
    add("agreement.count", r.agreement, f"shared items with the identical prediction; {PAIRING}")
    add("agreement.share", r.agreement_share, "agreement count / shared items x100")
    add("fixes", r.fixes, "shared items a got wrong and b got right")
    add("breaks", r.breaks, "shared items a got right and b got wrong")
    add("mcnemar_p", r.mcnemar_p, MCNEMAR)
    _add_differences(facts, base, r, runs)
    for arm, report in (("a", r.a), ("b", r.b)):
        add(f"{arm}.accuracy", report.accuracy, f"accuracy of run {arm} on the shared items; {SCORE}")
        add(f"{arm}.macro_f1", report.macro_f1, f"macro F1 of run {arm} on the shared items; {SCORE}")
    for metric, ratio in (("accuracy", r.ratio_accuracy), ("macro_f1", r.ratio_macro_f1)):
        if ratio is not None:
            add(f"ratio.{metric}", ratio, f"a {metric} / b {metric} x100 on the shared items")
    _add_gap(facts, f"{base}.gap", r.gap, runs, ("accuracy", "macro_f1"))


def _add_differences(facts: FactTable, base: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    """How many settings differ (0: run alike), described in the provenance so every page
    and facts.json can flag the pair; one `differs.<setting>` fact per differing setting."""
    if r.differences:
        how = "; ".join(f"{d.setting} a {d.a}, b {d.b}" for d in r.differences)
        facts.add(f"{base}.settings_differ", len(r.differences), f"settings differ between the arms: {how}", runs)
    else:
        facts.add(f"{base}.settings_differ", 0, f"arms run alike: {', '.join(COMPARED_SETTINGS)} agree", runs)
    for d in r.differences:
        facts.add(f"{base}.differs.{d.setting}", 1, f"{d.setting} a {d.a}, b {d.b}", runs)


def _add_gap(facts: FactTable, base: str, gap: Gap, runs: tuple[str, str], metrics: tuple[str, ...]) -> None:
    for metric in metrics:
        interval = getattr(gap, f"{metric}_ci")
        facts.add(f"{base}.{metric}", getattr(gap, metric), f"b {metric} - a {metric}, points; {SCORE}", runs)
        facts.add(f"{base}.{metric}.ci95_low", interval.low, PAIRED_BOOT, runs)
        facts.add(f"{base}.{metric}.ci95_high", interval.high, PAIRED_BOOT, runs)


def _add_categories(facts: FactTable, base: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    for c in r.categories:
        key = f"{base}.category.{c.label}"
        where = f"within category {c.label}"
        facts.add(f"{key}.n", c.n, f"shared items {where}", runs)
        facts.add(f"{key}.a.accuracy", c.a.accuracy, f"accuracy of run a {where}; {SCORE}", runs)
        facts.add(f"{key}.b.accuracy", c.b.accuracy, f"accuracy of run b {where}; {SCORE}", runs)
        facts.add(f"{key}.fixes", c.fixes, f"a wrong, b right {where}", runs)
        facts.add(f"{key}.breaks", c.breaks, f"a right, b wrong {where}", runs)
        _add_gap(facts, f"{key}.gap", c.gap, runs, ("accuracy",))
        facts.add(f"{key}.mcnemar_p", c.mcnemar_p, f"{MCNEMAR}; {where}", runs)
        facts.add(f"{key}.holm_p", c.holm_p, f"{HOLM} ({len(r.categories)} categories)", runs)


def _add_errors(facts: FactTable, base: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    if r.errors_a is None:
        return
    facts.add(f"{base}.errors.total.count", r.errors_a.total, "wrong answers of run a on the shared items", runs)
    for source in ERROR_SOURCES:
        facts.add(f"{base}.errors.{source}.count", r.errors_a.counts[source],
                  f"wrong answers of run a whose letter is the {source} option"
                  if source != "unparsed" else "wrong answers of run a that could not be parsed", runs)
