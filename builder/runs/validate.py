"""Check a parsed run against the dataset it claims to score and against its own header.

A run only means something if its items are exactly the selection its header declares, its
options are the official shuffle for its seed, it was made on the same data, its footer
agrees with its items and its recorded generation settings are real numbers; anything else
is an error. A run without a footer may hold part of its selection (it is in progress);
a footer over a partial selection would publish a partial run as finished, so it is refused.
"""

from __future__ import annotations

import json
import math
from typing import Any

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.errors import InputError, Problem
from builder.probing.selection import Selection
from builder.runs.schema import Run, usage_totals
from builder.benchmarks.cibuzzbench.tasks import labels_for

_SHOWN = 5  # row_ids named in a message about many items


def validate_run(run: Run, dataset: Dataset) -> None:
    problems = _check_header(run, dataset)
    if not problems:  # items are only meaningful on the same data and a possible selection
        declared, problems = _declared_row_ids(run, dataset)
        if declared is not None:
            problems += _check_items(run, dataset, declared) + _check_footer(run, declared)
    problems += _check_parameters(run)
    if problems:
        raise InputError(problems)


def declared_count(run: Run, dataset: Dataset) -> int:
    """N in "n of N": how many items the run's declared selection holds (run validated)."""
    return len(Selection.from_header(run.header.items).row_ids(dataset))


def _check_header(run: Run, dataset: Dataset) -> list[Problem]:
    claimed = run.header.dataset.get("content_sha256")
    if claimed != dataset.content_sha256:
        return [Problem(run.path, f"run was made on different data (content sha256 {claimed!r}, "
                        f"loaded dataset has {dataset.content_sha256!r})", 1, "dataset.content_sha256")]
    return []


def _declared_row_ids(run: Run, dataset: Dataset) -> tuple[set[int] | None, list[Problem]]:
    """Recompute the header's selection (all, a split, or a seeded sample) on this dataset;
    None when the header declares an impossible one."""
    try:
        declared = set(Selection.from_header(run.header.items).row_ids(dataset))
    except InputError as exc:  # an impossible sample size; relocate the message to the header
        return None, [Problem(run.path, exc.problems[0].message, 1, "items.n")]
    n = run.header.items.get("n")
    if n is not None and n != len(declared):
        return declared, [Problem(run.path, f"header declares n={n}, but its selection "
                                  f"{_selection_text(run)} holds {len(declared)} items", 1, "items.n")]
    return declared, []


def _selection_text(run: Run) -> str:
    return json.dumps({k: v for k, v in run.header.items.items() if k != "n"}, sort_keys=True)


def _check_items(run: Run, dataset: Dataset, declared: set[int]) -> list[Problem]:
    if not run.items:
        return [Problem(run.path, "the run has a header but no items yet (a probe stopped before its first "
                        "answer): resume it with the same command, or delete the file", 1, "items")]
    labels = set(labels_for(run.header.task)) | {""}
    seed = run.header.option_seed
    official = option_sets(dataset, seed) if run.header.task == "equivalent_selection" and seed is not None else None
    problems = _outside_selection(run, dataset, declared)
    for item in run.items:
        line = run.item_lines[item.row_id]
        if item.row_id not in declared:
            continue
        if item.prediction not in labels:
            problems.append(Problem(run.path, f"prediction {item.prediction!r} is not a label of "
                                    f"{run.header.task} (nor '' for unparsed)", line, "prediction"))
        if official is None and item.letter_map is not None:
            problems.append(Problem(run.path, f"{run.header.task} items have no options", line, "letter_map"))
        if official is not None and item.letter_map != official[item.row_id].letter_map:
            problems.append(Problem(run.path, f"letter map {item.letter_map!r} differs from the official "
                                    f"shuffle for seed {seed}: {official[item.row_id].letter_map!r}",
                                    line, "letter_map"))
        problems += _item_numbers(run, item.latency_ms, item.usage, line)
    return problems


def _item_numbers(run: Run, latency: float | None, usage: dict[str, Any] | None, line: int) -> list[Problem]:
    problems = []
    if latency is not None and not (math.isfinite(latency) and latency >= 0):
        problems.append(Problem(run.path, f"latency {latency!r} is not a finite number >= 0", line, "latency_ms"))
    for key, value in (usage or {}).items():
        if type(value) is not int or value < 0:
            problems.append(Problem(run.path, f"token count {value!r} is not an integer >= 0", line, f"usage.{key}"))
    return problems


def _outside_selection(run: Run, dataset: Dataset, declared: set[int]) -> list[Problem]:
    """Items the declared selection does not hold: each named when few, else one message (a
    wrong sample_seed or split in the header makes every item wrong, and 400 lines would hide that)."""
    outside = [item.row_id for item in run.items if item.row_id not in declared]
    if len(outside) <= _SHOWN:
        return [Problem(run.path, _unknown_id_message(run, r, dataset), run.item_lines[r], "row_id") for r in outside]
    return [Problem(run.path, f"{len(outside)} of the run's {len(run.items)} items are outside its declared "
                    f"selection {_selection_text(run)} (e.g. row_id {', '.join(map(str, outside[:_SHOWN]))} on lines "
                    f"{', '.join(str(run.item_lines[r]) for r in outside[:_SHOWN])}): the header does not describe "
                    "these items", 1, "items")]


def first_row_ids(dataset: Dataset, split: str | None, n: int) -> list[int]:
    """The first `n` rows of a split (or of all rows) in file order, which is row_id order:
    what the official script's `--split S --max_samples N` evaluates (`df.head(N)`)."""
    return Selection("first", split, n).row_ids(dataset)


def _unknown_id_message(run: Run, row_id: int, dataset: Dataset) -> str:
    if 0 <= row_id < dataset.rows:
        return f"row_id {row_id} is outside the run's item selection ({_selection_text(run)})"
    return f"unknown row_id {row_id} (dataset has 0..{dataset.rows - 1})"


def _check_footer(run: Run, declared: set[int]) -> list[Problem]:
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


def _check_parameters(run: Run) -> list[Problem]:
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
