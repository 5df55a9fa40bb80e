"""Where the package and the repository checkout are: one definition, so moving a module
never silently changes what a relative `parents[n]` points at."""

from __future__ import annotations

from pathlib import Path

from builder.core.errors import InputError

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # builder/
REPO_DIR = PACKAGE_DIR.parent  # the checkout (content/, runs/ ...) when installed editable


def refuse_checkout(out: Path) -> None:
    """Exported items are dataset text, which must never be committed: refuse the checkout this
    code runs from and any other buzzprobe checkout at or above the target (a second clone, a
    worktree), even when the installed package lives elsewhere."""
    target = out.resolve()
    for folder in (target, *target.parents):
        if folder == REPO_DIR or _is_checkout(folder):
            raise InputError.single(out, f"the export carries the dataset's text and must not go into the repository "
                                    f"(a buzzprobe checkout at {folder}); choose a folder outside it")


def _is_checkout(folder: Path) -> bool:
    """A buzzprobe checkout: its pyproject names the project, or it has builder/ beside .git."""
    try:
        if (folder / "builder" / "cli.py").is_file() and (folder / ".git").exists():
            return True
        pyproject = folder / "pyproject.toml"
        return pyproject.is_file() and 'name = "buzzprobe"' in pyproject.read_text("utf-8", "replace")[:4096]
    except OSError:
        return False
