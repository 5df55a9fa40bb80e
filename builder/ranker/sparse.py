"""SciPy's sparse matrices for the ranker, loaded when a fit first uses them.

Every build imports the ranker's modules (cached audits name their result classes, pages use
their constants), but only a fit builds sparse matrices: a warm build fits nothing and so never
pays for importing scipy.sparse (core.lazy_module). The ranker's modules take `sp` from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from builder.core.lazy_module import lazy_module

if TYPE_CHECKING:
    import scipy.sparse as sp
else:
    sp = lazy_module("scipy.sparse")

__all__ = ["sp"]
