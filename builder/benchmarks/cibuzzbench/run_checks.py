"""Check a parsed run against the dataset it claims to score and against its own header.

A run only means something if its items are exactly the selection its header declares, its
options are the official shuffle for its seed, it was made on the same data, its footer
agrees with its items and its recorded generation settings are real numbers; anything else
is an error. A run without a footer may hold part of its selection (it is in progress);
a footer over a partial selection would publish a partial run as finished, so it is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.errors import InputError, Problem
from builder.probing.selection import Selection
from builder.runs.checks import footer_problems, number_problems, parameters_problems
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.tasks import labels_for
from builder.runs.cache import RunCache, datasets_key
from builder.runs.load import checked

_SHOWN = 5  # row_ids named in a message about many items


def validate_run(run: Run, dataset: Dataset) -> None:
    problems = _check_header(run, dataset)
    if not problems:  # items are only meaningful on the same data and a possible selection
        declared, problems = _declared_row_ids(run, dataset)
        if declared is not None:
            problems += _check_items(run, dataset, declared) + footer_problems(run, declared)
    problems += parameters_problems(run)
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
        problems += number_problems(run, item.latency_ms, item.usage, line)
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


def validate_runs(runs: Sequence[Run], datasets: Dataset | Mapping[str, Dataset],
                  cache: RunCache | None = None) -> list[Run]:
    """Validate each run against the dataset variant it names; all problems at once (a run
    the cache saw pass against these datasets is not checked again)."""
    by_variant = {"original": datasets} if isinstance(datasets, Dataset) else dict(datasets)
    name = f"valid:{datasets_key(by_variant)}"

    def check(run: Run) -> bool:
        validate_run(run, _dataset_for(run, by_variant))
        return True
    return checked(runs, (lambda run: cache.derived(run, name, lambda: check(run))) if cache else check)


def _dataset_for(run: Run, datasets: dict[str, Dataset]) -> Dataset:
    variant = run.header.variant
    if variant not in datasets:
        raise InputError.single(run.path, f"dataset variant {variant!r} is not available in this build "
                                f"(available: {', '.join(sorted(datasets))})", line=1, field="dataset.variant")
    return datasets[variant]
