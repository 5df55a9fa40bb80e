"""The commands every benchmark shares, each defined once here and fed by the plug-ins through
the contract (builder/benchmarks/base.py), so removing a plug-in's folder removes its part of a
command and never the command:

- `probe`   probe.py   (a plug-in's `probes`, `add_probe_options`, `probe_names`, `probe_plans`)
- `score`   score.py   (any run a plug-in's run format reads)
- `list`    listing.py
- `data`    data.py    (`fetch_data`, `check_data`, `add_data_actions`)
- `import`  imports.py (`add_import_options`)
- `export`  export.py  (`eee_evaluation`, `add_export_options`)
- `audit`   audit.py   (`add_audit_options`)

`build` stays in builder/cli.py beside `main`; a command only one benchmark has is that
plug-in's `add_commands`. builder/core/report.py is how a command (and the plug-in code it
runs) prints lines or one `--json` object.
"""

from __future__ import annotations

from typing import Any
from builder.commands.audit import add_audit_parser
from builder.commands.data import add_data_parser
from builder.commands.export import add_export_parser
from builder.commands.imports import add_import_parser
from builder.commands.probe import add_probe_parser
from builder.commands.score import add_score_parser
from builder.commands.listing import add_list_parser


def add_shared_commands(sub: Any) -> None:
    """Register the shared commands on the CLI's subparsers, in the order `--help` lists them."""
    add_probe_parser(sub)
    add_score_parser(sub)
    add_list_parser(sub)
    add_data_parser(sub)
    add_import_parser(sub)
    add_export_parser(sub)
    add_audit_parser(sub)
