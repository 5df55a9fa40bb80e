"""What lm-evaluation-harness and Inspect give and take, whichever benchmark's tasks they run.

A harness log is read (lm_eval_log.py, inspect_log.py) into a `HarnessOutput`: one task's
samples, each with what was sent and answered. A plug-in that writes tasks for the harnesses
(the contract's `harness_interop`) turns the outputs it claims into runs; the tasks it writes
have the shape `HarnessTask`, which the writers (writers.py) take. Shared by every plug-in, so
none imports another (command.py asks each through the registry).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol as Shape
from urllib.parse import urlsplit

from builder.core.errors import InputError, Problem
from builder.core.names import confined, fill_template, slug
from builder.runs.overwrite import write_checked
from builder.runs.schema import Run
from builder.runs.selection import Selection

if TYPE_CHECKING:
    import argparse

DEFAULT_OUT = "runs/{model_slug}"
_MAX_LISTED = 10


@dataclass(frozen=True)
class HarnessSample:
    """One answered item as the harness logged it; `line`/`where` locate it in the log."""

    row_id: Any
    letter_map: Any
    messages: list[dict[str, Any]] | None  # what was sent, when the log has it
    response: str | None
    error: str | None
    line: int | None = None
    where: str = ""  # field prefix, e.g. "doc." or "sample 17: "
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    target: Any = None  # the gold the export wrote (checked against the dataset for Task 3)
    prompt_field: str = "messages"  # where the log keeps the messages sent, for error locations
    raw: Any = None  # the sample as logged: a task buzzprobe did not write is mapped from it (mcq/interop/foreign.py)


@dataclass(frozen=True)
class HarnessOutput:
    """One task's answers from one harness run."""

    path: Path
    harness: str  # "lm-eval" | "inspect": prefixes the run id
    source: str  # harness name and version, recorded in the run
    task_name: str
    metadata: Any  # the export metadata as found (checked here)
    model: str
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    endpoint_host: str
    samples: list[HarnessSample] = field(default_factory=list)
    created: str | None = None  # when the harness ran (ISO 8601 UTC), if the log says


def host_of(url: Any) -> str:
    """The host of a logged endpoint URL ("" when there is none or it is no URL)."""
    try:
        return urlsplit(str(url or "")[:2000]).hostname or ""
    except ValueError:  # e.g. "http://[" (an unclosed IPv6 bracket)
        return ""


class HarnessInterop(ABC):
    """A plug-in's part of `export lm-eval|inspect` and `import lm-eval|inspect` (command.py)."""

    @abstractmethod
    def exports(self, benchmark: str | None) -> bool:
        """Whether `export lm-eval|inspect [--benchmark NAME]` writes this plug-in's tasks."""

    @abstractmethod
    def export(self, args: "argparse.Namespace") -> list[str]:
        """Write the tasks `args` asks for (args.harness: lm-eval or inspect); the lines to print."""

    @abstractmethod
    def claims(self, output: HarnessOutput, benchmark: str | None) -> bool:
        """Whether this plug-in reads `output` (its tasks' metadata; `benchmark`: --benchmark NAME)."""

    @abstractmethod
    def runs(self, outputs: list[HarnessOutput], benchmark: str | None, created: str,
             model: str | None) -> tuple[list[Run], list[Problem], dict[str, str]]:
        """The runs of the outputs it claimed, the problems of those that are not clean, and a note
        to print after a run (by its path)."""


class HarnessTask(Shape):
    """What the lm-eval and Inspect writers need of a task, whichever benchmark it asks:
    CIBuzzBench's ExportTask, or a spec'd benchmark's (builder/benchmarks/mcq/interop/tasks.py)."""

    @property
    def name(self) -> str: ...

    @property
    def max_tokens(self) -> int: ...

    @property
    def version(self) -> int: ...

    @property
    def system_message(self) -> bool: ...

    def describe(self) -> str: ...

    def metadata(self) -> dict[str, Any]: ...

    def records(self, dataset: Any) -> list[dict[str, Any]]: ...


def unknown_task(output: HarnessOutput) -> Problem:
    """An output no plug-in claims: a task buzzprobe did not write, and no --benchmark to map it onto."""
    return Problem(str(output.path), f"unknown task {output.task_name!r}: it carries no buzzprobe export metadata: "
                   "import a task `buzzprobe export` wrote, or map another multiple-choice task's samples onto a "
                   "spec'd benchmark with --benchmark NAME (docs/lm-eval.md)", field="task")


def coverage_problems(output: HarnessOutput, expected: list[int], seen: set[int]) -> list[Problem]:
    """The output must answer exactly the exported items: none missing, none extra (an item
    refused for another reason is not reported again here)."""
    problems = []
    missing = sorted(set(expected) - seen)
    extra = sorted(seen - set(expected))
    if missing:
        problems.append(Problem(str(output.path), f"{len(missing)} of the task's {len(expected)} items are missing "
                                f"(row_ids {_listed(missing)}); a run covers its whole selection "
                                "(was the harness run with --limit?)", field="row_id"))
    if extra:
        problems.append(Problem(str(output.path), f"{len(extra)} item(s) are not in the task's selection "
                                f"(row_ids {_listed(extra)})", field="row_id"))
    return problems


def _listed(ids: list[int]) -> str:
    shown = ", ".join(map(str, ids[:_MAX_LISTED]))
    return shown + (f", … ({len(ids) - _MAX_LISTED} more)" if len(ids) > _MAX_LISTED else "")


def selection_from(items: Any, where: str) -> Selection:
    """The Selection a task's metadata names (the inverse of `Selection.header`)."""
    if not isinstance(items, dict):
        raise InputError.single(where, "task metadata has no item selection", field="items")
    kind = items.get("selection")
    if kind == "all":
        return Selection("all")
    if kind == "split" and items.get("split") in ("train", "test"):
        return Selection("split", items["split"])
    if kind == "sample" and type(items.get("sample_seed")) is int and type(items.get("n_sample")) is int:
        return Selection("sample", items.get("split"), items["n_sample"], items["sample_seed"])
    raise InputError.single(where, f"unsupported item selection {items!r}", field="items")


def selection_metadata(selection: Selection) -> dict[str, Any]:
    """`Selection.header` with the sample size kept apart from the item count."""
    out = selection.header(0)
    out.pop("n", None)
    if selection.kind == "sample":
        out["n_sample"] = selection.n
    return out


def imported_path(run: Run, out_template: str) -> Path:
    """Where the run goes: `<out>/<run_id>.jsonl`, `{model_slug}` in the folder filled in."""
    folder = fill_template(out_template, "--out", model_slug=slug(run.header.subject_name))
    return confined(folder, run.header.run_id, ".jsonl", "--out")


def write_imported(run: Run, out_template: str, force: bool = False) -> Path:
    """Write one run where imported_path says (refusing to replace a different run unless `force`)."""
    ((path, _),) = write_checked([(imported_path(run, out_template), run)], force=force)
    return path
