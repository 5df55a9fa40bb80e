"""CIBuzzBench's subcommands: `data fetch | check | gold-pool`, `runs`, `import`, `export` (its
`probe` options are probes/command.py, on the shared `buzzprobe probe`). `data fetch` and
`import WORD PATH` reach the other plug-ins through the contract (`fetch_data`,
`add_import_options`), never by importing them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from builder.benchmarks.base import ImportHandler
from builder.benchmarks.cibuzzbench.interop.command import HARNESSES, IMPORTS, add_export_parser, run_harness_import
from builder.core.build_date import created_stamp, utc_now
from builder.core.errors import InputError
from builder.probing.command import model_name
from builder.benchmarks.cibuzzbench.run_format import VARIANTS

GOLD_POOL_VARIANTS = tuple(v for v in VARIANTS if v != "original")


def add_commands(sub: "argparse._SubParsersAction") -> None:
    data = sub.add_parser("data", help="the CIBuzzBench CSV").add_subparsers(required=True, metavar="action")
    fetch = data.add_parser("fetch", help="download the pinned upstream CSV unless CIBUZZBENCH_CSV names a copy, and "
                            "each spec's pinned files (content/benchmarks/) unless its variable names a copy")
    fetch.add_argument("--benchmark", action="append", metavar="NAME",
                       help="only this spec's data (repeatable; CIBuzzBench's CSV is then left alone)")
    fetch.add_argument("--content", type=Path, default=Path("content"), help="the content folder (default %(default)s)")
    fetch.set_defaults(handler=_cmd_fetch)
    check = data.add_parser("check", help="validate the CSV and print its hashes")
    check.set_defaults(handler=_cmd_check)
    pool = data.add_parser("gold-pool", help="write a gold-pool variant (CSV and manifest) into data/")
    pool.add_argument("--variant", choices=GOLD_POOL_VARIANTS, default=GOLD_POOL_VARIANTS[0],
                      help="gold_pool: the article's length-matched set; gold_pool_slot: the ablation matched to "
                           "each replaced distractor (docs/gold-pool.md; default %(default)s)")
    pool.add_argument("--out", type=Path, default=Path("data"), help="folder for the variant (default %(default)s)")
    pool.set_defaults(handler=_cmd_gold_pool)

    runs = sub.add_parser("runs", help="regenerate the model-free probe runs in runs/probes/")
    runs.add_argument("--out", type=Path, default=Path("runs/probes"),
                      help="folder for the probe runs (default %(default)s)")
    runs.set_defaults(handler=_cmd_runs)

    imports = sub.add_parser("import", help="convert official CIBuzzBench outputs, or lm-eval / Inspect outputs, into runs",
                             usage="buzzprobe import RESULTS --model NAME [--out DIR]\n"
                                   "       buzzprobe import {lm-eval,inspect} PATH [--benchmark NAME] [--model NAME] [--out DIR]\n"
                                   "       buzzprobe import eee AGGREGATE.json|DIR [--out DIR] [--force]\n"
                                   "       buzzprobe import results FILE --benchmark NAME --model NAME "
                                   "[--format mmlu-pro|eee|mapped] [--force]")
    imports.add_argument("results", type=Path, help="the official results folder <output_dir>/<model>/<lang> (docs/import.md), "
                         "or `lm-eval` / `inspect` / `eee` followed by PATH (docs/lm-eval.md, docs/inspect.md, "
                         "docs/every-eval-ever.md)")
    imports.add_argument("path", type=Path, nargs="?", help="lm-eval: a samples_*.jsonl file or its output folder; "
                         "inspect: a .eval or .json log, or a folder of them; eee: an aggregate .json `export eee` wrote, or a "
                         "folder of them")
    imports.add_argument("--model", type=model_name, help="the model's name, as it should appear on the site "
                         "(required for official outputs; harness imports default to the logged name)")
    imports.add_argument("--out", default=None, help="folder for the runs (default runs/official; harness imports "
                         "runs/{model_slug})")
    imports.add_argument("--force", action="store_true",
                         help="replace an existing run that has different content (refused otherwise; every import)")
    imports.set_defaults(handler=_cmd_import, import_words=_import_words(imports))

    add_export_parser(sub)


def _import_words(parser: argparse.ArgumentParser) -> dict[str, ImportHandler]:
    """Every plug-in's `import WORD PATH` handlers, its options added to `parser`."""
    from builder.benchmarks import registered
    words: dict[str, ImportHandler] = {}
    for benchmark in registered():
        for word, handler in benchmark.add_import_options(parser).items():
            if word in words or word in HARNESSES:
                raise TypeError(f"two importers claim `buzzprobe import {word}` ({benchmark.name} is one)")
            words[word] = handler
    return words


def _cmd_fetch(args: argparse.Namespace) -> int:
    """Every plug-in's pinned data, in the registry's (name) order."""
    from builder.benchmarks import registered
    for benchmark in registered():
        benchmark.fetch_data(args.content, args.benchmark, lambda message: print(message, file=sys.stderr))
    return 0


def fetch_csv(log: Callable[[str], None]) -> None:
    """The CSV, downloaded unless a copy is present; validated only when just downloaded (a
    present copy is validated by every build)."""
    from builder.benchmarks.cibuzzbench.dataset.fetch import ensure_dataset, resolve_dataset_path
    present = resolve_dataset_path(os.environ)
    path = ensure_dataset(os.environ, log=log)
    if present is None:
        try:
            _cmd_check_path(path)
        except InputError:
            path.unlink(missing_ok=True)  # never leave an invalid download where builds look
            raise


def _cmd_gold_pool(args: argparse.Namespace) -> int:
    """The variant's CSV (dataset text: never commit it) for inspection and other tools;
    builds and `probe --variant NAME` derive the same bytes themselves."""
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.gold_pool import ensure_gold_pool, read_manifest
    variant = ensure_gold_pool(load_dataset(dataset_path()), args.out, variant=args.variant)
    counts = read_manifest(args.out, args.variant)["counts"]
    print(f"{variant.path}: {args.variant} variant, content sha256 {variant.content_sha256}; items "
          f"{counts['items']}, fully within 10% {counts['items_fully_within_10pct']}, widened "
          f"{counts['items_with_widened_slot']}, unmatched {counts['items_with_unmatched_slot']}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    _cmd_check_path(dataset_path())
    return 0


def _cmd_check_path(path: Path) -> None:
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    ds = load_dataset(path)
    print(f"{path}: valid, {ds.rows} rows; file sha256 {ds.file_sha256}; content sha256 {ds.content_sha256}")


def _cmd_runs(args: argparse.Namespace) -> int:
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    dataset = load_dataset(dataset_path())
    written = generate_probe_runs(dataset, args.out, created_stamp(), derive_variants(dataset), learned=True)
    print(f"wrote {len(written)} probe runs to {args.out}/")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.official_import import import_official
    created = utc_now()
    if args.path is not None and str(args.results) in args.import_words:
        return args.import_words[str(args.results)](args, created)
    if args.path is not None:
        harness = str(args.results)
        if harness not in IMPORTS:
            raise InputError.single(harness, f"unknown harness (expected one of: {', '.join(IMPORTS)})")
        return run_harness_import(harness, args.path, args.model, args.out, created, args.force,
                                  getattr(args, "benchmark", None))
    if args.model is None:
        raise InputError.single("--model", "required when importing official outputs")
    dataset = load_dataset(dataset_path())
    written = import_official(args.results, dataset, model=args.model, out_dir=args.out or "runs/official",
                              created=created, force=args.force)
    for path, changed in written:
        print(f"{'wrote' if changed else 'unchanged'} {path}")
    return 0
