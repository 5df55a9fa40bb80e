"""Evaluate claims written in YAML against measures computed at build time.

A claim names conditions; each condition asks a registered measure for evidence
(labelled numbers), aggregates it and compares it with a threshold. The same
engine serves the falsification tracker (open / supported / refuted / expired) and
checks of a paper's statements over its own tables (holds / does not hold).
"""

from __future__ import annotations

import datetime as dt
import operator
import re
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
}
AGGREGATES = ("all", "any", "min", "max", "mean", "count")


@dataclass(frozen=True)
class Evidence:
    label: str
    value: float
    detail: str = ""  # e.g. the run id or the figures behind a derived value


@dataclass(frozen=True)
class Condition:
    measure: str
    params: Mapping[str, Any]
    aggregate: str
    op: str
    threshold: float
    text: str = ""  # how a reader should read the condition

    def describe(self) -> str:
        return self.text or f"{self.aggregate} of {self.measure} {self.op} {self.threshold:g}"


@dataclass(frozen=True)
class ConditionResult:
    condition: Condition
    evidence: tuple[Evidence, ...]
    value: float | None  # the aggregated value compared with the threshold
    holds: bool | None  # None: no evidence yet
    excluded: tuple[Evidence, ...] = ()  # evidence of subjects outside the claim's population
    missing: tuple[str, ...] = ()  # named subjects without evidence (the condition waits for them)


Measure = Callable[..., list[Evidence]]


@dataclass
class MeasureRegistry:
    measures: dict[str, Measure] = field(default_factory=dict)

    def register(self, name: str, function: Measure) -> None:
        if name in self.measures:
            raise ValueError(f"measure {name!r} registered twice")
        self.measures[name] = function

    def evidence(self, condition: Condition) -> list[Evidence]:
        if condition.measure not in self.measures:
            raise KeyError(f"unknown measure {condition.measure!r} (known: {', '.join(sorted(self.measures))})")
        return self.measures[condition.measure](**condition.params)


def evaluate(condition: Condition, registry: MeasureRegistry, population: "Population | None" = None,
             eligible: frozenset[str] | None = None) -> ConditionResult:
    """Aggregate the condition's evidence; with a population, only its subjects' evidence counts,
    and a condition that lacks a named subject has no verdict yet."""
    evidence = tuple(registry.evidence(condition))
    excluded: tuple[Evidence, ...] = ()
    missing: tuple[str, ...] = ()
    if population is not None:
        evidence, excluded = population.split(evidence, eligible)
        missing = population.missing(evidence)
    compare = OPS[condition.op]
    if not evidence or missing:
        return ConditionResult(condition, evidence, None, None, excluded, missing)
    values = [e.value for e in evidence]
    if condition.aggregate in ("all", "any"):
        test = all if condition.aggregate == "all" else any
        return ConditionResult(condition, evidence, None, test(compare(v, condition.threshold) for v in values),
                               excluded, missing)
    value = _aggregate(condition.aggregate, values)
    return ConditionResult(condition, evidence, value, compare(value, condition.threshold), excluded, missing)


def _aggregate(name: str, values: list[float]) -> float:
    if name == "count":
        return float(len(values))
    return {"min": min, "max": max, "mean": statistics.fmean}[name](values)


@dataclass(frozen=True)
class Population:
    """Whose evidence a prediction is about. Evidence of other subjects is shown beside the
    verdict but never counted: a 1.5B model meeting half of a claim about frontier models says
    nothing about it. `subjects` are patterns that must each have evidence before a condition
    can hold or fail; `qualify` is a condition every counted subject must meet on its own."""

    text: str
    subjects: tuple[str, ...] = ()
    qualify: Condition | None = None

    def eligible(self, registry: MeasureRegistry) -> frozenset[str] | None:
        """Labels (subjects) that meet `qualify`, each aggregated over its own evidence."""
        if self.qualify is None:
            return None
        by_label: dict[str, list[float]] = {}
        for e in registry.evidence(self.qualify):
            by_label.setdefault(e.label, []).append(e.value)
        q = self.qualify
        agg = q.aggregate if q.aggregate not in ("all", "any") else "min" if q.aggregate == "all" else "max"
        return frozenset(label for label, values in by_label.items()
                         if OPS[q.op](_aggregate(agg, values), q.threshold))

    def split(self, evidence: tuple[Evidence, ...], eligible: frozenset[str] | None
              ) -> tuple[tuple[Evidence, ...], tuple[Evidence, ...]]:
        def counts(e: Evidence) -> bool:
            named = not self.subjects or any(re.search(s, e.label, re.I) for s in self.subjects)
            return named and (eligible is None or e.label in eligible)
        return tuple(e for e in evidence if counts(e)), tuple(e for e in evidence if not counts(e))

    def missing(self, evidence: tuple[Evidence, ...]) -> tuple[str, ...]:
        return tuple(s for s in self.subjects if not any(re.search(s, e.label, re.I) for e in evidence))


@dataclass(frozen=True)
class Prediction:
    id: str
    claim: str
    source: str
    registered: dt.date
    deadline: dt.date | None
    supported_when: tuple[Condition, ...]  # all must hold
    refuted_when: tuple[Condition, ...]  # any one suffices
    note: str = ""
    population: Population | None = None


@dataclass(frozen=True)
class PredictionVerdict:
    prediction: Prediction
    status: str  # open | supported | refuted | expired
    supported: tuple[ConditionResult, ...]
    refuted: tuple[ConditionResult, ...]


def judge_prediction(prediction: Prediction, registry: MeasureRegistry, today: dt.date) -> PredictionVerdict:
    """Refutation wins over support; a deadline passed without either is 'expired'."""
    population = prediction.population
    eligible = population.eligible(registry) if population else None
    supported = tuple(evaluate(c, registry, population, eligible) for c in prediction.supported_when)
    refuted = tuple(evaluate(c, registry, population, eligible) for c in prediction.refuted_when)
    if any(r.holds for r in refuted):
        status = "refuted"
    elif supported and all(r.holds for r in supported):
        status = "supported"
    elif prediction.deadline is not None and today > prediction.deadline:
        status = "expired"
    else:
        status = "open"
    return PredictionVerdict(prediction, status, supported, refuted)


@dataclass(frozen=True)
class Statement:
    """A published statement checked against the publication's own figures."""

    id: str
    claim: str
    source: str
    holds_when: tuple[Condition, ...]  # all must hold
    note: str = ""


@dataclass(frozen=True)
class StatementVerdict:
    statement: Statement
    status: str  # holds | does not hold | no evidence
    results: tuple[ConditionResult, ...]


def judge_statement(statement: Statement, registry: MeasureRegistry) -> StatementVerdict:
    results = tuple(evaluate(c, registry) for c in statement.holds_when)
    if any(r.holds is None for r in results):
        status = "no evidence"
    else:
        status = "holds" if all(r.holds for r in results) else "does not hold"
    return StatementVerdict(statement, status, results)
