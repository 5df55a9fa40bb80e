"""Domain objects carry no cache handle (issue 29): what a plug-in's `load` returns holds data
only; the build's caches reach compute, the run rows and the pages as context (BuildSettings,
PageSettings), so no cached value can depend on a handle kept inside the data it describes."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import sys
from types import ModuleType
from typing import Any, get_args, get_origin

import pytest

from builder.benchmarks import registered
from builder.benchmarks.base import Benchmark

# A field is a cache handle when its name or its type names one (builder/core/cache.py, builder/runs/cache.py).
HANDLE_TYPES = re.compile(r"\b(RunCache|CacheFolder|Shelf|SpecCache|SealedBytecodeCache)\b")
HANDLE_NAMES = re.compile(r"(^|_)(cache|caches|cached)(_|$)|^cache_|_cache$|^(key|cache_key|run_key)$")


def _module_name(module: ModuleType, name: str) -> Any:
    """`name` as `module` sees it, also when only its TYPE_CHECKING block imports it."""
    if hasattr(module, name):
        return getattr(module, name)
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module and any(a.name == name for a in node.names):
            return getattr(importlib.import_module(node.module), name)
    raise LookupError(f"{module.__name__} names no {name!r}")


def _loaded_type(benchmark: Benchmark[Any, Any]) -> type:
    """The LoadedT a plug-in names in `class X(Benchmark[LoadedT, ComputedT])` (a list's element too)."""
    for base in getattr(type(benchmark), "__orig_bases__", ()):
        if get_origin(base) is Benchmark:
            loaded = get_args(base)[0]
            break
    else:
        raise AssertionError(f"{type(benchmark).__name__} names no Benchmark[LoadedT, ComputedT]")
    if get_origin(loaded) in (list, tuple) or str(get_origin(loaded)).endswith("Sequence'>"):
        loaded = get_args(loaded)[0]
    name = getattr(loaded, "__forward_arg__", loaded)
    if isinstance(name, str):
        loaded = _module_name(sys.modules[type(benchmark).__module__], name)
    assert dataclasses.is_dataclass(loaded), f"{type(benchmark).__name__}'s loaded state is not a dataclass"
    return loaded


def handle_fields(kind: type) -> list[str]:
    """The fields of dataclass `kind` that name a cache, by their name or their type."""
    found = []
    for f in dataclasses.fields(kind):  # type: ignore[arg-type]
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", repr(f.type))
        if HANDLE_NAMES.search(f.name) or HANDLE_TYPES.search(str(annotation)) or HANDLE_TYPES.search(repr(f.type)):
            found.append(f"{kind.__qualname__}.{f.name}: {annotation}")
    return found


@pytest.mark.parametrize("benchmark", registered(), ids=lambda b: b.name)
def test_loaded_state_holds_data_only(benchmark: Benchmark[Any, Any]) -> None:
    assert handle_fields(_loaded_type(benchmark)) == []


def test_every_plugin_that_loads_names_its_loaded_dataclass() -> None:
    kinds = {b.name: _loaded_type(b).__qualname__ for b in registered()}
    assert {"cibuzzbench", "mcq"} <= set(kinds)


def test_the_check_sees_every_kind_of_handle() -> None:
    """The check itself: a Loaded shaped as the plug-ins' were before issue 29 is refused."""
    @dataclasses.dataclass(frozen=True)
    class OldLoaded:
        items: tuple[int, ...]
        cache: "RunCache | None" = None  # noqa: F821 (a string: the check reads it as written)
        key: str = ""
        cache_dir: Any = None
        folder: "CacheFolder | None" = None  # noqa: F821
        shelf: "Shelf | None" = None  # noqa: F821

    assert [line.split(":")[0] for line in handle_fields(OldLoaded)] == [
        f"{OldLoaded.__qualname__}.{name}" for name in ("cache", "key", "cache_dir", "folder", "shelf")]
