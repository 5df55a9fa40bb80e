"""Column headers as a reader reads them: the label table for the machine names that tables and
chart data share with their CSV downloads (which keep the machine names, for scripts).

Only names that are plainly machine-spelt (lower case, digits and underscores) are relabelled:
a model name or a run id in a header is shown as written.
"""

from __future__ import annotations

import re

LABELS = {
    "model": "Model", "items": "Items", "coverage": "Coverage", "run": "Run",
    "accuracy_strict": "Strict accuracy", "accuracy_official": "Official accuracy",
    "solvable_items": "Option-solvable items", "rest_items": "Other items",
    "accuracy_solvable": "Accuracy, option-solvable", "accuracy_rest": "Accuracy, the rest",
    "gap": "Gap", "gap_low": "Gap 95% low", "gap_high": "Gap 95% high",
    "gap_adjusted": "Adjusted gap", "gap_adjusted_low": "Adjusted gap 95% low",
    "gap_adjusted_high": "Adjusted gap 95% high",
    "accuracy": "Accuracy", "macro_f1": "Macro F1", "probe": "Probe", "category": "Category",
    "option_seed": "Option seed", "items_asked": "Items asked", "stratum": "Stratum", "weight": "Weight",
}
_MACHINE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


def column_label(name: object) -> object:
    """The label table's entry; else a snake_case name in words ("macro_f1" -> "Macro f1");
    anything else unchanged."""
    if not isinstance(name, str) or not _MACHINE.match(name):
        return name
    if name in LABELS:
        return LABELS[name]
    words = name.replace("_", " ")
    return words[0].upper() + words[1:] if "_" in name else name
