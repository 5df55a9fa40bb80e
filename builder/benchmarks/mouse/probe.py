"""Plans for asking a model the Mouse tasks, and for judging a finished translation run.

A plan says which items to ask, the exact requests of each (RC: three, one per component;
the judge: none for a missing translation) and how the answers become one
`buzzprobe.mouse-run/1` item. Answers are parsed with builder.benchmarks.mouse.parsing exactly as
imported official outputs are; the raw text is always kept and an unparsed answer is
stored as `parsed: null` (counted wrong). Execution lives in `probe_runner`.

A TR probe run holds translations only: `judge` null and `parsed` 0 (the schema's final
score with no verdict) until `plan_judge` turns it into a judged run, whose scores follow
`metrics.translation_scores` (a missing translation or a copy of the source scores 0,
whatever the judge says; an unparsed verdict scores 0 and is flagged, never guessed).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from builder import __version__
from builder.core.build_date import utc_now
from builder.core.errors import InputError, Problem
from builder.benchmarks.mouse import metrics as m
from builder.benchmarks.mouse.dataset import ChoiceInstance, ClozeInstance, MainInstance, MouseSet
from builder.benchmarks.mouse.labels import CC, IR, MS, MS_LABELS, RC, RC_COMPONENTS, TD, TR
from builder.benchmarks.mouse.parsing import (is_copy, parse_choice, parse_component, parse_intention, parse_judge, parse_ms,
                                   parse_toxicity, strip_marker)
from builder.benchmarks.mouse.probe_protocols import ANSWER, BLIND, MouseProtocol
from builder.benchmarks.mouse.runfile import MouseRun, MouseRunHeader, MouseRunItem
from builder.core.names import fill_template, slug
from builder.probing.client import RetryPolicy

DEFAULT_OUT = "runs-mouse/{model_slug}/{run_id}.jsonl"
DATA_FILES = {TR: "main_eval", RC: "main_eval", IR: "main_eval", TD: "main_eval", MS: "single_choice", CC: "icc"}
PROBE, JUDGED = "probe", "judge"  # header source.kind of a probe run and of a judged TR run

Messages = list[dict[str, str]]
Answers = dict[str, str | None]  # part -> raw answer (None: the call failed after its retries)


@dataclass(frozen=True)
class MouseSettings:
    """How to ask (never the key: it is passed to the runner separately)."""

    model: str
    base_url: str
    temperature: float = 0.0
    top_p: float | None = None
    max_tokens: int | None = None  # None: the protocol's
    concurrency: int = 8
    timeout: float = 60.0
    policy: RetryPolicy = RetryPolicy()
    progress: bool = True


@dataclass(frozen=True)
class Job:
    """One item: the requests to send, in order, and how their answers become the run item."""

    index: int
    requests: tuple[tuple[str, Messages], ...]  # (part, messages)
    finish: Callable[[Answers], MouseRunItem]
    note: str = ""  # why an item needs no request (dry-run display)


@dataclass(frozen=True)
class MousePlan:
    header: MouseRunHeader
    path: Path
    indices: tuple[int, ...]  # ascending
    build: Callable[[int], Job]
    settings: MouseSettings
    max_tokens: int
    protocol: MouseProtocol

    def body(self, messages: Messages) -> dict[str, Any]:
        """The exact JSON body posted for one request."""
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": messages, "temperature": s.temperature,
                                "max_tokens": self.max_tokens}
        if s.top_p is not None:
            body["top_p"] = s.top_p
        return body

    def failed(self, item: MouseRunItem) -> bool:
        """An item with a call that failed after its retries (what --retry-errors re-asks)."""
        if self.header.source.get("kind") == JUDGED:
            return item.raw is not None and bool(item.raw.strip()) and item.judge_raw is None
        if self.header.task == RC:
            return any(v is None for v in item.raw.values())
        return item.raw is None


def select(count: int, sample: int | None, sample_seed: int) -> tuple[tuple[int, ...], dict[str, Any], str]:
    """(indices, the header's selection record, the run-id tag): every item, or
    `sorted(random.Random(seed).sample(range(count), n))`, so both arms ask the same items."""
    if sample is None:
        return tuple(range(count)), {"selection": "all"}, ""
    if not 0 < sample <= count:
        raise InputError.single("--sample", f"sample size {sample} must be between 1 and {count} (the data file)")
    indices = tuple(sorted(random.Random(sample_seed).sample(range(count), sample)))
    return indices, {"selection": "sample", "n": sample, "sample_seed": sample_seed}, f"-n{sample}-r{sample_seed}"


def _parameters(protocol: MouseProtocol, s: MouseSettings, max_tokens: int) -> dict[str, Any]:
    """What shapes the answers; the endpoint's host name only (no port, path or credentials)."""
    return {"temperature": s.temperature, "top_p": s.top_p, "max_tokens": max_tokens,
            "condition": protocol.condition, "protocol": protocol.id, "protocol_version": protocol.version,
            "prompt_sha256": protocol.sha256, "endpoint_host": urlsplit(s.base_url).hostname or ""}


def _tool() -> dict[str, Any]:
    return {"name": "buzzprobe", "version": __version__}


def _out_path(template: str, run_id: str, model: str) -> Path:
    return fill_template(template, "--out", run_id=run_id, model_slug=slug(model))


# ---------------------------------------------------------------- probing a task

def plan_probe(task: str, data: MouseSet, protocol: MouseProtocol, settings: MouseSettings, *,
               sample: int | None = None, sample_seed: int = 0, out_template: str = DEFAULT_OUT,
               run_id: str | None = None) -> MousePlan:
    """One run file: one task and condition of one model on (a sample of) one data file."""
    if protocol.task != task:
        raise ValueError(f"protocol {protocol.id} is for {protocol.task}, not {task}")
    indices, selection, tag = select(len(data), sample, sample_seed)
    max_tokens = settings.max_tokens or protocol.max_tokens
    rid = run_id or f"mouse-{slug(settings.model)}-{task}-{protocol.condition}{tag}"
    header = MouseRunHeader(
        rid, task, {"kind": "model", "name": settings.model, "parameters": _parameters(protocol, settings, max_tokens)},
        {"file": DATA_FILES[task], "content_sha256": data.content_sha256, "selection": selection},
        {"kind": PROBE}, len(indices), utc_now(), _tool())
    return MousePlan(header, _out_path(out_template, rid, settings.model), indices,
                     task_jobs(task, data, protocol), settings, max_tokens, protocol)


def task_jobs(task: str, data: MouseSet, protocol: MouseProtocol) -> Callable[[int], Job]:
    by_index = {inst.index: inst for inst in data}
    make = {TR: _tr_job, RC: _rc_job, IR: _label_job, TD: _label_job, MS: _choice_job, CC: _choice_job}[task]
    return lambda index: make(task, by_index[index], protocol)


def _tr_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    def finish(a: Answers) -> MouseRunItem:
        raw = a[ANSWER]
        return MouseRunItem(inst.index, raw, 0, None, None, is_copy(inst.source, raw))
    return Job(inst.index, ((ANSWER, protocol.messages(ANSWER, source=inst.source)),), finish)


def _rc_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    def finish(a: Answers) -> MouseRunItem:
        return MouseRunItem(inst.index, {c: a[c] for c in RC_COMPONENTS},
                            {c: parse_component(a[c]) for c in RC_COMPONENTS})
    return Job(inst.index, tuple((c, protocol.messages(c, source=inst.source)) for c in RC_COMPONENTS), finish)


def _label_job(task: str, inst: MainInstance, protocol: MouseProtocol) -> Job:
    parse = parse_intention if task == IR else parse_toxicity
    return Job(inst.index, ((ANSWER, protocol.messages(ANSWER, source=inst.source)),),
               lambda a: MouseRunItem(inst.index, a[ANSWER], parse(a[ANSWER])))


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
               lambda a: MouseRunItem(inst.index, a[ANSWER], parse(a[ANSWER])))


# ---------------------------------------------------------------- judging a TR run

def plan_judge(translations: MouseRun, data: MouseSet[MainInstance], protocol: MouseProtocol,
               settings: MouseSettings, *, out_template: str | None = None, run_id: str | None = None) -> MousePlan:
    """A judged copy of a finished TR run: same subject (the translating model), same items,
    with the judge's verdicts; the judge model and protocol are recorded in `source.judge`."""
    if translations.path is None:
        raise ValueError("judge a run read from a file (its sha256 is recorded)")
    path = Path(translations.path)
    _check_translations(translations, data, path)
    th = translations.header
    max_tokens = settings.max_tokens or protocol.max_tokens
    rid = run_id or f"{th.run_id}-judge-{slug(settings.model)}"
    source = {"kind": JUDGED,
              "translations": {"run_id": th.run_id, "file": path.name, "sha256": _sha256(path)},
              "judge": {"kind": "model", "name": settings.model,
                        "parameters": _parameters(protocol, settings, max_tokens)}}
    header = MouseRunHeader(rid, TR, th.subject, th.dataset, source, th.n, utc_now(), _tool())
    out = _out_path(out_template, rid, settings.model) if out_template else path.with_name(f"{rid}.jsonl")
    by_index = {inst.index: inst for inst in data}
    items = {item.index: item for item in translations.items}
    return MousePlan(header, out, tuple(sorted(items)),
                     lambda index: _judge_job(by_index[index], items[index].raw, protocol),
                     settings, max_tokens, protocol)


def _check_translations(run: MouseRun, data: MouseSet, path: Path) -> None:
    h = run.header
    problems = []
    if h.task != TR:
        problems.append(Problem(str(path), f"not a translation run (task {h.task!r})", 1, "task"))
    elif len(run.items) != h.n:
        problems.append(Problem(str(path), f"unfinished: {len(run.items)} of {h.n} items; finish the probe "
                                "(re-run the same command) before judging", 1, "items"))
    if h.dataset.get("content_sha256") != data.content_sha256:
        problems.append(Problem(str(path), f"was made on dataset content {h.dataset.get('content_sha256')!r}, "
                                f"not on {data.path} ({data.content_sha256})", 1, "dataset"))
    known = {inst.index for inst in data}
    missing = [item.index for item in run.items if item.index not in known]
    if missing:
        problems.append(Problem(str(path), f"index {missing[0]} is not in {data.path}", None, "index"))
    if problems:
        raise InputError(problems)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _judge_job(inst: MainInstance, translation: str | None, protocol: MouseProtocol) -> Job:
    if translation is None or not translation.strip():
        return Job(inst.index, (), lambda a: MouseRunItem(inst.index, translation, 0, None, None, False),
                   note="missing translation: no request, scored 0")

    def finish(a: Answers) -> MouseRunItem:
        judge = parse_judge(a[ANSWER])
        (score,) = m.translation_scores([inst.source], [translation], [judge])
        return MouseRunItem(inst.index, translation, score, a[ANSWER], judge, is_copy(inst.source, translation))
    messages = protocol.messages(ANSWER, source=inst.source, reference=inst.reference, translation=translation)
    return Job(inst.index, ((ANSWER, messages),), finish)
