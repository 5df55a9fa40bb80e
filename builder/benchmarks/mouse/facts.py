"""Mouse figures as FactTable entries, for the lead's compute stage to call.

Keys (documented in docs/mouse.md) live under `mouse.`; values stay on the paper's 0-1
scale (MCC and QWK in [-1, 1]) so measured and reported Mouse figures compare directly.
Undefined values (a QWK with no spread) are left out rather than stored as NaN.
"""

from __future__ import annotations

import math

from builder.core.facts import FactTable
from builder.stats import Interval
from builder.benchmarks.mouse.metrics import Agreement, ClassScores, RCScores, TranslationScores
from builder.benchmarks.mouse.fact_keys import REPORTED_CELL
from builder.benchmarks.mouse.reported import Reported
from builder.core.names import slug

BOOT = "seeded percentile bootstrap over items, 95%"
REPORTED = "reported by the paper"


def _add(facts: FactTable, key: str, value: float, how: str, runs: tuple[str, ...],
         interval: Interval | None = None) -> None:
    if not math.isfinite(value):
        return
    facts.add(key, value, how, runs)
    if interval is not None:
        facts.add(f"{key}.ci95_low", interval.low, BOOT, runs)
        facts.add(f"{key}.ci95_high", interval.high, BOOT, runs)


def add_class_facts(facts: FactTable, base: str, s: ClassScores, runs: tuple[str, ...] = ()) -> None:
    """`<base>.{n,unparsed,accuracy,balanced_accuracy,macro_f1,mcc,f1.<label>}`."""
    facts.add(f"{base}.n", s.n, "items scored", runs)
    facts.add(f"{base}.unparsed", s.unparsed, "answers that could not be parsed (scored wrong)", runs)
    for metric in ("accuracy", "balanced_accuracy", "macro_f1", "mcc"):
        scale = "-1 to 1" if metric == "mcc" else "0-1"
        _add(facts, f"{base}.{metric}", getattr(s, metric), f"{metric} (scikit-learn semantics, {scale})", runs,
             s.intervals.get(metric))
    for label, value in s.f1.items():
        _add(facts, f"{base}.f1.{label}", value, f"F1 of label {label} (0-1)", runs, s.intervals.get(f"f1_{label}"))


def add_rc_facts(facts: FactTable, base: str, s: RCScores, runs: tuple[str, ...] = ()) -> None:
    for component, scores in s.components.items():
        add_class_facts(facts, f"{base}.{component}", scores, runs)
    for metric in ("balanced_accuracy", "macro_f1"):
        _add(facts, f"{base}.{metric}", getattr(s, metric), f"{metric} averaged over the three components", runs,
             s.intervals.get(metric))


def add_tr_facts(facts: FactTable, base: str, s: TranslationScores, runs: tuple[str, ...] = ()) -> None:
    for name in ("n", "missing", "copied", "judge_unparsed"):
        facts.add(f"{base}.{name}", getattr(s, name), f"TR items: {name}", runs)
    _add(facts, f"{base}.semantic_accuracy", s.semantic_accuracy, "mean judge score / 2 (copy or unparsed = 0)",
         runs, s.intervals.get("semantic_accuracy"))
    _add(facts, f"{base}.perfect_rate", s.perfect_rate, "share of translations scored 2", runs,
         s.intervals.get("perfect_rate"))


def add_agreement_facts(facts: FactTable, base: str, a: Agreement, runs: tuple[str, ...] = ()) -> None:
    facts.add(f"{base}.n", a.n, "items with both a judge and a human score", runs)
    _add(facts, f"{base}.qwk", a.qwk, "quadratic weighted kappa, judge vs human", runs, a.intervals.get("qwk"))


def add_reported_facts(facts: FactTable, reported: Reported) -> None:
    """`mouse.reported.<table>.<row slug>.<column>` for every cell of Tables 3, 4 and 6."""
    cite = reported.source.citation()
    for table in (reported.main, reported.mcc, reported.human_cc):
        for row, values in table.rows.items():
            name = reported.humans.get(row, row)
            for column, value in values.items():
                facts.add(REPORTED_CELL.key(table=table.name, row=slug(name), column=column), value,
                          f"{REPORTED}: {cite}, Table {table.table}")
