"""Download one pinned file, or fail saying where, why and what to do instead.

Every plug-in that fetches data (CIBuzzBench's CSV, the spec'd benchmarks' pinned files) goes
through `download`, so each gets the same guarantees: transient failures are retried with
backoff, a permanent one stops at once, and the body is checked (not empty, the expected first
bytes, the pinned sha256 when required) in a temporary file beside the destination before it
replaces anything, so nothing half-written or wrong is ever left where builds look.
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

if TYPE_CHECKING:
    import httpx

UTF8_BOM = b"\xef\xbb\xbf"

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


def download(dest: Path, url: str, *, expected_sha256: str, header: bytes | None = None,
             require_pin: bool = False, hint: str | None = None, timeout: float = 60.0, retries: int = 3,
             backoff: float = 1.0, sleep: Callable[[float], None] = time.sleep,
             log: Callable[[str], None] = print) -> FetchResult:
    """Download `url` to `dest` atomically, retrying transient failures.

    `retries` is the number of extra attempts after the first; waits grow as backoff,
    2*backoff, 4*backoff... A sha256 other than `expected_sha256` is only a warning (a
    re-download may differ in line endings but not in data: the loader validates the content);
    with `require_pin` it is an error and dest is left as it was. `hint` ends every error.
    """
    dest = Path(dest)
    log(f"downloading {url} -> {dest}")
    check = _Check(header, expected_sha256 if require_pin else None, hint)
    for attempt in range(retries + 1):
        try:
            digest, size = _download_once(url, dest, timeout, check)
            break
        except _Retryable as exc:
            if attempt == retries:
                raise FetchError(f"{exc} (gave up after {attempt + 1} attempts)", url=url, hint=hint) from exc
            delay = backoff * 2**attempt
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
    headers = {"User-Agent": "buzzprobe-data-fetch"}
    import httpx
    # Network trouble that a later attempt may not hit; other transport errors (e.g. an
    # unsupported URL scheme) are permanent and fail at once.
    retry = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
    try:
        with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client:
            with client.stream("GET", url) as response:
                _check_status(response, url, check.hint)
                for chunk in response.iter_bytes():
                    if len(head) < wanted:
                        head += chunk[:wanted - len(head)]
                    out.write(chunk)
                    sha.update(chunk)
                    size += len(chunk)
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
