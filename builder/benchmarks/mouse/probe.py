"""What Mouse hands the probing engine: plans for asking a model a task, and for judging translations.

A plan (builder.probing.runner.RunPlan) says which items to ask, the exact requests of each
(RC: three, one per component; the judge: none for a missing translation) and how the replies
become one run item (run_format.MouseItem). The engine does the asking, resuming and
recording, as for every benchmark. Answers are parsed with builder.benchmarks.mouse.parsing
exactly as imported official outputs are; the raw text is always kept and an unparsed answer is
stored as `parsed: null` (counted wrong); a request that fails after its retries leaves its raw
answer null and the item's `error` set (re-asked by --retry-errors, RC: only that component).

A TR probe run holds translations only: `judge` null and `parsed` 0 (the final score with no
verdict) until `plan_judge` turns it into a judged run, whose scores follow
`metrics.translation_scores` (a missing translation or a copy of the source scores 0,
whatever the judge says; an unparsed verdict scores 0 and is flagged, never guessed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from builder.core.build_date import utc_now
from builder.benchmarks.mouse.analyses import metrics as m
from builder.benchmarks.mouse.dataset import ChoiceInstance, ClozeInstance, MainInstance, MouseSet
from builder.benchmarks.mouse.labels import CC, IR, MS, MS_LABELS, RC, RC_COMPONENTS, TD, TR
from builder.benchmarks.mouse.parsing import (is_copy, parse_choice, parse_component, parse_intention, parse_judge,
                                              parse_ms, parse_toxicity, strip_marker)
from builder.benchmarks.mouse.probe_protocols import BLIND, MouseProtocol
from builder.benchmarks.mouse.run_format import JUDGED, PROBE, MouseItem
from builder.benchmarks.mouse.runs import make_header
from builder.core.errors import InputError, Problem
from builder.core.fileio import file_sha256
from builder.core.names import fill_template, slug
from builder.probing.jobs import ANSWER, Job, Reply, summed_usage
from builder.probing.runner import ProbeSettings, RunPlan, subject_parameters
from builder.runs.schema import Run

DEFAULT_OUT = "runs/{model_slug}/{run_id}.jsonl"


def _parameters(protocol: MouseProtocol, s: ProbeSettings) -> dict[str, Any]:
    """What shapes the answers; the endpoint's host name only (no port, path or credentials)."""
    return subject_parameters(s, {"condition": protocol.condition, "protocol": protocol.id,
                                  "protocol_version": protocol.version, "prompt_sha256": protocol.sha256})


def _out_path(template: str, run_id: str, model: str) -> Path:
    return fill_template(template, "--out", run_id=run_id, model_slug=slug(model))


def _item(row_id: int, replies: dict[str, Reply], raw: Any, parsed: Any, **tr: Any) -> MouseItem:
    """The item with the envelope fields summed over its requests (errors named by part)."""
    failed = [(part, r.error) for part, r in replies.items() if r.error is not None]
    error = "; ".join(f"{part}: {e}" if len(replies) > 1 else str(e) for part, e in failed) or None
    latencies = [r.latency_ms for r in replies.values() if r.latency_ms is not None]
    return MouseItem(row_id, raw, parsed, error=error, latency_ms=round(sum(latencies), 3) if latencies else None,
                     usage=summed_usage(replies), response_truncated=any(r.truncated for r in replies.values()) or None,
                     **tr)


def answered_parts(item: MouseItem) -> dict[str, str]:
    """For --retry-errors: the RC components answered before (not asked again)."""
    return {c: v for c, v in item.raw.items() if v is not None} if isinstance(item.raw, dict) else {}


# ---------------------------------------------------------------- probing a task

def plan_probe(task: str, data: MouseSet, protocol: MouseProtocol, settings: ProbeSettings, *,
               out_template: str = DEFAULT_OUT, run_id: str | None = None) -> RunPlan:
    """One run file: one task and condition of one model on `settings.selection` of one data
    file (all items, or a seeded sample: the same items in both arms)."""
    if protocol.task != task:
        raise ValueError(f"protocol {protocol.id} is for {protocol.task}, not {task}")
    settings = with_budget(settings, protocol)
    selection = settings.selection
    row_ids = selection.row_ids(data)
    tag = f"-n{selection.n}-r{selection.sample_seed}" if selection.kind == "sample" else ""
    rid = run_id or f"mouse-{slug(settings.model)}-{task}-{protocol.condition}{tag}"
    subject = {"kind": "model", "name": settings.model, "parameters": _parameters(protocol, settings)}
    header = make_header(rid, task, protocol.condition, subject, data.content_sha256, selection.header(len(row_ids)),
                         {"kind": PROBE}, utc_now())
    return RunPlan(header, _out_path(out_template, rid, settings.model), row_ids,
                   task_jobs(task, data, protocol), settings, answered=answered_parts if task == RC else None)


def with_budget(settings: ProbeSettings, protocol: MouseProtocol) -> ProbeSettings:
    """No --max-tokens (None or 0): the protocol's budget (128 for the tasks, 512 for the judge)."""
    return settings if settings.max_tokens else replace(settings, max_tokens=protocol.max_tokens)


def task_jobs(task: str, data: MouseSet, protocol: MouseProtocol) -> Callable[[int], Job]:
    by_index = {inst.index: inst for inst in data}
    jobs: dict[str, Callable[[str, Any, MouseProtocol], Job]] = {
        TR: _tr_job, RC: _rc_job, IR: _label_job, TD: _label_job, MS: _choice_job, CC: _choice_job}
    make = jobs[task]
    return lambda index: make(task, by_index[index], protocol)


def _tr_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    def finish(r: dict[str, Reply]) -> MouseItem:
        raw = r[ANSWER].content
        return _item(inst.index, r, raw, 0, judge_raw=None, judge=None, copied=is_copy(inst.source, raw))
    return Job(inst.index, ((ANSWER, protocol.messages(ANSWER, source=inst.source)),), finish)


def _rc_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    def finish(r: dict[str, Reply]) -> MouseItem:
        raw = {c: r[c].content for c in RC_COMPONENTS}
        return _item(inst.index, r, raw, {c: parse_component(raw[c]) for c in RC_COMPONENTS})
    return Job(inst.index, tuple((c, protocol.messages(c, source=inst.source)) for c in RC_COMPONENTS), finish)


def _label_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    parse = parse_intention if task == IR else parse_toxicity
    return Job(inst.index, ((ANSWER, protocol.messages(ANSWER, source=inst.source)),),
               lambda r: _item(inst.index, r, r[ANSWER].content, parse(r[ANSWER].content)))


def ms_options(inst: ChoiceInstance) -> str:
    """Lines "A. <text>" in letter order; a marker already in a cell is not doubled."""
    return "\n".join(f"{letter}. {strip_marker(text)}" for letter, text in zip(MS_LABELS, inst.options))


def _choice_job(task: str, inst: ChoiceInstance | ClozeInstance, protocol: MouseProtocol) -> Job:
    if isinstance(inst, ClozeInstance):
        options, parse = inst.options_text, (lambda raw: parse_choice(raw, inst.options))
    else:
        options, parse = ms_options(inst), (lambda raw: parse_ms(raw, inst.options))
    # The blind arm is never given the question, not even as an unused value.
    values = {"options": options} if protocol.condition == BLIND else {"question": inst.question, "options": options}
    return Job(inst.index, ((ANSWER, protocol.messages(ANSWER, **values)),),
               lambda r: _item(inst.index, r, r[ANSWER].content, parse(r[ANSWER].content)))


# ---------------------------------------------------------------- judging a TR run

def plan_judge(translations: Run, data: MouseSet[MainInstance], protocol: MouseProtocol,
               settings: ProbeSettings, *, out_template: str | None = None, run_id: str | None = None) -> RunPlan:
    """A judged copy of a finished TR run: same subject (the translating model), same items,
    with the judge's verdicts; the judge model and protocol are recorded in `source.judge`."""
    path = Path(translations.path)
    _check_translations(translations, data, path)
    th = translations.header
    settings = with_budget(settings, protocol)
    rid = run_id or f"{th.run_id}-judge-{slug(settings.model)}"
    source = {"kind": JUDGED,
              "translations": {"run_id": th.run_id, "file": path.name, "sha256": file_sha256(path)},
              "judge": {"kind": "model", "name": settings.model, "parameters": _parameters(protocol, settings)}}
    header = make_header(rid, TR, th.condition, th.subject, th.dataset["content_sha256"], th.items, source, utc_now())
    out = _out_path(out_template, rid, settings.model) if out_template else path.with_name(f"{rid}.jsonl")
    by_index = {inst.index: inst for inst in data}
    items = {item.row_id: item for item in translations.items}
    return RunPlan(header, out, sorted(items), lambda row_id: _judge_job(by_index[row_id], items[row_id].raw, protocol),
                   settings)


def _check_translations(run: Run, data: MouseSet, path: Path) -> None:
    h = run.header
    problems = []
    if h.task != TR:
        problems.append(Problem(str(path), f"not a translation run (task {h.task!r})", 1, "task"))
    elif h.source and h.source.get("kind") != PROBE:
        problems.append(Problem(str(path), "already judged: judge the translation run it was made from", 1,
                                "source.kind"))
    elif run.footer is None:
        problems.append(Problem(str(path), f"unfinished: {len(run.items)} of {h.items.get('n')} items; finish the "
                                "probe (re-run the same command) before judging", 1, "items"))
    if h.dataset.get("content_sha256") != data.content_sha256:
        problems.append(Problem(str(path), f"was made on dataset content {h.dataset.get('content_sha256')!r}, "
                                f"not on {data.path} ({data.content_sha256})", 1, "dataset"))
    known = {inst.index for inst in data}
    missing = [item.row_id for item in run.items if item.row_id not in known]
    if missing:
        problems.append(Problem(str(path), f"row_id {missing[0]} is not in {data.path}",
                                run.item_lines.get(missing[0]), "row_id"))
    if problems:
        raise InputError(problems)


def _judge_job(inst: MainInstance, translation: str | None, protocol: MouseProtocol) -> Job:
    copied = is_copy(inst.source, translation)
    if translation is None or not translation.strip():
        return Job(inst.index, (), lambda r: MouseItem(inst.index, translation, 0, None, None, copied),
                   note="missing translation: no request, scored 0")

    def finish(r: dict[str, Reply]) -> MouseItem:
        judge = parse_judge(r[ANSWER].content)
        (score,) = m.translation_scores([inst.source], [translation], [judge])
        return _item(inst.index, r, translation, score, judge_raw=r[ANSWER].content, judge=judge, copied=copied)
    messages = protocol.messages(ANSWER, source=inst.source, reference=inst.reference, translation=translation)
    return Job(inst.index, ((ANSWER, messages),), finish)
