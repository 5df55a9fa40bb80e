"""`buzzprobe import WHAT [PATH]`: another tool's outputs into runs, for whichever plug-in reads them.

`import lm-eval|inspect PATH` (harness outputs, claimed by whichever plug-in wrote the task or,
with --benchmark, mapped onto a spec: builder/interop/) and `import eee PATH` (what `export eee`
wrote, builder/eee_import.py) are the command's own. Each plug-in adds its options and claims
its words through the contract (`add_import_options`): `import results FILE` (the spec'd
benchmarks) and, without a word, `import FOLDER` (CIBuzzBench's official outputs). The options every importer reads (`--model`,
`--out`, `--force`, `--json`) are the command's. Nothing is written unless the input is clean.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from builder.benchmarks.base import IMPORT_DEFAULT, ImportHandler
from builder.core.report import current, reporting
from builder.core.errors import InputError
from builder.core.names import did_you_mean
from builder.probing.command import model_name
from builder import benchmarks  # the module, so a test's stand-in registry applies
from builder.core.build_date import utc_now
from builder.probing.progress import stages

HARNESSES = ("lm-eval", "inspect")


def add_import_parser(sub: Any) -> None:
    """Register `import`, with every plug-in's words and options."""
    p = sub.add_parser("import", help="convert other tools' outputs (official scripts, lm-eval, Inspect, published "
                                      "per-item results) into runs")
    p.add_argument("results", type=Path, metavar="WHAT",
                   help="an importer's word followed by PATH (see the list below), or, alone, the folder of the "
                        "default importer")
    p.add_argument("path", type=Path, nargs="?", help="the file or folder the importer named by WHAT reads")
    p.add_argument("--model", type=model_name, help="the model's name, as it should appear on the site (some "
                   "importers default to the name their input logged)")
    p.add_argument("--out", default=None, help="folder for the runs (default: each importer's, under runs/)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing run that has different content (refused otherwise)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the runs written) instead of lines")
    words = import_words(p)
    p.description = "Importers: " + "; ".join(_described(words)) + ". Warnings go to stderr."
    p.set_defaults(handler=run_import, import_words=words)


def import_words(parser: argparse.ArgumentParser) -> dict[str, tuple[str, ImportHandler]]:
    """The command's own words, then every plug-in's, each with its owner's name and handler, its
    options added to `parser`."""
    words: dict[str, tuple[str, ImportHandler]] = {"eee": ("buzzprobe", _import_eee)}
    if any(b.harness_tasks for b in benchmarks.registered()):  # the flag: no interop module loads
        words.update({h: ("buzzprobe", _harness_import(h)) for h in HARNESSES})
    for benchmark in benchmarks.registered():
        for word, handler in benchmark.add_import_options(parser).items():
            if word in words:
                raise TypeError(f"two plug-ins claim `buzzprobe import {word or 'PATH'}` "
                                f"({words[word][0]} and {benchmark.name})")
            words[word] = (benchmark.name, handler)
    return words


def _harness_import(harness: str) -> ImportHandler:
    def handler(args: argparse.Namespace, created: str) -> int:
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.interop.command import run_harness_import
        return run_harness_import(harness, args.path, args.model, args.out, created, args.force,
                                  getattr(args, "benchmark", None))  # --benchmark: the spec'd benchmarks' option
    return handler


def _import_eee(args: argparse.Namespace, created: str) -> int:
    """Every Eval Ever files `export eee` wrote, back into the run they came from."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.eee_import import run_eee_import
    for line in run_eee_import(args.path, args.out, args.force):
        current().add(line, line=line)
    return 0


def _described(words: dict[str, tuple[str, ImportHandler]]) -> list[str]:
    return [f"{word or 'PATH alone'} ({owner})" for word, (owner, _) in sorted(words.items())] or ["none"]


def run_import(args: argparse.Namespace) -> int:
    words: dict[str, tuple[str, ImportHandler]] = args.import_words
    word = str(args.results)
    if args.path is not None and word in words:
        handler = words[word][1]
    elif args.path is None and IMPORT_DEFAULT in words and (word not in words or Path(word).exists()):
        handler = words[IMPORT_DEFAULT][1]  # a folder named like a word (`results/`) is the default's PATH
    else:
        named = sorted(w for w in words if w)
        if args.path is None:
            raise InputError.single(word, f"give the file or folder to import after {word!r}" if word in words
                                    else "no default importer here; give an importer's word, then PATH"
                                    + did_you_mean(word, named, "Importers"))
        raise InputError.single(word, f"no importer called {word!r}" + did_you_mean(word, named, "Importers"))
    say = stages("import")
    owner = words[word if word in words and args.path is not None else IMPORT_DEFAULT][0]
    say(f"reading {args.path or args.results} ({owner}'s {'`' + word + '`' if args.path is not None else 'default'} "
        "importer)")
    with reporting(args.json, command="import") as report:
        code = handler(args, utc_now())
        say(f"done, {report.count} run(s)")
    return code
