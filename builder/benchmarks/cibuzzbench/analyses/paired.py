"""Paired comparison of two runs on the same items: does arm b change what arm a gets right?

Convention throughout: **a is the baseline (blind)**, **b is the treatment (sighted)**.
A *fix* is an item a got wrong and b got right; a *break* is the reverse; gaps are b - a.
Two independent accuracies would ignore that both arms answered the same items; pairing
(McNemar on the discordant items, paired bootstrap on resampled items) removes item
difficulty from the comparison, which is why a 10-point gap on 400 items is decisive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset
from builder.benchmarks.cibuzzbench.dataset.options import DISTRACTOR_TYPES, GOLD
from builder.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ClassificationReport,
    Interval,
    classification_report,
    paired_bootstrap_difference,
)
from builder.stats.paired import discordant, holm, mcnemar_exact
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Header, Run
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, labels_for

UNPARSED_SOURCE = "unparsed"
ERROR_SOURCES: tuple[str, ...] = (*DISTRACTOR_TYPES, UNPARSED_SOURCE)
_SHOWN_MISMATCHES = 5


class PairError(ValueError):
    """Two runs that cannot be compared item by item; the message names both run ids."""

    def __init__(self, run_a: str, run_b: str, reason: str):
        self.run_a, self.run_b, self.reason = run_a, run_b, reason
        super().__init__(f"cannot pair runs {run_a!r} (a) and {run_b!r} (b): {reason}")


@dataclass(frozen=True)
class Gap:
    """b - a in points (0-100 scale) with paired-bootstrap percentile intervals."""

    accuracy: float
    macro_f1: float
    accuracy_ci: Interval
    macro_f1_ci: Interval


@dataclass(frozen=True)
class ErrorSources:
    """Where an arm's wrong answers went: the source of the chosen letter, or unparsed."""

    total: int
    counts: dict[str, int]  # keys ERROR_SOURCES, in that order


@dataclass(frozen=True)
class CategoryComparison:
    label: str  # spelled as in the CSV
    n: int
    a: ClassificationReport
    b: ClassificationReport
    gap: Gap
    fixes: int
    breaks: int
    mcnemar_p: float
    holm_p: float  # Holm-adjusted across the categories present in the pair


@dataclass(frozen=True)
class SettingDifference:
    """One generation setting on which the two arms of a pair were not run alike."""

    setting: str  # one of COMPARED_SETTINGS
    a: str  # as recorded by run a ("not recorded" when absent)
    b: str


# Settings that must agree for a gap to measure the term alone. The dataset variant, task,
# option seed, content hash, prompt language, items asked, the tool that made the run and the
# prompt's version are compared elsewhere: arms that differ there are never paired at all
# (find_pairs, _header_mismatch); the prompt stays listed for pairs made by hand.
COMPARED_SETTINGS = ("temperature", "top_p", "max_tokens", "prompt")
_NOT_RECORDED = "not recorded"


def setting_differences(run_a: Run, run_b: Run) -> tuple[SettingDifference, ...]:
    """Where the arms' recorded generation settings differ. The prompt is compared as its
    version: the protocol id with the arm's condition taken out (the blind and sighted prompts
    of one protocol family necessarily differ in text, so their sha256 cannot be compared),
    and the protocol version; a blind protocol that names its sighted arm (`pairs_with`) is
    compared as that arm's family."""
    out = []
    for setting in COMPARED_SETTINGS:
        (key_a, shown_a), (key_b, shown_b) = _setting(run_a.header, setting), _setting(run_b.header, setting)
        if key_a != key_b:
            out.append(SettingDifference(setting, shown_a, shown_b))
    return tuple(out)


def prompt_version(header: Header) -> str:
    """The run's prompt as compared between arms (see `setting_differences`): two arms pair,
    and runs pool into one model summary, only when this is the same."""
    return _setting(header, "prompt")[0]


def _setting(header: Header, setting: str) -> tuple[str, str]:
    """(what is compared, what is shown) for one setting of one run."""
    parameters = header.subject.get("parameters") or {}
    if setting != "prompt":
        value = parameters.get(setting)
        shown = _NOT_RECORDED if value is None else f"{value:g}" if isinstance(value, float) else str(value)
        return shown, shown
    protocol, version = parameters.get("protocol"), parameters.get("protocol_version")
    if protocol is None:
        return _NOT_RECORDED, _NOT_RECORDED
    paired = parameters.get("pairs_with")  # a blind protocol may name the sighted one it is the blind arm of
    if isinstance(paired, str) and " v" in paired:
        sighted_id, _, sighted_version = paired.rpartition(" v")
        return f"{_family(sighted_id, 'sighted')} v{sighted_version}", f"{protocol} v{version} (blind arm of {paired})"
    return f"{_family(str(protocol), header.condition)} v{version}", f"{protocol} v{version}"


def _family(protocol: str, condition: str) -> str:
    """The protocol id with its condition word taken out: t2-sighted-en -> t2-*-en."""
    return "-".join("*" if part == condition else part for part in protocol.split("-"))


@dataclass(frozen=True)
class PairedAnalysis:
    run_a: str  # baseline (blind)
    run_b: str  # treatment (sighted)
    task: str
    option_seed: int | None
    n: int  # shared items analysed
    only_a: int  # items only in run a (left out)
    only_b: int
    agreement: int  # items with the identical prediction string (two unparsed answers agree)
    agreement_share: float  # 0-100
    fixes: int  # a wrong, b right
    breaks: int  # a right, b wrong
    mcnemar_p: float  # exact two-sided binomial on fixes vs breaks; 1 when there are none
    a: ClassificationReport
    b: ClassificationReport
    ratio_accuracy: float | None  # 100 * a / b; None when b scores 0
    ratio_macro_f1: float | None
    gap: Gap
    categories: tuple[CategoryComparison, ...]  # in dataset category order, empty ones left out
    errors_a: ErrorSources | None  # Task 2 only
    errors_b: ErrorSources | None
    differences: tuple[SettingDifference, ...] = ()  # settings the arms were not run alike on


def analyse_pair(run_a: Run, run_b: Run, dataset: Dataset, *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> PairedAnalysis:
    """Compare baseline run a with treatment run b on their shared items (sorted by row_id,
    so the result does not depend on the order of lines in the run files)."""
    a_items, b_items = _by_row(run_a), _by_row(run_b)
    shared = sorted(a_items.keys() & b_items.keys())
    _check_comparable(run_a, run_b, dataset, shared, a_items, b_items)
    xs = [a_items[r] for r in shared]
    ys = [b_items[r] for r in shared]
    labels = labels_for(run_a.header.task)
    gold = _gold(run_a, xs, dataset)
    pa, pb = [i.prediction for i in xs], [i.prediction for i in ys]
    fixes, breaks = discordant(gold, pa, pb)
    rep_a, rep_b = classification_report(gold, pa, labels), classification_report(gold, pb, labels)
    agreement = sum(x == y for x, y in zip(pa, pb))
    errors = run_a.header.task == EQUIVALENT_SELECTION
    return PairedAnalysis(
        run_a=run_a.header.run_id, run_b=run_b.header.run_id, task=run_a.header.task,
        option_seed=run_a.header.option_seed, n=len(shared),
        only_a=len(a_items) - len(shared), only_b=len(b_items) - len(shared),
        agreement=agreement, agreement_share=100.0 * agreement / len(shared),
        fixes=fixes, breaks=breaks, mcnemar_p=mcnemar_exact(fixes, breaks), a=rep_a, b=rep_b,
        ratio_accuracy=_ratio(rep_a.accuracy, rep_b.accuracy),
        ratio_macro_f1=_ratio(rep_a.macro_f1, rep_b.macro_f1),
        gap=_gap(rep_a, rep_b, gold, pa, pb, labels, resamples, seed),
        categories=_categories(dataset, shared, gold, pa, pb, labels, resamples, seed),
        errors_a=_error_sources(xs, gold) if errors else None,
        errors_b=_error_sources(ys, gold) if errors else None,
        differences=setting_differences(run_a, run_b),
    )


def _by_row(run: Run) -> dict[int, Item]:
    return {item.row_id: item for item in run.items}


def _check_comparable(run_a: Run, run_b: Run, dataset: Dataset, shared: list[int],
                      a_items: dict[int, Item], b_items: dict[int, Item]) -> None:
    """Refuse pairs whose items were not the same questions: a gap would then be meaningless."""
    reason = _header_mismatch(run_a, run_b, dataset) or _item_mismatch(
        run_a.header.task, dataset, shared, a_items, b_items)
    if reason:
        raise PairError(run_a.header.run_id, run_b.header.run_id, reason)


def _header_mismatch(run_a: Run, run_b: Run, dataset: Dataset) -> str | None:
    ha, hb = run_a.header, run_b.header
    variant_a, variant_b = ha.variant, hb.variant
    hash_a, hash_b = (h.dataset.get("content_sha256") for h in (ha, hb))
    checks = (
        (ha.run_id == hb.run_id, "a run cannot be paired with itself"),
        (ha.task != hb.task, f"tasks differ ({ha.task} vs {hb.task})"),
        (ha.option_seed != hb.option_seed, f"option seeds differ ({ha.option_seed} vs {hb.option_seed})"),
        (variant_a != variant_b, f"dataset variants differ ({variant_a} vs {variant_b})"),
        (hash_a != hash_b, f"dataset content hashes differ ({hash_a} vs {hash_b})"),
        (hash_a != dataset.content_sha256,
         f"runs were made on other data than the loaded dataset ({hash_a} vs {dataset.content_sha256})"),
    )
    return next((reason for failed, reason in checks if failed), None)


def _item_mismatch(task: str, dataset: Dataset, shared: list[int], a_items: dict[int, Item],
                   b_items: dict[int, Item]) -> str | None:
    if not shared:
        return "the runs share no items"
    outside = [r for r in (shared[0], shared[-1]) if not 0 <= r < dataset.rows]
    if outside:
        return f"row_id {outside[0]} is not in the dataset"
    if task == EQUIVALENT_SELECTION:
        unmapped = [r for r in shared if GOLD not in (a_items[r].letter_map or {}).values()]
        if unmapped:
            return (f"{len(unmapped)} shared item(s) have no letter map with a correct option, "
                    f"e.g. row_id {_ids(unmapped)}")
    differing = [r for r in shared if a_items[r].letter_map != b_items[r].letter_map]
    if differing:
        return f"letter maps differ on {len(differing)} shared item(s), e.g. row_id {_ids(differing)}"
    return None


def _ids(row_ids: list[int]) -> str:
    return ", ".join(map(str, row_ids[:_SHOWN_MISMATCHES]))


def _gold(run: Run, items: list[Item], dataset: Dataset) -> list[str]:
    if run.header.task == EQUIVALENT_SELECTION:
        return [_gold_letter(item.letter_map or {}) for item in items]
    harm = dataset.column("harmful_label")
    return [harm[item.row_id] for item in items]


def _gold_letter(letter_map: dict[str, str]) -> str:
    return next(letter for letter, source in letter_map.items() if source == GOLD)


def _ratio(a: float, b: float) -> float | None:
    return 100.0 * a / b if b > 0 else None


def _gap(rep_a: ClassificationReport, rep_b: ClassificationReport, gold: list[str], pa: list[str],
         pb: list[str], labels: Sequence[str], resamples: int, seed: int) -> Gap:
    ci = paired_bootstrap_difference(gold, pb, pa, labels, resamples=resamples, seed=seed)  # b - a
    return Gap(rep_b.accuracy - rep_a.accuracy, rep_b.macro_f1 - rep_a.macro_f1,
               ci["accuracy"], ci["macro_f1"])


def _categories(dataset: Dataset, shared: list[int], gold: list[str], pa: list[str], pb: list[str],
                labels: Sequence[str], resamples: int, seed: int) -> tuple[CategoryComparison, ...]:
    label_of = dataset.column("category_label")
    positions: dict[str, list[int]] = {}
    for i, row_id in enumerate(shared):
        positions.setdefault(label_of[row_id], []).append(i)
    parts = []
    for label in (c for c in CATEGORIES if c in positions):
        picks = positions[label]
        g, x, y = [gold[i] for i in picks], [pa[i] for i in picks], [pb[i] for i in picks]
        rep_a, rep_b = classification_report(g, x, labels), classification_report(g, y, labels)
        fixes, breaks = discordant(g, x, y)
        parts.append((label, len(picks), rep_a, rep_b, _gap(rep_a, rep_b, g, x, y, labels, resamples, seed),
                      fixes, breaks, mcnemar_exact(fixes, breaks)))
    adjusted = holm([p[-1] for p in parts])
    return tuple(CategoryComparison(*p, holm_p=h) for p, h in zip(parts, adjusted))


def _error_sources(items: list[Item], gold: list[str]) -> ErrorSources:
    counts = dict.fromkeys(ERROR_SOURCES, 0)
    for item, g in zip(items, gold):
        if item.prediction == g:
            continue
        source = (item.letter_map or {}).get(item.prediction)
        counts[source if source in counts else UNPARSED_SOURCE] += 1
    return ErrorSources(sum(counts.values()), counts)
