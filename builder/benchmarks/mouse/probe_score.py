"""What `buzzprobe mouse import` and `mouse score` need besides the CLI: telling Mouse files
apart by their columns, matching runs to their data file, and the metrics as rows.

Files are recognised by the official columns, so `mouse import outputs/*.csv` needs no
per-file flags; a run finds its data file by content hash (`MouseSet.content_sha256`), so
the order of `--data` files does not matter and a wrong file is refused, not scored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.benchmarks.mouse.analyses import metrics as m
from builder.benchmarks.mouse.config import CC_OPTIONS, MS_OPTIONS, SOURCE, GoldColumns
from builder.benchmarks.mouse.dataset import MouseSet, load_icc, load_main, load_single_choice
from builder.benchmarks.mouse.importer import ANSWER_COLUMNS, CHOICE, JUDGE, TRANSLATION
from builder.benchmarks.mouse.labels import CC, IR, MS, RC, RC_COMPONENTS, TD, TR
from builder.benchmarks.mouse.run_format import PROBE
from builder.benchmarks.mouse.runs import dataset_for, score_run
from builder.benchmarks.mouse.table import read_table
from builder.runs.schema import Run
from builder.runs.reader import read_run

MAIN, SINGLE_CHOICE, ICC, JUDGE_FILE = "main_eval", "single_choice", "icc", "judge"
_LOADERS: dict[str, Callable[[Path, GoldColumns], MouseSet[Any]]] = {MAIN: load_main, SINGLE_CHOICE: load_single_choice, ICC: load_icc}


def data_kind(columns: tuple[str, ...] | set[str]) -> str | None:
    """main_eval, single_choice or icc by the official input columns; None if none fits."""
    if SOURCE in columns:
        return MAIN
    if MS_OPTIONS[0] in columns:
        return SINGLE_CHOICE
    if CC_OPTIONS in columns:
        return ICC
    return None


def output_kind(columns: tuple[str, ...] | set[str]) -> str | None:
    """Which official output file: the judge sheet, main_eval, single_choice or icc output."""
    if JUDGE in columns:
        return JUDGE_FILE
    if TRANSLATION in columns or any(c in columns for c in ANSWER_COLUMNS.values()):
        return MAIN
    if CHOICE in columns:
        return data_kind(columns)
    return None


def classify(paths: list[Path], kind_of: Any, what: str) -> dict[str, Path]:
    """kind -> path, one file per kind; every unrecognised or repeated file is reported."""
    found: dict[str, Path] = {}
    problems = []
    for path in paths:
        kind = kind_of(set(read_table(path).columns))
        if kind is None:
            problems.append(Problem(str(path), f"not a Mouse {what} file: no official columns found", 1))
        elif kind in found:
            problems.append(Problem(str(path), f"a second {kind} {what} file (first: {found[kind]})", 1))
        else:
            found[kind] = path
    if problems:
        raise InputError(problems)
    return found


def load_data(path: Path, gold: GoldColumns, kind: str | None = None) -> MouseSet:
    """A data file loaded by its kind (recognised from its columns when not given)."""
    kind = kind or data_kind(set(read_table(path).columns))
    if kind is None:
        raise InputError.single(path, f"not a Mouse data file: expected the columns of {MAIN}, {SINGLE_CHOICE} "
                                f"or {ICC} ({SOURCE!r}, {MS_OPTIONS[0]!r} or {CC_OPTIONS!r})", line=1)
    return _LOADERS[kind](path, gold)


# ---------------------------------------------------------------- scoring

@dataclass(frozen=True)
class Row:
    name: str
    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class RunScore:
    path: str
    run: Run
    rows: tuple[Row, ...]
    counts: dict[str, int]


def score(run: Run, datasets: list[MouseSet], boot: m.BootstrapOptions | None) -> RunScore:
    h = run.header
    if h.task == TR and (h.source or {}).get("kind") == PROBE:
        raise InputError.single(run.path or h.run_id, "translations not judged yet: run `buzzprobe mouse judge "
                                f"--run {run.path}` and score the judged run", line=1, field="source")
    scores = score_run(run, dataset_for(run, datasets), boot)
    rows: tuple[Row, ...]
    if isinstance(scores, m.TranslationScores):
        rows = (_row("semantic_accuracy", scores.semantic_accuracy, scores.intervals),
                _row("perfect_rate", scores.perfect_rate, scores.intervals))
        counts = {"n": scores.n, "missing": scores.missing, "copied": scores.copied,
                  "judge_unparsed": scores.judge_unparsed}
    elif isinstance(scores, m.RCScores):
        rows = (_row("balanced_accuracy", scores.balanced_accuracy, scores.intervals),
                _row("macro_f1", scores.macro_f1, scores.intervals),
                *(r for c in RC_COMPONENTS for r in _class_rows(scores.components[c], RC, f"{c}.")))
        counts = {"n": len(run.items), **{f"unparsed.{c}": scores.components[c].unparsed for c in RC_COMPONENTS}}
    else:
        rows, counts = _class_rows(scores, h.task), {"n": scores.n, "unparsed": scores.unparsed}
    return RunScore(run.path or h.run_id, run, tuple(rows), counts)


# The paper's metrics per task (docs/mouse.md), accuracy first where it has one.
_CLASS_METRICS = {IR: ("accuracy", "balanced_accuracy", "macro_f1", "mcc"), TD: ("accuracy", "f1_1", "mcc"),
                  MS: ("accuracy", "mcc"), CC: ("accuracy", "mcc"), RC: ("balanced_accuracy", "macro_f1", "mcc")}


def _class_rows(s: m.ClassScores, task: str, prefix: str = "") -> tuple[Row, ...]:
    values = {"accuracy": s.accuracy, "balanced_accuracy": s.balanced_accuracy, "macro_f1": s.macro_f1,
              "mcc": s.mcc, **{f"f1_{label}": v for label, v in s.f1.items()}}
    return tuple(_row(name, values[name], s.intervals, prefix) for name in _CLASS_METRICS[task])


def _row(name: str, value: float, intervals: dict[str, Any], prefix: str = "") -> Row:
    iv = intervals.get(name)
    shown = "f1_toxic" if name == "f1_1" else name
    return Row(prefix + shown, value, iv.low if iv else None, iv.high if iv else None)


def render(result: RunScore, level: float | None) -> str:
    h = result.run.header
    params = h.subject.get("parameters") or {}
    condition = f" ({params['condition']})" if "condition" in params else ""
    counts = ", ".join(f"{k} {v}" for k, v in result.counts.items())
    lines = [f"{h.run_id}: {h.subject.get('name')} on {h.task}{condition}; {counts}", f"  file {result.path}"]
    if level is not None:
        lines.append(f"  {'metric':<28} {'value':>7}  {round(level * 100)}% interval")
    for row in result.rows:
        ci = f"  [{row.low:.3f}, {row.high:.3f}]" if row.low is not None and row.high is not None else ""
        lines.append(f"  {row.name:<28} {row.value:>7.3f}{ci}")
    return "\n".join(lines)


def as_json(result: RunScore, level: float | None) -> dict[str, Any]:
    h = result.run.header
    return {"path": result.path, "run_id": h.run_id, "task": h.task, "model": h.subject.get("name"),
            "condition": (h.subject.get("parameters") or {}).get("condition"), "counts": result.counts,
            "level": level,
            "metrics": {r.name: {"value": r.value, "low": r.low, "high": r.high} for r in result.rows}}


def figures(path: Path, datasets: list[MouseSet]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A finished run's metrics at the site's bootstrap, as `buzzprobe probe` and `buzzprobe score`
    show every benchmark's (builder.probing.summary): `{metric: {value, low, high}, items, failed}`,
    on a 0-1 scale (`unit`), and no paired gap (Mouse's blind arms are scored on their own)."""
    boot = m.BootstrapOptions()
    found = as_json(score(read_run(path), datasets, boot), boot.level)
    counts = found["counts"]
    return {**found["metrics"], "items": counts.get("n"), "failed": counts.get("missing", 0), "unit": "0-1"}, []
