"""Paired comparisons as facts (`pair.<pair_id>.*`, documented in docs/paired-facts.md),
and the rule that finds which blind and sighted runs belong together.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable

from builder.benchmarks.cibuzzbench.analyses.paired import (
    COMPARED_SETTINGS, ERROR_SOURCES, Gap, PairedAnalysis, analyse_pair, prompt_version,
)
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.core.factkeys import FactPattern
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
    """(blind, sighted) pairs of complete runs that asked the same items in the same way: same
    subject name, task, option seed, dataset variant and content, prompt language and version,
    item selection, the same tool (a probe run never pairs with an imported one) and the same
    row ids. Every such blind x sighted combination within a group is returned, sorted by
    (blind run_id, sighted run_id). A run still in progress is left out: its gap would change
    as it fills in."""
    groups: dict[tuple, dict[str, list[Run]]] = defaultdict(lambda: {BASELINE: [], TREATMENT: []})
    for run in runs:
        if run.header.condition in (BASELINE, TREATMENT) and run.complete:
            groups[pair_key(run)][run.header.condition].append(run)
    pairs = [(a, b) for group in groups.values() for a in group[BASELINE] for b in group[TREATMENT]
             if set(a.row_ids) == set(b.row_ids)]
    return sorted(pairs, key=lambda p: (p[0].header.run_id, p[1].header.run_id))


def pair_key(run: Run) -> tuple:
    """What two arms must share to pair. A blind English prompt against a sighted Chinese one is
    not like-for-like, so the prompt language (parameter `lang`; absent means the official
    default, English) counts; so do the items asked (a 20-item sample is not a 50-item one even
    where they overlap), the prompt version and the tool that made the run."""
    h = run.header
    return (h.subject_name, h.task, h.option_seed, h.variant,
            h.dataset.get("content_sha256"), (h.subject.get("parameters") or {}).get("lang", "en"),
            json.dumps(h.items, sort_keys=True), prompt_version(h), h.made_by)


def analyse_pairs(runs: Iterable[Run], dataset: Dataset,
                  analyse: Callable[[Run, Run, Dataset], PairedAnalysis] = analyse_pair) -> list[PairedAnalysis]:
    """Every automatically found pair, analysed (blind = a, sighted = b); `analyse` analyses
    one pair (the build passes one that keeps analyses in the per-run cache)."""
    return [analyse(a, b, dataset) for a, b in find_pairs(runs)]


def add_paired_facts(facts: FactTable, results: Iterable[PairedAnalysis]) -> None:
    for r in sorted(results, key=lambda r: pair_id(r.run_a, r.run_b)):
        pid = pair_id(r.run_a, r.run_b)
        runs = (r.run_a, r.run_b)
        _add_overall(facts, pid, r, runs)
        _add_categories(facts, pid, r, runs)
        _add_errors(facts, pid, r, runs)


def _add_overall(facts: FactTable, pid: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    def add(pattern: FactPattern, value: float, how: str, **parts: str) -> None:
        facts.add(pattern.key(pair_id=pid, **parts), value, how, runs)

    add(K.PAIR_N, r.n, PAIRING)
    add(K.PAIR_ONLY, r.only_a, "items only in run a (not analysed)", arm="a")
    add(K.PAIR_ONLY, r.only_b, "items only in run b (not analysed)", arm="b")
    add(K.PAIR_AGREEMENT_COUNT, r.agreement, f"shared items with the identical prediction; {PAIRING}")
    add(K.PAIR_AGREEMENT_SHARE, r.agreement_share, "agreement count / shared items x100")
    add(K.PAIR_FIXES, r.fixes, "shared items a got wrong and b got right")
    add(K.PAIR_BREAKS, r.breaks, "shared items a got right and b got wrong")
    add(K.PAIR_MCNEMAR, r.mcnemar_p, MCNEMAR)
    _add_differences(facts, pid, r, runs)
    for arm, report in (("a", r.a), ("b", r.b)):
        add(K.PAIR_ARM, report.accuracy, f"accuracy of run {arm} on the shared items; {SCORE}", arm=arm,
            metric="accuracy")
        add(K.PAIR_ARM, report.macro_f1, f"macro F1 of run {arm} on the shared items; {SCORE}", arm=arm,
            metric="macro_f1")
    for metric, ratio in (("accuracy", r.ratio_accuracy), ("macro_f1", r.ratio_macro_f1)):
        if ratio is not None:
            add(K.PAIR_RATIO, ratio, f"a {metric} / b {metric} x100 on the shared items", metric=metric)
    _add_gap(facts, K.PAIR_GAP, {"pair_id": pid}, r.gap, runs, ("accuracy", "macro_f1"))


def _add_differences(facts: FactTable, pid: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    """How many settings differ (0: run alike), described in the provenance so every page
    and facts.json can flag the pair; one `differs.<setting>` fact per differing setting."""
    key = K.PAIR_SETTINGS_DIFFER.key(pair_id=pid)
    if r.differences:
        how = "; ".join(f"{d.setting} a {d.a}, b {d.b}" for d in r.differences)
        facts.add(key, len(r.differences), f"settings differ between the arms: {how}", runs)
    else:
        facts.add(key, 0, f"arms run alike: {', '.join(COMPARED_SETTINGS)} agree", runs)
    for d in r.differences:
        facts.add(K.PAIR_DIFFERS.key(pair_id=pid, setting=d.setting), 1, f"{d.setting} a {d.a}, b {d.b}", runs)


def _add_gap(facts: FactTable, pattern: FactPattern, on: dict[str, str], gap: Gap, runs: tuple[str, str],
             metrics: tuple[str, ...]) -> None:
    """The gap and its interval; `pattern` has a metric part unless only accuracy is asked."""
    for metric in metrics:
        at = {**on, "metric": metric} if "metric" in pattern.parts else on
        interval = getattr(gap, f"{metric}_ci")
        facts.add(pattern.key(**at), getattr(gap, metric), f"b {metric} - a {metric}, points; {SCORE}", runs)
        facts.add(pattern.low(**at), interval.low, PAIRED_BOOT, runs)
        facts.add(pattern.high(**at), interval.high, PAIRED_BOOT, runs)


def _add_categories(facts: FactTable, pid: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    for c in r.categories:
        on = {"pair_id": pid, "category": c.label}
        where = f"within category {c.label}"
        facts.add(K.PAIR_CATEGORY_N.key(**on), c.n, f"shared items {where}", runs)
        facts.add(K.PAIR_CATEGORY_ARM.key(**on, arm="a"), c.a.accuracy, f"accuracy of run a {where}; {SCORE}", runs)
        facts.add(K.PAIR_CATEGORY_ARM.key(**on, arm="b"), c.b.accuracy, f"accuracy of run b {where}; {SCORE}", runs)
        facts.add(K.PAIR_CATEGORY_FIXES.key(**on), c.fixes, f"a wrong, b right {where}", runs)
        facts.add(K.PAIR_CATEGORY_BREAKS.key(**on), c.breaks, f"a right, b wrong {where}", runs)
        _add_gap(facts, K.PAIR_CATEGORY_GAP, on, c.gap, runs, ("accuracy",))
        facts.add(K.PAIR_CATEGORY_MCNEMAR.key(**on), c.mcnemar_p, f"{MCNEMAR}; {where}", runs)
        facts.add(K.PAIR_CATEGORY_HOLM.key(**on), c.holm_p, f"{HOLM} ({len(r.categories)} categories)", runs)


def _add_errors(facts: FactTable, pid: str, r: PairedAnalysis, runs: tuple[str, str]) -> None:
    if r.errors_a is None:
        return
    facts.add(K.PAIR_ERRORS_TOTAL.key(pair_id=pid), r.errors_a.total, "wrong answers of run a on the shared items",
              runs)
    for source in ERROR_SOURCES:
        facts.add(K.PAIR_ERRORS.key(pair_id=pid, source=source), r.errors_a.counts[source],
                  f"wrong answers of run a whose letter is the {source} option"
                  if source != "unparsed" else "wrong answers of run a that could not be parsed", runs)
