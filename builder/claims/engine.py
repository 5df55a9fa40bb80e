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
    note: str = ""  # the figures in words, when the value alone does not say what was compared
    subject: str = ""  # whose evidence it is, when the label adds to the name (populations, premises)

    @property
    def who(self) -> str:
        return self.subject or self.label


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
    uninformative: tuple[Evidence, ...] = ()  # evidence of subjects that fail the prediction's premise


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
             eligible: frozenset[str] | None = None, informative: frozenset[str] | None = None) -> ConditionResult:
    """Aggregate the condition's evidence; with a population, only its subjects' evidence counts,
    and a condition that lacks a named subject has no verdict yet; with `informative` (the
    subjects that meet the prediction's premise), only theirs counts."""
    evidence = tuple(registry.evidence(condition))
    excluded: tuple[Evidence, ...] = ()
    uninformative: tuple[Evidence, ...] = ()
    if population is not None:
        evidence, excluded = population.split(evidence, eligible)
    if informative is not None:
        uninformative = tuple(e for e in evidence if e.who not in informative)
        evidence = tuple(e for e in evidence if e.who in informative)
    missing = population.missing(evidence) if population is not None else ()
    compare = OPS[condition.op]
    if not evidence or missing:
        return ConditionResult(condition, evidence, None, None, excluded, missing, uninformative)
    values = [e.value for e in evidence]
    if condition.aggregate in ("all", "any"):
        test = all if condition.aggregate == "all" else any
        return ConditionResult(condition, evidence, None, test(compare(v, condition.threshold) for v in values),
                               excluded, missing, uninformative)
    value = _aggregate(condition.aggregate, values)
    return ConditionResult(condition, evidence, value, compare(value, condition.threshold), excluded, missing,
                           uninformative)


def _aggregate(name: str, values: list[float]) -> float:
    if name == "count":
        return float(len(values))
    aggregate: dict[str, Callable[[list[float]], float]] = {"min": min, "max": max, "mean": statistics.fmean}
    return aggregate[name](values)


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
        return frozenset(who for who, (holds, _) in per_subject(self.qualify, registry).items() if holds)

    def split(self, evidence: tuple[Evidence, ...], eligible: frozenset[str] | None
              ) -> tuple[tuple[Evidence, ...], tuple[Evidence, ...]]:
        def counts(e: Evidence) -> bool:
            named = not self.subjects or any(re.search(s, e.who, re.I) for s in self.subjects)
            return named and (eligible is None or e.who in eligible)
        return tuple(e for e in evidence if counts(e)), tuple(e for e in evidence if not counts(e))

    def missing(self, evidence: tuple[Evidence, ...]) -> tuple[str, ...]:
        return tuple(s for s in self.subjects if not any(re.search(s, e.who, re.I) for e in evidence))


def per_subject(condition: Condition, registry: MeasureRegistry) -> dict[str, tuple[bool, tuple[Evidence, ...]]]:
    """Each subject's own verdict on `condition` (its evidence aggregated alone), with that evidence."""
    by_who: dict[str, list[Evidence]] = {}
    for e in registry.evidence(condition):
        by_who.setdefault(e.who, []).append(e)
    agg = {"all": "min", "any": "max"}.get(condition.aggregate, condition.aggregate)
    compare = OPS[condition.op]
    return {who: (compare(_aggregate(agg, [e.value for e in found]), condition.threshold), tuple(found))
            for who, found in by_who.items()}


@dataclass(frozen=True)
class Premise:
    """What a run must show before it can count as evidence either way: a model whose blind arm
    cannot read the original options cannot show that a new option set takes that reading away.
    Judged per subject; a subject without evidence for it is not informative either."""

    text: str
    condition: Condition


@dataclass(frozen=True)
class PremiseCheck:
    subject: str
    informative: bool
    evidence: tuple[Evidence, ...]  # the premise's figures for this subject (empty: nothing to judge it on)


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
    premise: Premise | None = None


@dataclass(frozen=True)
class PredictionVerdict:
    prediction: Prediction
    status: str  # open | supported | refuted | expired
    supported: tuple[ConditionResult, ...]
    refuted: tuple[ConditionResult, ...]
    premise_checks: tuple[PremiseCheck, ...] = ()  # every subject with evidence, informative or not

    @property
    def uninformative(self) -> tuple[PremiseCheck, ...]:
        return tuple(c for c in self.premise_checks if not c.informative)


def judge_prediction(prediction: Prediction, registry: MeasureRegistry, today: dt.date) -> PredictionVerdict:
    """Refutation wins over support; a deadline passed without either is 'expired'. Only
    evidence of subjects that meet the premise counts; the others are listed with its figures."""
    population = prediction.population
    eligible = population.eligible(registry) if population else None
    checks = premise_checks(prediction, registry)
    informative = None if prediction.premise is None else frozenset(c.subject for c in checks if c.informative)
    supported = tuple(evaluate(c, registry, population, eligible, informative) for c in prediction.supported_when)
    refuted = tuple(evaluate(c, registry, population, eligible, informative) for c in prediction.refuted_when)
    if any(r.holds for r in refuted):
        status = "refuted"
    elif supported and all(r.holds for r in supported):
        status = "supported"
    elif prediction.deadline is not None and today > prediction.deadline:
        status = "expired"
    else:
        status = "open"
    return PredictionVerdict(prediction, status, supported, refuted, checks)


def premise_checks(prediction: Prediction, registry: MeasureRegistry) -> tuple[PremiseCheck, ...]:
    """The premise's verdict for every subject that has evidence in the prediction's conditions,
    in name order."""
    if prediction.premise is None:
        return ()
    judged = per_subject(prediction.premise.condition, registry)
    seen = {e.who for c in (*prediction.supported_when, *prediction.refuted_when) for e in registry.evidence(c)}
    return tuple(PremiseCheck(who, *judged.get(who, (False, ()))) for who in sorted(seen))


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
