"""The probing engine: ask a model every selected item of one run and record each as it arrives.

Every benchmark probes through this module (`buzzprobe probe --benchmark NAME`, Mouse's
`buzzprobe mouse probe | judge`): a benchmark plans each run — its header and, per row_id, a
`Job` (its requests and how the replies become its item line: builder.probing.jobs) — and the
engine does the rest with one client, one worker pool, one recorder and one progress bar. Every item is
appended and fsynced before its worker takes the next item, so killing the process loses at
most the requests in flight; re-running the same command resumes the file through
`RunWriter.open`. When every item has a line, the file is rewritten once, atomically, in row_id
order with a footer, so a finished run's layout does not depend on timing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from builder.core.build_date import utc_now
from builder.core.errors import InputError
from builder.core.fileio import exclusive
from builder.core.textfiles import lines_with_ends, read_input
from builder.probing.client import ChatClient, FatalError, RequestError, RetryPolicy
from builder.probing.jobs import Job, Messages, Reply
from builder.probing.progress import progress_bar
from builder.runs.selection import Selection
from builder.runs.reader import read_run
from builder.runs.schema import Footer, Header, usage_totals
from builder.runs.writer import RunWriter, check_same_header, complete_record, write_run

DEFAULT_OUT = "runs/{model_slug}/{run_id}.jsonl"


@dataclass(frozen=True)
class ProbeSettings:
    """Everything about how items are asked, except the key (never stored with settings)."""

    model: str
    base_url: str
    temperature: float
    top_p: float | None
    max_tokens: int
    selection: Selection
    concurrency: int = 8
    timeout: float = 60.0
    policy: RetryPolicy = RetryPolicy()
    progress: bool = True


@dataclass(frozen=True)
class RunPlan:
    """One run file to fill: one (task, condition, lang, option seed) for one model."""

    header: Header
    path: Path
    row_ids: list[int]
    build: Callable[[int], Job]
    settings: ProbeSettings
    # For --retry-errors: the parts of an errored item that were answered (re-used, not re-asked).
    answered: Callable[[Any], dict[str, str]] | None = None
    # What `probe` ends with for the finished file: its score and any paired gaps (probing.summary).
    score: Callable[[Path], tuple[dict[str, Any], list[dict[str, Any]]]] | None = None

    def body(self, messages: Messages) -> dict[str, Any]:
        """The exact JSON body posted for one request."""
        s = self.settings
        body: dict[str, Any] = {"model": s.model, "messages": messages,
                                "temperature": s.temperature, "max_tokens": s.max_tokens}
        if s.top_p is not None:
            body["top_p"] = s.top_p
        return body


@dataclass
class RunOutcome:
    path: Path
    asked: int = 0
    errors: int = 0  # items that still failed after retries in this invocation
    complete: bool = False
    usage_totals: dict[str, int] = field(default_factory=dict)


def subject_parameters(settings: ProbeSettings, protocol: dict[str, Any],
                       extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A probed run's `subject.parameters`: what shapes the answers (sampling, then the prompt's
    `protocol` fields the benchmark names), the host that served them (never credentials or
    port), then any `extra`. One builder, so every benchmark's runs record them alike."""
    s = settings
    return {"temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens, **protocol,
            "endpoint_host": urlsplit(s.base_url).hostname or "", **(extra or {})}


def is_complete(plan: RunPlan) -> bool:
    """A finished file for this exact plan (footer present, every item there): nothing to do."""
    if not plan.path.is_file():
        return False
    try:
        run = read_run(plan.path)
    except InputError:
        return False  # RunWriter.open repairs or explains it
    return (run.footer is not None and _same_header(run.header, plan.header)
            and sorted(run.row_ids) == plan.row_ids)


def _same_header(a: Header, b: Header) -> bool:
    return _stable_fields(a) == _stable_fields(b)


def _stable_fields(header: Header) -> dict[str, Any]:
    """The header without what may differ between a start and a resume."""
    return {k: v for k, v in header.to_json().items() if k not in ("created", "tool")}


Prior = dict[int, dict[str, str]]  # row_id -> parts answered in an earlier attempt


def drop_errored_items(plan: RunPlan) -> tuple[int, Prior]:
    """For --retry-errors: atomically rewrite the run without its errored items, its footer and
    any item line that cannot be decoded at all (bad bytes, torn, not JSON): those items are
    simply asked again. The header must still match this command. Returns how many items were
    dropped and, when the plan says so, the parts of them that were answered (not re-asked)."""
    if not plan.path.is_file():
        return 0, {}
    with exclusive(plan.path, "this run"):
        lines = lines_with_ends(read_input(plan.path))
        check_same_header(plan.path, complete_record(lines[0]) if lines else None, plan.header)
        records = [(line, complete_record(line)) for line in lines[1:]]
        readable = [line for line, record in records if record is not None and record.get("type") != "footer"]
        unreadable = sum(1 for _, record in records if record is None)
        run = read_run(plan.path, b"".join([lines[0], *readable]))
        kept = [item for item in run.items if item.error is None]
        dropped = len(run.items) - len(kept) + unreadable
        if dropped or len(readable) < len(lines) - 1:
            write_run(plan.path, run.header, kept, None)
    answered = plan.answered
    prior = {} if answered is None else {item.row_id: answered(item) for item in run.items if item.error is not None}
    return dropped, {row_id: parts for row_id, parts in prior.items() if parts}


async def execute(plan: RunPlan, api_key: str | None, *, prior: Prior | None = None,
                  sleep: Callable[[float], Any] | None = None) -> RunOutcome:
    """Ask every item not yet in the file; finish the file when all are in. One process at a
    time: a second `probe` on the same file would append the same items (duplicates) and
    interleave partial lines, so it is refused while the lock is held. `prior`: parts answered
    in an earlier attempt (from `drop_errored_items`), re-used instead of asked again."""
    with exclusive(plan.path, "this run"):
        return await _execute(plan, api_key, prior or {}, sleep)


async def _execute(plan: RunPlan, api_key: str | None, prior: Prior,
                   sleep: Callable[[float], Any] | None) -> RunOutcome:
    outcome = RunOutcome(plan.path)
    fresh = not plan.path.exists() or plan.path.stat().st_size == 0
    writer = RunWriter.open(plan.path, plan.header)
    pending = [row_id for row_id in plan.row_ids if row_id not in writer.done]
    s = plan.settings
    extra = {"sleep": sleep} if sleep is not None else {}
    # One writer thread: lines are written in order, fsync stays off the event loop, and on
    # interruption the write under way completes before the file is closed.
    disk = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-writer")
    try:
        async with ChatClient(s.base_url, api_key, timeout=s.timeout, concurrency=s.concurrency,
                              policy=s.policy, **extra) as client:
            with _progress(plan, len(writer.done)) as bar:
                await _ask_all(plan, pending, client, _Recorder(writer, disk, outcome, bar, client), prior)
    finally:
        disk.shutdown(wait=True, cancel_futures=True)
        writer.close()
        if fresh and not writer.done:  # stopped before a first answer (bad key, Ctrl-C): no
            plan.path.unlink(missing_ok=True)  # header-only file left to block every build
    finish(plan, outcome)
    return outcome


@dataclass
class _Recorder:
    """Writes each finished item and keeps the counts and the progress bar current."""

    writer: RunWriter
    disk: ThreadPoolExecutor
    outcome: RunOutcome
    bar: Any  # tqdm, or LineProgress off a terminal
    client: ChatClient

    async def record(self, item: Any) -> None:
        await asyncio.get_running_loop().run_in_executor(self.disk, self.writer.write, item)
        self.outcome.asked += 1
        self.outcome.errors += item.error is not None
        self.bar.set_postfix(errors=self.outcome.errors, retries=self.client.retried, refresh=False)
        self.bar.update()


def _progress(plan: RunPlan, done: int) -> Any:
    return progress_bar(len(plan.row_ids), done, plan.header.run_id, plan.settings.progress)


async def _ask_all(plan: RunPlan, pending: list[int], client: ChatClient, recorder: _Recorder,
                   prior: Prior) -> None:
    """A fixed pool of workers shares one iterator of row_ids; a worker records its item
    before taking the next, so at most `concurrency` items are ever unwritten."""
    queue: Iterator[int] = iter(pending)

    async def worker() -> None:
        for row_id in queue:
            await recorder.record(await ask_job(plan, plan.build(row_id), client, prior.get(row_id, {})))

    await run_workers(min(plan.settings.concurrency, len(pending)), worker)


async def run_workers(count: int, worker: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run `count` workers; a fatal error (bad key, model or URL) or a failed write (disk full)
    stops them all and is raised on its own rather than wrapped in an exception group."""
    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(count):
                group.create_task(worker())
    except ExceptionGroup as group:
        stop: BaseExceptionGroup[Exception] | None = group.subgroup(FatalError)
        stop = stop or group.subgroup(OSError)
        if stop is None:
            raise
        raise _first_leaf(stop) from None


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


async def ask_job(plan: RunPlan, job: Job, client: ChatClient, prior: dict[str, str] | None = None) -> Any:
    """One item's line: send the job's requests in order (parts answered earlier are re-used),
    each reply the answer or the error left after the retries, and let the job build the item."""
    replies: dict[str, Reply] = {}
    for part, messages in job.requests:
        if prior and part in prior:
            replies[part] = Reply(prior[part], reused=True)
            continue
        try:
            answer = await client.complete(plan.body(messages))
        except RequestError as exc:  # already scrubbed of the key by the client
            replies[part] = Reply(None, error=str(exc))
        else:
            replies[part] = Reply(answer.content, latency_ms=answer.latency_ms, usage=answer.usage,
                                  truncated=answer.truncated)
    return job.finish(replies)


def finish(plan: RunPlan, outcome: RunOutcome) -> None:
    """When every item has a line: sort by row_id, add the footer with usage totals (atomic)."""
    run = read_run(plan.path)
    outcome.usage_totals = usage_totals(run.items)
    if sorted(run.row_ids) != plan.row_ids:
        return
    items = sorted(run.items, key=lambda item: item.row_id)
    write_run(plan.path, run.header, items, Footer(len(items), utc_now(), outcome.usage_totals))
    outcome.complete = True


FAILED_SUFFIX = ".failed"  # a run whose every item failed is kept under this name: builds never read it


def set_aside_if_failed(plan: RunPlan) -> tuple[Path, str] | None:
    """A run in which no item was answered (every line records an error: a dead endpoint, a
    wrong model name) measures nothing, yet would publish a score of 0. Move it out of the
    build's reach (RUN.jsonl -> RUN.jsonl.failed, replacing an older one) so a re-run asks
    every item afresh; returns (where it went, the first error), or None when any item was answered."""
    if not plan.path.is_file():
        return None
    with exclusive(plan.path, "this run"):
        run = read_run(plan.path)
        if not run.items or any(getattr(item, "error", None) is None for item in run.items):
            return None
        aside = plan.path.with_name(plan.path.name + FAILED_SUFFIX)
        plan.path.replace(aside)
    return aside, str(run.items[0].error)


def check_prompts(plan: RunPlan, shown: int = 5) -> None:
    """Make every item's prompt once before anything is written or asked: a template that fails
    on one item would otherwise stop the run there (or leave a header-only file behind)."""
    failures: dict[str, list[int]] = {}
    for row_id in plan.row_ids:
        try:
            plan.build(row_id)
        except Exception as exc:  # a sandboxed template over data can raise anything
            failures.setdefault(f"{type(exc).__name__}: {str(exc)[:200]}", []).append(row_id)
    if failures:
        count = sum(map(len, failures.values()))
        reasons = "; ".join(f"{why} (row_id {', '.join(map(str, ids[:shown]))}"
                            f"{f' and {len(ids) - shown} more' if len(ids) > shown else ''})"
                            for why, ids in list(failures.items())[:shown])
        raise InputError.single(str(plan.path), f"the prompt cannot be made for {count} of {len(plan.row_ids)} "
                                f"items: {reasons}; fix the template (nothing was asked or written)", field="prompt")


def preview(plan: RunPlan, count: int) -> str:
    """For --dry-run: the exact request bodies of the first `count` items still to ask."""
    done = _done_row_ids(plan.path)
    pending = [row_id for row_id in plan.row_ids if row_id not in (done or set())]
    state = ("an existing file that needs repair (a resume cuts its torn last line)" if done is None
             else f"{len(done)} already in the file")
    params = plan.header.subject["parameters"]
    lines = [f"run {plan.header.run_id} -> {plan.path}",
             f"  {len(plan.row_ids)} items selected, {state}, {len(pending)} to ask",
             f"  protocol {params['protocol']} v{params['protocol_version']}, "
             f"prompt sha256 {params['prompt_sha256']}"]
    for row_id in pending[:count]:
        job = plan.build(row_id)
        if not job.requests:
            lines.append(f"--- row_id {row_id}: {job.note}")
        for part, messages in job.requests:
            lines.append(f"--- row_id {row_id}" + (f" [{part}]" if len(job.requests) > 1 else "") + ": POST body")
            lines.append(json.dumps(plan.body(messages), ensure_ascii=False, indent=2))
    return "\n".join(lines)


def _done_row_ids(path: Path) -> set[int] | None:
    """Read-only look at an existing file (a dry run must not repair or change it); None if damaged."""
    try:
        return set(read_run(path).row_ids) if path.is_file() else set()
    except InputError:
        return None
