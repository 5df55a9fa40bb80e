"""Import cycles in the `builder` package, read from the source (nothing is imported).

Both kinds of import count: a module-level one and one inside a function (the CLI defers heavy
imports that way), because a deferred import still ties the two modules together. Imports under
`if TYPE_CHECKING:` never run, so they count only with --typing. A cycle is a strongly
connected component of two or more modules.

    python scripts/import_cycles.py [--typing] [ROOT]   # prints the cycles; exit status 1 when there are any
"""

from __future__ import annotations

import ast
import sys
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


def _nodes(tree: ast.AST, typing: bool):
    """Every node, less the bodies of `if TYPE_CHECKING:` unless `typing`."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if not typing and _typing_only(node):
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


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def main(argv: list[str]) -> int:
    typing = "--typing" in argv
    rest = [a for a in argv[1:] if a != "--typing"]
    root = Path(rest[0]) if rest else Path(__file__).resolve().parents[1]
    graph = import_graph(root, typing)
    found = cycles(graph)
    edges = sum(len(v) for v in graph.values())
    print(f"{len(graph)} modules, {edges} import edges, {len(found)} import cycle(s)")
    for component in found:
        print("  cycle: " + " <-> ".join(component))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
