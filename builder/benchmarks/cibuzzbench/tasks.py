"""Task names, their label sets and the official option seeds, shared by runs, probes,
metrics and views. Nothing is imported here, so the CLI can name them at no cost."""

from __future__ import annotations

EQUIVALENT_SELECTION = "equivalent_selection"
HARMFULNESS_DETECTION = "harmfulness_detection"
TASKS: tuple[str, ...] = (EQUIVALENT_SELECTION, HARMFULNESS_DETECTION)
# Task 2's option-shuffle seeds as the official code runs them. The first is the default: a
# probe asks with it unless told otherwise, and its run (or pair) gives the quoted intervals.
OFFICIAL_SEEDS: tuple[int, ...] = (1111, 2222, 3333, 4444, 5555)
DEFAULT_SEED = OFFICIAL_SEEDS[0]
TASK_LABELS: dict[str, tuple[str, ...]] = {
    EQUIVALENT_SELECTION: ("A", "B", "C", "D"),
    HARMFULNESS_DETECTION: ("harmful", "non-harmful"),
}


def labels_for(task: str) -> tuple[str, ...]:
    return TASK_LABELS[task]
