"""Any run as Every Eval Ever files (`buzzprobe export eee`: builder/eee_export.py asks the
owning plug-in for its mapping and calls `write_evaluation`).

Every Eval Ever (evaleval/every_eval_ever, `every-eval-ever` on PyPI) keeps one aggregate log
per model and evaluation, `data/<benchmark>/<developer>/<model>/<uuid>.json`, and an
instance-level sidecar `<uuid>_samples.jsonl` beside it; its validator checks both, their
paths and that they agree (evaluation id, model id, row count, checksum). This module writes
that envelope for every benchmark alike; what a run's items and scores *are* is the owning
plug-in's mapping (`Benchmark.eee_evaluation`, e.g. builder/benchmarks/<name>/eee.py). The uuid
comes from the run id and data hash, so exporting a run again writes the same files. Instances
carry the benchmark's text (the user's own data): the folder must be outside the repository.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.core.names import slug
from builder.runs.schema import Run

SCHEMA_VERSION = "0.3.0"  # the every-eval-ever schema these files are written for (and tested with)
UNKNOWN = "unknown"
_MAXIMUM = {"proportion": 1.0, "percent": 100.0}  # a metric's unit -> its best score
# Characters that str.splitlines (the validator's line reader) ends a line at and JSON leaves
# unescaped: MMLU-Pro's questions hold U+0085, which split an instance in two.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")  # an item's usage, as OpenAI-compatible APIs count
RUN_HEADER = "buzzprobe_run"  # source_metadata.additional_details: the run's header, footer and item order (JSON)
RUN_ITEM = "buzzprobe_item"  # an instance's metadata: its run line (JSON)


@dataclass(frozen=True)
class Instance:
    """One answered item, as the model (or probe) saw and answered it."""

    sample_id: str
    input: str  # input.raw: the text the subject was given (the dataset's, never stored in runs)
    reference: str  # the gold label
    prediction: str  # the terminal extracted answer; "" when unparsed (counted wrong)
    correct: bool
    extraction: str  # how `prediction` was read from the response
    choices: tuple[str, ...] | None = None  # the options in the order shown (A, B, ...)
    response: str | None = None  # the raw response, when the run kept it
    metadata: Mapping[str, str] = field(default_factory=dict)
    usage: Mapping[str, int] | None = None  # prompt/completion/total tokens as the endpoint gave them
    latency_ms: float | None = None
    error: str | None = None
    row_id: int | None = None  # the run's item, whose line the sidecar carries for the lossless import


@dataclass(frozen=True)
class Metric:
    """One aggregate score, on the scale its benchmark reports it."""

    metric_id: str
    kind: str  # accuracy, f1 ...
    description: str
    score: float
    unit: str = "proportion"  # or "percent" (0-100), as the benchmark reports it
    interval: tuple[float, float, float] | None = None  # (low, high, level)
    interval_method: str = ""
    resamples: int | None = None


@dataclass(frozen=True)
class Evaluation:
    """What a plug-in says about one run; the writer adds the envelope."""

    name: str  # evaluation_name: which evaluation of the benchmark (task, condition ...)
    dataset: Mapping[str, Any]  # source_data (dataset_name, source_type, url / additional_details)
    instances: Sequence[Instance]
    metrics: Sequence[Metric]
    details: Mapping[str, str] = field(default_factory=dict)  # source_metadata.additional_details
    organization: str = "buzzprobe"  # who provides the data (an import's upstream repository)
    generation: Mapping[str, Any] = field(default_factory=dict)  # generation_config.generation_args
    developer: str = UNKNOWN  # the model's developer when --developer is not given


def eval_uuid(run: Run) -> str:
    digest = hashlib.sha256(f"{run.header.run_id}\0{run.header.dataset.get('content_sha256')}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def export_warnings(aggregate: Path, out: Path) -> list[str]:
    """What Every Eval Ever's validator (`every-eval-ever` 0.3.0) will flag in an export, said
    before the user submits it: it passes a record whose developer is unknown only as "Valid
    locally, but not merge-ready" (the datastore is queried by developer)."""
    log = json.loads(aggregate.read_text(encoding="utf-8"))
    found = []
    if log["model_info"]["developer"] == UNKNOWN:
        found.append(f"model_info.developer is {UNKNOWN!r}: Every Eval Ever's validator will warn that the model "
                     "names no datastore folder and call the export \"Valid locally, but not merge-ready\"; "
                     "export again with --developer NAME (the model's developer, e.g. qwen)")
    return found


def validator_command(out: Path, files: Sequence[Path]) -> str:
    """The validator's command line for the files written (run in OUT: it checks datastore paths)."""
    return (f"cd {out} && python -m every_eval_ever validate "
            + " ".join(str(f.relative_to(out)) for f in files) + "   (make eee-venv: .venv-eee/bin/python)")


def write_evaluation(run: Run, evaluation: Evaluation, out: Path, developer: str) -> tuple[Path, Path]:
    """Write the aggregate and its sidecar under `out/data/...`; returns both paths."""
    model = slug(run.header.subject_name)
    folder = f"data/{slug(run.header.benchmark)}/{slug(developer) or UNKNOWN}/{model}"
    name = eval_uuid(run)
    evaluation_id = f"{run.header.benchmark}/{model}/{name}"
    samples_rel = f"{folder}/{name}_samples.jsonl"
    lines = [_instance(one, evaluation.name, evaluation_id, model) for one in evaluation.instances]
    _carry_run(run, lines, evaluation.instances)
    samples = "".join(_jsonl(line) for line in lines).encode()
    log = _aggregate(run, evaluation, evaluation_id, developer)
    log["detailed_evaluation_results"] = {"format": "jsonl", "file_path": samples_rel, "hash_algorithm": "sha256",
                                          "checksum": hashlib.sha256(samples).hexdigest(), "total_rows": len(lines)}
    target = out / folder
    try:
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{name}_samples.jsonl").write_bytes(samples)
        (target / f"{name}.json").write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:  # --out is a file, read-only, full...: said of the folder, not as a traceback
        raise InputError.single(out, f"cannot write the export: {exc.strerror or exc} ({exc.filename or target})",
                                field="--out") from None
    return target / f"{name}.json", target / f"{name}_samples.jsonl"


def _carry_run(run: Run, lines: list[dict[str, Any]], instances: Sequence[Instance]) -> None:
    """Each instance's metadata also carries its run line (`buzzprobe_item`, JSON): with the
    header the aggregate carries (`buzzprobe_run`), `buzzprobe import eee` gives back the very
    run (condition, letter map, answers), where the fields Every Eval Ever defines alone would
    lose the letter map and the run's settings. Run lines never hold the data set's text."""
    items = {item.row_id: item for item in run.items}
    for line, one in zip(lines, instances, strict=True):
        if one.row_id is not None and one.row_id in items:
            line["metadata"][RUN_ITEM] = json.dumps(items[one.row_id].to_json(), ensure_ascii=False,
                                                    separators=(",", ":"))


def _jsonl(line: dict[str, Any]) -> str:
    """One sidecar line, readable however its reader splits lines (escapes are the same JSON)."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).translate(_LINE_BREAKS) + "\n"


def _instance(one: Instance, evaluation_name: str, evaluation_id: str, model_id: str) -> dict[str, Any]:
    given: dict[str, Any] = {"raw": one.input, "reference": [one.reference]}
    if one.choices is not None:
        given["choices"] = list(one.choices)
    line: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": model_id,
        "evaluation_name": evaluation_name, "sample_id": one.sample_id, "interaction_type": "single_turn",
        "input": given,
        # an imported run may keep a hash of the response, not its text: then no response is given
        "output": {"raw": [one.response] if one.response is not None else []},
        "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": one.prediction,
                                "extraction_method": one.extraction, "is_terminal": True}],
        "evaluation": {"score": 1.0 if one.correct else 0.0, "is_correct": one.correct},
        "metadata": dict(one.metadata)}
    usage = one.usage or {}
    if all(isinstance(usage.get(k), int) for k in _TOKENS):
        line["token_usage"] = {ours: usage[theirs] for ours, theirs in zip(("input_tokens", "output_tokens",
                                                                           "total_tokens"), _TOKENS)}
    if one.latency_ms is not None:
        line["performance"] = {"latency_ms": one.latency_ms}
    if one.error is not None:
        line["error"] = one.error
    return line


def _aggregate(run: Run, evaluation: Evaluation, evaluation_id: str, developer: str) -> dict[str, Any]:
    h = run.header
    details = {"run_id": h.run_id, "condition": h.condition, **evaluation.details,
               RUN_HEADER: json.dumps({"header": h.to_json(), "footer": run.footer.to_json() if run.footer else None,
                                       "order": [item.row_id for item in run.items]},
                                      ensure_ascii=False, separators=(",", ":"))}
    results = [_result(evaluation, metric) for metric in evaluation.metrics]
    return {
        "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "retrieved_timestamp": h.created,
        "source_metadata": {"source_name": f"buzzprobe run {h.run_id}", "source_type": "evaluation_run",
                            "source_organization_name": evaluation.organization,
                            "evaluator_relationship": "third_party", "additional_details": details},
        "eval_library": {"name": "buzzprobe", "version": str(h.tool.get("version", "")) or UNKNOWN},
        "model_info": _model_info(run, developer),
        "evaluation_results": results}


def _model_info(run: Run, developer: str) -> dict[str, Any]:
    """The subject; a model file served on this machine is self-deployed with open weights
    (the header's `subject.runtime`, written by the local-model target), else unknown."""
    runtime = found if isinstance(found := run.header.subject.get("runtime"), dict) else {}
    local = runtime.get("local") is True and bool(runtime.get("model_file"))
    info: dict[str, Any] = {"name": run.header.subject_name, "id": slug(run.header.subject_name),
                            "developer": developer,
                            "additional_details": {"deployment_type": "self_deployed" if local else UNKNOWN,
                                                   "model_availability": "open_weights" if local else UNKNOWN}}
    if runtime.get("runtime"):
        info["inference_engine"] = {"name": str(runtime["runtime"]),
                                    "version": str(runtime.get("runtime_version", UNKNOWN))}
    return info


def _result(evaluation: Evaluation, metric: Metric) -> dict[str, Any]:
    score: dict[str, Any] = {"score": metric.score}
    if metric.interval is not None:
        low, high, level = metric.interval
        score["uncertainty"] = {"confidence_interval": {"lower": low, "upper": high, "confidence_level": level,
                                                        "method": metric.interval_method},
                                "num_samples": len(evaluation.instances)}
        if metric.resamples is not None:
            score["uncertainty"]["num_bootstrap_samples"] = metric.resamples
    result: dict[str, Any] = {
        "evaluation_name": evaluation.name, "source_data": dict(evaluation.dataset),
        "metric_config": {"evaluation_description": metric.description, "metric_id": metric.metric_id,
                          "metric_name": metric.metric_id, "metric_kind": metric.kind,
                          "metric_unit": metric.unit, "lower_is_better": False, "score_type": "continuous",
                          "min_score": 0.0, "max_score": _MAXIMUM[metric.unit]},
        "score_details": score}
    if evaluation.generation:
        result["generation_config"] = {"generation_args": dict(evaluation.generation)}
    return result
