"""`buzzprobe export lm-eval|inspect --out DIR`: the chosen arms as the harness's tasks.

Each task's items go to `<name>.jsonl` beside its config, in the user's folder only: they
carry the dataset's text, which never enters the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.interop.spec import TASK_PREFIX, ExportTask
from builder.interop import writers
from builder.probing.protocols import Protocol, find_protocol
from builder.runs.selection import Selection
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION

ARMS = {"t2-sighted": (EQUIVALENT_SELECTION, "sighted"), "t2-blind": (EQUIVALENT_SELECTION, "blind"),
        "t3": ("harmfulness_detection", "sighted")}
LM_EVAL_TAG = f"{TASK_PREFIX}_buzzprobe"
INSPECT_FILE = "cibuzzbench_tasks.py"


@dataclass(frozen=True)
class ExportRequest:
    """What to export: arms x option seeds, in one language, variant and item selection."""

    arms: tuple[str, ...]
    lang: str
    seeds: tuple[int, ...]
    variant: str
    selection: Selection
    protocol_ids: tuple[str, ...] = ()  # named alternatives replacing the default of their arm


def plan_exports(request: ExportRequest, protocols: dict[str, Protocol], dataset: Dataset) -> list[ExportTask]:
    """One task per (arm, seed); Task 3 has no seed. `dataset` is the variant's dataset."""
    tasks = []
    used: set[str] = set()
    for arm in request.arms:
        task, condition = ARMS[arm]
        protocol = _protocol_for(protocols, task, condition, request.lang, request.protocol_ids, used)
        seeds: tuple[int | None, ...] = request.seeds if task == EQUIVALENT_SELECTION else (None,)
        tasks += [ExportTask(protocol, seed, request.variant, request.selection, dataset.content_sha256)
                  for seed in seeds]
    unused = sorted(set(request.protocol_ids) - used)
    if unused:
        raise InputError.single("--protocol", f"protocol(s) {', '.join(unused)} serve none of the exported arms "
                                f"({', '.join(request.arms)}, lang {request.lang})")
    return tasks


def _protocol_for(protocols: dict[str, Protocol], task: str, condition: str, lang: str,
                  named: tuple[str, ...], used: set[str]) -> Protocol:
    for pid in named:
        p = protocols.get(pid)
        if p is not None and (p.task, p.condition, p.lang) == (task, condition, lang):
            used.add(pid)
            return p
    unknown = [pid for pid in named if pid not in protocols]
    if unknown:
        raise InputError.single("--protocol", f"unknown protocol id(s): {', '.join(unknown)}")
    return find_protocol(protocols, task, condition, lang)


def export_lm_eval(tasks: list[ExportTask], dataset: Dataset, out: Path) -> list[Path]:
    """CIBuzzBench's tasks as lm-eval task YAMLs and item JSONLs, tagged LM_EVAL_TAG."""
    return writers.export_lm_eval(tasks, dataset, out, LM_EVAL_TAG)


def export_inspect(tasks: list[ExportTask], dataset: Dataset, out: Path) -> list[Path]:
    """CIBuzzBench's tasks as one Inspect task file, INSPECT_FILE."""
    return writers.export_inspect(tasks, dataset, out, INSPECT_FILE, "CIBuzzBench")
