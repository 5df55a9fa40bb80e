"""The baselines box: every floor a page compares with (a random letter, a constant letter, the
Task 3 constant label), by metric, items and option seed, in one table the mentions link to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.views.tables import PROBE_LABELS, FactCells
from builder.benchmarks.cibuzzbench.wording import option_seed_label, selection_label
from builder.core.factkeys import FactPattern
from builder.site.tables import Cell, Table

Keys = Callable[[str], tuple[str, str | None, str | None]]  # metric -> (value, low, high) fact keys


def _interval_keys(pattern: FactPattern, **on: Any) -> Keys:
    return lambda metric: (pattern.key(**on, metric=metric), pattern.low(**on, metric=metric),
                           pattern.high(**on, metric=metric))


def _mean_keys(probe: str, scope: str) -> Keys:
    return lambda metric: (K.PROBE_SPREAD.key(probe=probe, scope=scope, metric=metric, stat="mean"), None, None)


def _baseline_row(f: FactCells, label: str, task: str, items: str, seed: str, keys: Keys) -> tuple[Cell, ...] | None:
    """One baseline's accuracy and macro F1 (with interval ends when it has them); None if absent."""
    cells: list[Cell] = []
    for metric in ("accuracy", "macro_f1"):
        value, low, high = keys(metric)
        if value not in f.facts:
            return None
        cells += [f(value), *((f(low), f(high)) if low and high else (Cell("–"), Cell("–")))]
    return (Cell(label), Cell(task), Cell(items), Cell(seed), *cells)


def baselines_table(f: FactCells, scores: dict[str, RunScore]) -> Table | None:
    """Every baseline a page compares with, one row per baseline × items × option seed, so a
    mention of "a random letter" can say which row it means (and link here)."""
    mean = f"mean over the {len(OFFICIAL_SEEDS)} official option seeds"
    specs: list[tuple[str, str, str, str, Keys]] = []
    for scope, items in (("all", "all items"), ("test", "the test split")):
        for probe in ("random", "constant_letter"):
            specs.append((PROBE_LABELS[probe], "Task 2", items, mean, _mean_keys(probe, scope)))
        specs.append((PROBE_LABELS["random"], "Task 2", items, option_seed_label(DEFAULT_SEED),
                      _interval_keys(K.PROBE_SEED, probe="random", scope=scope, seed=DEFAULT_SEED)))
    for (items, seed), rids in _chance_lines(f, scores).items():
        runs = f"{len(rids)} model run{'s' if len(rids) != 1 else ''}"
        specs.append((f"{PROBE_LABELS['random']}, on the items of {runs}", "Task 2", items, option_seed_label(seed),
                      _interval_keys(K.RUN_CHANCE, run_id=rids[0])))
    for scope, items in (("all", "all items"), ("test", "the test split")):
        specs.append(("Always non-harmful", "Task 3", items, "no option order",
                      _interval_keys(K.HARM_PROBE, probe="always_non_harmful", scope=scope)))
    rows = tuple(r for spec in specs if (r := _baseline_row(f, *spec)) is not None)
    if not rows:
        return None
    return Table("baselines-box", "Baselines: a random letter and the other model-free floors, by metric, items and "
                 "option seed", ("Baseline", "Task", "Items", "Option seed", "Accuracy", "Low", "High", "Macro F1",
                                 "Low", "High"), rows,
                 note="Low and High: 95% percentile bootstrap over items (2,000 resamples); a mean over seeds has "
                      "none. The random letter is seeded per item (the random probe, rng seed 0); its expected "
                      "accuracy is 100 divided by the number of options, and what it scores on given items and a "
                      "given letter order varies around that, as the rows show. The tracker's premise compares a "
                      "model run with the row on its own items.")


def _chance_lines(f: FactCells, scores: dict[str, RunScore]) -> dict[tuple[str, int | None], list[str]]:
    """Runs with a chance line, by (items asked, option seed): the random letter depends only on
    the items and the seed (every option set shares the letter maps), so such runs share one row."""
    lines: dict[tuple[str, int | None], list[str]] = {}
    for rid, s in scores.items():
        if K.RUN_CHANCE.key(run_id=rid, metric="accuracy") in f.facts:
            h = s.run.header
            lines.setdefault((selection_label(h.items), h.option_seed), []).append(rid)
    return lines
