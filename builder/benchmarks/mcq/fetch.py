"""`buzzprobe data fetch` for the spec'd benchmarks: each spec's pinned files (its `download`)
into its `data_dir`, verified by sha256, with the shared downloader (builder.core.download:
retries, atomic replace, nothing half-written). A local copy named by the spec's variable is used as it is:
its files must exist, nothing is downloaded. A file already present with the pinned sha256 is
kept. Data never enters git: `data/` is ignored.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from builder.benchmarks.mcq.spec import Spec, load_spec, spec_files
from builder.core.download import download
from builder.core.errors import InputError, Problem, gather
from builder.core.fileio import file_sha256
from builder.core.names import did_you_mean
from builder.core.yamlfile import line_of, load_mapping
from builder.benchmarks.mcq.records import data_sha256


def fetch_specs(content_dir: Path, names: Sequence[str] | None, log: Callable[[str], None]) -> list[Path]:
    """Fetch the data of every spec (or of the named ones); every problem at once."""
    paths = spec_files(content_dir)
    known = {p.stem for p in paths}
    unknown = sorted(set(names or ()) - known)
    if unknown:
        raise InputError.single(content_dir / "benchmarks", f"no spec named {', '.join(unknown)}"
                                + did_you_mean(unknown[0], sorted(known), "Specs"), field="--benchmark")
    chosen = [p for p in paths if not names or p.stem in names]
    return [f for files in gather(chosen, lambda p: fetch_spec(load_spec(p), log)) for f in files]


def fetch_spec(spec: Spec, log: Callable[[str], None]) -> list[Path]:
    """The spec's data files, downloading the pinned ones that are absent or differ."""
    location = spec.location
    if location.override or location.download is None:
        missing = location.missing()
        if missing:
            raise InputError(missing_problems(spec, missing))
        where = f"{location.override}" if location.override else "dataset_path"
        log(f"{spec.name}: using the copy named by {where} (no download)")
        return location.files()
    assert location.root is not None  # a download needs data_dir (spec validation)
    for relative, sha256 in location.download.files:
        dest = location.root / relative
        if dest.is_file() and file_sha256(dest) == sha256:
            continue
        download(dest, location.download.url_of(relative), expected_sha256=sha256, require_pin=True, log=log,
                 hint=f"download it elsewhere and set {spec.env_var} to the folder that holds {relative}")
    log(f"{spec.name}: {len(location.download.files)} file(s) in {location.root}, sha256 as pinned")
    return location.files()


def missing_problems(spec: Spec, missing: Sequence[Path]) -> list[Problem]:
    """What is missing of a spec's data. A pinned folder copy (ChemBench: one file per question)
    is one problem naming the folder, how many pinned files it lacks and how to get them: a
    missing copy was thousands of identical errors, one per question. Otherwise one per file."""
    location = spec.location
    if location.download is None or location.root is None or len(missing) == 1:
        return [missing_problem(spec, path) for path in missing]
    _, lines = load_mapping(spec.path)
    pinned = [location.root / relative for relative, _ in location.download.files]
    absent = [p for p in pinned if not p.is_file()]
    holding = _common_folder([relative for relative, _ in location.download.files])
    what = (f"no folder {location.root}" if not location.root.is_dir() else
            f"{len(absent):,} of its {len(pinned):,} pinned files are not in {location.root} (first: {absent[0]})"
            if absent else f"{location.root} holds no file its dataset_path matches")
    how = (f"{location.override} names this copy; point it at a folder holding {holding}" if location.override else
           f"run `buzzprobe data fetch --benchmark {spec.name}`, or set {location.env_var} to a folder holding {holding}")
    page, _ = location.download.source()
    upstream = f"; upstream: {page}" if page else ""
    return [Problem(str(spec.path), f"the data of {spec.name!r} is missing: {what} ({how}{upstream}; buzzprobe never "
                    "ships a benchmark's data: docs/audit.md)", line_of(lines, ("data_dir",)), "data_dir")]


def _common_folder(relatives: Sequence[str]) -> str:
    """The deepest folder every pinned path lies under (`src/data/chem-bench-main/data/`), or the data folder."""
    parts = [PurePosixPath(r).parent.parts for r in relatives]
    common = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) + "/" if common else "its pinned files"


def missing_problem(spec: Spec, path: Path) -> Problem:
    """A missing data file, located at the spec's dataset_path line: the file, the variable
    that names a local copy and, when the spec pins it, the URL to download it from."""
    _, lines = load_mapping(spec.path)
    location = spec.location
    url = None
    if location.download is not None and location.root is not None:
        root = location.root
        url = next((location.download.url_of(relative) for relative, _ in location.download.files
                    if fnmatch.fnmatchcase(str(root / relative), str(path))), None)
    how = (f"{location.override} names this copy" if location.override else
           f"run `buzzprobe data fetch` or set {location.env_var} to a local copy")
    source = f"; upstream: {url}" if url else ""
    return Problem(str(spec.path), f"the data file of {spec.name!r} is missing: {path} ({how}{source}; buzzprobe "
                   "never ships a benchmark's data: docs/audit.md)", line_of(lines, ("dataset_path",)), "dataset_path")


def check_specs(content_dir: Path, names: Sequence[str] | None) -> list[dict[str, Any]]:
    """`buzzprobe data check`: every spec's (or the named ones') data files present and, where
    the spec pins them and no local copy is named, with the pinned sha256; every problem at once."""
    paths = spec_files(content_dir)
    unknown = sorted(set(names or ()) - {p.stem for p in paths})
    if unknown:
        raise InputError.single(content_dir / "benchmarks", f"no spec named {', '.join(unknown)}"
                                + did_you_mean(unknown[0], sorted(p.stem for p in paths), "Specs"), field="--benchmark")
    return gather([p for p in paths if not names or p.stem in names], lambda p: _checked(load_spec(p)))


def _checked(spec: Spec) -> dict[str, Any]:
    location = spec.location
    missing = location.missing()
    if missing:
        raise InputError([missing_problem(spec, path) for path in missing])
    files = location.files()
    pinned = ({location.root / relative: sha for relative, sha in location.download.files}
              if location.download is not None and location.root is not None and not location.override else {})
    digests = [(path, file_sha256(path)) for path in files]
    differ = [path for path, digest in digests if path in pinned and pinned[path] != digest]
    if differ:
        raise InputError([Problem(str(spec.path), f"{path} is not the pinned file (its sha256 differs): run `buzzprobe "
                                  f"data fetch --benchmark {spec.name}` or set {spec.env_var} to a copy", None,
                                  "download") for path in differ])
    sha = data_sha256([(path.name, digest) for path, digest in digests])
    how = "sha256 as pinned" if pinned else f"from {location.override or 'dataset_path'}, not pinned"
    return {"benchmark": spec.name, "path": str(location.root or files[0]), "files": len(files), "sha256": sha,
            "text": f"{spec.name}: {len(files)} data file(s) present ({how}); sha256 {sha}"}
