"""Get the CIBuzzBench CSV onto disk, or find a copy the user already has.

The project reads the dataset by path; this module only decides *which* path and,
when there is none, downloads the pinned upstream file. Content validation is the
loader's job: here we only refuse bodies that clearly are not the CSV (empty, an
HTML error page) and never leave a half-written file behind.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from builder.core.errors import DownloadError, InputError, Problem
from builder.core.fileio import atomic_file

UPSTREAM_REPO = "SuperYFan/CIBuzzBench"
PINNED_COMMIT = "b9b13f860bb0459fdcac914e647e0f946a517f72"
UPSTREAM_URL = (
    f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{PINNED_COMMIT}/data/cibuzzbench.csv"
)
EXPECTED_SHA256 = "4b6b3fac65dd85183addc2bb6438ffb36776371d791d0c5a11f72f2d18bc60b0"
DEFAULT_DEST = Path("data/cibuzzbench.csv")

ENV_CSV = "CIBUZZBENCH_CSV"
ENV_URL = "CIBUZZBENCH_URL"
HEADER_PREFIX = b"row_id,split,term_zh"
UTF8_BOM = b"\xef\xbb\xbf"
HINT = f"download the file elsewhere and set {ENV_CSV}=/path/to/cibuzzbench.csv"

# Statuses worth another try: server-side trouble plus the two "slow down" 4xx.
_RETRY_STATUSES = frozenset({408, 429})
# Network trouble that a later attempt may not hit; other transport errors
# (e.g. an unsupported URL scheme) are permanent and fail at once.
_RETRY_EXCEPTIONS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


class FetchError(DownloadError):
    """The dataset could not be obtained; the message says where, why and what to do."""

    def __init__(self, reason: str, *, url: str | None = None, hint: str | None = HINT):
        self.reason = reason
        self.url = url
        self.hint = hint
        message = f"could not fetch {url}: {reason}" if url else reason
        if hint:
            message += f"\n  hint: {hint}"
        Exception.__init__(self, message)


class DatasetPathError(FetchError, InputError):
    """CIBUZZBENCH_CSV names a missing file; catchable as FetchError or InputError."""

    def __init__(self, path: str | Path):
        self.reason = f"{ENV_CSV} is set to {str(path)!r}, but no file exists there"
        self.url = None
        self.hint = f"point {ENV_CSV} at a local copy of cibuzzbench.csv, or unset it to download"
        InputError.__init__(
            self, [Problem(str(path), f"{self.reason}; {self.hint}", field=ENV_CSV)]
        )


@dataclass(frozen=True)
class FetchResult:
    """What landed on disk, so callers can report it and compare with the pin."""

    path: Path
    sha256: str
    bytes: int
    matched_pin: bool


class _Retryable(Exception):
    """Internal: this attempt failed in a way a later attempt may not."""


def resolve_dataset_path(
    env: Mapping[str, str] = os.environ, dest: Path = DEFAULT_DEST
) -> Path | None:
    """Return the CSV to use without touching the network, or None if there is none yet.

    An explicit CIBUZZBENCH_CSV wins and must exist: silently falling back to
    another copy would hide a typo in the user's configuration.
    """
    explicit = env.get(ENV_CSV)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise DatasetPathError(path)
        return path
    return dest if dest.is_file() else None


def dataset_path() -> Path:
    """CIBUZZBENCH_CSV, else the downloaded copy, else a located error; never touches the network."""
    path = resolve_dataset_path(os.environ)
    if path is None:
        raise InputError.single(DEFAULT_DEST, "dataset not found: run `make data` (downloads it) "
                                "or set CIBUZZBENCH_CSV to a local copy")
    return path


def ensure_dataset(
    env: Mapping[str, str] = os.environ,
    dest: Path = DEFAULT_DEST,
    log: Callable[[str], None] = print,
) -> Path:
    """Entry point for `buzzprobe data fetch` / `make data`: find the CSV, downloading only if needed."""
    path = resolve_dataset_path(env, dest)
    if path is not None:
        source = f"{ENV_CSV}={path}" if env.get(ENV_CSV) else f"existing {path}"
        log(f"using {source} (no download)")
        return path
    return fetch_dataset(dest, url=env.get(ENV_URL) or UPSTREAM_URL, log=log).path


def fetch_dataset(
    dest: Path = DEFAULT_DEST,
    *,
    url: str | None = None,
    timeout: float = 60.0,
    retries: int = 3,
    log: Callable[[str], None] = print,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    expected_sha256: str = EXPECTED_SHA256,
    header: bytes | None = HEADER_PREFIX,
    require_pin: bool = False,
    hint: str | None = HINT,
) -> FetchResult:
    """Download the file to dest atomically, retrying transient failures.

    `retries` is the number of extra attempts after the first; waits grow as
    backoff, 2*backoff, 4*backoff... For the CIBuzzBench CSV a sha256 different from the pin
    is only a warning, because a re-download may differ in line endings but not in data;
    with `require_pin` (the spec'd benchmarks' pinned files) it is an error and dest is left
    as it was. `header`: the bytes the body must start with (None: any).
    """
    url = url or os.environ.get(ENV_URL) or UPSTREAM_URL
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


@dataclass(frozen=True)
class _Check:
    """What a downloaded body must satisfy before it replaces dest."""

    header: bytes | None
    sha256: str | None  # required digest, or None (then a mismatch only warns)
    hint: str | None


def _download_once(url: str, dest: Path, timeout: float, check: _Check) -> tuple[str, int]:
    """One attempt: stream into a temp file beside dest, check it, then swap it in (an error
    inside the block leaves dest as it was and removes the temp file)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(dest) as out:
        digest, size, head = _stream_to(url, out, timeout, check.hint)
        _check_body(head, size, url, check.header, check.hint)
        if check.sha256 is not None and digest != check.sha256:
            raise FetchError(f"sha256 {digest} differs from the pinned {check.sha256}; not stored", url=url,
                             hint=check.hint)
    _fsync_dir(dest.parent)
    return digest, size


_HEAD = len(UTF8_BOM) + len(HEADER_PREFIX)  # bytes of the body that _check_body looks at


def _stream_to(url: str, out, timeout: float, hint: str | None = HINT) -> tuple[str, int, bytes]:
    """Write the response body to `out`, hashing as it goes; classify failures. Returns the
    digest, the size and the body's first bytes."""
    sha = hashlib.sha256()
    size = 0
    head = b""
    headers = {"User-Agent": "buzzprobe-data-fetch"}
    try:
        with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client:
            with client.stream("GET", url) as response:
                _check_status(response, url, hint)
                for chunk in response.iter_bytes():
                    if len(head) < _HEAD:
                        head += chunk[:_HEAD - len(head)]
                    out.write(chunk)
                    sha.update(chunk)
                    size += len(chunk)
    except _RETRY_EXCEPTIONS as exc:
        raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FetchError(f"{type(exc).__name__}: {exc}", url=url, hint=hint) from exc
    return sha.hexdigest(), size, head


def _check_status(response: httpx.Response, url: str, hint: str | None = HINT) -> None:
    """Retry server-side failures; a 4xx will not fix itself, so stop at once."""
    status = response.status_code
    if 200 <= status < 300:
        return
    message = f"HTTP {status} {response.reason_phrase}".rstrip()
    if status >= 500 or status in _RETRY_STATUSES:
        raise _Retryable(message)
    raise FetchError(message, url=url, hint=hint)


def _check_body(head: bytes, size: int, url: str, header: bytes | None = HEADER_PREFIX,
                hint: str | None = HINT) -> None:
    """Refuse bodies that are obviously not the CSV (e.g. an HTML page served with 200)."""
    if size == 0:
        raise FetchError("the server returned an empty body", url=url, hint=hint)
    body = head.removeprefix(UTF8_BOM)
    if header is not None and not body.startswith(header):
        raise FetchError(
            f"the body does not start with the CSV header {header.decode()!r} "
            f"(got {body[:40]!r})",
            url=url, hint=hint,
        )


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
