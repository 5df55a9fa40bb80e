"""The set of correct options of a record: one (the usual item), or several when the target is
a list (a field holding `["A", "C"]`, or a template rendering a list literal such as
`[0, 2]`): multi-answer records (GAOKAO's physics, ChemBench's `target_scores`) are kept as
such. Each element is read exactly as a single target is (fields.target), so an index, a
letter or a choice's text work alike. The audit leaves multi-answer items out of its
option-only probes (finding `multiple_answers`); whoever scores answers against them scores
exact sets (`exact_set_correct`: all the correct options and no other).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from typing import Any

from builder.benchmarks.mcq.fields import RecordProblem, Rule, target
from builder.core.redact import excerpt

VALUE = Rule("value", "field", ("value",))  # reads an already-rendered value handed over as {"value": ...}


def gold_set(rule: Rule, record: Mapping[str, Any], options: tuple[str, ...], keys: tuple[str, ...] | None = None,
             context: Mapping[str, Any] | None = None, kind: str | None = None) -> tuple[int, ...]:
    """The correct options' 0-based indices, in the target's order, without repeats (one render);
    `kind` is the spec's target_kind, applied to each element."""
    value = rule.raw(record, context)
    values = _as_list(value, rule.kind == "template")
    if values is None:
        return (target(VALUE, {"value": value}, options, keys, kind=kind),)
    if not values:
        raise RecordProblem("target is an empty list: a record needs at least one correct option")
    found: list[int] = []
    for element in values:
        index = target(VALUE, {"value": element}, options, keys, kind=kind)
        if index not in found:
            found.append(index)
    return tuple(found)


def _as_list(value: Any, rendered: bool) -> list[Any] | None:
    """The target's elements when it is a list (a template's text: a list literal), else None."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if rendered and isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise RecordProblem(f"target must render an answer or a list literal, rendered "
                                f"{excerpt(value.strip(), 80)}") from None
        if isinstance(parsed, list):
            return parsed
    return None


def exact_set_correct(answers: Collection[int], predicted: Collection[int]) -> bool:
    """A multi-answer item is answered right only by all of its correct options and no other."""
    return set(answers) == set(predicted)
