"""The chat client against a real HTTP server on loopback: what is retried, how long it
waits, what stops a run, and that the key never shows in an error."""

from __future__ import annotations

import asyncio
import gzip
import resource
import zlib
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from builder.probing.client import (
    MAX_BODY_BYTES,
    REDACTED,
    ChatClient,
    Completion,
    FatalError,
    Redactor,
    RequestError,
    RetryPolicy,
    endpoint_url,
    retry_after_seconds,
)
from tests.loopback_server import (
    LoopbackServer,
    _send,
    drop_before_response,
    drop_mid_response,
    malformed,
    reply,
    stall,
    status,
)

KEY = "sk-loopback-Zq81-DISTINCT-KEY"
BODY = {"model": "m", "messages": [{"role": "user", "content": "Options:\nA. x\nB. gold y\n\nAnswer"}]}
FAST = RetryPolicy(retries=3, backoff=0.01, max_backoff=0.05)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as s:
        yield s


def ask(server: LoopbackServer, *, policy: RetryPolicy = FAST, timeout: float = 2.0, key: str | None = KEY,
        waits: list[float] | None = None) -> Completion:
    async def go() -> Completion:
        extra = {}
        if waits is not None:
            async def sleep(seconds: float) -> None:
                waits.append(seconds)
            extra["sleep"] = sleep
        async with ChatClient(server.url, key, timeout=timeout, concurrency=2, policy=policy, **extra) as client:
            return await client.complete(BODY)
    return asyncio.run(go())


def test_answer_usage_and_what_was_sent(server: LoopbackServer) -> None:
    answer = ask(server)
    assert answer.content == "B" and answer.usage == {"prompt_tokens": 31, "completion_tokens": 1, "total_tokens": 32}
    assert answer.latency_ms >= 0
    (request,) = server.requests
    assert request.path == "/v1/chat/completions" and request.body == BODY
    assert request.headers["Authorization"] == f"Bearer {KEY}"


def test_no_key_sends_no_authorization_header(server: LoopbackServer) -> None:
    ask(server, key=None)
    assert "Authorization" not in server.requests[0].headers


@pytest.mark.parametrize("failure", [
    status(500), status(502), status(503), status(429), status(408),
    stall(2.0), drop_mid_response(), drop_before_response(), malformed(),
], ids=["500", "502", "503", "429", "408", "timeout", "drop-mid", "drop-before", "malformed"])
def test_transient_failures_are_retried(server: LoopbackServer, failure) -> None:
    server.script(failure)
    assert ask(server, timeout=0.3).content == "B"
    assert len(server.requests) == 2


def test_retry_after_seconds_is_honoured(server: LoopbackServer) -> None:
    server.script(status(429, retry_after=0.4), status(503, retry_after="0.2"))
    slow_backoff = RetryPolicy(retries=3, backoff=5.0)  # would wait >= 5 s if Retry-After were ignored
    assert ask(server, policy=slow_backoff).content == "B"
    first, second, third = (r.received for r in server.requests)
    assert 0.4 <= second - first < 1.5 and 0.2 <= third - second < 1.3


def test_retry_after_is_clamped(server: LoopbackServer) -> None:
    server.script(status(429, retry_after=3600))
    waits: list[float] = []
    ask(server, policy=RetryPolicy(retries=1, backoff=0.01, max_retry_after=0.05), waits=waits)
    assert waits == [0.05]


def test_backoff_doubles_with_bounded_jitter(server: LoopbackServer) -> None:
    server.script(status(500), status(500), status(500))
    waits: list[float] = []
    ask(server, policy=RetryPolicy(retries=3, backoff=0.1, max_backoff=10), waits=waits)
    assert len(waits) == 3
    for wait, base in zip(waits, (0.1, 0.2, 0.4), strict=True):
        assert base <= wait <= base + 0.1


def test_persistent_failure_gives_up_after_the_retries(server: LoopbackServer) -> None:
    server.set_responder(lambda request: status(500))
    with pytest.raises(RequestError, match=r"HTTP 500 .*gave up after 4 attempts"):
        ask(server)
    assert len(server.requests) == 4


def test_timeouts_that_persist_give_up(server: LoopbackServer) -> None:
    server.set_responder(lambda request: stall(2.0))
    with pytest.raises(RequestError, match=r"no answer within 0.2s .*gave up after 2 attempts"):
        ask(server, policy=RetryPolicy(retries=1, backoff=0.01), timeout=0.2)


def test_a_rejected_request_is_not_retried(server: LoopbackServer) -> None:
    server.script(status(400, body='{"error":"content policy"}'))
    with pytest.raises(RequestError, match=r"HTTP 400 Bad Request: .*content policy"):
        ask(server)
    assert len(server.requests) == 1


@pytest.mark.parametrize("code", [401, 403, 404])
def test_auth_and_not_found_stop_the_run(server: LoopbackServer, code: int) -> None:
    server.script(status(code))
    with pytest.raises(FatalError, match=f"HTTP {code}"):
        ask(server)


def test_a_redirect_stops_the_run(server: LoopbackServer) -> None:
    def moved(handler, request) -> None:
        _send(handler, 301, b"", {"Location": "https://elsewhere.invalid/v1/chat/completions"})
    server.script(moved)
    with pytest.raises(FatalError, match=r"HTTP 301 redirect to https://elsewhere\.invalid/"):
        ask(server)
    assert len(server.requests) == 1


def test_the_key_is_scrubbed_from_errors_even_if_the_server_echoes_it(server: LoopbackServer) -> None:
    server.set_responder(lambda request: status(500, body=f"bad auth {request.headers['Authorization']}"))
    with pytest.raises(RequestError) as caught:
        ask(server, policy=RetryPolicy(retries=0))
    assert KEY not in str(caught.value) and REDACTED in str(caught.value)


def test_content_as_parts_or_null(server: LoopbackServer) -> None:
    def send(payload: bytes):
        return lambda handler, request: _send(handler, 200, payload)
    server.script(send(b'{"choices":[{"message":{"content":[{"type":"text","text":"C"}]}}]}'),
                  send(b'{"choices":[{"message":{"content":null},"finish_reason":"content_filter"}]}'))
    parts, null = ask(server), ask(server)
    assert (parts.content, parts.usage) == ("C", None)
    assert (null.content, null.usage) == ("", None)


def test_retry_after_http_date() -> None:
    now = datetime(2026, 9, 22, 12, 0, 0, tzinfo=timezone.utc)
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=7), usegmt=True), now) == 7.0
    assert retry_after_seconds(format_datetime(now - timedelta(seconds=7), usegmt=True), now) == 0.0
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_endpoint_url_and_redactor() -> None:
    assert endpoint_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert endpoint_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    redact = Redactor("sk-secret", None, "", "ab")
    assert redact("x sk-secret y ab") == f"x {REDACTED} y ab"


# ------------------------------------------------------------------ bounded reads (issue 25, item 4)

def _raw(payload: bytes, code: int = 200, headers: dict[str, str] | None = None):
    return lambda handler, request: _send(handler, code, payload, headers)


def _gzip_stream(pieces: list[bytes]) -> bytes:
    """gzip of the pieces' concatenation without ever holding it whole."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([packer.compress(piece) for piece in pieces] + [packer.flush()])


def test_a_gzip_bomb_is_not_inflated_whole(server: LoopbackServer) -> None:
    inflated = MAX_BODY_BYTES * 64  # 256 MiB once decoded, about 256 KiB on the wire
    bomb = _gzip_stream([b'{"choices":[{"message":{"content":"'] + [b"A" * 2**20] * (inflated // 2**20)
                        + [b'"}}]}'])
    assert len(bomb) < inflated // 500
    server.script(_raw(bomb, headers={"Content-Encoding": "gzip"}))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(RequestError, match=r"larger than 4 MiB once decoded"):
        ask(server, policy=RetryPolicy(retries=0))
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 40 * 1024  # far below the 256 MiB the body inflates to


def test_a_gzip_answer_within_the_limit_is_read(server: LoopbackServer) -> None:
    body = b'{"choices":[{"message":{"content":"C"}}],"usage":{"prompt_tokens":3}}'
    server.script(_raw(gzip.compress(body), headers={"Content-Encoding": "gzip"}))
    answer = ask(server)
    assert (answer.content, answer.usage) == ("C", {"prompt_tokens": 3})


def test_a_huge_error_body_is_cut_before_it_is_processed(server: LoopbackServer) -> None:
    huge = b"x " * (MAX_BODY_BYTES * 4)
    server.script(_raw(gzip.compress(huge), code=400, headers={"Content-Encoding": "gzip"}))
    with pytest.raises(RequestError) as caught:
        ask(server)
    assert str(caught.value).startswith("HTTP 400 Bad Request: x x") and len(str(caught.value)) < 400


@pytest.mark.parametrize("usage", [{"prompt_tokens": -5, "completion_tokens": 1}, {"total_tokens": -1}])
def test_negative_usage_is_an_error_not_a_stored_count(server: LoopbackServer, usage: dict) -> None:
    server.set_responder(lambda request: reply("B", usage=usage))
    with pytest.raises(RequestError, match=r"negative token count .*gave up after 2 attempts"):
        ask(server, policy=RetryPolicy(retries=1, backoff=0.01))


def test_zero_usage_and_non_integer_counts(server: LoopbackServer) -> None:
    server.script(reply("B", usage={"prompt_tokens": 0, "completion_tokens": 1, "cost": 0.5, "flag": True}))
    assert ask(server).usage == {"prompt_tokens": 0, "completion_tokens": 1}


def test_the_key_is_scrubbed_from_a_stored_answer(server: LoopbackServer) -> None:
    server.set_responder(lambda request: reply(f"you sent {request.headers['Authorization']}"))
    answer = ask(server)
    assert KEY not in answer.content and answer.content == f"you sent Bearer {REDACTED}"


def test_content_parts_of_the_wrong_type_are_skipped(server: LoopbackServer) -> None:
    server.script(_raw(b'{"choices":[{"message":{"content":[{"text":5},{"text":"B"},{"text":["x"]},7]}}]}'))
    assert ask(server).content == "B"
