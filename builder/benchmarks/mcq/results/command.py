"""`buzzprobe import results FILE --benchmark NAME --model NAME [--format mmlu-pro|eee|mapped]`.

Added to the shared `import` command through the plug-in contract (plugin.py
`add_import_options`; the command's first argument names what is imported): the options below
apply to `import results` only. Nothing is written unless the file is clean.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.results.sources import FORMATS
from builder.core.errors import InputError
from builder.probing.progress import counter
import datetime as dt
import re
from builder.core.redact import excerpt

WORD = "results"


def add_results_options(p: Any) -> None:
    group = p.add_argument_group("import results FILE (a spec'd benchmark's published per-item results)")
    group.add_argument("--benchmark", help="the spec'd benchmark (content/benchmarks/NAME.yaml)")
    group.add_argument("--spec", type=Path, help="the spec file, instead of content/benchmarks/NAME.yaml")
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mcq.command import add_data_option
    add_data_option(group)
    group.add_argument("--format", choices=FORMATS, default=FORMATS[0], dest="results_format",
                       help="mmlu-pro: MMLU-Pro's model_outputs_*.json(.zip); eee: Every Eval Ever instance JSONL; "
                            "mapped: fields named by the spec's `results`; lawbench: LawBench's predictions zip or folder, "
                            "the --model's task files; chembench: a ChemBench system's reports zip or folder "
                            "(--model: the system, or humans) (default %(default)s)")
    group.add_argument("--source-repo", help="where the file is published (recorded in the run header)")
    group.add_argument("--source-commit", help="the commit of that repository the file is from")
    group.add_argument("--source-file", help="the file's path in that repository (default: its name)")
    group.add_argument("--source-date", metavar="YYYY-MM-DD",
                       help="the date of the commit that last changed the file (What's new lists the run under it)")
    group.add_argument("--prompt-setting", help="how the model was prompted, in words (recorded in the header)")


def run_results_import(args: argparse.Namespace, created: str) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mcq.load import load_benchmark
    from builder.benchmarks.mcq.choice_set import choice_set
    from builder.benchmarks.mcq.probe import spec_path
    from builder.benchmarks.mcq.results.importer import Origin, convert
    from builder.benchmarks.mcq.results.sources import read_source
    from builder.benchmarks.mcq.results.store import save, summary
    from builder.core.report import current
    from builder.core.errors import InputError
    if args.benchmark is None and args.spec is None:
        raise InputError.single("--benchmark", "required for `import results`")
    if args.model is None:
        raise InputError.single("--model", "required for `import results`")
    benchmark = load_benchmark(spec_path(args.benchmark or "", args.spec), given=args.data,
                               progress=counter("import: the spec's records", "record"))
    data = choice_set(benchmark)
    mapping = benchmark.spec.results
    extra = None
    if args.results_format == "lawbench":  # a predictions zip or folder: the --model's task files
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.mcq.results.lawbench import results_source
        source, extra = results_source(args.path, args.model)
    elif args.results_format == "chembench":  # a system's reports zip or folder (--model: the system, or humans)
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.mcq.results.chembench_import import results_source as chembench_source
        source, notes, extra = chembench_source(args.path, args.model, benchmark)
        for note in notes:
            print(f"{args.path}: note: {note}", file=sys.stderr)
    else:
        source = read_source(args.path, args.results_format, mapping.records if mapping else None)
    origin = Origin(args.results_format, args.source_repo, args.source_commit, args.source_file, args.prompt_setting,
                    source_date(args.source_date))
    imported = convert(source, data, args.model, origin, created, extra)
    for note in imported.notes:
        print(f"{args.path}: note: {note}", file=sys.stderr)
    path, what = save(imported.run, Path(args.out or f"runs/{benchmark.spec.name}"), args.force)
    current().add(f"{what} {path}: {summary(imported.run)}", path=str(path), changed=what != "unchanged",
                  run_id=imported.run.header.run_id, items=len(imported.run.items))
    return 0


def source_date(value: str | None) -> str | None:
    """`--source-date` as the header records it (a calendar date, YYYY-MM-DD), or None."""

    if value is None:
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        pass
    raise InputError.single("--source-date", f"{excerpt(value)} is not a date; give the date of the source "
                            "commit as YYYY-MM-DD")
