"""CIBuzzBench's part of `buzzprobe export lm-eval|inspect` (docs/lm-eval.md, docs/inspect.md):
the options that shape its Task 2 sighted/blind and Task 3 tasks. The words themselves, and
`import lm-eval|inspect`, are the shared commands' (builder/commands/, builder/interop/command.py),
which ask this plug-in through `harness_interop`. Only argparse at module level: the CLI stays fast."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def add_export_options(p: Any) -> dict[str, Any]:
    """The task options of CIBuzzBench's `export lm-eval|inspect`, in a group of their own; no
    words of its own (the shared command owns lm-eval, inspect and eee)."""
    p = p.add_argument_group("export lm-eval|inspect without --benchmark (CIBuzzBench's Task 2 sighted/blind and "
                             "Task 3 as the harness's tasks; they carry the dataset's text)")
    p.add_argument("--arms", nargs="+", choices=("t2-sighted", "t2-blind", "t3"),
                   default=["t2-sighted", "t2-blind", "t3"], help="which tasks (default: all three)")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="prompt language (default %(default)s)")
    p.add_argument("--variant", choices=("original", "gold_pool"), default="original",
                   help="option set: the official distractors or the gold pool (default %(default)s)")
    p.add_argument("--protocol", action="append", default=[], metavar="ID",
                   help="a named alternative prompt replacing its arm's default (repeatable)")
    p.add_argument("--protocols", type=Path, default=None, help="protocol file (default: content/protocols/cibuzzbench.yaml)")
    return {}
