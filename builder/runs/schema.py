"""The run file format (JSONL), version 1. Documented in docs/run-format.md.

One file per run: a header line, one line per item, an optional footer line. Items refer to
the dataset by ``row_id`` only and never copy its text. The envelope (Header, Footer, Run) is
every benchmark's; the item schema and the header values are the benchmark's, in its run format
(builder.runs.formats; e.g. builder.benchmarks.cibuzzbench.run_format.Item).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from builder import __version__

SCHEMA = "buzzprobe.run/1"
SUBJECT_KINDS = ("model", "probe")


@dataclass(frozen=True)
class Header:
    run_id: str
    benchmark: str
    task: str
    condition: str
    subject: dict[str, Any]  # {"kind": "model"|"probe", "name": str, "parameters": {...}}
    option_seed: int | None  # None for tasks without options
    items: dict[str, Any]  # {"selection": "all"|"split"|"sample"|"first", "split"?, "n"?, "sample_seed"?}
    dataset: dict[str, Any]  # {"name", "variant", "content_sha256"}
    created: str  # ISO 8601 UTC
    tool: dict[str, Any]  # {"name": "buzzprobe", "version": str}
    schema: str = SCHEMA
    source: dict[str, Any] | None = None  # where the answers came from (Mouse: probe, judge, import)

    def to_json(self) -> dict[str, Any]:
        out = {
            "type": "header", "schema": self.schema, "run_id": self.run_id,
            "benchmark": self.benchmark, "task": self.task, "condition": self.condition,
            "subject": self.subject, "option_seed": self.option_seed, "items": self.items,
            "dataset": self.dataset, "created": self.created, "tool": self.tool,
        }
        if self.source is not None:  # only formats that declare it (CIBuzzBench headers have none)
            out["source"] = self.source
        return out

    @property
    def subject_name(self) -> str:
        return str(self.subject.get("name", ""))

    @property
    def subject_label(self) -> str:
        """The name as pages show it: a model served locally (its header's `subject.runtime`
        says `local: true`) says so with its size, so a 1.5B model is never read as a frontier one."""
        runtime = self.subject.get("runtime")
        if not isinstance(runtime, dict) or runtime.get("local") is not True:
            return self.subject_name
        details = [str(runtime[k]) for k in ("quantisation",) if runtime.get(k) not in (None, "", "unknown")]
        size = runtime.get("parameters")
        size = f" {size}" if size not in (None, "", "unknown") else ""
        return f"{self.subject_name} (local{size} model{', ' + ', '.join(details) if details else ''})"

    @property
    def import_warnings(self) -> tuple[str, ...]:
        """What an importer could not vouch for (another prompt than the protocol's, ...)."""
        parameters = self.subject.get("parameters")
        found = parameters.get("import_warnings") if isinstance(parameters, dict) else None
        return tuple(str(w) for w in found) if isinstance(found, list) else ()

    @property
    def made_by(self) -> str:
        """The tool whose answers the run holds: the first word of subject parameter `source`
        (lm-eval, inspect_ai, official: an import), or "" for a run probed here. Runs made by
        different tools never pair or pool: their prompts, items and parsing may differ unseen."""
        parameters = self.subject.get("parameters")
        found = parameters.get("source") if isinstance(parameters, dict) else None
        return str(found).split(" ", 1)[0] if isinstance(found, str) else ""

    @property
    def display_name(self) -> str:
        """A short name for chart legends: "Qwen2.5-Coder-1.5B-Instruct, local Q4_K_M" (the
        quantisation moves from the name's tail to the "local" note; remote models keep their name)."""
        runtime = self.subject.get("runtime")
        if not isinstance(runtime, dict) or runtime.get("local") is not True:
            return self.subject_name
        quant = str(runtime.get("quantisation") or "")
        name = self.subject_name
        if quant == "unknown":
            quant = ""
        cut = len(quant) + 1
        if quant and len(name) > cut and name.lower().endswith(quant.lower()) and name[-cut] in "-_.":
            name = name[:-cut]
        return f"{name}, local{' ' + quant if quant else ''}"

    @property
    def variant(self) -> str:
        """The dataset variant the run was made on ("original" when the header names none)."""
        return str(self.dataset.get("variant", "original"))

    @property
    def scope(self) -> str:
        """Where the items come from: a split name (also for a sample drawn within one) or "all"."""
        return str(self.items.get("split") or self.items.get("selection"))


class ItemLine(Protocol):
    """What the writer needs of any benchmark's item: its row_id and its line as JSON."""

    @property
    def row_id(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


def new_header(**fields: Any) -> Header:
    """A header this tool writes now: the envelope's fields as given, this tool's name and version."""
    return Header(**fields, tool={"name": "buzzprobe", "version": __version__})


@dataclass(frozen=True)
class Footer:
    items: int
    finished: str | None = None
    usage_totals: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": "footer", "items": self.items, "finished": self.finished,
                "usage_totals": self.usage_totals}


@dataclass(frozen=True)
class Run:
    path: str
    header: Header
    items: Sequence[Any]  # the benchmark's item type (its run format's), each with a row_id
    footer: Footer | None
    item_lines: dict[int, int]  # row_id -> line number, for error messages downstream
    footer_line: int | None = None

    @property
    def row_ids(self) -> list[int]:
        known = getattr(self.items, "row_ids", None)  # a cached run's items know theirs without unpacking
        return list(known) if known is not None else [i.row_id for i in self.items]

    @property
    def complete(self) -> bool:
        """Finished: a validated run has a footer only when it holds every declared item
        (`validate_run` refuses a footer over a partial selection), so the footer decides."""
        return self.footer is not None

    @property
    def in_aggregates(self) -> bool:
        """Counted in headline figures, pairs, model summaries and the tracker: finished, and not
        imported with warnings (such a run is shown, marked, on the runs table and its own page,
        but its prompt or settings were not the protocol's, so it is not like the others)."""
        return self.complete and not self.header.import_warnings


def usage_totals(items: Iterable[Any]) -> dict[str, int]:
    """Token counts summed over items, as a footer records them (integer counts only)."""
    totals: Counter[str] = Counter()
    for item in items:
        totals.update({k: v for k, v in (item.usage or {}).items() if type(v) is int})
    return dict(sorted(totals.items()))
