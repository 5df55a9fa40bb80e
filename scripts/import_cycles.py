"""Import cycles in the `builder` package, read from the source (nothing is imported).

Both kinds of import count: a module-level one and one inside a function (the CLI defers heavy
imports that way), because a deferred import still ties the two modules together. Imports under
`if TYPE_CHECKING:` never run, so they count only with --typing. A cycle is a strongly
connected component of two or more modules.

    python scripts/import_cycles.py [--typing] [ROOT]   # prints the cycles; exit status 1 when there are any
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script with any Python (the system's too, without the project installed): the package
# is read from this checkout, which is what the script reports on.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from builder.core.import_graph import import_graph  # noqa: E402


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
