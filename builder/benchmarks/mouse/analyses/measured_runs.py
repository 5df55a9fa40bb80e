"""Mouse runs measured by buzzprobe: load their data, check them, score them, state them as facts.

The build reads every run under runs/ once (builder.runs.load.read_store); this module takes the
Mouse ones. Scoring needs the gold labels, which only the gated data files hold, so the build
is given the folder holding them (`MOUSE_DATA`, files `main_eval`, `single_choice`, `icc` as
.csv or .jsonl); a judged translation run needs none (its scores are in the run). A run whose
data file is not there is an error naming the run and the file, as for CIBuzzBench. Only
finished runs (with a footer) are scored; runs in progress are counted and listed as such.

Facts (0-1 scale like the paper; intervals by the seeded percentile bootstrap over items):
- `mouse.run.<run_id>.…` — every metric of the run (analyses.score_facts: `.n`, `.unparsed`,
  `.accuracy`, `.balanced_accuracy`, `.macro_f1`, `.mcc`, `.f1.<label>`, RC per component,
  TR `.semantic_accuracy`, `.perfect_rate`, …), each with `.ci95_low`/`.ci95_high`;
- `mouse.measured.runs` (finished Mouse runs scored) and `mouse.measured.in_progress`, only
  when there is a Mouse run at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.mouse import fact_keys as K
from builder.benchmarks.mouse.analyses import metrics as m
from builder.benchmarks.mouse.config import GoldColumns, load_gold_columns
from builder.benchmarks.mouse.dataset import MouseSet, load_icc, load_main, load_single_choice
from builder.benchmarks.mouse.analyses.score_facts import add_class_facts, add_rc_facts, add_tr_facts
from builder.benchmarks.mouse.labels import RC, RC_COMPONENTS, SIGHTED, TR
from builder.benchmarks.mouse.run_format import PROBE
from builder.benchmarks.mouse.runs import dataset_for, score_run, validate_mouse_run
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.core.names import slug
from builder.runs.load import checked
from builder.runs.schema import Run

DATA_ENV = "MOUSE_DATA"
_LOADERS: dict[str, Callable[[Path, GoldColumns], MouseSet[Any]]] = {"main_eval": load_main, "single_choice": load_single_choice, "icc": load_icc}
_SUFFIXES = (".csv", ".jsonl")

# Table 3 column -> the run's fact (by task); Table 4 (MCC) column -> (task, the run's fact).
MAIN_FACTS: dict[str, tuple[str, str]] = {
    "tr_sem_acc": (TR, "semantic_accuracy"), "tr_perfect_rate": (TR, "perfect_rate"),
    "rc_bal_acc": (RC, "balanced_accuracy"), "rc_macro_f1": (RC, "macro_f1"),
    "ir_bal_acc": ("ir", "balanced_accuracy"), "ir_macro_f1": ("ir", "macro_f1"),
    "td_acc": ("td", "accuracy"), "td_f1": ("td", "f1.1"), "ms_acc": ("ms", "accuracy"), "cc_acc": ("cc", "accuracy"),
}
MCC_FACTS: dict[str, tuple[str, str]] = {
    **{f"rc_{c}": (RC, f"{c}.mcc") for c in RC_COMPONENTS},
    "ir": ("ir", "mcc"), "td": ("td", "mcc"), "ms": ("ms", "mcc"), "cc": ("cc", "mcc"),
}


@dataclass(frozen=True)
class Measured:
    """One finished Mouse run as the page shows it: whose, which task and arm, and its fact base."""

    run_id: str
    model: str  # the subject's name as pages show it
    task: str
    condition: str
    path: str
    reported: str | None = None  # the paper's row for the same model and arm (Tables 3 and 4), if any

    @property
    def base(self) -> str:
        return f"mouse.run.{self.run_id}"


def data_folder(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The folder of the gated Mouse data files, from MOUSE_DATA (None: not available here)."""
    value = environ.get(DATA_ENV, "").strip()
    return Path(value) if value else None


def load_mouse_data(folder: Path | None, gold: GoldColumns | None = None) -> list[MouseSet]:
    """Every Mouse data file in `folder` (none when the folder is not given)."""
    if folder is None:
        return []
    if not folder.is_dir():
        raise InputError.single(folder, f"{DATA_ENV} is not a folder (expected the Mouse data files "
                                f"{', '.join(_LOADERS)} as .csv or .jsonl)")
    gold = gold or load_gold_columns()
    found = {name: next((p for p in (folder / f"{name}{s}" for s in _SUFFIXES) if p.is_file()), None)
             for name in _LOADERS}  # .csv first, as the official files come
    return [_LOADERS[name](path, gold) for name, path in found.items() if path is not None]


def check_runs(runs: list[Run], datasets: list[MouseSet]) -> list[Run]:
    """Each run against the data file it was made on; every problem of every run at once."""
    return checked(runs, lambda run: validate_mouse_run(run, dataset_for(run, datasets)))


def add_measured_facts(facts: FactTable, runs: list[Run], datasets: list[MouseSet],
                       boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP,
                       reported_models: Sequence[str] = ()) -> list[Measured]:
    """Score every finished run (checked by `check_runs`) and add its facts; the page's rows,
    sorted by model, task order and arm, each naming the paper's row for the same model
    (same name, as slugs) when the run is a sighted one. An unjudged translation run has no
    score yet: it is counted as in progress."""
    rows_by_slug = {slug(name): name for name in reported_models}
    finished = [r for r in runs if r.complete and not _unjudged(r)]
    order = {task: n for n, task in enumerate((TR, RC, "ir", "td", "ms", "cc"))}
    finished.sort(key=lambda r: (r.header.subject_label, order[r.header.task], r.header.condition, r.header.run_id))
    rows = []
    for run in finished:
        h = run.header
        same = rows_by_slug.get(slug(h.subject_name)) if h.condition == SIGHTED else None
        entry = Measured(h.run_id, h.subject_label, h.task, h.condition, run.path, same)
        scores = score_run(run, dataset_for(run, datasets), boot)
        add = {TR: add_tr_facts, RC: add_rc_facts}.get(run.header.task, add_class_facts)
        add(facts, entry.base, scores, (run.header.run_id,))  # type: ignore[operator]  # the task's adder takes its scores
        rows.append(entry)
    if not runs:
        return rows  # no Mouse run in this build: the page and facts.json stay as they were
    facts.add(K.MEASURED_RUNS.key(what="runs"), len(rows), "finished Mouse runs under runs/ scored by buzzprobe",
              tuple(r.run_id for r in rows))
    facts.add(K.MEASURED_RUNS.key(what="in_progress"), len(runs) - len(rows),
              "Mouse runs under runs/ not scored: in progress, or translations not judged yet")
    return rows


def _unjudged(run: Run) -> bool:
    return run.header.task == TR and (run.header.source or {}).get("kind") == PROBE
