"""`buzzprobe export WORD --out DIR`: runs and tasks in other tools' formats.

`export eee --run FILE` (Every Eval Ever) serves every benchmark that maps its runs out (the
contract's `eee_evaluation`), so it is the command's own; a plug-in adds words of its own with
their options through the contract (`add_export_options`: CIBuzzBench's `lm-eval` and
`inspect` tasks).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from builder.benchmarks.base import CommandHandler
from builder.core.report import current, reporting

EEE = "eee"  # Every Eval Ever: a run of any benchmark with a mapping out (builder/runs/eee.py)


def add_export_parser(sub: Any) -> None:
    """Register `export`, with Every Eval Ever's options and every plug-in's words and options."""
    p = sub.add_parser("export", help="write a run as Every Eval Ever files, or a benchmark's tasks for "
                                      "lm-evaluation-harness or Inspect",
                       description="Write one run as Every Eval Ever's aggregate log and instance sidecar (eee), or "
                                   "a benchmark's prompts as another harness's tasks. Both carry the dataset's text: "
                                   "--out must be outside the repository.")
    p.add_argument("--out", type=Path, required=True, help="folder to write into (your own, never the repository)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the files written) instead of lines")
    eee = p.add_argument_group("export eee (one run of any benchmark with an Every Eval Ever mapping)")
    eee.add_argument("--run", type=Path, help="the run file to export")
    eee.add_argument("--developer", help="the model's developer, a folder of the datastore path "
                                         "(default: buzzprobe for a model-free probe, else unknown)")
    words = export_words(p)
    p.add_argument("harness", choices=sorted(words), metavar="WORD",
                   help="what to write: " + ", ".join(f"{w} ({owner})" for w, (owner, _) in sorted(words.items())))
    p.set_defaults(handler=run_export, export_words=words)


def export_words(parser: argparse.ArgumentParser) -> dict[str, tuple[str, CommandHandler]]:
    """`eee`, then every plug-in's words (each with its plug-in's name), their options added to `parser`."""
    from builder.benchmarks import registered
    words: dict[str, tuple[str, CommandHandler]] = {EEE: ("every benchmark", _export_eee)}
    for benchmark in registered():
        for word, handler in benchmark.add_export_options(parser).items():
            if word in words:
                raise TypeError(f"two plug-ins claim `buzzprobe export {word}` ({words[word][0]} and {benchmark.name})")
            words[word] = (benchmark.name, handler)
    return words


def run_export(args: argparse.Namespace) -> int:
    with reporting(args.json, command="export", word=args.harness):
        return args.export_words[args.harness][1](args)


def _export_eee(args: argparse.Namespace) -> int:
    from builder.runs.eee import export_run
    for path in export_run(args.run, args.out, args.developer):
        current().add(f"wrote {path}", path=str(path))
    return 0
