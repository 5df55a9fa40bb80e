"""Download one pinned file, or fail saying where, why and what to do instead.

Every plug-in that fetches data (CIBuzzBench's CSV, the spec'd benchmarks' pinned files) goes
through `download`, so each gets the same guarantees: transient failures are retried with
backoff, a permanent one stops at once, and the body is checked (not empty, the expected first
bytes, the pinned sha256 when required) in a temporary file beside the destination before it
replaces anything, so nothing half-written or wrong is ever left where builds look.

A body is bounded while it streams: by the pinned size when the caller knows it, else by
MAX_INPUT_BYTES (no reader would take more: builder.core.textfiles), so a server cannot fill the
disk before the sha256 check; and the whole download, retries and waits included, by an overall
deadline, so a server dripping a byte at a time cannot hold it open for ever (docs/input-limits.md).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from builder.core.errors import DownloadError
from builder.core.fileio import atomic_file
from builder.core.textfiles import MAX_INPUT_BYTES

if TYPE_CHECKING:
    import httpx

UTF8_BOM = b"\xef\xbb\xbf"
DEADLINE_SECONDS = 600.0  # one download, every attempt and wait included (a real one takes seconds)

# Statuses worth another try: server-side trouble plus the two "slow down" 4xx.
_RETRY_STATUSES = frozenset({408, 429})
# httpx is imported when a download starts: every build imports this module (to find local
# copies) and never downloads, and importing httpx costs about 0.3 s.


class FetchError(DownloadError):
    """The file could not be obtained; the message says where, why and (`hint`) what to do."""

    def __init__(self, reason: str, *, url: str | None = None, hint: str | None = None):
        self.reason = reason
        self.url = url
        self.hint = hint
        message = f"could not fetch {url}: {reason}" if url else reason
        if hint:
            message += f"\n  hint: {hint}"
        Exception.__init__(self, message)


@dataclass(frozen=True)
class FetchResult:
    """What landed on disk, so callers can report it and compare with the pin."""

    path: Path
    sha256: str
    bytes: int
    matched_pin: bool


class _Retryable(Exception):
    """Internal: this attempt failed in a way a later attempt may not."""


@dataclass(frozen=True)
class _Check:
    """What a downloaded body must satisfy before it replaces dest."""

    header: bytes | None  # the bytes the body must start with, after an optional UTF-8 BOM (None: any)
    sha256: str | None  # required digest, or None (then a mismatch only warns)
    hint: str | None
    max_bytes: int  # the pinned size, or the readers' cap: a longer body is cut off and refused
    until: float  # time.monotonic() by which the whole download must be done


def download(dest: Path, url: str, *, expected_sha256: str, header: bytes | None = None,
             require_pin: bool = False, hint: str | None = None, timeout: float = 60.0, retries: int = 3,
             backoff: float = 1.0, sleep: Callable[[float], None] = time.sleep,
             log: Callable[[str], None] = print, expected_bytes: int | None = None,
             deadline: float | None = None) -> FetchResult:
    """Download `url` to `dest` atomically, retrying transient failures.

    `retries` is the number of extra attempts after the first; waits grow as backoff,
    2*backoff, 4*backoff... A sha256 other than `expected_sha256` is only a warning (a
    re-download may differ in line endings but not in data: the loader validates the content);
    with `require_pin` it is an error and dest is left as it was. `hint` ends every error.
    `expected_bytes` (the pinned size, when known) bounds the body, else MAX_INPUT_BYTES does;
    `deadline` (DEADLINE_SECONDS) bounds the whole download.
    """
    dest = Path(dest)
    log(f"downloading {url} -> {dest}")
    until = time.monotonic() + (DEADLINE_SECONDS if deadline is None else deadline)
    check = _Check(header, expected_sha256 if require_pin else None, hint,
                   MAX_INPUT_BYTES if expected_bytes is None else expected_bytes, until)
    for attempt in range(retries + 1):
        try:
            digest, size = _download_once(url, dest, timeout, check)
            break
        except _Retryable as exc:
            delay = backoff * 2**attempt
            if attempt == retries or time.monotonic() + delay >= until:
                raise FetchError(f"{exc} (gave up after {attempt + 1} attempts)", url=url, hint=hint) from exc
            log(f"attempt {attempt + 1} failed: {exc}; retrying in {delay:g}s")
            sleep(delay)
    matched = digest == expected_sha256
    if not matched:
        log(
            f"warning: sha256 of {dest} is {digest}, pinned is {expected_sha256}; "
            "continuing (line endings may differ; the loader validates the content)"
        )
    log(f"wrote {dest} ({size} bytes, sha256 {digest})")
    return FetchResult(path=dest, sha256=digest, bytes=size, matched_pin=matched)


def _download_once(url: str, dest: Path, timeout: float, check: _Check) -> tuple[str, int]:
    """One attempt: stream into a temp file beside dest, check it, then swap it in (an error
    inside the block leaves dest as it was and removes the temp file)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(dest) as out:
        digest, size, head = _stream_to(url, out, timeout, check)
        _check_body(head, size, url, check)
        if check.sha256 is not None and digest != check.sha256:
            raise FetchError(f"sha256 {digest} differs from the pinned {check.sha256}; not stored", url=url,
                             hint=check.hint)
    _fsync_dir(dest.parent)
    return digest, size


def _stream_to(url: str, out, timeout: float, check: _Check) -> tuple[str, int, bytes]:
    """Write the response body to `out`, hashing as it goes; classify failures. Returns the
    digest, the size and the body's first bytes (as many as `_check_body` looks at)."""
    sha = hashlib.sha256()
    size = 0
    head = b""
    wanted = len(UTF8_BOM) + len(check.header or b"")
    headers = {"User-Agent": "buzzprobe-data-fetch", "Accept-Encoding": "identity"}  # the bytes counted are the bytes sent
    # deferred: a heavy library, loaded only when this runs
    import httpx
    # Network trouble that a later attempt may not hit; other transport errors (e.g. an
    # unsupported URL scheme) are permanent and fail at once.
    retry = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
    try:
        with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client:
            with client.stream("GET", url) as response:
                _check_status(response, url, check.hint)
                _check_length(response, url, check)
                for chunk in response.iter_bytes():
                    if len(head) < wanted:
                        head += chunk[:wanted - len(head)]
                    size += len(chunk)
                    _check_bounds(size, url, check)
                    out.write(chunk)
                    sha.update(chunk)
    except retry as exc:
        raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FetchError(f"{type(exc).__name__}: {exc}", url=url, hint=check.hint) from exc
    return sha.hexdigest(), size, head


def _check_status(response: "httpx.Response", url: str, hint: str | None) -> None:
    """Retry server-side failures; a 4xx will not fix itself, so stop at once."""
    status = response.status_code
    if 200 <= status < 300:
        return
    message = f"HTTP {status} {response.reason_phrase}".rstrip()
    if status >= 500 or status in _RETRY_STATUSES:
        raise _Retryable(message)
    raise FetchError(message, url=url, hint=hint)


def _check_length(response: "httpx.Response", url: str, check: _Check) -> None:
    """A body whose stated length is over the bound is refused before any of it is read."""
    stated = response.headers.get("Content-Length", "")
    if stated.isascii() and stated.isdigit() and int(stated) > check.max_bytes:
        raise FetchError(f"the server announces {int(stated):,} bytes, more than the {check.max_bytes:,} expected; "
                         "not downloaded", url=url, hint=check.hint)


def _check_bounds(size: int, url: str, check: _Check) -> None:
    """Stop as soon as the body passes its bound or the download its deadline (not retried:
    a server that does it once will do it again)."""
    if size > check.max_bytes:
        raise FetchError(f"the body is longer than the {check.max_bytes:,} bytes expected; stopped and not stored",
                         url=url, hint=check.hint)
    if time.monotonic() > check.until:
        raise FetchError("the download did not finish within its deadline; stopped and not stored",
                         url=url, hint=check.hint)


def _check_body(head: bytes, size: int, url: str, check: _Check) -> None:
    """Refuse bodies that are obviously not the file (e.g. an HTML page served with 200)."""
    if size == 0:
        raise FetchError("the server returned an empty body", url=url, hint=check.hint)
    body = head.removeprefix(UTF8_BOM)
    if check.header is not None and not body.startswith(check.header):
        raise FetchError(f"the body does not start with the header {check.header.decode()!r} (got {body[:40]!r})",
                         url=url, hint=check.hint)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable; best effort, as not every platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
