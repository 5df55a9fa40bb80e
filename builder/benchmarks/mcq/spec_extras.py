"""Spec keys for files as benchmarks release them, validated apart from spec.py's core keys:
`filter` (skip records), `split` as a template, `delimiter` (TSV and other separators),
`labels` (a file of one label per line) and `nested` as parallel lists. Each reports what
is wrong through `problem(key, why)`, like every spec key (docs/audit.md, *Spec keys*).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.datafiles import DataLocation
from builder.benchmarks.mcq.fields import Rule, compile_rule

Report = Callable[[str, str], None]
DELIMITERS = {"csv": ",", "tsv": "\t"}
FALSE_TEXTS = frozenset({"", "false", "0", "none", "no"})  # a filter's rendering that skips the record


@dataclass(frozen=True)
class LabelFile:
    """`labels`: one value per line, the n-th for the n-th record, exposed as field `field`."""

    path: Path
    field: str


def filter_rule(value: object, problem: Report) -> Rule | None:
    """`filter`: a template; a record it renders as empty, false, 0, none or no for is skipped."""
    if not (isinstance(value, str) and ("{{" in value or "{%" in value)):
        problem("filter", "must be a template, e.g. \"{{ answer | length == 1 }}\"; records it renders false or "
                "empty for are skipped (finding filtered_records)")
        return None
    try:
        return compile_rule("filter", value)
    except ValueError as exc:
        problem("filter", str(exc))
        return None


def keeps(rendered: object) -> bool:
    """Whether a filter's rendering keeps its record."""
    return str(rendered).strip().casefold() not in FALSE_TEXTS


def split_rule(value: object, problem: Report) -> Rule | None:
    """`split`: a field name or a template (`"{{ file_stem }}"`: train and test in separate files)."""
    try:
        return compile_rule("split", value)
    except ValueError as exc:
        problem("split", str(exc))
        return None


def table_delimiter(data: Mapping[str, Any], fmt: str | None, tables: tuple[str, ...], problem: Report) -> str | None:
    """`delimiter`: one character separating a CSV or TSV file's cells (default: `,` and a tab)."""
    if "delimiter" not in data:
        return DELIMITERS.get(fmt or "")
    value = data["delimiter"]
    if fmt is not None and fmt not in tables:
        problem("delimiter", f"only a table ({', '.join(tables)}) has a delimiter")
    elif not (isinstance(value, str) and len(value) == 1 and value not in "\"\r\n"):
        problem("delimiter", "must be one character (not a quote or a line break), e.g. \"|\" or \";\"")
    else:
        return value
    return None


def label_file(value: object, location: DataLocation | None, problem: Report) -> LabelFile | None:
    """`labels: {path, field}`; a relative path is read under data_dir, else beside the first data
    file, and only where the data may be read (the confinement of dataset_path)."""
    if not (isinstance(value, dict) and set(value) == {"path", "field"}
            and all(isinstance(value[k], str) and value[k].strip() for k in ("path", "field"))):
        problem("labels", "must be {path: FILE, field: NAME}: a text file with one value per line, the n-th "
                "for the n-th record, read as field NAME")
        return None
    if location is None:
        return None
    path = Path(value["path"]).expanduser()
    if not path.is_absolute():
        base = location.root if location.root is not None else location.patterns[0].parent
        path = base / path
    if (why := location.confinement.problem(path)) is not None:
        problem("labels", f"{why} ({location.confined_hint()})")
        return None
    return LabelFile(path, value["field"])


def nested_lists(value: list[Any], problem: Report) -> None:
    """`nested: [KEY, ...]`: parallel lists inside each document (one record per position)."""
    if not value or not all(isinstance(v, str) and v.strip() for v in value) or len(set(value)) != len(value):
        problem("nested", "must be a key (a list of objects) or a list of distinct keys (parallel lists: one "
                "record per position)")
