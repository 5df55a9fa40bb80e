"""Where the package and the repository checkout are: one definition, so moving a module
never silently changes what a relative `parents[n]` points at."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # builder/
REPO_DIR = PACKAGE_DIR.parent  # the checkout (content/, runs/ ...) when installed editable
