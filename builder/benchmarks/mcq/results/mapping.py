"""The spec's `results` mapping: which fields of a generic results file (JSON, JSONL or CSV)
hold the item id, the model's answer (a letter or option text, a raw response, or both) and
what the file says the item was (question, options, gold), for `--format mapped`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KEYS = ("id", "prediction", "response", "question", "options", "gold", "records")


@dataclass(frozen=True)
class ResultsMapping:
    id: str
    prediction: str | None = None
    response: str | None = None
    question: str | None = None
    options: str | None = None
    gold: str | None = None
    records: str | None = None  # JSON: the key of the list when the file is an object


def mapping_problems(value: Any) -> list[tuple[str, str]]:
    """(key, message) for each problem of a `results` value; [] when it is usable."""
    if not isinstance(value, Mapping):
        return [("results", "must be a mapping of result fields (id, prediction or response, ...)")]
    problems = [(f"results.{k}", f"unknown key (allowed: {', '.join(KEYS)})") for k in sorted(set(map(str, value)) - set(KEYS))]
    problems += [(f"results.{k}", "must be a field name (non-empty text)") for k, v in value.items()
                 if k in KEYS and not (isinstance(v, str) and v.strip())]
    if "id" not in value:
        problems.append(("results.id", "required: the field holding the item id"))
    if "prediction" not in value and "response" not in value:
        problems.append(("results", "name the field of the answer: prediction (a letter or option text), response, "
                                    "or both"))
    return problems


def results_mapping(value: Mapping[str, str] | None) -> ResultsMapping | None:
    return None if value is None else ResultsMapping(**{k: value[k] for k in KEYS if k in value})
