"""Which columns hold the gold labels: the Mouse data's names for them are not published.

The defaults below are our choice and are mirrored in content/mouse/gold_columns.yaml;
editing that file (or passing another) adapts the loaders to the real files without
code changes. Official column names (`Source language`, `题目`, `llm_*`, ...) are fixed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.yamlfile import line_of, load_yaml
from builder.core.paths import REPO_DIR

REPO = REPO_DIR
DEFAULT_CONFIG = REPO / "content" / "mouse" / "gold_columns.yaml"
SCHEMA = "buzzprobe.mouse-gold-columns/1"

# Official column names (csdq777/Mouse main.py and llm_as_judge.py).
SOURCE = "Source language"
REFERENCE = "Reference"
QUESTION = "题目"
MS_OPTIONS: tuple[str, ...] = ("A选项", "B选项", "C选项")
CC_OPTIONS = "选项"
OFFICIAL_COLUMNS = frozenset({SOURCE, REFERENCE, QUESTION, CC_OPTIONS, *MS_OPTIONS})


@dataclass(frozen=True)
class GoldColumns:
    """Gold-label column per field; attribute names are the YAML keys (section_key)."""

    main_eval_toxicity: str = "Toxicity"
    main_eval_intention: str = "Intention"
    main_eval_homophonic: str = "Homophonic"
    main_eval_semantic: str = "Semantic"
    main_eval_visual: str = "Visual"
    single_choice_answer: str = "答案"
    icc_answer: str = "答案"
    judge_human_score: str = "human_score"  # optional human 0/1/2 score, for judge QWK

    def component(self, name: str) -> str:
        """Gold column of an RC component ("homophonic", "semantic", "visual")."""
        return getattr(self, f"main_eval_{name}")


DEFAULT_GOLD_COLUMNS = GoldColumns()
_SECTIONS = ("main_eval", "single_choice", "icc", "judge")
# attribute name -> (YAML section, YAML key)
_KEYS: dict[str, tuple[str, str]] = {
    f.name: next((s, f.name.removeprefix(s + "_")) for s in _SECTIONS if f.name.startswith(s + "_"))
    for f in fields(GoldColumns)
}


def load_gold_columns(path: str | Path = DEFAULT_CONFIG) -> GoldColumns:
    """Defaults overridden by the YAML file; unknown keys are errors (a typo would
    otherwise silently keep a default)."""
    data, lines = load_yaml(path)
    problems: list[Problem] = []
    values: dict[str, str] = {}
    if not isinstance(data, dict):
        raise InputError.single(path, "expected a mapping of sections", line=1)
    for section, body in data.items():
        _read_section(str(path), section, body, lines, values, problems)
    config = replace(DEFAULT_GOLD_COLUMNS, **values)
    problems.extend(_check_distinct(str(path), config, lines))
    if problems:
        raise InputError(problems)
    return config


def _read_section(path: str, section: Any, body: Any, lines: dict, values: dict[str, str],
                  problems: list[Problem]) -> None:
    line = line_of(lines, (section,))
    if section == "schema":
        if body != SCHEMA:
            problems.append(Problem(path, f"schema must be {SCHEMA!r}, got {body!r}", line, "schema"))
        return
    if section not in _SECTIONS:
        problems.append(Problem(path, f"unknown section; expected one of {', '.join(_SECTIONS)}", line, str(section)))
        return
    if not isinstance(body, dict):
        problems.append(Problem(path, "expected a mapping of field: column", line, str(section)))
        return
    for key, column in body.items():
        name, where = f"{section}_{key}", line_of(lines, (section, key))
        if name not in _KEYS:
            problems.append(Problem(path, "unknown field", where, f"{section}.{key}"))
        elif not isinstance(column, str) or not column.strip():
            problems.append(Problem(path, f"column name must be a non-empty string, got {column!r}", where, f"{section}.{key}"))
        else:
            values[name] = column


def _check_distinct(path: str, config: GoldColumns, lines: dict) -> list[Problem]:
    """Two main_eval fields reading one column, or a gold column shadowing an official
    one, would score a task against the wrong labels. A clash is blamed on the fields
    the file sets (the defaults are distinct)."""
    problems = []
    users: dict[str, list[str]] = {}
    for name, (section, key) in _KEYS.items():
        column, field = getattr(config, name), f"{section}.{key}"
        if column in OFFICIAL_COLUMNS or column.startswith("llm_"):
            problems.append(Problem(path, f"{column!r} is an official input or answer column",
                                    line_of(lines, (section, key)), field))
        if section == "main_eval":
            users.setdefault(column, []).append(field)
    for column, names in users.items():
        for field in names if len(names) > 1 else ():
            at = tuple(field.split("."))
            if at in lines:
                problems.append(Problem(path, f"column {column!r} is used for {' and '.join(names)}",
                                        lines[at], field))
    return problems
