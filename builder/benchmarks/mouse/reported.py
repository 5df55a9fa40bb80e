"""Published Mouse results (paper Tables 3, 4 and 6) with their citation, checked on load.

The CSVs in content/mouse/ are transcriptions; content/mouse/reported.yaml says where each
came from and what each column means. Checks catch transcription slips: unknown or
duplicate model names, values outside the metric's range, a model in one table but not
the other, and a Table 6 model whose CC accuracy differs from Table 3's.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.confine import Confinement
from builder.core.errors import InputError, Problem
from builder.core.redact import excerpt
from builder.benchmarks.mouse.table import decode, raise_problems
from builder.core.textfiles import read_input, repeated_columns
from builder.core.yamlfile import line_of, load_yaml, web_link_problem
from builder.core.paths import REPO_DIR

REPO = REPO_DIR
DEFAULT_DIR = REPO / "content" / "mouse"
SCHEMA = "buzzprobe.mouse-reported/1"
TABLES = ("main", "mcc", "human_cc")
_SIZE = re.compile(r"(?P<size>\d+(?:\.\d+)?)B")


@dataclass(frozen=True)
class Source:
    title: str
    authors: tuple[str, ...]
    arxiv: str
    venue: str
    url: str
    code: str

    def citation(self) -> str:
        return f"{self.authors[0]} et al., \"{self.title}\", {self.venue} (arXiv:{self.arxiv})"


@dataclass(frozen=True)
class ReportedTable:
    name: str  # "main", "mcc", "human_cc"
    path: Path
    table: int  # the paper's table number
    caption: str
    key: str  # "model" or "participant"
    low: float
    high: float
    columns: dict[str, str]  # column -> meaning
    rows: dict[str, dict[str, float]]  # row name -> column -> value, in file order
    lines: dict[str, int]  # row name -> line in the CSV

    def value(self, row: str, column: str) -> float:
        return self.rows[row][column]


@dataclass(frozen=True)
class ScalePoint:
    model: str
    size_b: float  # parameters in billions, from the name
    main: dict[str, float]  # Table 3 row
    mcc: dict[str, float]  # Table 4 row


@dataclass(frozen=True)
class Reported:
    source: Source
    main: ReportedTable
    mcc: ReportedTable
    human_cc: ReportedTable
    groups: dict[str, tuple[str, ...]]  # group -> models, e.g. commercial / local
    humans: dict[str, str]  # Table 6 row -> short label (FP, UFP)
    families: tuple[str, ...]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(self.main.rows)

    def group_of(self, model: str) -> str:
        for group, members in self.groups.items():
            if model in members:
                return group
        raise KeyError(model)

    def scale_series(self, family: str = "Qwen3") -> tuple[ScalePoint, ...]:
        """Models named `<family>-<size>B`, smallest first."""
        points = [ScalePoint(m, size, self.main.rows[m], self.mcc.rows[m])
                  for m in self.models if (size := parse_size(m, family)) is not None]
        return tuple(sorted(points, key=lambda p: p.size_b))

    def qwen3_scale_series(self) -> tuple[ScalePoint, ...]:
        return self.scale_series("Qwen3")

    def human_vs_model_cc(self) -> tuple[dict[str, float], dict[str, float]]:
        """Table 6 split into people (by short label) and models (CC accuracy)."""
        rows = self.human_cc.rows
        people = {self.humans[name]: v["cc_acc"] for name, v in rows.items() if name in self.humans}
        models = {name: v["cc_acc"] for name, v in rows.items() if name not in self.humans}
        return people, models


def parse_size(model: str, family: str) -> float | None:
    """Size in billions from "<family>-<n>B" ("Qwen3-0.6B" -> 0.6); None for other names."""
    if not model.startswith(family + "-"):
        return None
    match = _SIZE.fullmatch(model[len(family) + 1:])
    return float(match.group("size")) if match else None


def load_reported(directory: str | Path = DEFAULT_DIR) -> Reported:
    directory = Path(directory)
    meta_path = directory / "reported.yaml"
    meta, lines = load_yaml(meta_path)
    problems: list[Problem] = []
    ctx = _Meta(str(meta_path), meta, lines, problems)
    source = ctx.source()
    tables = {name: ctx.table(name, directory) for name in TABLES}
    raise_problems(problems)
    groups, humans, families = ctx.groups(), ctx.humans(), ctx.families()
    raise_problems(problems)
    # raise_problems above: no table is None past it
    reported = Reported(source, tables["main"], tables["mcc"], tables["human_cc"],  # type: ignore[arg-type]
                        groups, humans, families)
    raise_problems(_cross_checks(reported, ctx))
    return reported


class _Meta:
    """Reads reported.yaml, recording located problems."""

    def __init__(self, path: str, data: Any, lines: dict, problems: list[Problem]):
        self.path, self.data, self.lines, self.problems = path, data, lines, problems
        if not isinstance(data, dict):
            raise InputError.single(path, "expected a mapping", line=1)
        if data.get("schema") != SCHEMA:
            self.add(f"schema must be {SCHEMA!r}", ("schema",))

    def add(self, message: str, key: tuple, field: str | None = None) -> None:
        self.problems.append(Problem(self.path, message, line_of(self.lines, key), field or ".".join(map(str, key))))

    def get(self, key: tuple, kind: type) -> Any:
        value: Any = self.data
        for part in key:
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, kind) or (kind in (str, list, dict) and not value):
            self.add(f"missing or not a non-empty {kind.__name__}", key)
            return kind()
        return value

    def source(self) -> Source:
        text = {k: self.get(("source", k), str) for k in ("title", "arxiv", "venue", "url", "code")}
        for link in ("url", "code"):
            if text[link] and (problem := web_link_problem(text[link])):
                self.add(problem, ("source", link))
        authors = tuple(str(a) for a in self.get(("source", "authors"), list))
        return Source(text["title"], authors, text["arxiv"], text["venue"], text["url"], text["code"])

    def table(self, name: str, directory: Path) -> ReportedTable | None:
        key = ("tables", name)
        spec = self.get(key, dict)
        rng = self.get(key + ("range",), list)
        columns = self.get(key + ("columns",), dict)
        file, number = self.get(key + ("file",), str), self.get(key + ("table",), int)
        caption, row_key = self.get(key + ("caption",), str), self.get(key + ("key",), str)
        if len(rng) != 2 or not all(isinstance(x, (int, float)) for x in rng):
            self.add("range must be [low, high]", key + ("range",))
        if not spec or not file or len(rng) != 2:
            return None
        path = directory / file
        if (why := Confinement.of([directory]).problem(path)) is not None:  # a content file names no secret
            self.add(f"{why}: a reported table is a file in {directory}", key + ("file",))
            return None
        rows, row_lines = _read_csv(path, row_key, tuple(columns), float(rng[0]), float(rng[1]), self.problems)
        return ReportedTable(name, path, number, caption, row_key, float(rng[0]), float(rng[1]),
                             {str(k): str(v) for k, v in columns.items()}, rows, row_lines)

    def groups(self) -> dict[str, tuple[str, ...]]:
        groups = self.get(("groups",), dict)
        out = {}
        for name, members in groups.items():
            if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
                self.add("must be a list of model names", ("groups", name))
                continue
            out[str(name)] = tuple(members)
        return out

    def humans(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.get(("humans",), dict).items()}

    def families(self) -> tuple[str, ...]:
        return tuple(str(f) for f in self.get(("families",), list))


def _read_csv(path: Path, key: str, columns: tuple[str, ...], low: float, high: float,
              problems: list[Problem]) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    where = str(path)
    try:
        text = decode(path, read_input(path))
    except OSError as exc:
        problems.append(Problem(where, f"cannot read: {exc.strerror or exc}"))
        return {}, {}
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, [])
    if repeated := repeated_columns(where, header):
        problems.extend(repeated)
        return {}, {}
    if header != [key, *columns]:
        problems.append(Problem(where, f"header must be {','.join([key, *columns])}, got {excerpt(','.join(header))}", 1))
        return {}, {}
    rows: dict[str, dict[str, float]] = {}
    lines: dict[str, int] = {}
    for cells in reader:
        line = reader.line_num
        if not cells:
            continue
        name = _row_name(where, line, key, cells, header, lines, problems)
        if name is not None:
            rows[name] = {c: _number(where, line, c, v, low, high, problems) for c, v in zip(columns, cells[1:])}
            lines[name] = line
    if not rows:
        problems.append(Problem(where, "no data rows", 1))
    return rows, lines


def _row_name(where: str, line: int, key: str, cells: list[str], header: list[str], seen: dict[str, int],
              problems: list[Problem]) -> str | None:
    name = cells[0]
    if len(cells) != len(header):
        problems.append(Problem(where, f"expected {len(header)} fields, found {len(cells)}", line))
    elif not name.strip() or name != name.strip():
        problems.append(Problem(where, f"{key} must be non-empty without surrounding spaces, got {name!r}", line, key))
    elif name in seen:
        problems.append(Problem(where, f"duplicate {key} (first on line {seen[name]})", line, key))
    else:
        return name
    return None


def _number(where: str, line: int, column: str, text: str, low: float, high: float,
            problems: list[Problem]) -> float:
    try:
        value = float(text)
    except ValueError:
        problems.append(Problem(where, f"not a number: {text!r}", line, column))
        return math.nan
    if not math.isfinite(value) or not low <= value <= high:
        problems.append(Problem(where, f"{value} is outside [{low:g}, {high:g}]", line, column))
    return value


def _cross_checks(r: Reported, ctx: _Meta) -> list[Problem]:
    problems: list[Problem] = []
    main = set(r.models)
    for model, line in r.mcc.lines.items():
        if model not in main:
            problems.append(Problem(str(r.mcc.path), f"model not in Table {r.main.table}", line, "model"))
    for model in sorted(main - set(r.mcc.rows)):
        problems.append(Problem(str(r.mcc.path), f"no row for Table {r.main.table} model {model!r}"))
    if problems:
        return problems  # the series below need both tables to have every model
    problems.extend(_check_human_cc(r))
    problems.extend(_check_groups(r, ctx))
    for family in r.families:
        if len(r.scale_series(family)) < 2:
            problems.append(Problem(ctx.path, f"fewer than two models named {family}-<size>B",
                                    line_of(ctx.lines, ("families",)), "families"))
    return problems


def _check_human_cc(r: Reported) -> list[Problem]:
    path, problems = str(r.human_cc.path), []
    for name, line in r.human_cc.lines.items():
        if name in r.humans:
            continue
        if name not in r.main.rows:
            problems.append(Problem(path, "neither a listed human group nor a Table 3 model", line, "participant"))
        elif not math.isclose(r.human_cc.value(name, "cc_acc"), r.main.value(name, "cc_acc"), abs_tol=1e-9):
            problems.append(Problem(path, f"cc_acc differs from Table {r.main.table} "
                                    f"({r.main.value(name, 'cc_acc')})", line, "cc_acc"))
    for name in r.humans:
        if name not in r.human_cc.rows:
            problems.append(Problem(path, f"no row for human group {name!r} listed in reported.yaml"))
    return problems


def _check_groups(r: Reported, ctx: _Meta) -> list[Problem]:
    """Every Table 3 model in exactly one group, and no unknown names."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for group, members in r.groups.items():
        line = line_of(ctx.lines, ("groups", group))
        for model in members:
            if model not in r.main.rows:
                problems.append(Problem(ctx.path, f"{model!r} is not a Table {r.main.table} model", line, f"groups.{group}"))
            elif model in seen:
                problems.append(Problem(ctx.path, f"{model!r} is already in group {seen[model]!r}", line, f"groups.{group}"))
            seen.setdefault(model, group)
    for model in r.models:
        if model not in seen:
            problems.append(Problem(ctx.path, f"Table {r.main.table} model {model!r} is in no group",
                                    line_of(ctx.lines, ("groups",)), "groups"))
    return problems
