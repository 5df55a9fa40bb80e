"""A spec'd benchmark's probe run (arm, option seed, items) written as another harness's task.

Each exported item carries the one user message `buzzprobe probe --benchmark NAME` would send
(built by the probe's own `item_job`, so the text cannot drift from the probe), the gold letter
and the letter map of the seeded shuffle. The task metadata names the benchmark, the arm, the
seed, the selection, the data's hash and the prompt template's hash: the import re-derives
them and refuses what does not match (importing.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder import __version__
from builder.interop.harness import selection_metadata
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.core.names import identifier
from builder.runs.selection import Selection
from builder.benchmarks.mcq.probe import item_job, prompt_sha256
from builder.benchmarks.mcq.run_checks import letter_map

METADATA_SCHEMA = "buzzprobe.export-mcq/1"
CONDITIONS = ("sighted", "blind")


def template_sha256(data: ChoiceSet, condition: str) -> str:
    """The prompt hash a probed run records for this arm (probe.prompt_sha256 of the template)."""
    spec = data.benchmark.spec
    return prompt_sha256(spec.sighted if condition == "sighted" else spec.blind)


@dataclass(frozen=True)
class SpecTask:
    """One exported task of a spec'd benchmark: the run a harness will make."""

    benchmark: str  # the spec's name
    title: str
    condition: str
    seed: int
    selection: Selection
    content_sha256: str
    prompt_sha256: str
    max_tokens: int

    @property
    def name(self) -> str:
        """A name valid as an lm-eval task and a Python identifier (Inspect's @task)."""
        return identifier(f"{self.benchmark}_{self.condition}_s{self.seed}_{self.selection.tag}")

    @property
    def version(self) -> int:
        return 1

    @property
    def system_message(self) -> bool:
        """The probe sends one user message, no system message."""
        return False

    def describe(self) -> str:
        return f"{self.title} ({self.benchmark}), {self.condition}, option seed {self.seed}"

    def metadata(self) -> dict[str, Any]:
        """Everything the import needs to rebuild and check this task's run."""
        return {"schema": METADATA_SCHEMA, "task_name": self.name, "benchmark": self.benchmark,
                "task": "multiple_choice", "condition": self.condition, "option_seed": self.seed,
                "items": selection_metadata(self.selection), "content_sha256": self.content_sha256,
                "prompt_sha256": self.prompt_sha256, "max_tokens": self.max_tokens,
                "exported_by": f"buzzprobe {__version__}"}

    def records(self, dataset: Any) -> list[dict[str, Any]]:
        """One JSON object per selected item (the data's text: written only to the user's folder)."""
        data: ChoiceSet = dataset
        out = []
        for row_id in self.selection.row_ids(data):
            job = item_job(data, row_id, self.seed, self.condition)
            ((_, messages),) = job.requests
            item = data.items[row_id]
            letter_map = shown_letter_map(data, row_id, self.seed)
            gold = next(letter for letter, index in letter_map.items() if index == item.gold)
            out.append({"row_id": row_id, "id": item.id, "user": messages[-1]["content"], "target": gold,
                        "letter_map": letter_map})
        return out


def shown_letter_map(data: ChoiceSet, row_id: int, seed: int) -> dict[str, int]:
    """letter -> the published choice index shown under it, as the probe shows them."""
    item = data.items[row_id]
    return letter_map(seed, item.shuffle_key, len(item.choices))


def plan_spec_tasks(data: ChoiceSet, conditions: tuple[str, ...], seeds: tuple[int, ...], selection: Selection,
                    max_tokens: int) -> list[SpecTask]:
    """One task per (arm, seed)."""
    spec = data.benchmark.spec
    return [SpecTask(spec.name, spec.title, condition, seed, selection, data.benchmark.content_sha256,
                     template_sha256(data, condition), max_tokens) for condition in conditions for seed in seeds]

