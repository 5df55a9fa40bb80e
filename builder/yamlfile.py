"""Load a small YAML file keeping the line of every key, so config errors can name it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from builder.errors import InputError

KeyPath = tuple[str | int, ...]


def load_yaml(path: str | Path) -> tuple[Any, dict[KeyPath, int]]:
    """Parsed data plus a map from key path (e.g. ("main_eval", "toxicity")) to 1-based line."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError.single(path, f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError.single(path, "not valid UTF-8") from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise InputError.single(path, f"not valid YAML: {getattr(exc, 'problem', exc)}", line=line) from exc
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return data, lines


def _walk(node: yaml.Node, prefix: KeyPath, lines: dict[KeyPath, int]) -> None:
    lines.setdefault(prefix, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = prefix + (key.value,)
            lines[path] = key.start_mark.line + 1
            _walk(value, path, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, prefix + (i,), lines)


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """Line of `path`, or of its nearest ancestor that exists."""
    while path not in lines and path:
        path = path[:-1]
    return lines.get(path)
