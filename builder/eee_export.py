"""`buzzprobe export eee --run RUN --out DIR`, the command's work: read the run, ask the plug-in
that owns it for its mapping, write Every Eval Ever's files. A command, so it lives on the CLI
side: it is what joins the registry (builder.benchmarks) to the writer (builder.runs.eee), which
names no plug-in."""

from __future__ import annotations

from pathlib import Path

from builder.benchmarks import run_owner
from builder.benchmarks.base import BuildSettings
from builder.core.errors import InputError
from builder.core.paths import refuse_checkout
from builder.runs.eee import write_evaluation
from builder.runs.reader import read_run


def export_run(path: Path | None, out: Path, developer: str | None = None) -> tuple[Path, Path]:
    """Read the run, ask the plug-in that owns it for its mapping, write both files."""
    if path is None:
        raise InputError.single("--run", "required for `export eee`: the run file to export")
    refuse_checkout(out)
    run = read_run(path)
    owner = run_owner(run.header.benchmark, run.header.task)
    if owner is None:  # the reader refuses such a run already; kept so the message never turns into a traceback
        raise InputError.single(run.path, f"no benchmark reads runs of {run.header.benchmark!r}",
                                line=1, field="benchmark")
    evaluation = owner.eee_evaluation(run, BuildSettings(Path("content"), Path(".cache")))
    return write_evaluation(run, evaluation, out, developer or evaluation.developer)
