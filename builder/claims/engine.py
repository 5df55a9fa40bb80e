"""Evaluate claims written in YAML against measures computed at build time.

A claim names conditions; each condition asks a registered measure for evidence
(labelled numbers), aggregates it and compares it with a threshold. The same
engine serves the falsification tracker (open / supported / refuted / expired) and
checks of a paper's statements over its own tables (holds / does not hold).
"""

from __future__ import annotations

import datetime as dt
import operator
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


def evaluate(condition: Condition, registry: MeasureRegistry) -> ConditionResult:
    evidence = tuple(registry.evidence(condition))
    compare = OPS[condition.op]
    if not evidence:
        return ConditionResult(condition, evidence, None, None)
    values = [e.value for e in evidence]
    if condition.aggregate == "all":
        return ConditionResult(condition, evidence, None, all(compare(v, condition.threshold) for v in values))
    if condition.aggregate == "any":
        return ConditionResult(condition, evidence, None, any(compare(v, condition.threshold) for v in values))
    value = _aggregate(condition.aggregate, values)
    return ConditionResult(condition, evidence, value, compare(value, condition.threshold))


def _aggregate(name: str, values: list[float]) -> float:
    if name == "count":
        return float(len(values))
    return {"min": min, "max": max, "mean": statistics.fmean}[name](values)


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


@dataclass(frozen=True)
class PredictionVerdict:
    prediction: Prediction
    status: str  # open | supported | refuted | expired
    supported: tuple[ConditionResult, ...]
    refuted: tuple[ConditionResult, ...]


def judge_prediction(prediction: Prediction, registry: MeasureRegistry, today: dt.date) -> PredictionVerdict:
    """Refutation wins over support; a deadline passed without either is 'expired'."""
    supported = tuple(evaluate(c, registry) for c in prediction.supported_when)
    refuted = tuple(evaluate(c, registry) for c in prediction.refuted_when)
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
