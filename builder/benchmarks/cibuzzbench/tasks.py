"""Task names, their label sets, the official option seeds and Task 3's harmful-class F1, shared
by runs, probes, metrics and views. Nothing is imported here, so the CLI can name them at no cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from builder.stats import ClassificationReport

EQUIVALENT_SELECTION = "equivalent_selection"
HARMFULNESS_DETECTION = "harmfulness_detection"
TASKS: tuple[str, ...] = (EQUIVALENT_SELECTION, HARMFULNESS_DETECTION)
# Task 2's option-shuffle seeds as the official code runs them. The first is the default: a
# probe asks with it unless told otherwise, and its run (or pair) gives the quoted intervals.
OFFICIAL_SEEDS: tuple[int, ...] = (1111, 2222, 3333, 4444, 5555)
DEFAULT_SEED = OFFICIAL_SEEDS[0]
HARMFUL = "harmful"
TASK_LABELS: dict[str, tuple[str, ...]] = {
    EQUIVALENT_SELECTION: ("A", "B", "C", "D"),
    HARMFULNESS_DETECTION: (HARMFUL, "non-harmful"),
}


def labels_for(task: str) -> tuple[str, ...]:
    return TASK_LABELS[task]


def harmful_f1(report: "ClassificationReport") -> float:
    """Task 3's headline extra: F1 of the 'harmful' class (0-100)."""
    if HARMFUL not in report.per_label:
        raise ValueError(f"report has no {HARMFUL!r} label: {report.labels!r}")
    return report.per_label[HARMFUL].f1
