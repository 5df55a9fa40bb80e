"""Check a parsed run against the dataset it claims to score.

A run only means something if its items exist, its options are the official
shuffle for its seed and it was made on the same data; anything else is an error.
"""

from __future__ import annotations

from builder.dataset.cibuzzbench import Dataset
from builder.dataset.options import option_sets
from builder.errors import InputError, Problem
from builder.runs.schema import Run
from builder.tasks import labels_for


def validate_run(run: Run, dataset: Dataset) -> None:
    problems = _check_header(run, dataset) + _check_items(run, dataset) + _check_footer(run)
    if problems:
        raise InputError(problems)


def _check_header(run: Run, dataset: Dataset) -> list[Problem]:
    claimed = run.header.dataset.get("content_sha256")
    if claimed != dataset.content_sha256:
        return [Problem(run.path, f"run was made on different data (content sha256 {claimed!r}, "
                        f"loaded dataset has {dataset.content_sha256!r})", 1, "dataset.content_sha256")]
    return []


def _check_items(run: Run, dataset: Dataset) -> list[Problem]:
    allowed_ids = _allowed_row_ids(run, dataset)
    labels = set(labels_for(run.header.task)) | {""}
    seed = run.header.option_seed
    official = option_sets(dataset, seed) if run.header.task == "equivalent_selection" and seed is not None else None
    problems: list[Problem] = []
    for item in run.items:
        line = run.item_lines[item.row_id]
        if item.row_id not in allowed_ids:
            problems.append(Problem(run.path, _unknown_id_message(run, item.row_id, dataset), line, "row_id"))
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
    return problems


def _allowed_row_ids(run: Run, dataset: Dataset) -> set[int]:
    """Items a run may contain: its split, for a sample the split it was drawn from, for a
    first-N selection exactly those N rows."""
    items = run.header.items
    split = items.get("split") if items.get("selection") in ("split", "sample", "first") else None
    if items.get("selection") == "first":
        return set(first_row_ids(dataset, split, int(items["n"])))
    return set(dataset.row_ids(split))


def first_row_ids(dataset: Dataset, split: str | None, n: int) -> list[int]:
    """The first `n` rows of a split (or of all rows) in file order, which is row_id order:
    what the official script's `--split S --max_samples N` evaluates (`df.head(N)`)."""
    return sorted(dataset.row_ids(split))[:n]


def _unknown_id_message(run: Run, row_id: int, dataset: Dataset) -> str:
    if 0 <= row_id < dataset.rows:
        return f"row_id {row_id} is outside the run's item selection {run.header.items!r}"
    return f"unknown row_id {row_id} (dataset has 0..{dataset.rows - 1})"


def _check_footer(run: Run) -> list[Problem]:
    problems = []
    if run.footer is not None and run.footer.items != len(run.items):
        problems.append(Problem(run.path, f"footer counts {run.footer.items} items, file has {len(run.items)}",
                                run.footer_line, "items"))
    declared = run.header.items.get("n")
    if isinstance(declared, int) and len(run.items) > declared:
        problems.append(Problem(run.path, f"run has {len(run.items)} items but its header declares n={declared}",
                                1, "items.n"))
    return problems
