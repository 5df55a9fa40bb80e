"""The layering of the `builder` package, read from the source (nothing is imported): import
cycles, run-time imports from a shared layer up into the plug-ins, pipeline or CLI, and
function-level imports with no comment saying why they are deferred.

Both kinds of import count for cycles: a module-level one and one inside a function, because a
deferred import still ties the two modules together. Imports under `if TYPE_CHECKING:` never
run, so they count for cycles only with --typing (the layer test checks both ways). A cycle is
a strongly connected component of two or more modules.

    python scripts/import_cycles.py [--typing] [ROOT]   # prints what it finds; exit status 1 when anything
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script with any Python (the system's too, without the project installed): the package
# is read from this checkout, which is what the script reports on.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from builder.core.import_graph import import_graph, unexplained_lazy_imports, upward_imports  # noqa: E402


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
    upward = upward_imports(import_graph(root))
    print(f"{len(upward)} shared-layer module(s) importing upward at run time")
    for module, imports in sorted(upward.items()):
        print(f"  upward: {module} -> {', '.join(imports)}")
    lazy = unexplained_lazy_imports(root)
    print(f"{len(lazy)} function-level import(s) without a comment saying why")
    for where in lazy:
        print(f"  lazy: {where}")
    return 1 if found or upward or lazy else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
