"""Write stage: put the whole site in place at once.

The new site is written to a sibling staging folder (files the previous site already holds
byte for byte are hard-linked from it, not written again) and swapped in, so a build that fails at
any point leaves the previous `site/` exactly as it was. On Linux the swap is one
`renameat2(RENAME_EXCHANGE)`: `site/` is the old or the new site at every instant, never
missing. Elsewhere (or on a file system without the call) it falls back to two renames, with a
moment in between where `site/` does not exist. A killed build leaves its staging (or old)
folder behind; the next build removes it, but only a folder holding the marker a build writes
into each folder it makes beside the site (MARKER), checked before removal: a user's own
`.site.new-drafts/` is never touched. Builds into one folder take a lock, so cleaning up can
never remove the staging folder of a build that is still running.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path, PurePosixPath

from builder.core.cachefile import seal_hex, sealed_text_matches
from builder.core.errors import InputError
from builder.core.fileio import exclusive
from builder.core.textfiles import read_input

STAMP = ".buzzprobe-fingerprint"
MARKER = ".buzzprobe-build-folder"  # written first into every folder a build makes beside the site
_MARK = b"made by a buzzprobe build beside its site; the next build removes this folder\n"
_LEFTOVER_KINDS = ("new", "old")  # staging folders and folders holding a replaced site


def write_site(files: dict[str, bytes], out: Path, fingerprint: str) -> None:
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(out, "this site folder"):
        remove_leftovers(out)
        staging = _own_folder(out, "new")
        try:
            previous = out if read_stamp(out) is not None else None
            for name in sorted(files):
                if previous is None or not _link_unchanged(previous, staging, name, files[name]):
                    _write_file(staging, name, files[name])
            _write_file(staging, STAMP, _stamp(out, fingerprint))
            os.chmod(staging, 0o755)
            (staging / MARKER).unlink()  # not published; a crash from here on leaves it, unmarked, in place
            _swap(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def leftovers(out: Path) -> list[Path]:
    """Staging and old folders a killed build left beside `out`: named like one and holding
    the marker a build writes first into each (a folder merely named so is someone else's)."""
    return sorted(p for kind in _LEFTOVER_KINDS for p in out.parent.glob(f".{out.name}.{kind}-*")
                  if not p.is_symlink() and p.is_dir() and _marked(p))


def _own_folder(out: Path, kind: str) -> Path:
    """A new folder beside `out`, marked as this build's before anything else goes into it."""
    folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.{kind}-", dir=out.parent))
    _mark(folder)
    return folder


def _mark(folder: Path) -> None:
    (folder / MARKER).write_bytes(_MARK)


def _marked(folder: Path) -> bool:
    """Whether `folder` holds a build's marker: a regular file (not a link) with its exact text."""
    marker = folder / MARKER
    try:
        status = os.lstat(marker)
        return stat.S_ISREG(status.st_mode) and status.st_size == len(_MARK) and marker.read_bytes() == _MARK
    except OSError:
        return False


def remove_leftovers(out: Path) -> None:
    for path in leftovers(out):
        shutil.rmtree(path, ignore_errors=True)


def _write_file(root: Path, name: str, data: bytes) -> None:
    path = (root / name).resolve()
    if not path.is_relative_to(root.resolve()):
        raise ValueError(f"refusing to write outside the site: {name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _link_unchanged(previous: Path, root: Path, name: str, data: bytes) -> bool:
    """Hard-link the previous site's file when it holds exactly `data` (incremental builds
    then write only what changed; the old site is deleted after the swap, the link stays).
    False, and the caller writes the file (and checks its name), in any other case."""
    parts = PurePosixPath(name).parts
    if not parts or parts[0] == "/" or ".." in parts:
        return False
    old, new = previous.joinpath(*parts), root.joinpath(*parts)
    try:
        status = os.lstat(old)
        if not stat.S_ISREG(status.st_mode) or status.st_size != len(data) or old.read_bytes() != data:
            return False
        new.parent.mkdir(parents=True, exist_ok=True)
        os.link(old, new)
    except OSError:
        return False
    return True


def _swap(staging: Path, out: Path) -> None:
    """Put staging at `out`; the replaced site ends up in `staging` and is deleted."""
    if out.exists() and exchange(staging, out):
        _mark(staging)  # it holds the replaced site now: a crash before the removal leaves it marked
        shutil.rmtree(staging, ignore_errors=True)
        return
    old = None
    if out.exists():  # fallback: rename old away, new in, then delete old (one intact copy on a crash)
        old = _own_folder(out, "old")
        os.rename(out, old / out.name)
    os.rename(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2); False when the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # no support here: use the fallback
        return False
    raise OSError(code, os.strerror(code), str(b))


def read_stamp(out: Path) -> str | None:
    """The fingerprint a build of ours left in `out` (that it is ours, not that it is current)."""
    try:
        return _stamp_text(out).split("\n", 1)[0].strip()
    except (OSError, UnicodeDecodeError, InputError):
        return None


def _stamp_text(out: Path) -> str:
    """The stamp file's text: a FIFO or device planted as the stamp is refused, not waited on."""
    return read_input(out / STAMP, _STAMP_LIMIT).decode("utf-8")


_STAMP_LIMIT = 4096  # a stamp is a fingerprint and its seal: two lines of hex


def _stamp(out: Path, fingerprint: str) -> bytes:
    """The fingerprint and its seal (builder/core/cachefile.py): a stamp planted with a site
    (a force-added site/, a tarball) cannot make `build` skip and publish what it holds."""
    tag = seal_hex(out / STAMP, fingerprint.encode(), "site-stamp") or ""
    return f"{fingerprint}\n{tag}\n".encode()


def is_current(out: Path, fingerprint: str) -> bool:
    """Whether `out` holds the site of exactly these inputs, built here (sealed, not tracked)."""
    try:
        lines = _stamp_text(out).split("\n")
    except (OSError, UnicodeDecodeError, InputError):
        return False
    return (len(lines) >= 2 and lines[0] == fingerprint
            and sealed_text_matches(out.resolve() / STAMP, fingerprint.encode(), lines[1].strip(), "site-stamp"))
