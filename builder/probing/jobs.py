"""What a benchmark hands the probing engine for one item: the requests, and how replies become its line.

The engine (builder.probing.runner) sends a job's requests in order through the shared client,
collects one `Reply` per part (the answer, or the error that remained after the retries) and
calls `finish`, which returns the benchmark's run item (any object with `row_id`, `error`,
`usage` and `to_json()`). Prompt wording, answer parsing and the item schema stay with the
benchmark; worker pool, retries, resume, progress and recording stay with the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Messages = list[dict[str, str]]
ANSWER = "answer"  # the part name of a job with one request


@dataclass(frozen=True)
class Reply:
    """One request's outcome. `content` is None when the request failed after its retries
    (`error` says why, already scrubbed of the key); `reused` marks an answer kept from an
    earlier attempt (--retry-errors re-asks only the failed parts of a many-request item)."""

    content: str | None
    error: str | None = None
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    truncated: bool = False
    reused: bool = False


@dataclass(frozen=True)
class Job:
    """One item: the requests to send, in order, as (part, messages), and `finish`, which turns
    the replies (part -> Reply) into the run item. A job may need no request at all (`note`
    says why, for --dry-run), e.g. judging a missing translation."""

    row_id: int
    requests: tuple[tuple[str, Messages], ...]
    finish: Callable[[dict[str, Reply]], Any]
    note: str = ""


def summed_usage(replies: dict[str, Reply]) -> dict[str, int] | None:
    """Token counts of the requests sent for one item (re-used answers cost nothing now)."""
    totals: dict[str, int] = {}
    for reply in replies.values():
        for key, value in (reply.usage or {}).items():
            if type(value) is int and not reply.reused:
                totals[key] = totals.get(key, 0) + value
    return dict(sorted(totals.items())) or None
