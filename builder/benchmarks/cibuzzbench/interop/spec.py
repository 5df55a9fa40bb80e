"""What an exported task is: one buzzprobe run plan (protocol, option seed, variant, items)
written as another harness's task, plus the metadata that lets the import check it.

Both harnesses get the same items: each line carries the exact system and user messages
buzzprobe's probe would send (built by `prompt_builder`, so the text cannot drift from the
protocol), the gold label and, for Task 2, the letter map of the official shuffle. The task
metadata names the protocol, its version and prompt hash, the dataset hash and the item
selection; the import re-derives all of them and refuses what does not match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder import __version__
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.names import identifier
from builder.benchmarks.cibuzzbench.prompts import prompt_builder
from builder.probing.protocols import Protocol
from builder.interop.harness import selection_metadata
from builder.runs.selection import Selection
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION

METADATA_SCHEMA = "buzzprobe.export/1"
TASK_PREFIX = "cibuzzbench"
_TAGS = {EQUIVALENT_SELECTION: "t2", "harmfulness_detection": "t3"}


@dataclass(frozen=True)
class ExportTask:
    """One exported task: the run a harness will make."""

    protocol: Protocol
    seed: int | None
    variant: str
    selection: Selection
    content_sha256: str  # of the variant's dataset

    @property
    def max_tokens(self) -> int:
        return self.protocol.max_tokens

    @property
    def version(self) -> int:
        return self.protocol.version

    @property
    def system_message(self) -> bool:
        """Every CIBuzzBench protocol sends a system message before the user's."""
        return True

    def describe(self) -> str:
        """What the task is, for the head of its exported file."""
        p = self.protocol
        return f"CIBuzzBench {p.task}, {p.condition}, protocol {p.id} v{p.version}"

    @property
    def name(self) -> str:
        """A name valid as an lm-eval task and a Python identifier (Inspect's @task)."""
        parts = [TASK_PREFIX, _TAGS[self.protocol.task], self.protocol.condition, self.protocol.lang]
        if self.seed is not None:
            parts.append(f"s{self.seed}")
        parts.append(self.selection.tag)
        if self.variant != "original":
            parts.append(self.variant)
        if not self.protocol.default:
            parts.append(self.protocol.id)
        return identifier("_".join(parts))

    def metadata(self) -> dict[str, Any]:
        """Everything the import needs to rebuild and check this task's run."""
        p = self.protocol
        return {"schema": METADATA_SCHEMA, "task_name": self.name, "task": p.task, "condition": p.condition,
                "lang": p.lang, "protocol": p.id, "protocol_version": p.version, "prompt_sha256": p.sha256,
                "max_tokens": p.max_tokens, "option_seed": self.seed, "variant": self.variant,
                "items": selection_metadata(self.selection), "content_sha256": self.content_sha256,
                "exported_by": f"buzzprobe {__version__}"}

    def records(self, dataset: Dataset) -> list[dict[str, Any]]:
        """One JSON object per selected item (dataset text: written only to the user's folder)."""
        build = prompt_builder(dataset, self.protocol, self.seed)
        harm = dataset.column("harmful_label")
        gold = option_sets(dataset, self.seed) if self.seed is not None else None
        out = []
        for row_id in self.selection.row_ids(dataset):
            prompt = build(row_id)
            record: dict[str, Any] = {"row_id": row_id, "system": prompt.messages[0]["content"],
                                      "user": prompt.messages[1]["content"]}
            if gold is not None:
                record["target"] = gold[row_id].gold_letter
                record["letter_map"] = prompt.letter_map
            else:
                record["target"] = harm[row_id]
            out.append(record)
        return out
