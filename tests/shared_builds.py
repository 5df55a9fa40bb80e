"""The inputs of the synthetic whole-site builds, and the helpers to build them.

conftest.py builds each site once per session from these (`small_site`, `shipped_site`); tests
read those sites and build afresh only when they change an input (then they say so)."""

from __future__ import annotations

import fcntl
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from contextlib import redirect_stderr, redirect_stdout
from typing import Any
from collections.abc import Callable

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, DatasetSpec, load_dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
from builder.benchmarks.cibuzzbench.probes.heuristics import longest_chars
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.pipeline import BuildConfig, BuildResult, build
from builder.runs.schema import Footer, Header
from builder.runs.writer import write_run
from tests.synthetic import synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
CREATED = "2026-01-01T00:00:00Z"
SMALL_SPEC = DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})
GOLDEN_SEEDS = ("s1111", "s2222")


def once_per_run(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Path]) -> Path:
    """`make(folder)` once per test run, however many pytest-xdist workers ask: the first
    builds under a lock in the run's shared temporary folder, the others wait and read the
    same result (each worker building the same site would double the suite's costliest
    steps). Without xdist, a session's own folder. Tests only read what it returns."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # xdist gives each worker basetemp/popen-gwN; their parent is the run's
    folder, done = base / f"shared-{name}", base / f"shared-{name}.done"
    with open(base / f"shared-{name}.lock", "w", encoding="ascii") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when a worker dies
        if not done.is_file():
            if folder.exists():
                shutil.rmtree(folder)  # a worker that failed half-way left it
            folder.mkdir()
            result = make(folder)
            done.write_text(str(result.relative_to(folder)), encoding="utf-8")
    return folder / done.read_text(encoding="utf-8")


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def write_synthetic_model_pair(dataset: Dataset, folder: Path, seed: int = 1111, name: str = "synthetic-demo") -> None:
    """A SYNTHETIC blind/sighted pair (no model was run): sighted is right on most items,
    blind picks the longest option, so every paired view has something to show."""
    sets = option_sets(dataset, seed)
    ids = dataset.row_ids()
    for condition in ("blind", "sighted"):
        header = Header(
            run_id=f"{name}-t2-{condition}-s{seed}-all", benchmark="cibuzzbench", task="equivalent_selection",
            condition=condition, subject={"kind": "model", "name": name, "parameters": {"synthetic": True}},
            option_seed=seed, items={"selection": "all", "n": len(ids)},
            dataset={"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
            created=CREATED, tool={"name": "buzzprobe-tests", "version": "0"})
        items = []
        for row_id in ids:
            options = sets[row_id]
            if condition == "sighted":
                letter = options.gold_letter if row_id % 5 else longest_chars(options)
            else:
                letter = longest_chars(options) if row_id % 7 else ""
            items.append(Item(row_id=row_id, prediction=letter, response=f" {letter or '??'}",
                              letter_map=options.letter_map))
        write_run(folder / f"{header.run_id}.jsonl", header, items, Footer(len(items), CREATED, {}))


def make_small_inputs(root: Path) -> tuple[Path, Path]:
    """A 60-row synthetic dataset and a subset of its probe runs (seeds 1111, 2222) with the
    synthetic model pair: the golden site's inputs."""
    csv_path = write_synthetic_csv(root / "small.csv", synthetic_rows(n=60, test=12, seed=3))
    every = root / "every"
    generate_probe_runs(load_dataset(csv_path, SMALL_SPEC), every, CREATED)
    runs = root / "runs" / "probes"
    runs.mkdir(parents=True)
    for path in every.glob("*.jsonl"):
        if "-t3-" in path.name or any(f"-{s}-" in path.name for s in GOLDEN_SEEDS):
            shutil.copy(path, runs / path.name)
    write_synthetic_model_pair(load_dataset(csv_path, SMALL_SPEC), root / "runs" / "synthetic")
    return csv_path, root / "runs"


def small_build(small_inputs: tuple[Path, Path], out: Path, **kwargs: Any) -> BuildResult:
    csv_path, runs = small_inputs
    return build(BuildConfig(runs, kwargs.pop("content", CONTENT), out,
                             options=cibuzzbench_options(csv_path, SMALL_SPEC), **kwargs))


def shared_copy(folder: str, variable: str) -> Path:
    """The shared copy of a benchmark's data folder: required in CI, skipped elsewhere when absent."""
    value = os.environ.get(variable)
    path = Path(value) if value else REPO.parent / "shared" / "data" / folder
    if path.is_dir():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"CI must provide the shared copy of {folder} ({variable} or {path})")
    pytest.skip(f"no shared copy of {folder} at {path}")


def unpacked_copy(folder: Path, tmp_path: Path) -> Path:
    """The folder itself, or for ChemBench's zip-only copy (data.zip, reports/) an unpacked one
    beside links to it (CI's .ci/run and `make chembench-data` unpack it the same way)."""
    if (folder / "src").is_dir() or not (folder / "data.zip").is_file():
        return folder
    import zipfile
    out = tmp_path / f"unpacked-{folder.name}"
    with zipfile.ZipFile(folder / "data.zip") as archive:
        archive.extractall(out)
    for name in ("data.zip", "reports"):
        (out / name).symlink_to(folder / name)
    return out


# The shared data folder of each shipped spec (content/benchmarks/NAME.yaml).
SHIPPED_DATA = {"mmlu-pro": "mmlu-pro", "mmlu": "mmlu", "cmmlu": "cmmlu", "truthfulqa-mc1": "truthfulqa-mc",
                "chembench": "chembench", "lawbench": "lawbench"}


def shipped_build(real_csv: Path, root: Path) -> Path:
    """What `make site` builds: the committed runs and content, every shipped spec reading its
    shared copy (none left out), charts included; into root/site. The costliest build of the
    suite (every shipped benchmark's audit), so conftest makes it once a session."""
    from builder.benchmarks.mcq.spec import load_spec
    specs = CONTENT / "benchmarks"
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("BUZZPROBE_SKIP_BENCHMARKS", raising=False)  # conftest leaves them out of other builds
        for spec in sorted(specs.glob("*.yaml")):
            variable = load_spec(spec, root=REPO, environ={}).env_var
            if variable != "CIBUZZBENCH_CSV":
                patch.setenv(variable, str(unpacked_copy(shared_copy(SHIPPED_DATA[spec.stem], variable), root)))
        patch.setenv("CIBUZZBENCH_CSV", str(real_csv))
        build(BuildConfig(REPO / "runs", CONTENT, root / "site", options=cibuzzbench_options(real_csv), force=True))
    return root / "site"


def raw_header(path: Path) -> dict[str, Any]:
    """A run file's first line as JSON (gzip or not): what its header declares, without reading
    and checking every item as read_run does (the committed runs take seconds to read whole)."""
    import gzip
    import json
    raw = path.read_bytes()
    return json.loads((gzip.decompress(raw) if path.suffix == ".gz" else raw).split(b"\n", 1)[0])


def own_copy(site: Path, out: Path) -> Path:
    """A private copy of a shared site (stamp included), for a test that builds over it or breaks it."""
    shutil.copytree(site, out, symlinks=True)
    return out


def cli(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`buzzprobe ARGS --content content/` in a user's folder, the CSV named as a user would."""
    env = {**os.environ, "CIBUZZBENCH_CSV": str(work / "data.csv")}
    return subprocess.run([sys.executable, "-m", "builder.cli", *args, "--content", str(CONTENT)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)


def cli_here(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cli` in this process (cli_in_process): the same folder, CSV and content."""
    return cli_in_process(work, *args, "--content", str(CONTENT), env={"CIBUZZBENCH_CSV": str(work / "data.csv")})


def cli_in_process(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`buzzprobe ARGS` in this process, as a child started in `cwd` with `env` added would run it
    (exit code, stdout, stderr; argparse's exit is the code): for cases that a child's start-up
    and imports (1-4 s each) made slow. An uncaught exception fails the test here as a traceback
    would there. Exit codes and signals only a real process shows stay with `cli`."""
    from builder.cli import main
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        patch.chdir(cwd)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: a usage error (2) or --help (0)
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return subprocess.CompletedProcess(["buzzprobe", *args], code, out.getvalue(), err.getvalue())
