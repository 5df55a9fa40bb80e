"""The one table of facts every page draws its numbers from.

Each fact keeps its provenance (the computation and the runs behind it) so a page
can show where a figure came from; `facts.json` publishes the bare values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Number = int | float


@dataclass(frozen=True)
class Provenance:
    computation: str  # a short, stable description of how the value was computed
    runs: tuple[str, ...] = ()


@dataclass
class FactTable:
    values: dict[str, Number] = field(default_factory=dict)
    provenance: dict[str, Provenance] = field(default_factory=dict)

    def add(self, key: str, value: Number, computation: str, runs: tuple[str, ...] = ()) -> None:
        if key in self.values:
            raise ValueError(f"fact {key!r} computed twice")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"fact {key!r} must be a number, got {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"fact {key!r} is not finite: {value}")
        self.values[key] = value
        self.provenance[key] = Provenance(computation, tuple(runs))

    def update(self, other: "FactTable") -> None:
        """Every fact of `other` (e.g. one run's, computed once and cached), each added as `add` would."""
        for key, value in other.values.items():
            found = other.provenance[key]
            self.add(key, value, found.computation, found.runs)

    def __getitem__(self, key: str) -> Number:
        return self.values[key]

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def as_json(self) -> dict[str, Number]:
        return dict(sorted(self.values.items()))

    def provenance_json(self) -> dict[str, dict[str, Any]]:
        return {k: {"computation": p.computation, "runs": list(p.runs)}
                for k, p in sorted(self.provenance.items())}
