"""Load a small YAML file keeping the line of every key, so config errors can name it.

Every YAML input of the build (site.yaml, reported.yaml, predictions.yaml, the Mouse files)
is read here: a file that is not UTF-8 or not YAML is a located error, never a traceback.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from builder.core.errors import InputError
from builder.core.textfiles import MAX_DOCUMENT_BYTES, read_input

KeyPath = tuple[str | int, ...]
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed: the same rules, faster


MAX_NODES = 1_000_000  # nodes of a document with every alias expanded (an alias bomb has billions)


def load_yaml(path: str | Path) -> tuple[Any, dict[KeyPath, int]]:
    """Parsed data plus a map from key path (e.g. ("main_eval", "toxicity")) to 1-based line."""
    data, lines, _ = load_yaml_node(path)
    return data, lines


def load_yaml_node(path: str | Path) -> tuple[Any, dict[KeyPath, int], yaml.Node | None]:
    """load_yaml, and the checked node tree (for a reader that needs a scalar as written)."""
    path = Path(path)
    try:
        text = read_input(path, MAX_DOCUMENT_BYTES).decode("utf-8")  # a FIFO, device or huge file is refused
    except OSError as exc:
        raise InputError.single(path, f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError.single(path, "not valid UTF-8; save the file as UTF-8",
                                line=exc.object.count(b"\n", 0, exc.start) + 1) from exc
    data, lines, node = _parsed(text, str(path))
    return copy.deepcopy(data), dict(lines), node


@functools.lru_cache(maxsize=32)
def _parsed(text: str, path: str) -> tuple[Any, dict[KeyPath, int], yaml.Node | None]:
    """parse_yaml, kept for this process by the text (a failure is not kept): a build reads a
    spec four times (its inputs, its audit's cache key, its load and its items), and ChemBench's,
    with its 2,788 pinned files, takes 0.2 s to parse. Callers get their own copy of the data."""
    return parse_yaml(text, path)


def parse_yaml(text: str, path: str | Path, first_line: int = 1) -> tuple[Any, dict[KeyPath, int], yaml.Node | None]:
    """YAML text from `path` whose first line is `first_line` (front matter starts below its
    '---'): data, lines, node. Duplicate keys and documents that aliases blow up past MAX_NODES
    are located errors, checked on the node tree before any data is built."""
    shift = first_line - 1
    try:
        loader = _SafeLoader(text)  # one parse gives both the node tree (lines) and the data
        try:
            node = loader.get_single_node()
            lines: dict[KeyPath, int] = {}
            if node is not None:
                _check(node, path, shift, lines)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise InputError.single(path, "not readable: YAML nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 + shift if mark is not None else None
        raise InputError.single(path, f"not valid YAML: {getattr(exc, 'problem', exc)}", line=line) from exc
    return data, lines, node


def _check(root: yaml.Node, path: str | Path, shift: int, lines: dict[KeyPath, int]) -> None:
    """Fill `lines` (each node once: an alias adds no lines of its own), refuse a key given
    twice in one mapping, and count the nodes the data would hold with aliases expanded."""
    sizes: dict[int, int] = {}
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, KeyPath, bool]] = [(root, (), False)]
    while stack:
        node, prefix, done = stack.pop()
        children = _children(node, prefix)
        if done:
            if any(id(child) not in sizes for child, _ in children):
                raise InputError.single(path, "not readable: an alias refers to a value that holds it",
                                        line=node.start_mark.line + 1 + shift)
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child, _ in children)
            if sizes[id(node)] > MAX_NODES:
                raise InputError.single(path, f"not readable: its aliases expand to more than {MAX_NODES:,} values",
                                        line=node.start_mark.line + 1 + shift)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        lines.setdefault(prefix, node.start_mark.line + 1 + shift)
        if isinstance(node, yaml.MappingNode):
            _duplicate_keys(node, path, shift, prefix, lines)
        stack.append((node, prefix, True))
        stack.extend((child, key, False) for child, key in reversed(children) if id(child) not in seen)  # in order


def _children(node: yaml.Node, prefix: KeyPath) -> list[tuple[yaml.Node, KeyPath]]:
    if isinstance(node, yaml.MappingNode):
        return [c for key, value in node.value for c in ((key, prefix), (value, prefix + (key.value,)))]
    if isinstance(node, yaml.SequenceNode):
        return [(item, prefix + (i,)) for i, item in enumerate(node.value)]
    return []


def _duplicate_keys(node: yaml.MappingNode, path: str | Path, shift: int, prefix: KeyPath,
                    lines: dict[KeyPath, int]) -> None:
    first: dict[tuple[str, str], int] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        line = key.start_mark.line + 1 + shift
        if (key.tag, key.value) in first:
            field = ".".join(str(p) for p in prefix + (key.value,))
            raise InputError.single(path, f"key {key.value!r} is given twice (first on line "
                                    f"{first[key.tag, key.value]}); YAML would keep only the last", line=line, field=field)
        first[key.tag, key.value] = line
        lines[prefix + (key.value,)] = line


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
