"""Cache files the build can trust: sealed with a per-machine secret, never one that git tracks.

A cache folder is writable by more than this build: a pull request can force-add `.cache/`,
a tarball can ship one, a CI cache can be shared. Several caches hold pickles (code runs on
load), SVG or JavaScript that goes onto pages, or figures that are published. So every cache
file is written with an HMAC-SHA256 tag made with a secret that lives outside the checkout
(created once, mode 0600) over the entry's kind (which cache wrote it), its file name (which
carries its key) and its bytes, and read only when the tag is right: a planted or foreign entry,
or one moved to another name or kind, is ignored and rebuilt, never unpickled or shown. Files that git tracks are never read at all.
Without a usable secret the caches are simply off (a build is slower, never different).
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import os
import pickle
import secrets
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from builder.core.errors import InputError
from builder.core.fileio import atomic_write
from builder.core.paths import REPO_DIR
from builder.core.textfiles import read_input

SECRET_ENV = "BUZZPROBE_CACHE_SECRET"  # path of the secret file, instead of ~/.config/buzzprobe/cache-secret
MAGIC = b"buzzprobe-sealed/1\n"
_TAG = 32
_SECRET_BYTES = 32
_SECRET_LIMIT = 2**20  # ours are 32 bytes; a bigger file (or a FIFO, a device) is not a secret


def secret_path() -> Path | None:
    if os.environ.get(SECRET_ENV):
        return Path(os.environ[SECRET_ENV])
    try:
        config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    except RuntimeError:  # no home directory at all: no secret, no caches
        return None
    return config / "buzzprobe" / "cache-secret"


@lru_cache(maxsize=4)
def _secret(path: Path | None) -> bytes | None:
    """The secret at `path`, created when missing; None when it cannot be had or sits inside
    the checkout (where it could be committed, and so known to anyone)."""
    if path is None:
        return None
    try:
        if path.resolve().is_relative_to(REPO_DIR):
            return None
        data = read_input(path, _SECRET_LIMIT)
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return _reread(path)
        except OSError:
            return None
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(_SECRET_BYTES))
        return _reread(path)
    except (OSError, RuntimeError, InputError):
        return None
    return data if len(data) >= _SECRET_BYTES else None


def _reread(path: Path) -> bytes | None:
    try:
        data = read_input(path, _SECRET_LIMIT)
    except (OSError, InputError):
        return None
    return data if len(data) >= _SECRET_BYTES else None


def _tag(key: bytes, kind: str, path: Path, data: bytes | memoryview) -> bytes:
    """Bound to the entry's kind (which cache wrote it) and its file name (which carries its
    key): an entry copied to another name, or between kinds that name files alike
    (`mcq-items/X` over `mcq-kept/X`), fails its seal and is rebuilt, never read as the other."""
    label = f"{kind}\0{path.name}\0".encode("utf-8", "surrogatepass")
    mac = hmac.new(key, len(label).to_bytes(4, "big") + label, hashlib.sha256)
    mac.update(data)  # a view: a 40 MB entry is hashed, not copied
    return mac.digest()


@lru_cache(maxsize=64)
def _tracked_in(folder: Path) -> frozenset[str]:
    """Names of the files directly in `folder` that git tracks (none outside a checkout)."""
    if not folder.is_dir():
        return frozenset()
    try:
        done = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--", "."], capture_output=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    if done.returncode != 0:
        return frozenset()
    return frozenset(name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name and "/" not in name)


def tracked(path: Path) -> bool:
    return path.name in _tracked_in(path.parent.resolve())


def read_sealed(path: Path, kind: str) -> bytes | None:
    """The data of the cache file at `path` written as `kind`, or None when missing, damaged,
    tracked by git, written as another kind or name, or sealed with another secret (or none)."""
    view = read_sealed_view(path, kind)
    return None if view is None else view.tobytes()


def read_sealed_view(path: Path, kind: str) -> memoryview | None:
    """read_sealed's data as a view of the file's bytes, not a copy of them (a build reads
    185 MB of run entries, which it only unpickles)."""
    key = _secret(secret_path())
    if key is None:
        return None
    try:
        raw = read_input(path)  # a FIFO or a link to /dev/zero planted as an entry is not waited on
    except (OSError, InputError):
        return None
    head = len(MAGIC) + _TAG
    if not raw.startswith(MAGIC) or len(raw) < head or tracked(path):
        return None
    data = memoryview(raw)[head:]
    if not hmac.compare_digest(raw[len(MAGIC):head], _tag(key, kind, path, data)):
        return None
    return data


def seal_hex(path: Path, data: bytes, kind: str) -> str | None:
    """The tag of `data` of `kind` for a file named like `path`, in hex (None without a secret)."""
    key = _secret(secret_path())
    return None if key is None else _tag(key, kind, path, data).hex()


def sealed_text_matches(path: Path, data: bytes, tag: str, kind: str) -> bool:
    """Whether `tag` is `data`'s seal_hex here, for a file git does not track."""
    expected = seal_hex(path, data, kind)
    return expected is not None and hmac.compare_digest(expected, tag) and not tracked(path)


def write_sealed(path: Path, data: bytes, kind: str) -> None:
    """Keep `data` of `kind` at `path`; a cache that cannot be written (or has no secret) costs only time."""
    key = _secret(secret_path())
    if key is None:
        return
    try:
        atomic_write(path, MAGIC + _tag(key, kind, path, data) + data, fsync=False)
    except OSError:
        pass


@lru_cache(maxsize=1)
def environment_key() -> str:
    """The Python version and every installed distribution's name and version (from the
    *.dist-info folder names on sys.path: listing them costs a millisecond, reading each
    one's metadata a tenth of a second). A cache key holds it so that a changed dependency
    (Jinja, Markdown, vl-convert, numpy...) starts the caches afresh."""
    names: set[str] = set()
    for entry in sys.path:
        try:
            names.update(n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    text = "\n".join([sys.version, *sorted(names)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def unpickle(data: bytes | memoryview) -> object:
    """`pickle.loads` of a sealed entry, with the cyclic garbage collector paused: unpickling
    the run cache makes millions of objects, and the collections they trigger cost 0.7 s of a
    1 s load (nothing an entry holds is garbage, so pausing frees nothing later)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if enabled:
            gc.enable()


def read_sealed_pickle(path: Path, kind: str, of: type) -> object | None:
    """The sealed pickle at `path` when it is ours, written as `kind`, readable and of type
    `of`; None otherwise (a caller recomputes it: e.g. a class renamed since it was written)."""
    data = read_sealed_view(path, kind)
    if data is None:
        return None
    try:
        value = unpickle(data)
    except Exception:  # sealed by us yet unreadable: recomputed, never trusted
        return None
    return value if isinstance(value, of) else None


def write_sealed_pickle(path: Path, value: object, kind: str) -> None:
    write_sealed(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), kind)

