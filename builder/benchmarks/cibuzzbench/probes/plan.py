"""Planning one CIBuzzBench probe run: its id, its header and the job of each item.

The probing engine (builder.probing.runner) asks and records; this module says what a
CIBuzzBench run is: the task tags in its id (t2, t3), the dataset (or option set) and seed its
prompts are built from, and the protocol fields its header records.
"""

from __future__ import annotations

from typing import Any

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.probes.report import probe_report
from builder.benchmarks.cibuzzbench.prompts import prompt_builder
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION
from builder.core.build_date import utc_now
from builder.core.names import fill_template, slug
from builder.probing.protocols import Protocol
from builder.probing.runner import DEFAULT_OUT, ProbeSettings, RunPlan, subject_parameters
from builder.runs.selection import Selection
from builder.runs.schema import new_header

TASK_TAGS = {EQUIVALENT_SELECTION: "t2", HARMFULNESS_DETECTION: "t3"}


def make_run_id(model: str, protocol: Protocol, seed: int | None, selection: Selection) -> str:
    seed_tag = f"-s{seed}" if seed is not None else ""
    return (f"{slug(model)}-{TASK_TAGS[protocol.task]}-{protocol.condition}-{protocol.lang}"
            f"{seed_tag}-{selection.tag}")


def probe_run_id(model: str, protocol: Protocol, seed: int | None, selection: Selection,
                 variant: str = "original") -> str:
    """The one id rule of a probed run: `make_run_id`, then the protocol's id when it is not the
    task's default prompt, then the option set when it is not the original."""
    rid = make_run_id(model, protocol, seed, selection)
    if not protocol.default:
        rid = f"{rid}-{protocol.id}"
    return rid if variant == "original" else f"{rid}-{variant}"


def plan_run(dataset: Dataset, protocol: Protocol, settings: ProbeSettings, seed: int | None,
             out_template: str = DEFAULT_OUT, run_id: str | None = None, variant: str = "original",
             runtime: dict[str, Any] | None = None) -> RunPlan:
    """`dataset` is the variant's dataset when `variant` is not the original: the prompts
    show that variant's options, and the run records the variant and its content hash.
    `runtime` (what served the model: file hash, quantisation, runtime version...) is recorded
    in the header's subject as given."""
    row_ids = settings.selection.row_ids(dataset)
    rid = run_id or probe_run_id(settings.model, protocol, seed, settings.selection, variant)
    subject: dict[str, Any] = {"kind": "model", "name": settings.model, "parameters": parameters(protocol, settings)}
    if runtime:
        subject["runtime"] = runtime
    path = fill_template(out_template, "--out", run_id=rid, model_slug=slug(settings.model))
    header = new_header(
        run_id=rid, benchmark="cibuzzbench", task=protocol.task, condition=protocol.condition,
        subject=subject, option_seed=seed, items=settings.selection.header(len(row_ids)),
        dataset={"name": "CIBuzzBench", "variant": variant, "content_sha256": dataset.content_sha256},
        created=utc_now())
    prompts = prompt_builder(dataset, protocol, seed)
    return RunPlan(header, path, row_ids, lambda row_id: prompts(row_id).job(), settings,
                   score=lambda done: probe_report(done, dataset))


def parameters(protocol: Protocol, settings: ProbeSettings) -> dict[str, Any]:
    """The run's `subject.parameters`: sampling, the prompt's protocol, the serving host."""
    return subject_parameters(
        settings, {"lang": protocol.lang, "protocol": protocol.id, "protocol_version": protocol.version,
                   "prompt_sha256": protocol.sha256},
        {"pairs_with": protocol.pairs_with} if protocol.pairs_with else None)
