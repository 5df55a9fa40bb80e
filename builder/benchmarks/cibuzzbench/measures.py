"""Measures over this build's runs and facts, for the falsification tracker."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.fact_keys import PAIR_SETTINGS_DIFFER
from builder.benchmarks.cibuzzbench.wording import option_seed_label, option_set_label, selection_label
from builder.claims.engine import Evidence, MeasureRegistry
from builder.core.facts import FactTable


METRIC_NAMES = {"accuracy": "accuracy", "macro_f1": "macro F1"}


def _matches(score: RunScore, task: str | None, condition: str | None, variant: str | None,
             subject: str | None, kind: str | None, scope: str | None) -> bool:
    h = score.run.header
    checks = (
        task is None or h.task == task,
        condition is None or h.condition == condition,
        variant is None or h.variant == variant,
        subject is None or re.search(subject, h.subject_name, re.I) is not None,
        kind is None or h.subject.get("kind") == kind,
        scope is None or h.scope == scope,
    )
    return all(checks)


def run_metric_measure(scores: Iterable[RunScore]) -> Callable[..., list[Evidence]]:
    """Evidence: one value per matching complete run (its accuracy or macro F1); a run still
    in progress is no evidence yet, nor is a run imported with warnings (Run.in_aggregates)."""
    frozen = list(scores)

    def measure(metric: str = "macro_f1", task: str | None = "equivalent_selection", condition: str | None = None,
                variant: str | None = "original", subject: str | None = None, kind: str | None = None,
                scope: str | None = None) -> list[Evidence]:
        if metric not in ("accuracy", "macro_f1"):
            raise ValueError(f"run_metric: metric must be accuracy or macro_f1, not {metric!r}")
        return [Evidence(s.run.header.subject_name, getattr(s.report, metric), s.run_id)
                for s in frozen if s.run.in_aggregates and _matches(s, task, condition, variant, subject, kind, scope)]
    return measure


def above_chance_measure(scores: Iterable[RunScore], facts: FactTable) -> Callable[..., list[Evidence]]:
    """Evidence: per matching complete run, its score minus the top of the random letter's 95%
    interval on the same items and option order (positive: above chance), the figures in words."""
    frozen = list(scores)

    def measure(metric: str = "macro_f1", task: str | None = "equivalent_selection", condition: str | None = "blind",
                variant: str | None = "original", subject: str | None = None, kind: str | None = "model",
                scope: str | None = None) -> list[Evidence]:
        if metric not in ("accuracy", "macro_f1"):
            raise ValueError(f"above_chance: metric must be accuracy or macro_f1, not {metric!r}")
        out = []
        for s in frozen:
            on = {"run_id": s.run_id, "metric": metric}
            if s.run.complete and _matches(s, task, condition, variant, subject, kind, scope) \
                    and K.RUN_CHANCE.key(**on) in facts:
                value, low, high = (facts[K.RUN_SCORE.key(**on)], facts[K.RUN_CHANCE.low(**on)],
                                    facts[K.RUN_CHANCE.high(**on)])
                out.append(Evidence(s.run.header.subject_name, value - high, s.run_id,
                                    _chance_note(s, metric, value, low, high)))
        return out
    return measure


def _chance_note(s: RunScore, metric: str, value: float, low: float, high: float) -> str:
    h = s.run.header
    where = "above" if value > high else "inside" if value >= low else "below"
    return (f"{h.condition} {METRIC_NAMES[metric]} {value:.1f} on the {option_set_label(h.variant).lower()} option "
            f"set, {where} the random letter's 95% interval ({low:.1f} to {high:.1f}) on the same items "
            f"({selection_label(h.items)}, {option_seed_label(h.option_seed)})")


def fact_measure(facts: FactTable) -> Callable[..., list[Evidence]]:
    """Evidence: one fact, if it exists (absent facts are 'no evidence yet')."""
    def measure(key: str, label: str | None = None) -> list[Evidence]:
        return [Evidence(label or key, facts[key], key)] if key in facts else []
    return measure


def pair_metric_measure(pairs: Iterable[tuple[str, RunScore, RunScore]], facts: FactTable) -> Callable[..., list[Evidence]]:
    """Evidence: one value per matching (pair id, blind run, sighted run), read from pair facts."""
    frozen = list(pairs)

    def measure(metric: str = "gap.macro_f1", task: str | None = "equivalent_selection", variant: str | None = "original",
                subject: str | None = None, scope: str | None = None) -> list[Evidence]:
        out = []
        for pid, blind, sighted in frozen:
            key = f"pair.{pid}.{metric}"
            if _matches(blind, task, None, variant, subject, None, scope) and key in facts:
                out.append(Evidence(_pair_label(blind, facts, pid), facts[key], key,
                                    subject=blind.run.header.subject_name))
        return out
    return measure


def _pair_label(blind: RunScore, facts: FactTable, pid: str) -> str:
    """The model's name, flagged when the two arms were not run with the same settings."""
    key = PAIR_SETTINGS_DIFFER.key(pair_id=pid)
    name = blind.run.header.subject_name
    return f"{name} ({facts.provenance[key].computation})" if facts.values.get(key, 0) else name


def register_run_measures(registry: MeasureRegistry, scores: Iterable[RunScore], facts: FactTable,
                          pairs: Iterable[tuple[str, RunScore, RunScore]] = ()) -> None:
    scores = list(scores)
    registry.register("run_metric", run_metric_measure(scores))
    registry.register("pair_metric", pair_metric_measure(pairs, facts))
    registry.register("fact", fact_measure(facts))
    registry.register("above_chance", above_chance_measure(scores, facts))
