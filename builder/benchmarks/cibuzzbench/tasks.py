"""Task names and their label sets, shared by runs, probes and metrics."""

from __future__ import annotations

EQUIVALENT_SELECTION = "equivalent_selection"
HARMFULNESS_DETECTION = "harmfulness_detection"
TASK_LABELS: dict[str, tuple[str, ...]] = {
    EQUIVALENT_SELECTION: ("A", "B", "C", "D"),
    HARMFULNESS_DETECTION: ("harmful", "non-harmful"),
}


def labels_for(task: str) -> tuple[str, ...]:
    return TASK_LABELS[task]
