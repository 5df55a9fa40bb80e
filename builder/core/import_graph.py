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


# The shared layers, below the plug-ins (builder/benchmarks/), the pipeline and the CLI: they
# may import one another, and nothing above them at run time (a plug-in hands them what they
# need: the reader is given its run formats, `probe` the plug-ins).
LOWER_LAYERS = ("core", "stats", "runs", "probing", "site", "claims", "ranker")


def layer(module: str) -> str | None:
    """The lower layer a module belongs to (`builder.runs.reader` -> "runs"); None above them."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == PACKAGE and parts[1] in LOWER_LAYERS else None


def upward_imports(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """{lower-layer module: the modules above the lower layers it imports}; run-time imports
    when `graph` is import_graph(root) (the package's own `builder/__init__` is no layer)."""
    found = {m: sorted(i for i in imports if i != PACKAGE and layer(i) is None)
             for m, imports in graph.items() if layer(m) is not None}
    return {m: imports for m, imports in found.items() if imports}


def lazy_imports(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line, module, explained) for each import inside a function: explained when a comment on
    its lines, or on the line just above the run of imports it belongs to, says why it is there."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for function in ast.walk(ast.parse(text, str(path))):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _function_imports(function, lines)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _function_imports(function: ast.FunctionDef | ast.AsyncFunctionDef,
                      lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """The imports in `function`'s own blocks (a nested function is walked on its own)."""
    todo: list[ast.AST] = [function]
    while todo:
        node = todo.pop()
        todo.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _SCOPES))
        for block in (getattr(node, name, None) for name in ("body", "orelse", "finalbody")):
            if not isinstance(block, list):
                continue
            first: ast.stmt | None = None
            for statement in block:
                if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                    first = None
                    continue
                first = first or statement
                said = any("#" in lines[n - 1] for n in range(statement.lineno, (statement.end_lineno or 0) + 1))
                above = lines[first.lineno - 2].strip() if first.lineno > 1 else ""
                yield statement.lineno, _imported(statement), said or above.startswith("#")


def _imported(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.Import):
        return node.names[0].name
    return "." * node.level + (node.module or "")


def unexplained_lazy_imports(root: Path) -> list[str]:
    """`path:line: module` for every function-level import under ROOT/builder with no comment
    saying why it is deferred (a module-level import shows the graph; a lazy one must earn it)."""
    found = []
    for path in sorted((root / PACKAGE).rglob("*.py")):
        for line, module, explained in lazy_imports(path):
            if not explained:
                found.append(f"{path.relative_to(root)}:{line}: {module}")
    return found
