"""`buzzprobe data fetch | check | …`: every plug-in's data, through the contract.

`fetch` and `check` ask every registered plug-in (`fetch_data`, `check_data`) in the registry's
order; a plug-in adds actions only its data has (`add_data_actions`, e.g. CIBuzzBench's
`gold-pool`). Removing a plug-in's folder removes its part, never another's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from builder.core.report import reporting
from builder import benchmarks  # the module, so a test's stand-in registry applies


def add_data_parser(sub: Any) -> None:
    """Register `data` and its actions on the CLI's subparsers."""
    data = sub.add_parser("data", help="fetch and check the benchmarks' data",
                          description="Fetch every benchmark's pinned data (unless its variable names a local copy) "
                                      "and check the local copies.")
    actions = data.add_subparsers(required=True, metavar="action")
    fetch = actions.add_parser("fetch", help="download each benchmark's pinned data unless its variable names a copy "
                               "(CIBUZZBENCH_CSV; a spec's BUZZPROBE_DATA_<NAME>, content/benchmarks/)")
    fetch.add_argument("--benchmark", action="append", metavar="NAME",
                       help="only this spec's data (repeatable; the built-in benchmarks' data is then left alone)")
    fetch.add_argument("--content", type=Path, default=Path("content"), help="the content folder (default %(default)s)")
    fetch.set_defaults(handler=_fetch)
    check = actions.add_parser("check", help="validate the local data copies (CIBuzzBench's CSV, each spec's files "
                               "against its pins) and print their hashes")
    check.add_argument("--benchmark", action="append", metavar="NAME",
                       help="only this spec's data (repeatable; the built-in benchmarks' data is then left alone)")
    check.add_argument("--content", type=Path, default=Path("content"), help="the content folder (default %(default)s)")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of a line per copy")
    check.set_defaults(handler=_check)
    for benchmark in benchmarks.registered():
        benchmark.add_data_actions(actions)


def _fetch(args: argparse.Namespace) -> int:
    """Every plug-in's pinned data, in the registry's (name) order."""
    for benchmark in benchmarks.registered():
        benchmark.fetch_data(args.content, args.benchmark, lambda message: print(message, file=sys.stderr))
    return 0


def _check(args: argparse.Namespace) -> int:
    with reporting(args.json, command="data check") as report:
        for benchmark in benchmarks.registered():
            for found in benchmark.check_data(args.content, args.benchmark, report.warn):
                report.add(str(found["text"]), **{k: v for k, v in found.items() if k != "text"})
    return 0
