"""`buzzprobe list benchmarks|runs|models [--json]`: what there is to probe, audit and build.

Runs are listed from their header lines only (the first line of each file, gzip or not), so the
list answers in a moment however many items the runs hold; a file whose first line is not a
run header is listed as unreadable, with the reason, rather than stopping the list.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.core.names import visible
from builder.benchmarks import registered
from builder.runs.files import run_files
from builder.runs.files import is_compressed

_HEADER_LIMIT = 1 << 20  # bytes of a first line read at most: a header is a few hundred
WHAT = ("benchmarks", "runs", "models")


def add_list_parser(sub: Any) -> None:
    """Register `list` on the CLI's subparsers."""
    p = sub.add_parser("list", help="list the benchmarks, runs or models there are",
                       description="List the benchmarks that can be probed or audited, the runs in a runs "
                                   "folder, or the models those runs answered for.")
    p.add_argument("what", choices=WHAT, help="benchmarks, runs or models")
    p.add_argument("--runs", type=Path, default=Path("runs"), help="runs folder to read (default %(default)s)")
    p.add_argument("--content", type=Path, default=Path("content"),
                   help="content folder whose benchmarks/ holds the spec files (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON array instead of a table")
    p.set_defaults(handler=run_list)


def run_list(args: argparse.Namespace) -> int:
    rows = {"benchmarks": lambda: benchmark_rows(args.content), "runs": lambda: run_rows(args.runs),
            "models": lambda: model_rows(run_rows(args.runs))}[args.what]()
    print(json.dumps(rows, indent=2, ensure_ascii=False) if args.json else plain_table(rows))
    return 0


def benchmark_rows(content: Path) -> list[dict[str, Any]]:
    """The plug-ins' own benchmarks, then every spec file in CONTENT/benchmarks/."""
    rows = [{"name": b.name, "kind": "built in", "title": b.title, "probe": b.probes, "path": ""}
            for b in registered() if not (b.run_format_module and b.run_format().any_name)]
    rows += [{"name": p.stem, "kind": "spec", "title": "", "probe": True, "path": str(p)}
             for p in sorted((content / "benchmarks").glob("*.yaml"))]
    return rows


def run_rows(runs: Path) -> list[dict[str, Any]]:
    """One row per run file under RUNS, from its header."""
    if not runs.is_dir():
        raise InputError.single(str(runs), "no such runs folder")
    return [_run_row(path, runs) for path in run_files(runs)]


def _run_row(path: Path, runs: Path) -> dict[str, Any]:
    row: dict[str, Any] = {"path": str(path.relative_to(runs))}
    try:
        header = _first_line(path)
    except (OSError, EOFError, ValueError) as exc:
        return {**row, "problem": f"unreadable: {str(exc)[:200]}"}
    if not isinstance(header, dict) or header.get("type") != "header":
        return {**row, "problem": "unreadable: the first line is not a run header"}
    subject: dict[str, Any] = header["subject"] if isinstance(header.get("subject"), dict) else {}
    items: dict[str, Any] = header["items"] if isinstance(header.get("items"), dict) else {}
    return {"run_id": header.get("run_id"), "benchmark": header.get("benchmark"), "task": header.get("task"),
            "condition": header.get("condition"), "subject": subject.get("name"), "kind": subject.get("kind"),
            "items": items.get("n"), "option_seed": header.get("option_seed"), **row}


def _first_line(path: Path) -> Any:
    opener = gzip.open if is_compressed(path) else open
    with opener(path, "rb") as handle:
        return json.loads(handle.readline(_HEADER_LIMIT))


def model_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The models the runs answered for (subject kind `model`), with their runs per benchmark."""
    found: dict[str, dict[str, Any]] = {}
    for run in runs:
        if run.get("kind") != "model" or not isinstance(run.get("subject"), str):
            continue
        entry = found.setdefault(run["subject"], {"model": run["subject"], "runs": 0, "benchmarks": []})
        entry["runs"] += 1
        if run.get("benchmark") not in entry["benchmarks"]:
            entry["benchmarks"].append(run.get("benchmark"))
    return [{**m, "benchmarks": sorted(map(str, m["benchmarks"]))} for _, m in sorted(found.items())]


def plain_table(rows: list[dict[str, Any]]) -> str:
    """Plain columns, one row a line (no colour, no box drawing: greppable and pasteable)."""
    if not rows:
        return "(none)"
    columns = list(dict.fromkeys(k for row in rows for k in row))
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    text = "".join(ch if ch.isprintable() else " " for ch in str(value))  # no escape codes from a header
    return visible(" ".join(text.split()))  # one line per row, whatever a header holds
