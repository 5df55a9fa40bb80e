"""Writing files safely: whole or not at all, with the user's permissions, one writer at a time.

Every file the project writes whole (runs, the data download, gold-pool files, cache entries)
goes through `atomic_file` or `atomic_write`; only the site writer swaps a whole folder.

Atomic writes go through a temporary file beside the target (mkstemp creates it 0600, so it
is given the mode the user's umask asks for before it is renamed into place). Locks are
advisory `flock`s on a hidden file beside the target: the kernel drops them when the holder
dies (even by SIGKILL), so a crash never leaves a stale lock that blocks the next command.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from builder.core.errors import InputError
import hashlib
from builder.core.textfiles import open_regular


def umask_mode(base: int = 0o666) -> int:
    """`base` less the process umask: the mode `open()` would give a new file."""
    try:  # Linux reports it without changing it (no window where another thread sees umask 0)
        for line in Path("/proc/self/status").read_text().splitlines():  # not JSON Lines: the kernel's text
            if line.startswith("Umask:"):
                return base & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return base & ~mask


@contextmanager
def atomic_file(path: str | Path, *, text: bool = False, fsync: bool = True) -> Iterator[IO[Any]]:
    """Yield a handle whose content replaces `path` in one rename when the block ends without
    an error; on any error the temporary file is removed and `path` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, umask_mode())
        with (os.fdopen(fd, "w", encoding="utf-8", newline="\n") if text else os.fdopen(fd, "wb")) as handle:
            yield handle
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(path: str | Path, data: bytes, *, fsync: bool = True) -> None:
    """Replace `path` with `data` in one rename (a reader sees the old file or the new one)."""
    with atomic_file(path, fsync=fsync) as handle:
        handle.write(data)


def lock_path(target: str | Path) -> Path:
    target = Path(target)
    return target.with_name(f".{target.name}.lock")


@contextmanager
def exclusive(target: str | Path, what: str) -> Iterator[None]:
    """Hold the lock of `target` for the block, or fail at once with a message naming it.
    The lock file is removed on release; a holder that removed it just before we locked our
    handle leaves us an orphan inode, which is why the path is checked again after locking."""
    lock = lock_path(target)
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        if not _lock_within(fd, _PATIENCE):
            os.close(fd)
            raise InputError.single(target, f"{what} is being written by another buzzprobe process right now "
                                    f"(it holds {lock.name}); wait for it to finish, or write elsewhere") from None
        if _still_at(fd, lock):
            break
        os.close(fd)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


_PATIENCE = 0.5  # seconds: outlasts a reader's momentary look (`being_written`), not a real writer


def _lock_within(fd: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def being_written(target: str | Path) -> bool:
    """Whether a process holds `target`'s lock right now (a reader's look: a shared lock taken
    and dropped at once, which a writer starting at that instant outwaits)."""
    try:
        fd = os.open(lock_path(target), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _still_at(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


_DIGESTS: dict[tuple[str, int, int, int, int], str] = {}  # (path, device, inode, size, mtime_ns) -> sha256
_SETTLED_NS = 2_000_000_000  # a file changed less than this long ago is hashed again (racy-git rule)


def file_sha256(path: str | Path) -> str:
    """The sha256 of a regular file's bytes, read in 1 MiB chunks (data files can be large); a
    FIFO or device is an InputError (builder.core.textfiles.open_regular), never waited on.
    Kept for this process by the file's identity, size and mtime: a build hashes each data file
    for its fingerprint, the audit pool's check and the spec's cache key (ChemBench: 2,788 files).
    A file modified in the last two seconds is always read again: a rewrite of the same size
    within the clock's granularity would keep its mtime."""
    try:
        info = os.stat(path)
    except OSError:
        info = None
    key = None if info is None else (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if key is not None and key in _DIGESTS:
        return _DIGESTS[key]
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    if key is not None and time.time_ns() - key[4] > _SETTLED_NS:
        _DIGESTS[key] = digest.hexdigest()
    return digest.hexdigest()
