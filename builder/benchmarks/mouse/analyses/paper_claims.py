"""Claims-engine measures over the Mouse paper's own tables (Tables 3 and 4).

The paper's statements are checked against the figures it publishes, not against buzzprobe
runs (there are none: the data is gated). Each measure returns `Evidence` computed from the
transcribed cells, with the arithmetic in `detail` so a reader can redo it by hand.
`load_mouse_claims` reads content/mouse/claims.yaml and dry-runs every condition, so a bad
parameter fails the build with the claim, condition and line instead of at render time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from builder.claims.engine import Evidence, MeasureRegistry, Statement
from builder.claims.loading import key_path, load_statements
from builder.core.errors import InputError, Problem
from builder.benchmarks.mouse.reported import Reported
from builder.core.yamlfile import line_of, load_yaml

# Table 3 columns, in the paper's order, with the names the site shows.
COLUMN_LABELS: dict[str, str] = {
    "tr_sem_acc": "TR Semantic Accuracy", "tr_perfect_rate": "TR Perfect Rate",
    "rc_bal_acc": "RC balanced accuracy", "rc_macro_f1": "RC macro-F1",
    "ir_bal_acc": "IR balanced accuracy", "ir_macro_f1": "IR macro-F1",
    "td_acc": "TD accuracy", "td_f1": "TD F1 (toxic)", "ms_acc": "MS accuracy", "cc_acc": "CC accuracy",
}
# One headline column per task: what "a task's score" means in the statements.
PRIMARY: dict[str, str] = {"TR": "tr_sem_acc", "RC": "rc_bal_acc", "IR": "ir_bal_acc", "TD": "td_acc",
                           "MS": "ms_acc", "CC": "cc_acc"}
# Table 4 columns per task; RC has one MCC per component, averaged to meet Table 3's averaged RC.
MCC_COLUMNS: dict[str, tuple[str, ...]] = {"RC": ("rc_homophonic", "rc_semantic", "rc_visual"), "IR": ("ir",),
                                           "TD": ("td",), "MS": ("ms",), "CC": ("cc",)}
FIT_STATISTICS = ("slope", "r", "r2", "max_residual")
MEASURES = ("scale_step", "scale_decline_share", "column_gap", "scale_fit", "score_mcc_correlation")


def exact(value: float) -> float:
    """A sum or difference of 3-decimal figures without binary noise (0.209 - 0.228 is
    -0.019000000000000017), so a tie stays a tie and a threshold of 0.125 means 0.125."""
    return round(value, 9)


def fmt(value: float) -> str:
    return f"{value:.3f}"


@dataclass(frozen=True)
class LineFit:
    """Ordinary least squares of y on x."""

    n: int
    slope: float
    intercept: float
    r: float
    max_residual: float  # largest |y - fitted y|: how far the worst point is off the line

    @property
    def r2(self) -> float:
        return self.r * self.r


def line_fit(xs: Sequence[float], ys: Sequence[float]) -> LineFit | None:
    """None when undefined (fewer than 3 points, or x or y constant)."""
    n = len(xs)
    if n < 3 or n != len(ys):
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))
    if sxx == 0 or syy == 0:
        return None
    slope = sxy / sxx
    intercept = my - slope * mx
    residual = max(abs(y - (intercept + slope * x)) for x, y in zip(xs, ys))
    return LineFit(n, slope, intercept, sxy / math.sqrt(sxx * syy), residual)


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank (as scipy.stats.rankdata)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start:end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson r of the average ranks; None when undefined."""
    fit = line_fit(average_ranks(xs), average_ranks(ys))
    return None if fit is None else fit.r


class MouseMeasures:
    """The measures, bound to one loaded set of reported tables."""

    def __init__(self, reported: Reported):
        self.reported = reported

    # -------------------------------------------------------------- parameter checks
    def _columns(self, columns: Sequence[str] | None) -> list[str]:
        if columns is None:
            return list(PRIMARY.values())
        if isinstance(columns, str) or not isinstance(columns, Sequence) or not columns:
            raise ValueError("columns must be a non-empty list of Table 3 columns")
        unknown = [c for c in columns if c not in self.reported.main.columns]
        if unknown:
            raise ValueError(f"unknown Table 3 column(s) {unknown} (known: {', '.join(self.reported.main.columns)})")
        return list(columns)

    def _model(self, model: str) -> dict[str, float]:
        if model not in self.reported.main.rows:
            raise ValueError(f"unknown model {model!r} (Table 3 has: {', '.join(self.reported.models)})")
        return self.reported.main.rows[model]

    def _series(self, family: str):
        series = self.reported.scale_series(family)
        if len(series) < 3:
            raise ValueError(f"family {family!r} has fewer than three sized models in Table 3")
        return series

    # ------------------------------------------------------------------- measures
    def scale_step(self, columns: Sequence[str] | None = None, lower: str = "Qwen3-14B",
                   upper: str = "Qwen3-32B") -> list[Evidence]:
        """Per column: score(upper) - score(lower); negative = the larger model scores lower."""
        low, high = self._model(lower), self._model(upper)
        return [Evidence(COLUMN_LABELS[c], exact(high[c] - low[c]),
                         f"{upper} {fmt(high[c])} − {lower} {fmt(low[c])}")
                for c in self._columns(columns)]

    def scale_decline_share(self, columns: Sequence[str] | None = None, lower: str = "Qwen3-14B",
                            upper: str = "Qwen3-32B") -> list[Evidence]:
        """One value: the share of columns where upper scores strictly below lower (a tie is
        not a decline). The engine's aggregates count evidence, not evidence below a bound."""
        steps = self.scale_step(columns, lower, upper)
        declines = [e.label for e in steps if e.value < 0]
        detail = f"{len(declines)} of {len(steps)}" + (f": {', '.join(declines)}" if declines else "")
        return [Evidence(f"share of tasks where {upper} < {lower}", len(declines) / len(steps), detail)]

    def column_gap(self, minuend: str = "td_acc", subtrahend: str = "rc_bal_acc", relative: bool = False,
                   group: str | None = None) -> list[Evidence]:
        """Per model (optionally one group): minuend - subtrahend, or minuend / subtrahend - 1."""
        a, b = self._columns([minuend, subtrahend])
        if group is not None and group not in self.reported.groups:
            raise ValueError(f"unknown group {group!r} (known: {', '.join(self.reported.groups)})")
        if not isinstance(relative, bool):
            raise ValueError("relative must be true or false")
        models = self.reported.groups[group] if group else self.reported.models
        out = []
        for model in models:
            x, y = self.reported.main.rows[model][a], self.reported.main.rows[model][b]
            if relative:
                if y > 0:
                    out.append(Evidence(model, x / y - 1, f"{a} {fmt(x)} / {b} {fmt(y)} − 1"))
            else:
                out.append(Evidence(model, exact(x - y), f"{a} {fmt(x)} − {b} {fmt(y)}"))
        return out

    def scale_fit(self, columns: Sequence[str] | None = None, family: str = "Qwen3", statistic: str = "r2",
                  x: str = "log") -> list[Evidence]:
        """Per column: a statistic of the least-squares line of score on ln(size) (x: log) or on
        size in billions (x: size) over the family's sized models; undefined fits give none."""
        if statistic not in FIT_STATISTICS:
            raise ValueError(f"statistic must be one of {', '.join(FIT_STATISTICS)}")
        if x not in ("log", "size"):
            raise ValueError("x must be 'log' (ln of size) or 'size' (billions)")
        series = self._series(family)
        xs = [math.log(p.size_b) if x == "log" else p.size_b for p in series]
        axis = "ln(size)" if x == "log" else "size (B)"
        out = []
        for c in self._columns(columns):
            fit = line_fit(xs, [p.main[c] for p in series])
            if fit is not None:
                detail = (f"least squares on {axis} over {series[0].model} … {series[-1].model} (n = {fit.n}): "
                          f"slope {fmt(fit.slope)}, R² {fmt(fit.r2)}, max |residual| {fmt(fit.max_residual)}")
                out.append(Evidence(COLUMN_LABELS[c], getattr(fit, statistic), detail))
        return out

    def score_mcc_correlation(self, tasks: Sequence[str] | None = None) -> list[Evidence]:
        """Per task: Spearman's rho across all models between the Table 3 headline score and the
        Table 4 MCC (RC: the mean of its three component MCCs)."""
        tasks = list(MCC_COLUMNS) if tasks is None else tasks
        if isinstance(tasks, str) or not tasks or any(t not in MCC_COLUMNS for t in tasks):
            raise ValueError(f"tasks must be a non-empty list of {', '.join(MCC_COLUMNS)} (TR has no MCC)")
        models = self.reported.models
        out = []
        for task in tasks:
            column, mcc = PRIMARY[task], MCC_COLUMNS[task]
            scores = [self.reported.main.rows[m][column] for m in models]
            mccs = [math.fsum(self.reported.mcc.rows[m][k] for k in mcc) / len(mcc) for m in models]
            rho = spearman(scores, mccs)
            if rho is not None:
                what = "MCC" if len(mcc) == 1 else f"mean MCC of {', '.join(mcc)}"
                out.append(Evidence(task, rho, f"Spearman over {len(models)} models: {column} (Table 3) "
                                               f"against {what} (Table 4)"))
        return out


def register_mouse_measures(registry: MeasureRegistry, reported: Reported) -> None:
    measures = MouseMeasures(reported)
    for name in MEASURES:
        registry.register(name, getattr(measures, name))


# ------------------------------------------------------------------------ claims file

_CLAIM_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def load_mouse_claims(path: Path, registry: MeasureRegistry) -> list[Statement]:
    """`load_statements` plus line numbers, fact-key-safe ids and a dry run of every condition
    (unknown columns, models or parameters are reported with their claim and condition)."""
    statements = load_statements(path, set(registry.measures), registry)
    problems = []
    for i, statement in enumerate(statements):
        if not _CLAIM_ID.match(statement.id):
            problems.append(Problem(str(path), "id must be lower-case letters, digits and '-' (it becomes "
                                    "part of fact keys)", None, f"claims[{i}].id"))
    if problems:
        raise InputError(_with_lines(path, problems))
    return statements


def _with_lines(path: Path, problems: list[Problem]) -> list[Problem]:
    """Give each problem the line of its field (the engine's loader names fields only)."""
    try:
        _, lines = load_yaml(path)
    except InputError:
        return problems
    out = []
    for p in problems:
        line = p.line
        if line is None and p.field and p.field.startswith("claims"):
            line = line_of(lines, key_path(p.field))
        out.append(Problem(p.path, p.message, line, p.field))
    return out

