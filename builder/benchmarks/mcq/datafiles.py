"""Where a spec's data lives: one file, a list of files or a glob, under an optional `data_dir`,
with a pinned `download` (URL template, file -> sha256) for `buzzprobe data fetch`.

The environment variable (`BUZZPROBE_DATA_<NAME>`, or the spec's `dataset_env`) names a local
copy: the folder that replaces `data_dir` when the spec has one, else the one data file. Paths
in `download.files` are checked (relative, no `..`, no glob characters) before they become paths:
a spec is input. For the same reason every path is confined (builder.core.confine): the data is
read only from the repository, the spec's folder and the copy the user named (the variable, or
`--data` on the command line); the variable must be one of buzzprobe's own, so a spec cannot
name `HOME` or `OPENAI_API_KEY` as its copy.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from builder.core.build_scope import once
from builder.core.confine import Confinement
from builder.core.errors import InputError, Problem
from builder.core.yamlfile import web_link_problem
from urllib.parse import quote

_SHA256 = re.compile(r"[0-9a-f]{64}")
_ENV = re.compile(r"BUZZPROBE_DATA_[A-Z0-9_]+|CIBUZZBENCH_CSV")  # buzzprobe's own data variables only
DATA_OPTION = "--data"  # the command line's name for the copy, when it names one
_URL_FIELDS = re.compile(r"\{([^{}]*)\}")
_GLOB = re.compile(r"[*?\[]")
_CONTROL = re.compile(r"[\x00-\x1f]")
_RAW_GITHUB = re.compile(r"https://raw\.githubusercontent\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/([0-9a-f]{40})/")


@dataclass(frozen=True)
class Download:
    """The pinned upstream copy: `url` with `{path}` (the file's path under data_dir) or
    `{name}` (its base name), and each file's expected sha256."""

    url: str
    files: tuple[tuple[str, str], ...]  # (path under data_dir, sha256)

    def url_of(self, relative: str) -> str:
        """The file's URL: its path percent-encoded (ChemBench's file names hold spaces)."""
        return self.url.replace("{path}", quote(relative)).replace("{name}", quote(PurePosixPath(relative).name))

    def source(self) -> tuple[str | None, str | None]:
        """(the repository's page at the pinned commit, the commit) when `url` is a
        raw.githubusercontent.com address, else (None, None): what the site's footer names."""
        found = _RAW_GITHUB.match(self.url)
        if found is None:
            return None, None
        owner, repo, commit = found.groups()
        return f"https://github.com/{owner}/{repo}/tree/{commit}", commit


@dataclass(frozen=True)
class DataLocation:
    patterns: tuple[Path, ...]  # resolved; may hold glob characters
    root: Path | None  # data_dir resolved (the override applied); None: the spec has none
    override: str | None  # what chose the copy, if anything did: the environment variable or --data
    env_var: str
    download: Download | None
    confinement: Confinement  # where the files may lie (builder.core.confine)
    spec_file: str  # where a refused file is reported: the spec and its dataset_path line
    spec_line: int | None

    def files(self) -> list[Path]:
        """The data files in order: each literal path as given, each glob's matches sorted by name.
        A file outside the confinement (a symlink out, a FIFO a glob matched) is a located error.
        Listed once per build (builder.core.build_scope)."""
        return list(once(("data files", self.patterns, self.confinement, self.spec_file, self.spec_line),
                         self._listed))

    def _listed(self) -> list[Path]:
        found: dict[Path, None] = {}  # ordered and deduplicated: a list's `in` made 2,788 files 16M comparisons
        for pattern in self.patterns:
            text = str(pattern)
            matches = [Path(p) for p in sorted(glob.glob(text))] if _GLOB.search(text) else [pattern]
            found.update(dict.fromkeys(matches))
        refused = [why for why in self.confinement.problems(list(found)) if why is not None]
        if refused:
            raise InputError([Problem(self.spec_file, f"{why} ({self.confined_hint()})", self.spec_line,
                                      "dataset_path") for why in refused])
        return list(found)

    def confined_hint(self) -> str:
        """What to do about a refused path: name the copy explicitly."""
        return (f"a spec reads only inside the repository, its own folder and the copy named by {self.env_var} "
                f"or {DATA_OPTION} PATH: docs/audit.md")

    def missing(self) -> list[Path]:
        """Literal paths that are not files, globs that match no file, and pinned files that are
        absent (a glob over a half-downloaded folder must not shrink the benchmark silently)."""
        gone = []
        for pattern in self.patterns:
            text = str(pattern)
            if (not glob.glob(text)) if _GLOB.search(text) else not pattern.is_file():
                gone.append(pattern)
        if self.download is not None and self.root is not None:
            gone += [p for p in (self.root / r for r, _ in self.download.files) if not p.is_file() and p not in gone]
        return gone


def data_env_var(name: str) -> str:
    """`BUZZPROBE_DATA_<NAME>`: upper case, `-` as `_` (names are already [a-z0-9_-])."""
    return "BUZZPROBE_DATA_" + name.upper().replace("-", "_")


def safe_relative(text: object) -> str | None:
    """Why `text` cannot be a path inside the data folder, or None."""
    if not isinstance(text, str) or not text.strip():
        return "must be a non-empty relative path"
    if text.startswith("/") or "\\" in text or any(part in ("..", "") for part in text.split("/")):
        return f"{text!r} must be a relative path inside data_dir (no '..', no leading '/')"
    if _GLOB.search(text) or _CONTROL.search(text):  # a regex: ChemBench pins 2,788 names
        return f"{text!r} cannot contain glob or control characters"
    return None


@dataclass(frozen=True)
class SpecPlace:
    """Where a spec sits and what its relative paths mean: the repository (where buzzprobe runs),
    the spec's file and its `dataset_path` line, and the copy named on the command line, if any."""

    root: Path
    spec_file: Path
    line: int | None = None
    given: Path | None = None  # --data PATH: the copy the user named, which wins over the variable


def data_variables(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The part of the environment a spec reads: buzzprobe's data variables (a spec's
    `dataset_env` may name no other). A library that sets a variable of its own while a build
    runs (threadpoolctl sets KMP_DUPLICATE_LIB_OK) does not make a spec read anew."""
    return tuple(sorted((k, v) for k, v in environ.items() if _ENV.fullmatch(k)))


def parse_location(data: Mapping[str, Any], name: str, place: SpecPlace, environ: Mapping[str, str],
                   problem: Callable[[str, str], None]) -> DataLocation | None:
    """The spec's data location, or None after reporting what is wrong (`problem(key, why)`)."""
    value = data.get("dataset_path")
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p.strip() for p in paths):
        problem("dataset_path", "must be a path (a glob is allowed) or a non-empty list of paths")
        return None
    env_var = data.get("dataset_env", data_env_var(str(name)))
    if "dataset_env" in data and not (isinstance(env_var, str) and _ENV.fullmatch(env_var)):
        problem("dataset_env", "must be one of buzzprobe's data variables, BUZZPROBE_DATA_<NAME> or "
                "CIBUZZBENCH_CSV: a spec does not choose which of the machine's variables it reads")
        return None
    chosen_by, override = (DATA_OPTION, str(place.given)) if place.given is not None else \
        (env_var, environ.get(env_var) or None)
    base, data_dir = place.root, data.get("data_dir")
    if data_dir is not None:
        if not (isinstance(data_dir, str) and data_dir.strip()):
            problem("data_dir", "must be non-empty text")
            return None
        base = _under(place.root, override) if override else _relative(place, data_dir)
    elif override:
        paths = [override]
    download = _download(data["download"], problem) if "download" in data else None
    if "download" in data and data_dir is None:
        problem("download", "needs data_dir: the folder the files are downloaded into")
    named = [_under(place.root, override)] if override else []
    resolved = tuple(_under(base, p) if data_dir is not None or override else _relative(place, p) for p in paths)
    location = DataLocation(resolved, base if data_dir is not None else None,
                            chosen_by if override else None, env_var, download,
                            Confinement.of([place.root, place.spec_file.parent, *named]), str(place.spec_file),
                            place.line)
    _confine(location, data_dir is not None and not override, problem)
    return location


def _confine(location: DataLocation, own_dir: bool, problem: Callable[[str, str], None]) -> None:
    """Each path (and the spec's own data_dir, where `data fetch` writes) inside the confinement,
    else a problem at its key (a refused data_dir, not also every path under it); a glob's matches
    are checked when they are listed (`files`)."""
    if own_dir and location.root is not None and (why := location.confinement.problem(location.root, folder=True)):
        problem("data_dir", f"{why} ({location.confined_hint()})")
        return
    for pattern in location.patterns:
        if (why := location.confinement.problem(pattern, folder=bool(_GLOB.search(str(pattern))))) is not None:
            problem("dataset_path", f"{why} ({location.confined_hint()})")


def _relative(place: SpecPlace, text: str) -> Path:
    """A spec's own relative path: beside the spec when something is there (a file, a folder, a
    glob's match), else under the repository, where specs written before this rule meant it. So
    a spec and its data can travel together, and run from any folder."""
    path = Path(text).expanduser()
    if path.is_absolute():
        return path
    beside = place.spec_file.parent / path
    has_glob = any(c in text for c in "*?[")
    if (beside.exists() if not has_glob else any(beside.parent.glob(beside.name))):
        return beside
    return place.root / path


def _under(base: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def _download(value: object, problem: Callable[[str, str], None]) -> Download | None:
    if not isinstance(value, dict) or set(value) != {"url", "files"}:
        problem("download", "must be a mapping with exactly `url` and `files`")
        return None
    url, files = value["url"], value["files"]
    fields = set(_URL_FIELDS.findall(url)) if isinstance(url, str) else set()
    if web_link_problem(url) is not None or not str(url).startswith(("https://", "http://")) \
            or not fields or not fields <= {"path", "name"}:
        problem("download", "url must be an http(s) URL using {path} or {name} (and nothing else in braces)")
        return None
    if not isinstance(files, dict) or not files:
        problem("download", "files must map each path under data_dir to its sha256")
        return None
    checked = []
    for path, digest in files.items():
        why = safe_relative(path)
        if why is None and not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
            why = f"the sha256 of {path!r} must be 64 lower-case hex digits"
        if why is not None:
            problem("download", why)
            return None
        checked.append((path, digest))
    return Download(url, tuple(checked))
