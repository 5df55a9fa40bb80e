"""Checks of the options every probe command shares (CIBuzzBench's and the spec'd benchmarks'),
kept apart from the command module so a benchmark's probe planning can use them without
importing the command that dispatches to it."""

from __future__ import annotations

import argparse

from builder.core.errors import InputError
from builder.core.names import check_name, fill_template
from builder.probing.client import check_base_url
from builder.probing.runner import DEFAULT_OUT


def check_run_options(args: argparse.Namespace, seeds: int) -> str:
    """The endpoint and output options every probe command checks the same way; returns the
    output template."""
    if args.base_url is None and args.dry_run is None:
        raise InputError.single("--base-url", "required (e.g. http://127.0.0.1:8000/v1) unless --dry-run")
    check_base_url(args.base_url)
    if args.run_id and seeds > 1:
        raise InputError.single("--run-id", "one run id cannot name several seeds' runs")
    out = args.out or DEFAULT_OUT
    if seeds > 1 and "{run_id}" not in out:
        raise InputError.single("--out", "several seeds need {run_id} in the output template")
    fill_template(out, "--out", run_id="x", model_slug="x")
    if args.run_id:
        check_name(args.run_id, "--run-id")
    return out
