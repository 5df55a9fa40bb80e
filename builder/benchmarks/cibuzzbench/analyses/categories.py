"""Category sizes and harmful rates: the denominators every per-category score needs."""

from __future__ import annotations

from dataclasses import dataclass

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset


@dataclass(frozen=True)
class CategoryFigures:
    label: str
    count: int
    share: float  # 0-100, of all items
    harmful: int
    harmful_rate: float  # 0-100, within the category
    test_count: int


def category_figures(dataset: Dataset) -> list[CategoryFigures]:
    frame = dataset.frame
    total = len(frame)
    out = []
    for label in CATEGORIES:
        rows = frame[frame["category_label"] == label]
        harmful = int((rows["harmful_label"] == "harmful").sum())
        out.append(CategoryFigures(
            label=label, count=len(rows), share=100.0 * len(rows) / total, harmful=harmful,
            harmful_rate=100.0 * harmful / len(rows) if len(rows) else 0.0,
            test_count=int((rows["split"] == "test").sum()),
        ))
    return out
