"""An OpenAI-compatible chat-completions client with bounded, polite retries.

Failures are sorted by what a later attempt can change: rate limits, server errors, timeouts
and dropped connections are retried with exponential backoff and jitter (or exactly the
server's Retry-After); a rejected request fails that item only; an authentication or
not-found answer would fail every item, so it stops the run. The API key lives only in the
HTTP client's headers and is scrubbed from every message this module produces.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from builder.core.errors import InputError
from builder.runs.lines import LineError, cap_response, load_line
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

RETRY_STATUSES = frozenset({408, 429})  # plus every 5xx
MAX_BODY_BYTES = 4 * 1024 * 1024  # of the DECODED body: a 1 MB gzip body can inflate to 1 GiB
MAX_ERROR_BYTES = 4096  # of an error body: only a snippet of it is ever shown
FATAL_STATUSES = frozenset({401, 403, 404})  # and redirects
_TRANSPORT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
REDACTED = "[redacted]"


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 4  # extra attempts after the first
    backoff: float = 1.0  # first wait in seconds; doubles each retry, plus up to this much jitter
    max_backoff: float = 60.0
    max_retry_after: float = 300.0  # a longer Retry-After is clamped to this


@dataclass(frozen=True)
class Completion:
    content: str
    usage: dict[str, int] | None
    latency_ms: float  # of the attempt that succeeded
    truncated: bool = False  # content was cut to MAX_RESPONSE_CHARS (builder.runs.lines)


class TransientError(Exception):
    """This attempt failed in a way a later attempt may not."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class RequestError(Exception):
    """This item cannot be answered (rejected, or still failing after every retry)."""


class FatalError(Exception):
    """Every item would fail the same way (bad key, unknown model or URL): stop the run."""


class Redactor:
    """Scrubs secrets (the API key, credentials in the base URL) from any text we print or store."""

    def __init__(self, *secrets: str | None):
        # Very short values would garble ordinary text and are not worth hiding.
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def endpoint_url(base_url: str) -> str:
    """`.../v1` -> `.../v1/chat/completions`; a full endpoint URL is used as given. A query
    string stays at the end (Azure-style `...?api-version=2024-06-01` endpoints need it)."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def check_base_url(base_url: str | None) -> None:
    """Refuse what cannot work or would leak: another scheme than http(s), no host, and
    credentials in the URL (httpx would send them as Basic auth, replacing the bearer key,
    and a server may echo that header back). The URL itself is never repeated in the message."""
    if base_url is None:
        return
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise InputError.single("--base-url", "not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError.single("--base-url", "must be an http:// or https:// URL with a host, "
                                "e.g. http://127.0.0.1:8000/v1")
    if parts.username is not None or parts.password is not None:
        raise InputError.single("--base-url", "must not contain a user name or password (user:password@): "
                                "put the key in the environment variable named by --api-key-env")
    if parts.fragment:
        raise InputError.single("--base-url", "must not contain a #fragment")


def url_secrets(base_url: str) -> tuple[str | None, ...]:
    parts = urlsplit(base_url)
    return parts.password, parts.username, parts.query or None


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds (RFC 9110: delay-seconds or an HTTP date); None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


@functools.lru_cache(maxsize=4)
def _verification(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's own default context (certifi's authorities, or those SSL_CERT_FILE or SSL_CERT_DIR
    name: the arguments, so a changed variable gets its own), made once: loading the authorities
    took about 20 ms of every client, and a client is made per run."""
    return httpx.create_ssl_context()


class ChatClient:
    """Posts chat-completion bodies; one instance per run, used from one event loop."""

    def __init__(self, base_url: str, api_key: str | None, *, timeout: float, concurrency: int,
                 policy: RetryPolicy = RetryPolicy(),
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.url = endpoint_url(base_url)
        self.timeout = timeout
        self.policy = policy
        self.redact = Redactor(api_key, *url_secrets(base_url))
        self.retried = 0  # attempts that were followed by another, for progress display
        self._sleep = sleep
        self._backoff = wait_exponential_jitter(multiplier=policy.backoff, max=policy.max_backoff,
                                                jitter=policy.backoff)
        headers = {"Accept-Encoding": "gzip, deflate"}  # what _read_capped can inflate with a bound
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self._http = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(timeout), limits=limits,
                                       verify=_verification(os.environ.get("SSL_CERT_FILE"),
                                                            os.environ.get("SSL_CERT_DIR")))

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def complete(self, body: dict[str, Any]) -> Completion:
        """One answer, retrying transient failures; raises RequestError or FatalError."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.policy.retries + 1), wait=self._wait,
            retry=retry_if_exception_type(TransientError), sleep=self._sleep,
            before_sleep=self._count_retry, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(body)
        except TransientError as exc:
            attempts = self.policy.retries + 1
            raise RequestError(f"{exc} (gave up after {attempts} attempt{'s' * (attempts > 1)})") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, TransientError) and exc.retry_after is not None:
            return min(exc.retry_after, self.policy.max_retry_after)
        return self._backoff(state)

    def _count_retry(self, state: RetryCallState) -> None:
        self.retried += 1

    async def _attempt(self, body: dict[str, Any]) -> Completion:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout):
                async with self._http.stream("POST", self.url, json=body) as response:
                    error = response.status_code >= 300
                    payload = await _read_capped(response, MAX_ERROR_BYTES if error else MAX_BODY_BYTES)
        except (TimeoutError, httpx.TimeoutException):
            raise TransientError(f"no answer within {self.timeout:g}s") from None
        except (*_TRANSPORT_ERRORS, httpx.DecodingError) as exc:
            raise TransientError(self.redact(f"connection failed: {type(exc).__name__}: {exc}")) from None
        latency_ms = round((time.perf_counter() - started) * 1000, 1)
        self._check_status(response, payload)
        if payload is None:
            raise RequestError(f"response larger than {MAX_BODY_BYTES // 1024 // 1024} MiB once decoded; "
                               "not read further")
        return _completion(response.status_code, payload, latency_ms, self.redact)

    def _check_status(self, response: httpx.Response, payload: bytes | None) -> None:
        status = response.status_code
        if status < 300:
            return
        if status < 400:  # redirects are not followed: every item would land on the same answer
            raise FatalError(f"HTTP {status} redirect to {self.redact(_snippet(response.headers.get('location', '?')))}; "
                             "pass the final URL as --base-url")
        text = (payload or b"").decode("utf-8", "replace")
        message = self.redact(f"HTTP {status} {response.reason_phrase}: {_snippet(text)}".rstrip(": "))
        if status in RETRY_STATUSES or status >= 500:
            raise TransientError(message, retry_after_seconds(response.headers.get("retry-after")))
        if status in FATAL_STATUSES:
            raise FatalError(message)
        raise RequestError(message)


async def _read_capped(response: httpx.Response, limit: int) -> bytes | None:
    """The decoded body, decoded here as it arrives so no step holds more than `limit` + 1
    bytes (httpx would inflate a whole 64 KiB gzip chunk, which can be 64 MiB); None once it
    passes `limit` (for an error body: its first `limit` bytes, all a snippet needs)."""
    decoder = _decoder(response.headers.get("content-encoding", ""))
    body = bytearray()
    async for raw in response.aiter_raw():
        try:
            body += decoder.decompress(raw, limit + 1 - len(body)) if decoder else raw
        except zlib.error:
            raise TransientError(f"body not valid {response.headers['content-encoding']} data") from None
        if len(body) > limit:
            return bytes(body[:limit]) if response.status_code >= 300 else None
    return bytes(body)


def _decoder(encoding: str) -> Any:
    """A bounded inflater for gzip/deflate (the only encodings we accept), None for identity."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # gzip or zlib header, detected
    raise RequestError(f"unsupported Content-Encoding {encoding[:40]!r} (asked for gzip or deflate)")


def _snippet(text: str, limit: int = 300) -> str:
    text = text[: limit * 4]  # bounded before splitting: the body may be long
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def _completion(status: int, payload: bytes, latency_ms: float, redact: Redactor) -> Completion:
    """Read choices[0].message.content; a body without it (or with negative token counts) is
    treated as a transient glitch. The key is scrubbed from the stored answer too: an endpoint
    that echoes it back must not get it written into a committable run."""
    try:
        data = load_line(payload)
        content = data["choices"][0]["message"].get("content")
        usage = _usage(data.get("usage"))
    except (LineError, KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        why = f"{exc} in" if type(exc) is ValueError else "malformed"
        raise TransientError(redact(f"{why} response (HTTP {status}): "
                                    f"{_snippet(payload.decode('utf-8', 'replace'))}")) from None
    text, truncated = cap_response(redact(_content_text(content)))
    return Completion(text, usage, latency_ms, truncated)


def _content_text(content: Any) -> str:
    """Plain string content, or the text parts of a list-of-parts content; null -> ""."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(text for part in content if isinstance(part, dict)
                       and isinstance(text := part.get("text", ""), str))  # a lying server may send any type
    return ""


def _usage(usage: Any) -> dict[str, int] | None:
    """Top-level integer counts only (nested details vary by provider); a negative count is a
    ValueError (a run storing it would be refused by every later build)."""
    if not isinstance(usage, dict):
        return None
    counts = {k: v for k, v in usage.items() if type(v) is int}
    negative = sorted(k for k, v in counts.items() if v < 0)
    if negative:
        raise ValueError(f"negative token count ({', '.join(negative)})")
    return counts or None
