"""Check a parsed run against the dataset it claims to score and against its own header.

A run only means something if its items are exactly the selection its header declares, its
options are the official shuffle for its seed, it was made on the same data, its footer
agrees with its items and its recorded generation settings are real numbers; anything else
is an error. A run without a footer may hold part of its selection (it is in progress);
a footer over a partial selection would publish a partial run as finished, so it is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.errors import InputError, Problem
from builder.probing.selection import Selection
from builder.runs.checks import (declared_row_ids, footer_problems, no_items_problem, number_problems,
                                 outside_selection, parameters_problems, selection_text)
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.tasks import labels_for
from builder.runs.cache import RunCache, datasets_key
from builder.runs.files import run_files
from builder.runs.load import checked, duplicate_ids
from builder.runs.reader import read_run

_SHOWN = 5  # row_ids named in a message about many items


def validate_run(run: Run, dataset: Dataset) -> None:
    problems = _check_header(run, dataset)
    if not problems:  # items are only meaningful on the same data and a possible selection
        declared, problems = declared_row_ids(run, dataset)
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


def _check_items(run: Run, dataset: Dataset, declared: set[int]) -> list[Problem]:
    if not run.items:
        return no_items_problem(run)
    labels = set(labels_for(run.header.task)) | {""}
    seed = run.header.option_seed
    official = option_sets(dataset, seed) if run.header.task == "equivalent_selection" and seed is not None else None
    problems = outside_selection(run, declared, lambda row_id: _unknown_id_message(run, row_id, dataset))
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


def first_row_ids(dataset: Dataset, split: str | None, n: int) -> list[int]:
    """The first `n` rows of a split (or of all rows) in file order, which is row_id order:
    what the official script's `--split S --max_samples N` evaluates (`df.head(N)`)."""
    return Selection("first", split, n).row_ids(dataset)


def _unknown_id_message(run: Run, row_id: int, dataset: Dataset) -> str:
    if 0 <= row_id < dataset.rows:
        return f"row_id {row_id} is outside the run's item selection ({selection_text(run)})"
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


def load_runs(runs_dir: Path, datasets: Dataset | Mapping[str, Dataset]) -> list[Run]:
    """Read and validate every run against the dataset variant it names."""
    by_variant = {"original": datasets} if isinstance(datasets, Dataset) else dict(datasets)
    runs: list[Run] = []
    problems: list[Problem] = []
    for path in run_files(runs_dir):
        try:
            run = read_run(path)
            validate_run(run, _dataset_for(run, by_variant))
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        runs.append(run)
    problems.extend(duplicate_ids(runs))
    if problems:
        raise InputError(problems)
    return runs


def _dataset_for(run: Run, datasets: dict[str, Dataset]) -> Dataset:
    variant = run.header.variant
    if variant not in datasets:
        raise InputError.single(run.path, f"dataset variant {variant!r} is not available in this build "
                                f"(available: {', '.join(sorted(datasets))})", line=1, field="dataset.variant")
    return datasets[variant]
