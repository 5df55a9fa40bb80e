"""Ask every pending item of a Mouse plan through the shared client and record it at once.

The guarantees are those of the CIBuzzBench runner (builder/probing/runner.py): a fixed pool
of `concurrency` workers, each recording (append, flush, fsync) its item before taking the
next, so `kill -9` loses at most the requests in flight; re-running resumes the same file
without asking or writing an item twice; when every item has a line the file is rewritten
once, atomically, in index order with a footer and the usage totals. Requests that still
fail after their retries leave `raw: null` (counted wrong, re-asked by --retry-errors);
401/403/404 and redirects stop the run (FatalError) with everything so far kept.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from builder.core.errors import InputError
from builder.core.fileio import exclusive
from builder.benchmarks.mouse.labels import RC
from builder.benchmarks.mouse.probe import Answers, Job, MousePlan
from builder.benchmarks.mouse.probe_writer import (CallLog, MouseRunWriter, call_totals, calls_path, read_calls,
                                        stable_header)
from builder.benchmarks.mouse.runfile import MouseRun, MouseRunItem, read_mouse_run, write_mouse_run
from builder.probing.client import ChatClient, RequestError
from builder.probing.runner import run_workers

Prior = dict[int, Answers]  # answers kept from an earlier attempt (RC components that succeeded)


@dataclass
class MouseOutcome:
    path: Path
    asked: int = 0  # items recorded in this invocation
    failed: int = 0  # of those, items with a call that failed after its retries
    complete: bool = False
    unparsed: int = 0  # in the finished run (TR: items without a parsed verdict)
    usage_totals: dict[str, int] = field(default_factory=dict)


async def execute(plan: MousePlan, api_key: str | None, *, prior: Prior | None = None,
                  sleep: Callable[[float], Any] | None = None) -> MouseOutcome:
    """Ask every item not yet in the file; finish the file when all are in. Holds the same
    per-file lock as a CIBuzzBench probe, so a second process on this run is refused."""
    with exclusive(plan.path, "this run"):
        return await _execute(plan, api_key, prior, sleep)


async def _execute(plan: MousePlan, api_key: str | None, prior: Prior | None,
                   sleep: Callable[[float], Any] | None) -> MouseOutcome:
    outcome = MouseOutcome(plan.path)
    writer = MouseRunWriter.open(plan.path, plan.header)
    try:
        log = CallLog.open(plan.path, plan.header.run_id, fresh=writer.created)
    except InputError:
        writer.close()
        raise
    pending = [index for index in plan.indices if index not in writer.done]
    s = plan.settings
    extra = {"sleep": sleep} if sleep is not None else {}
    disk = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mouse-run-writer")
    try:
        async with ChatClient(s.base_url, api_key, timeout=s.timeout, concurrency=s.concurrency,
                              policy=s.policy, **extra) as client:
            with _progress(plan, len(writer.done)) as bar:
                recorder = _Recorder(plan, writer, log, disk, outcome, bar, client)
                await _ask_all(plan, pending, client, recorder, prior or {})
    finally:
        disk.shutdown(wait=True, cancel_futures=True)
        writer.close()
        log.close()
    finish(plan, outcome)
    return outcome


@dataclass
class _Recorder:
    plan: MousePlan
    writer: MouseRunWriter
    log: CallLog
    disk: ThreadPoolExecutor
    outcome: MouseOutcome
    bar: tqdm
    client: ChatClient

    def _store(self, item: MouseRunItem, calls: list[dict[str, Any]]) -> None:
        """Calls first: a crash between the two lines re-asks the item, never loses a call."""
        for call in calls:
            self.log.append(call)
        self.writer.write(item)

    async def record(self, item: MouseRunItem, calls: list[dict[str, Any]]) -> None:
        await asyncio.get_running_loop().run_in_executor(self.disk, self._store, item, calls)
        self.outcome.asked += 1
        self.outcome.failed += self.plan.failed(item)
        self.bar.set_postfix(failed=self.outcome.failed, retries=self.client.retried, refresh=False)
        self.bar.update()


def _progress(plan: MousePlan, done: int) -> tqdm:
    return tqdm(total=len(plan.indices), initial=done, unit="item", desc=plan.header.run_id, file=sys.stderr,
                disable=not plan.settings.progress, mininterval=0.25, smoothing=0.1, dynamic_ncols=True)


async def _ask_all(plan: MousePlan, pending: list[int], client: ChatClient, recorder: _Recorder,
                   prior: Prior) -> None:
    """Workers share one iterator of indices and record before taking the next item, so at
    most `concurrency` items (and requests) are ever in flight and unwritten."""
    queue: Iterator[int] = iter(pending)

    async def worker() -> None:
        for index in queue:
            item, calls = await ask_job(plan, plan.build(index), client, prior.get(index, {}))
            await recorder.record(item, calls)

    await run_workers(min(plan.settings.concurrency, len(pending)), worker)


async def ask_job(plan: MousePlan, job: Job, client: ChatClient, prior: Answers) -> tuple[MouseRunItem, list]:
    """Send the job's requests in order (skipping parts answered earlier); a request that
    still fails after its retries gives that part a None answer and an error call record."""
    answers: Answers = dict(prior)
    calls: list[dict[str, Any]] = []
    for part, messages in job.requests:
        if answers.get(part) is not None:
            continue
        call: dict[str, Any] = {"type": "call", "index": job.index, "part": part}
        try:
            answer = await client.complete(plan.body(messages))
        except RequestError as exc:  # already scrubbed of the key by the client
            answers[part] = None
            call["error"] = str(exc)
        else:
            answers[part] = answer.content
            call.update(latency_ms=answer.latency_ms, usage=answer.usage)
            if answer.truncated:  # the run keeps only the first MAX_RESPONSE_CHARS; the call log says so
                call["response_truncated"] = True
        calls.append(call)
    return job.finish(answers), calls


def finish(plan: MousePlan, outcome: MouseOutcome) -> None:
    """When every item has a line: sort by index, record usage totals, add the footer (atomic)."""
    run = read_mouse_run(plan.path)
    outcome.usage_totals, _ = call_totals(read_calls(plan.path))
    if sorted(item.index for item in run.items) != list(plan.indices):
        return
    source = {**run.header.source, "calls": calls_path(plan.path).name, "usage_totals": outcome.usage_totals}
    done = MouseRun(None, replace(run.header, source=source), tuple(sorted(run.items, key=lambda i: i.index)))
    write_mouse_run(plan.path, done)
    outcome.complete, outcome.unparsed = True, done.unparsed


def is_complete(plan: MousePlan) -> bool:
    """A finished file for this exact plan (same stable header, every item, a footer)."""
    if not plan.path.is_file():
        return False
    try:
        run = read_mouse_run(plan.path)
    except InputError:
        return False  # the writer repairs or explains it
    return (_ends_with_footer(plan.path) and stable_header(run.header.to_json()) == stable_header(plan.header.to_json())
            and sorted(item.index for item in run.items) == list(plan.indices))


def _ends_with_footer(path: Path) -> bool:
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    try:
        return bool(lines) and json.loads(lines[-1]).get("type") == "footer"
    except (json.JSONDecodeError, AttributeError):
        return False


def drop_failed_items(plan: MousePlan) -> tuple[int, Prior]:
    """For --retry-errors: rewrite the run (atomically) without the items whose call failed.
    RC components that were answered are returned as `prior` and not asked again."""
    if not plan.path.is_file():
        return 0, {}
    with exclusive(plan.path, "this run"):
        MouseRunWriter.open(plan.path, plan.header).close()  # checks the header, repairs a torn last line
        run = read_mouse_run(plan.path)
        kept = tuple(item for item in run.items if not plan.failed(item))
        failed = [item for item in run.items if plan.failed(item)]
        if failed:
            write_mouse_run(plan.path, MouseRun(None, run.header, kept))
    prior = {item.index: {c: v for c, v in item.raw.items() if v is not None}
             for item in failed if plan.header.task == RC}
    return len(failed), prior


def preview(plan: MousePlan, count: int) -> str:
    """For --dry-run: the exact request bodies of the first `count` items still to ask."""
    done = _done_indices(plan.path)
    pending = [index for index in plan.indices if index not in (done or set())]
    state = ("an existing file that needs repair (a resume cuts its torn last line)" if done is None
             else f"{len(done)} already in the file")
    p = plan.protocol
    lines = [f"run {plan.header.run_id} -> {plan.path}",
             f"  {len(plan.indices)} items selected, {state}, {len(pending)} to ask",
             f"  protocol {p.id} v{p.version} ({p.condition}), prompt sha256 {p.sha256}"]
    for index in pending[:count]:
        job = plan.build(index)
        if not job.requests:
            lines.append(f"--- index {index}: {job.note}")
        for part, messages in job.requests:
            lines.append(f"--- index {index}" + (f" [{part}]" if len(job.requests) > 1 else "") + ": POST body")
            lines.append(json.dumps(plan.body(messages), ensure_ascii=False, indent=2))
    return "\n".join(lines)


def _done_indices(path: Path) -> set[int] | None:
    """Read-only look (a dry run must not repair or change anything); None if damaged."""
    try:
        return {item.index for item in read_mouse_run(path).items} if path.is_file() else set()
    except InputError:
        return None
