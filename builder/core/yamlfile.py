"""Load a small YAML file keeping the line of every key, so config errors can name it.

Every YAML input of the build (site.yaml, reported.yaml, predictions.yaml, the Mouse files)
is read here: a file that is not UTF-8 or not YAML is a located error, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from builder.core.errors import InputError

KeyPath = tuple[str | int, ...]
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed: the same rules, faster


def load_yaml(path: str | Path) -> tuple[Any, dict[KeyPath, int]]:
    """Parsed data plus a map from key path (e.g. ("main_eval", "toxicity")) to 1-based line."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError.single(path, f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError.single(path, "not valid UTF-8; save the file as UTF-8",
                                line=exc.object.count(b"\n", 0, exc.start) + 1) from exc
    try:
        loader = _SafeLoader(text)  # one parse gives both the node tree (lines) and the data
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise InputError.single(path, "not readable: YAML nested too deeply") from None
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


def load_mapping(path: str | Path) -> tuple[dict[Any, Any], dict[KeyPath, int]]:
    """load_yaml for a file whose top level must be a mapping (an empty file is an empty one)."""
    data, lines = load_yaml(path)
    if data is None:
        return {}, lines
    if not isinstance(data, dict):
        raise InputError.single(path, f"expected a mapping of names to values at the top, found a {type(data).__name__}",
                                line=1)
    return data, lines


def web_link_problem(url: object) -> str | None:
    """Why `url` cannot be a link on the site, or None: only http(s) and relative links, so a
    YAML file cannot put a javascript: or data: link in front of readers."""
    if not isinstance(url, str):
        return "a link must be text"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return "a link cannot contain control characters"
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "not a valid link"
    if parts.scheme.lower() in ("http", "https") and parts.netloc:
        return None
    if not parts.scheme and not parts.netloc:
        return None
    return f"only http(s) and relative links are allowed, not {url[:40]!r}"


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """Line of `path`, or of its nearest ancestor that exists."""
    while path not in lines and path:
        path = path[:-1]
    return lines.get(path)
