"""A harness's answers to an exported spec'd task -> one ordinary run of that benchmark.

The same checks as CIBuzzBench's harness import (its interop/importing.py), with the spec's own rules: the task must carry buzzprobe's export metadata for
this benchmark and data, its items must be exactly the exported selection, every letter map the
seeded shuffle the probe uses, the options shown those of that shuffle; every response is parsed
again with the probe's letter parser; a prompt that differs from the spec's (another template
hash, or other messages sent) is a warning recorded in the run. The run is then checked as the
build checks every run (run_checks.run_problems).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from builder.interop.harness import HarnessOutput, HarnessSample, coverage_problems, selection_from
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.interop.tasks import CONDITIONS, METADATA_SCHEMA, shown_letter_map, template_sha256
from builder.benchmarks.mcq.run_format import ChoiceItem
from builder.core.errors import InputError, Problem
from builder.runs.schema import Footer, Header, Run, usage_totals
from builder.runs.selection import Selection
from builder.benchmarks.mcq.run_checks import run_problems
from builder.benchmarks.mcq.probe import DEFAULT_MAX_TOKENS, item_job, parse_letter, plan_spec_run
from builder.benchmarks.mcq.prompts import option_lines
from builder.probing.runner import ProbeSettings


def is_spec_output(output: HarnessOutput) -> bool:
    """The output of a task `export --benchmark NAME` wrote."""
    return isinstance(output.metadata, dict) and output.metadata.get("schema") == METADATA_SCHEMA


def exported_benchmark(output: HarnessOutput) -> str:
    return str(output.metadata.get("benchmark") or "")


def convert_exported(output: HarnessOutput, data: ChoiceSet, created: str, model: str | None = None) -> Run:
    """The run this output amounts to; InputError (every problem, located) when it does not match."""
    condition, seed, selection, warnings = _task_of(output, data)
    items: list[ChoiceItem] = []
    problems: list[Problem] = []
    differing: list[int] = []
    seen: set[int] = set()
    for sample in output.samples:
        item = _item(output, sample, data, condition, seed, seen, problems, differing)
        if item is not None:
            items.append(item)
    problems += coverage_problems(output, selection.row_ids(data), seen)
    if problems:
        raise InputError(problems)
    if differing:
        warnings.append(f"the prompt sent for {len(differing)} item(s) differs from the spec's {condition} prompt as "
                        f"buzzprobe builds it (first row_id {differing[0]})")
    items.sort(key=lambda i: i.row_id)
    header = _header(output, data, condition, seed, selection, output.created or created, model or output.model,
                     warnings)
    run = Run(str(output.path), header, tuple(items), Footer(len(items), None, usage_totals(items)),
              {i.row_id: _line(output, i.row_id) for i in items})
    found = run_problems(run, data.benchmark, data)
    if found:
        raise InputError(found)
    return run


def _line(output: HarnessOutput, row_id: int) -> int:
    return next((s.line or 0 for s in output.samples if s.row_id == row_id), 0)


def _task_of(output: HarnessOutput, data: ChoiceSet) -> tuple[str, int, Selection, list[str]]:
    """(condition, seed, selection, warnings) the metadata names, checked against the spec's data."""
    meta, where, spec = output.metadata, str(output.path), data.benchmark.spec
    if meta.get("task_name") != output.task_name:
        raise InputError.single(where, f"unknown task {output.task_name!r}: its metadata names "
                                f"{meta.get('task_name')!r} (renamed after export?)", field="task")
    if meta.get("benchmark") != spec.name:
        raise InputError.single(where, f"task {output.task_name!r} was exported for {meta.get('benchmark')!r}, "
                                f"not {spec.name!r}", field="benchmark")
    if meta.get("content_sha256") != data.benchmark.content_sha256:
        raise InputError.single(where, f"task {output.task_name!r} was exported from different data (content sha256 "
                                f"{str(meta.get('content_sha256'))[:64]!r}, loaded: {data.benchmark.content_sha256!r})",
                                field="content_sha256")
    condition, seed = meta.get("condition"), meta.get("option_seed")
    if condition not in CONDITIONS:
        raise InputError.single(where, f"condition {str(condition)[:40]!r} is not sighted or blind", field="condition")
    if type(seed) is not int:
        raise InputError.single(where, f"option seed {str(seed)[:40]!r} is not an integer", field="option_seed")
    warnings = []
    if meta.get("prompt_sha256") != template_sha256(data, condition):
        warnings.append(f"exported with another {condition} prompt (sha256 {str(meta.get('prompt_sha256'))[:12]}…) "
                        f"than the spec's now ({template_sha256(data, condition)[:12]}…): not comparable with "
                        "runs on the current prompt")
    return condition, seed, selection_from(meta.get("items"), where), warnings


def _item(output: HarnessOutput, sample: HarnessSample, data: ChoiceSet, condition: str, seed: int, seen: set[int],
          problems: list[Problem], differing: list[int]) -> ChoiceItem | None:
    """One sample checked (row_id, letter map, options shown) and parsed; problems appended."""

    def problem(message: str, name: str) -> None:
        where = "" if name == sample.prompt_field else sample.where
        problems.append(Problem(str(output.path), message, sample.line, f"{where}{name}"))
    row_id = sample.row_id
    if type(row_id) is not int or row_id not in data.items:
        problem(f"row_id {str(row_id)[:40]!r} is not an audited item of {data.benchmark.spec.name}", "row_id")
        return None
    if row_id in seen:
        problem(f"row_id {row_id} again: each item is answered once", "row_id")
        return None
    seen.add(row_id)
    letters = shown_letter_map(data, row_id, seed)
    if sample.letter_map != letters:
        problem(f"the letter map is not the seed-{seed} shuffle of item {data.items[row_id].id}", "letter_map")
        return None
    if sample.messages:
        order = [letters[k] for k in sorted(letters)]
        if option_lines(data.items[row_id], order) not in str(sample.messages[-1].get("content")):
            problem(f"the options shown to the model are not the seed-{seed} shuffle (letters would not mean what "
                    "the letter map says)", sample.prompt_field)
            return None
        ((_, sent),) = item_job(data, row_id, seed, condition).requests
        if sample.messages != sent:
            differing.append(row_id)
    prediction = "" if sample.error else parse_letter(sample.response, len(letters))
    return ChoiceItem(row_id, data.items[row_id].id, letters, prediction, sample.response, sample.error,
                      sample.latency_ms, sample.usage)


def _header(output: HarnessOutput, data: ChoiceSet, condition: str, seed: int, selection: Selection, created: str,
            model: str, warnings: list[str]) -> Header:
    """The header `buzzprobe probe --benchmark` would write for the same run, marked as imported."""
    settings = ProbeSettings(model=model, base_url="", temperature=output.temperature if output.temperature is not None
                             else 0.0, top_p=output.top_p, max_tokens=output.max_tokens or DEFAULT_MAX_TOKENS,
                             selection=selection)
    header = plan_spec_run(data, condition, settings, seed).header
    parameters: dict[str, Any] = {**header.subject["parameters"], "endpoint_host": output.endpoint_host,
                                  "source": output.source}
    if warnings:
        parameters["import_warnings"] = warnings
    return replace(header, run_id=f"{output.harness}-{header.run_id}", created=created,
                   subject={**header.subject, "parameters": parameters})
