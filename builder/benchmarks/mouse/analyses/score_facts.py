"""A Mouse run's scores as FactTable entries under a base key (analyses.measured_runs calls them).

Keys (documented in docs/mouse.md) live under `mouse.`; values stay on the paper's 0-1
scale (MCC in [-1, 1]) so measured and reported Mouse figures compare directly.
Undefined values are left out rather than stored as NaN.
"""

from __future__ import annotations

import math

from builder.core.facts import FactTable
from builder.stats import Interval
from builder.benchmarks.mouse.analyses.metrics import ClassScores, RCScores, TranslationScores

BOOT = "seeded percentile bootstrap over items, 95%"


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
