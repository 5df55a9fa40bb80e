"""A module imported on first use.

The ranker's modules use SciPy's sparse matrices in their fitting functions only, yet the
modules themselves are imported by every build: cached audits name the ranker's result classes,
and pages use its constants. A warm build fits nothing, so it need not pay for importing
scipy.sparse (about 0.11 s of its start-up, `-X importtime`). The standard library's
`importlib.util.LazyLoader` executes the module when an attribute is first read.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module `name`, registered now and executed when first used (at once if it is already
    imported). Its parent package is imported now, as `import name` would."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
