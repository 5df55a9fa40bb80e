"""A harness's answers to an exported task -> one ordinary run, with the official checks.

Both harness readers reduce their output to a `HarnessOutput`; from there everything is
shared: the task must carry buzzprobe's export metadata (else it is an unknown task), its
protocol must exist, its items must be exactly the exported selection, and every item goes
through the official importer's row checks (known row_id, letter map equal to the official
shuffle for the seed, predictions that are labels). Responses are parsed again with the
official parser, so a harness's own scoring never enters a run. A protocol whose prompt hash
(or the prompt actually sent) differs from today's is accepted with a warning, recorded in
the run header (`subject.parameters.import_warnings`) and shown on the run page.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import GOLD, LETTERS, option_sets
from builder.core.errors import InputError, Problem
from builder.benchmarks.cibuzzbench.official_import import PredictionsFile, RowChecker, SourceRow, first_time
from builder.benchmarks.cibuzzbench.interop.spec import METADATA_SCHEMA, ExportTask
from builder.interop.harness import HarnessOutput, HarnessSample, coverage_problems, selection_from, unknown_task
from builder.benchmarks.cibuzzbench.prompts import prompt_builder
from builder.probing.protocols import Protocol
from builder.benchmarks.cibuzzbench.probes.plan import plan_run
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.probing.runner import ProbeSettings
from builder.runs.schema import Footer, Header, Run, usage_totals
from builder.benchmarks.cibuzzbench.run_checks import validate_run
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION



def convert(output: HarnessOutput, datasets: dict[str, Dataset], protocols: dict[str, Protocol],
            created: str, model: str | None = None) -> Run:
    """The run this output amounts to; InputError (every problem, located) when it does not match.
    `created` (the import's time) stands in when the log does not say when the harness ran."""
    task, warnings = _task_of(output, datasets, protocols)
    dataset = datasets[task.variant]
    found = _Collected(output, task, dataset)
    for sample in output.samples:
        found.add(sample)
    problems = found.checker.problems + coverage_problems(output, task.selection.row_ids(dataset), found.answered)
    if problems:
        raise InputError(problems)
    if found.differing:
        warnings.append(f"the prompt sent for {len(found.differing)} item(s) differs from protocol {task.protocol.id} "
                        f"v{task.protocol.version} as buzzprobe builds it (first row_id {found.differing[0]})")
    items = sorted(found.items, key=lambda i: i.row_id)
    header = _header(output, task, dataset, output.created or created, model or output.model, warnings)
    run = Run(str(output.path), header, tuple(items), Footer(len(items), None, usage_totals(items)),
              {i.row_id: found.lines[i.row_id] or 0 for i in items})
    validate_run(run, dataset)
    return run


class _Collected:
    """The items of one output, checked one sample at a time by the official row checker."""

    def __init__(self, output: HarnessOutput, task: ExportTask, dataset: Dataset):
        self.path, self.task, self.dataset = str(output.path), task, dataset
        self.checker = RowChecker(PredictionsFile(output.path, task.protocol.task, task.seed), dataset)
        self.build = prompt_builder(dataset, task.protocol, task.seed)
        self.items: list[Item] = []
        self.lines: dict[int, int] = {}
        self.differing: list[int] = []  # row_ids whose sent prompt is not the protocol's
        self.answered: set[int] = set()

    def add(self, sample: HarnessSample) -> None:
        if type(sample.row_id) is not int:
            self._problem(sample, f"row_id {sample.row_id!r} is not an integer", "row_id")
            return
        self.answered.add(sample.row_id)
        if self.task.seed is not None and not _is_letter_map(sample.letter_map):
            self._problem(sample, "missing or malformed letter map (expected letters A-D mapped to option sources)",
                          "letter_map")
            return
        row = _row(_without_prompt(sample, self.task, self.dataset), self.build, self.dataset)
        before = len(self.checker.problems)
        item = self.checker.item(row)
        _relocate(self.checker.problems, before, sample)
        if item is not None and self._options_shown(sample, item.row_id) and \
                first_time(self.checker, row, item.row_id, self.lines):
            self.items.append(item)
            self.lines[item.row_id] = row.line
            if sample.messages is not None and sample.messages != self.build(item.row_id).messages:
                self.differing.append(item.row_id)

    def _options_shown(self, sample: HarnessSample, row_id: int) -> bool:
        """Task 2: the options the model saw must be the official shuffle's lines, or the letter
        map would not say what a letter meant. (Other prompt changes are only warnings.)"""
        if self.task.seed is None or not sample.messages:
            return True
        lines = option_sets(self.dataset, self.task.seed)[row_id].as_prompt_lines()
        if lines in str(sample.messages[-1].get("content")):
            return True
        self._problem(sample, f"the options shown to the model are not the official shuffle for seed "
                      f"{self.task.seed} (letters would not mean what the letter map says)", sample.prompt_field)
        return False

    def _problem(self, sample: HarnessSample, message: str, name: str) -> None:
        where = "" if name == sample.prompt_field else sample.where
        self.checker.problems.append(Problem(self.path, message, sample.line, f"{where}{name}"))


def _task_of(output: HarnessOutput, datasets: dict[str, Dataset],
             protocols: dict[str, Protocol]) -> tuple[ExportTask, list[str]]:
    """The exported task named by the output's metadata, and the warnings it earns."""
    meta, where = output.metadata, str(output.path)
    if not isinstance(meta, dict) or meta.get("schema") != METADATA_SCHEMA:
        raise InputError([unknown_task(output)])
    if meta.get("task_name") != output.task_name:
        raise InputError.single(where, f"unknown task {output.task_name!r}: its metadata names "
                                f"{meta.get('task_name')!r} (renamed after export?)", field="task")
    protocol = protocols.get(str(meta.get("protocol")))
    if protocol is None:
        raise InputError.single(where, f"unknown task {output.task_name!r}: protocol {meta.get('protocol')!r} "
                                "is not in the protocol file", field="protocol")
    claimed = (meta.get("task"), meta.get("condition"), meta.get("lang"))
    if claimed != (protocol.task, protocol.condition, protocol.lang):
        raise InputError.single(where, f"task {output.task_name!r} says {claimed}, but protocol {protocol.id} "
                                f"serves {(protocol.task, protocol.condition, protocol.lang)}", field="protocol")
    variant = meta.get("variant")
    if variant not in datasets:
        raise InputError.single(where, f"unknown dataset variant {variant!r}", field="variant")
    if meta.get("content_sha256") != datasets[variant].content_sha256:
        raise InputError.single(where, f"task {output.task_name!r} was exported from different data (content "
                                f"sha256 {meta.get('content_sha256')!r}, loaded: {datasets[variant].content_sha256!r})",
                                field="content_sha256")
    seed = meta.get("option_seed")
    if (protocol.task == EQUIVALENT_SELECTION) != (type(seed) is int):
        raise InputError.single(where, f"option seed {seed!r} does not fit task {protocol.task}", field="option_seed")
    task = ExportTask(protocol, seed, variant, selection_from(meta.get("items"), where),
                      datasets[variant].content_sha256)
    warnings = []
    if (meta.get("prompt_sha256"), meta.get("protocol_version")) != (protocol.sha256, protocol.version):
        warnings.append(f"exported with protocol {protocol.id} v{meta.get('protocol_version')} (prompt sha256 "
                        f"{str(meta.get('prompt_sha256'))[:12]}…); buzzprobe's protocol is now v{protocol.version} "
                        f"(prompt sha256 {protocol.sha256[:12]}…): not comparable with runs on the current prompt")
    return task, warnings


def _without_prompt(sample: HarnessSample, task: ExportTask, dataset: Dataset) -> HarnessSample:
    """A run never copies dataset text: an error message that quotes the item's term or an
    option, plainly or JSON-escaped, is replaced by a note saying so."""
    if not sample.error or not 0 <= sample.row_id < dataset.rows:
        return sample
    texts = [dataset.column("term_zh")[sample.row_id]]
    if task.seed is not None:
        texts += [o.text for o in option_sets(dataset, task.seed)[sample.row_id].options]
    forms = {form for text in texts for form in (text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1])}
    if any(form in sample.error for form in forms):
        return replace(sample, error="request failed (the harness's error text quoted the prompt and is not kept)")
    return sample


def _is_letter_map(value: Any) -> bool:
    return isinstance(value, dict) and sorted(value) == list(LETTERS) and all(isinstance(v, str) for v in value.values())


def _row(sample: HarnessSample, build: Any, dataset: Dataset) -> SourceRow:
    """The official importer's row for this sample: cells named as its CSV columns."""
    cells = {"row_id": str(sample.row_id), "success": "false" if sample.error else "true",
             "raw_response": sample.response or "", "error": sample.error or "", "prediction": ""}
    if not sample.error and 0 <= sample.row_id < dataset.rows:
        cells["prediction"] = build(sample.row_id).parse(sample.response or "")
    letters = sample.letter_map if isinstance(sample.letter_map, dict) else {}
    for letter in LETTERS:
        cells[f"option_{letter}_source"] = str(letters.get(letter, ""))
    cells["gold_letter"] = next((k for k, v in letters.items() if v == GOLD), "")
    if sample.letter_map is None and isinstance(sample.target, str):
        cells["gold_label"] = sample.target  # Task 3: the exported gold must be the dataset's
    if sample.latency_ms is not None:
        cells["latency_sec"] = repr(sample.latency_ms / 1000.0)
    if sample.usage:
        cells["usage_json"] = json.dumps(sample.usage)
    return SourceRow(sample.line or 0, cells)


# Field names of the official CSV -> where the value sits in a harness log.
_FIELDS = {"gold_letter": "letter_map", "row_id": "row_id", "raw_response": "response",
           **{f"option_{letter}_source": f"letter_map.{letter}" for letter in LETTERS}}


def _relocate(problems: list[Problem], start: int, sample: HarnessSample) -> None:
    """Point the official checker's problems at the harness log's own fields."""
    for i in range(start, len(problems)):
        p = problems[i]
        name = _FIELDS.get(p.field or "", p.field or "")
        problems[i] = Problem(p.path, p.message, sample.line, f"{sample.where}{name}")


def _header(output: HarnessOutput, task: ExportTask, dataset: Dataset, created: str, model: str,
            warnings: list[str]) -> Header:
    """The header `buzzprobe probe` would write for the same run, then marked as imported."""
    settings = ProbeSettings(model=model, base_url="", temperature=output.temperature if output.temperature is not None
                             else 0.0, top_p=output.top_p, max_tokens=output.max_tokens or task.protocol.max_tokens,
                             selection=task.selection)
    header = plan_run(dataset, task.protocol, settings, task.seed, variant=task.variant).header
    parameters = {**header.subject["parameters"], "endpoint_host": output.endpoint_host, "source": output.source}
    if warnings:
        parameters["import_warnings"] = warnings
    return replace(header, run_id=f"{output.harness}-{header.run_id}", created=created,
                   subject={**header.subject, "parameters": parameters})
