"""`buzzprobe audit NAME|SPEC [--json]`: how much a benchmark's options give away, without a model.

The plug-in that audits (the contract's `add_audit_options`; today the spec'd benchmarks') adds
its options and runs the audit; the command, its name and `--json` are shared, so the command
stays (and says what is missing) whichever plug-ins are installed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from builder.benchmarks.base import CommandHandler
from builder.core.errors import InputError
from builder import benchmarks  # the module, so a test's stand-in registry applies


def add_audit_parser(sub: Any) -> None:
    """Register `audit`, with the auditing plug-in's options."""
    p = sub.add_parser("audit", help="how much a multiple-choice benchmark's options give away (no model)",
                       description="Load a benchmark spec (content/benchmarks/NAME.yaml), validate its data and "
                                   "print the model-free audit. See docs/audit.md. Progress goes to stderr.")
    p.add_argument("spec", type=Path, help="the benchmark's spec file, or the name of one in content/benchmarks/ "
                                           "(e.g. mmlu)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    auditors: list[tuple[str, CommandHandler]] = []
    for benchmark in benchmarks.registered():
        handler = benchmark.add_audit_options(p)
        if handler is not None:
            auditors.append((benchmark.name, handler))
    if len(auditors) > 1:
        raise TypeError(f"two plug-ins audit ({', '.join(name for name, _ in auditors)}); one may")
    p.set_defaults(handler=auditors[0][1] if auditors else _no_auditor)


def _no_auditor(args: argparse.Namespace) -> int:
    raise InputError.single(str(args.spec), "no installed plug-in audits benchmarks (the spec'd benchmarks' "
                            "plug-in, builder/benchmarks/mcq, does)")
