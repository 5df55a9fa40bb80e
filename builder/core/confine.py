"""Which files an input may make buzzprobe read: only those under the folders it is allowed.

A spec is input, like a page or a run: whoever can commit one must not be able to publish the
machine's files through it (`dataset_path: ~/.ssh/id_rsa` would put the key on the site, and
`/proc/self/environ` the API keys in a CI log). So a path a spec names is read only when, with
every symlink followed, it lies under one of the allowed roots (the repository, the spec's folder,
the copy the user named), no part of it below that root is hidden (`.ssh`, `.env`, `.git`), it is
not in /proc, /sys or /dev, and, where it exists, it is a regular file (a FIFO would hang the
read, a device never end).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from builder.core.textfiles import file_kind

SYSTEM_TREES = (Path("/proc"), Path("/sys"), Path("/dev"))


def resolved(path: str | Path) -> Path:
    """`path` absolute, every symlink followed and `..` applied (what the read would open)."""
    return Path(os.path.realpath(Path(path).expanduser()))


@dataclass(frozen=True)
class Confinement:
    """The folders (or single files) an input's paths may lie in, each already resolved."""

    roots: tuple[Path, ...]

    @classmethod
    def of(cls, roots: Iterable[str | Path]) -> "Confinement":
        found: list[Path] = []
        for root in roots:
            if (real := resolved(root)) not in found:
                found.append(real)
        return cls(tuple(found))

    def problem(self, path: str | Path, *, folder: bool = False) -> str | None:
        """Why `path` may not be read (or, with `folder`, used as a folder), or None."""
        return self._problem(os.path.realpath(Path(path).expanduser()), folder)

    def problems(self, paths: Sequence[Path]) -> list[str | None]:
        """`problem` of each file, each folder they lie in resolved once: ChemBench's 2,788 files
        lie in a few folders, and resolving every file's whole path cost seconds per build."""
        folders: dict[str, str] = {}
        return [self._problem(real_file(path, folders), False) for path in paths]

    def _problem(self, real: str, folder: bool) -> str | None:
        if any(_within(real, str(tree)) for tree in SYSTEM_TREES):
            return f"{real} is a system file (/proc, /sys, /dev), never data"
        inside = [real[len(str(r)):] for r in self.roots if _within(real, str(r))]
        if not inside:
            return f"{real} is outside the folders data may be read from ({', '.join(map(str, self.roots))})"
        if all(any(part.startswith(".") for part in below.split("/")) for below in inside):
            return f"{real} is in a hidden file or folder (.ssh, .env, .git, ...), never data"
        return None if folder else _special(real)


def real_file(path: Path, folders: dict[str, str]) -> str:
    """os.path.realpath of a file: its folder's real path (resolved once, kept in `folders`) and
    its name, when the name is not itself a link; the whole path otherwise, or when `..` in it
    must be applied after the links it follows."""
    text = os.path.expanduser(str(path))
    head, name = os.path.split(os.path.abspath(text))
    if ".." in text.split(os.sep) or name in ("", ".", "..") or os.path.islink(text):
        return os.path.realpath(text)
    if head not in folders:
        folders[head] = os.path.realpath(head)
    return os.path.join(folders[head], name)


def _within(real: str, top: str) -> bool:
    """`real` is `top` or lies under it; both resolved, so a comparison of their text (a
    `Path.parents` membership test compared every ancestor as a Path: 7 s of a warm build over
    ChemBench's 2,788 files)."""
    return real == top or real.startswith(top if top.endswith("/") else top + "/")


def _special(real: str) -> str | None:
    """Why an existing path is not a regular file, or None (a missing file is the caller's to report)."""
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"{real} is not a regular file ({file_kind(mode)})"
