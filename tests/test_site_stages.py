"""The site is built in stages, each in its own module, and data flows one way through them;
and no function in builder/ is too long to read at once (issue 29, item 5)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "builder"
SITE = PACKAGE / "site"
MAX_FUNCTION_LINES = 50

# The site's stages in the order data flows through them: a stage may import an earlier stage,
# never a later one (render never imports the writer). Every other module in site/ is a helper
# the stages share (paging, tables, charts, the template environment…) and imports no stage.
STAGES = (
    "configuration",  # site.yaml, the pages and reported.yaml, read and checked before any computing
    "prepare",        # the template environment, the benchmarks' parts side by side, the common context
    "provenance",     # the provenance pages and where each fact's row is
    "data_files",     # facts.json, provenance.json, tables and charts as CSV, SVG and PNG
    "render",         # every file of the site, in memory
    "write",          # the files on disk, swapped in at once
)


def long_functions(source: str, name: str) -> list[str]:
    """Every function (methods and nested ones too) longer than MAX_FUNCTION_LINES, counted
    from its `def` line (decorators excluded) to its last line."""
    return [f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


def site_imports(source: str) -> set[str]:
    """The site/ modules a module imports, at any depth (inside functions and TYPE_CHECKING
    blocks too): `from builder.site import a`, `from builder.site.a import x`, `import builder.site.a`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "builder.site":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("builder.site."):
            found.add(node.module.split(".")[2])  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("builder.site.")}
    return found


def against_the_flow(sources: dict[str, str]) -> list[str]:
    """Imports that run against the stage order: a stage importing itself a later stage, or a
    helper importing any stage. `sources`: module name in site/ -> its source."""
    rank = {stage: number for number, stage in enumerate(STAGES)}
    wrong = []
    for module, source in sorted(sources.items()):
        for imported in sorted(site_imports(source) & set(rank)):
            if module not in rank:
                wrong.append(f"helper {module} imports the {imported} stage")
            elif rank[imported] > rank[module]:
                wrong.append(f"stage {module} imports the later stage {imported}")
    return wrong


def test_no_function_in_builder_is_over_50_lines() -> None:
    found = [problem for path in sorted(PACKAGE.rglob("*.py"))
             for problem in long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))]
    assert not found, "split these into well-named helpers:\n" + "\n".join(found)


def test_a_long_function_is_found_with_its_place() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert long_functions(f"def short():\n{body}", "m.py") == []
    nested = "class C:\n    def method(self):\n        def inner():\n" + textwrap.indent(body, "        ") + "            pass\n"
    assert long_functions(nested, "m.py") == ["m.py:2 method (52 lines)", "m.py:3 inner (51 lines)"]


def test_every_stage_is_a_module_of_site() -> None:
    assert [stage for stage in STAGES if not (SITE / f"{stage}.py").is_file()] == []


def test_the_site_stages_import_only_earlier_stages() -> None:
    sources = {path.stem: path.read_text(encoding="utf-8") for path in SITE.glob("*.py")}
    assert against_the_flow(sources) == []


@pytest.mark.parametrize(("sources", "expected"), [
    ({"render": "from builder.site.write import write_site\n"}, ["stage render imports the later stage write"]),
    ({"prepare": "def f():\n    from builder.site import render\n"}, ["stage prepare imports the later stage render"]),
    ({"configuration": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import builder.site.prepare\n"},
     ["stage configuration imports the later stage prepare"]),
    ({"paging": "from builder.site.configuration import PROVENANCE\n"}, ["helper paging imports the configuration stage"]),
    ({"render": "from builder.site.prepare import SiteStage\nfrom builder.site import paging\n",
      "write": "from builder.site.render import render_site\n"}, []),
])
def test_an_import_against_the_flow_is_named(sources: dict[str, str], expected: list[str]) -> None:
    assert against_the_flow(sources) == expected
