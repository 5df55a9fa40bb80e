"""Checks every run gets whatever its benchmark: footer, token counts, generation settings.

A benchmark's validation (CIBuzzBench: builder.benchmarks.cibuzzbench.run_checks, Mouse:
builder.benchmarks.mouse.runs) recomputes which items a run must hold from its own dataset and
then calls these, so a finished run, a token total or a temperature means the same everywhere.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from builder.core.errors import InputError, Problem
from builder.probing.selection import Selection
from builder.runs.schema import Run, usage_totals

_SHOWN = 5  # row_ids named in a message about many items


def number_problems(run: Run, latency: float | None, usage: dict[str, Any] | None, line: int) -> list[Problem]:
    """Latency and token counts of one item line: finite, non-negative, counts integral."""
    problems = []
    if latency is not None and not (math.isfinite(latency) and latency >= 0):
        problems.append(Problem(run.path, f"latency {latency!r} is not a finite number >= 0", line, "latency_ms"))
    for key, value in (usage or {}).items():
        if type(value) is not int or value < 0:
            problems.append(Problem(run.path, f"token count {value!r} is not an integer >= 0", line, f"usage.{key}"))
    return problems


def declared_row_ids(run: Run, pool: Any) -> tuple[set[int] | None, list[Problem]]:
    """Recompute the header's selection (all, a split, a seeded sample, the first n) on `pool`
    (anything with `row_ids(split)`: a dataset, a spec'd benchmark's items); None when the
    header declares an impossible one."""
    try:
        declared = set(Selection.from_header(run.header.items).row_ids(pool))
    except InputError as exc:  # an impossible sample size; relocate the message to the header
        return None, [Problem(run.path, exc.problems[0].message, 1, "items.n")]
    except (KeyError, TypeError, ValueError) as exc:
        return None, [Problem(run.path, f"not a selection this benchmark knows: {str(exc)[:120]}", 1, "items")]
    n = run.header.items.get("n")
    if n is not None and n != len(declared):
        return declared, [Problem(run.path, f"header declares n={n}, but its selection "
                                  f"{selection_text(run)} holds {len(declared)} items", 1, "items.n")]
    return declared, []


def selection_text(run: Run) -> str:
    return json.dumps({k: v for k, v in run.header.items.items() if k != "n"}, sort_keys=True)


def outside_selection(run: Run, declared: set[int], unknown: Callable[[int], str]) -> list[Problem]:
    """Items the declared selection does not hold: each named (`unknown` says why) when few, else
    one message (a wrong sample_seed or split in the header makes every item wrong, and 400 lines
    would hide that)."""
    outside = [item.row_id for item in run.items if item.row_id not in declared]
    if len(outside) <= _SHOWN:
        return [Problem(run.path, unknown(r), run.item_lines.get(r), "row_id") for r in outside]
    return [Problem(run.path, f"{len(outside)} of the run's {len(run.items)} items are outside its declared "
                    f"selection {selection_text(run)} (e.g. row_id {', '.join(map(str, outside[:_SHOWN]))} on lines "
                    f"{', '.join(str(run.item_lines.get(r)) for r in outside[:_SHOWN])}): the header does not "
                    "describe these items", 1, "items")]


def no_items_problem(run: Run) -> list[Problem]:
    if run.items:
        return []
    return [Problem(run.path, "the run has a header but no items yet (a probe stopped before its first "
                    "answer): resume it with the same command, or delete the file", 1, "items")]


def footer_problems(run: Run, declared: set[int]) -> list[Problem]:
    """A footer agrees with its items (count, token totals) and marks only a run holding every
    declared item as finished."""
    if run.footer is None:
        return []
    line, problems = run.footer_line, []
    if run.footer.items != len(run.items):
        problems.append(Problem(run.path, f"footer counts {run.footer.items} items, file has {len(run.items)}",
                                line, "items"))
    missing = sorted(declared - set(run.row_ids))
    if missing:
        problems.append(Problem(run.path, f"footer marks the run finished, but {len(missing)} of the "
                                f"{len(declared)} declared items are missing (e.g. row_id "
                                f"{', '.join(map(str, missing[:_SHOWN]))}); finish the run, or delete the "
                                "footer line to show it as in progress", line, "type"))
    summed = usage_totals(run.items)
    if run.footer.usage_totals != summed:
        problems.append(Problem(run.path, f"footer token totals {run.footer.usage_totals} disagree with "
                                f"the sum over the items {summed}", line, "usage_totals"))
    return problems


# Generation settings a model run may record; each must be a finite number in its range.
_PARAMETER_RANGES: dict[str, tuple[float, float, bool]] = {  # name -> (low, high, integer)
    "temperature": (0.0, math.inf, False),
    "top_p": (0.0, 1.0, False),
    "max_tokens": (1, math.inf, True),
}


def parameters_problems(run: Run) -> list[Problem]:
    field = "subject.parameters"
    parameters = run.header.subject.get("parameters", {})
    if not isinstance(parameters, dict):
        return [Problem(run.path, f"expected an object, not {type(parameters).__name__}", 1, field)]
    return [Problem(run.path, message, 1, f"{field}.{name}") for name, message in parameter_problems(parameters)]


def parameter_problems(parameters: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, message) for each setting that is not a meaningful number. Settings decide
    whether two runs are comparable: NaN or Infinity (which JSON readers accept) would
    compare unequal to itself, a string would compare unequal to the same number."""
    problems = []
    for name, value in sorted(parameters.items()):
        if value is None:
            continue
        bounds = _PARAMETER_RANGES.get(name)
        if isinstance(value, float) and not math.isfinite(value):
            problems.append((name, f"{value!r} is not a finite number"))
        elif bounds is not None and not _in_range(value, *bounds):
            low, high, integer = bounds
            kind = "an integer" if integer else "a number"
            upper = "" if high == math.inf else f" and <= {high:g}"
            problems.append((name, f"{value!r} is not {kind} >= {low:g}{upper}"))
    return problems


def _in_range(value: Any, low: float, high: float, integer: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        return False
    return math.isfinite(value) and low <= value <= high
