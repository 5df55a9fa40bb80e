"""The builder package's import graph, read from the source (nothing is imported): what
scripts/import_cycles.py checks for cycles, the layer tests read, and what a cache keys on when
its value depends on some modules' code only (a module's closure: everything it may import).

Both kinds of import count: a module-level one and one inside a function (the CLI defers heavy
imports that way), because a deferred import still ties the two modules together. Imports under
`if TYPE_CHECKING:` never run, so they count only with `typing`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = "builder"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _typing_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST, typing: bool) -> Iterator[ast.AST]:
    """Every node, less the bodies of `if TYPE_CHECKING:` unless `typing`."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if not typing and isinstance(node, ast.If) and _typing_only(node):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def imports_of(path: Path, name: str, known: set[str], typing: bool = False) -> set[str]:
    """The package's modules that `path` imports (a `from pkg import mod` names the module)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _nodes(ast.parse(path.read_text(encoding="utf-8"), str(path)), typing):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root: Path, typing: bool = False) -> dict[str, set[str]]:
    """{module: the package's modules it imports}, for every module under ROOT/builder."""
    paths = {module_name(p, root): p for p in sorted((root / PACKAGE).rglob("*.py"))}
    known = set(paths)
    return {name: imports_of(path, name, known, typing) for name, path in paths.items()}


def reachable(root: Path, start: Iterable[str]) -> set[str]:
    """`start` and every package module reachable from it, parsing only those (a third of the
    package for the audit: what a cache key costs on every build)."""
    paths = {module_name(p, root): p for p in (root / PACKAGE).rglob("*.py")}
    known = set(paths)
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imports_of(paths[name], name, known))
    return seen
