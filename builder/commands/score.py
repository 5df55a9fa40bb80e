"""`buzzprobe score RUN… [--json]`: any finished run's scores with their 95% intervals, and the
paired sighted - blind gaps with the runs beside it, as `buzzprobe probe` ends.

The plug-in that reads a run (the registry's `run_owner`) scores it (the contract's
`score_run`) with the site's statistics; the table and the JSON are shared, so every
benchmark's scores read alike.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.benchmarks.base import BuildSettings
from builder import benchmarks  # the module, so a test's stand-in registry applies
from builder.commands.listing import plain_table


def add_score_parser(sub: Any) -> None:
    """Register `score` on the CLI's subparsers."""
    p = sub.add_parser("score", help="print finished runs' scores (any benchmark), with 95%% intervals",
                       description="Score run files as the site does: each metric with its 95% bootstrap interval, "
                                   "then the paired sighted - blind gap with a partner run in the same folder.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run files (.jsonl or .jsonl.gz)")
    p.add_argument("--content", type=Path, default=Path("content"),
                   help="content folder whose benchmarks/ holds the spec files (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON array (one object per run) instead of a table")
    p.set_defaults(handler=run_score)


def run_score(args: argparse.Namespace) -> int:
    settings = BuildSettings(content_dir=args.content, cache_dir=Path(".cache"))
    results, problems = [], []
    for path in args.runs:
        try:
            results.append(score_one(path, settings))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print(score_table(results))
    return 0


def score_one(path: Path, settings: Any) -> dict[str, Any]:
    """One run's row: who it is, then its owner's figures."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.runs.reader import read_run
    if not path.is_file():
        raise InputError([Problem(str(path), "no such run file")])
    header = read_run(path).header
    owner = benchmarks.run_owner(header.benchmark, header.task)
    if owner is None:
        raise InputError.single(path, f"no installed plug-in reads runs of {header.benchmark!r}", line=1,
                                field="benchmark")
    score, gaps = owner.score_run(path, settings)
    return {"path": str(path), "run_id": header.run_id, "benchmark": header.benchmark,
            "subject": header.subject_name, "condition": header.condition, "score": score, "gaps": gaps}


def score_table(results: list[dict[str, Any]]) -> str:
    """One row per run (each metric as `value [low, high]`), then one line per paired gap."""
    metrics = list(dict.fromkeys(m for r in results for m, v in r["score"].items() if isinstance(v, dict)))
    rows = [{"run": r["run_id"], "benchmark": r["benchmark"], "items": r["score"].get("items"),
             "failed": r["score"].get("failed"),
             **{m.replace("_", " "): _cell(r["score"].get(m)) for m in metrics}} for r in results]
    lines = [plain_table(rows), "(each metric with its 95% bootstrap interval in brackets)"]
    for r in results:
        for gap in r["gaps"]:
            parts = ", ".join(f"{m.replace('_', ' ')} {gap[m]['value']:+.1f} [{gap[m]['low']:+.1f}, {gap[m]['high']:+.1f}]"
                              for m in gap if isinstance(gap[m], dict))
            lines.append(f"paired gap, sighted {gap['sighted']} minus blind {gap['blind']}: {parts}")
    return "\n".join(lines)


def _cell(figure: dict[str, Any] | None) -> str | None:
    """`61.2 [55.0, 67.4]` (points) or `0.512 [0.47, 0.555]` (a 0-1 metric): three significant digits."""
    if not figure or figure.get("value") is None:
        return None
    low, high = figure.get("low"), figure.get("high")
    interval = f" [{low:.3g}, {high:.3g}]" if low is not None and high is not None else ""
    return f"{figure['value']:.3g}{interval}"
