"""CIBuzzBench's commands: `buzzprobe runs` (its own), and its parts of the shared commands
(builder/commands/): `data check` of the CSV and `data gold-pool`, `import FOLDER` (official
outputs, no word), and the task options of `export lm-eval|inspect` (interop/command.py).
Its `probe` options are probes/command.py, on the shared `buzzprobe probe`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builder.benchmarks.base import IMPORT_DEFAULT, ImportHandler
from builder.benchmarks.cibuzzbench.run_format import VARIANTS
from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path, ensure_dataset, resolve_dataset_path
from builder.core.build_date import created_stamp
from builder.core.errors import InputError
from builder.core.report import current, reporting

GOLD_POOL_VARIANTS = tuple(v for v in VARIANTS if v != "original")


def add_commands(sub: "argparse._SubParsersAction") -> None:
    runs = sub.add_parser("runs", help="regenerate the model-free probe runs in runs/probes/")
    runs.add_argument("--out", type=Path, default=Path("runs/probes"),
                      help="folder for the probe runs (default %(default)s)")
    runs.add_argument("--json", action="store_true", help="print one JSON object (the runs written) instead of a line")
    runs.set_defaults(handler=_cmd_runs)


def add_data_actions(actions: "argparse._SubParsersAction") -> None:
    pool = actions.add_parser("gold-pool", help="write a CIBuzzBench gold-pool variant (CSV and manifest) into data/")
    pool.add_argument("--variant", choices=GOLD_POOL_VARIANTS, default=GOLD_POOL_VARIANTS[0],
                      help="gold_pool: the article's length-matched set; gold_pool_slot: the ablation matched to "
                           "each replaced distractor (docs/gold-pool.md; default %(default)s)")
    pool.add_argument("--out", type=Path, default=Path("data"), help="folder for the variant (default %(default)s)")
    pool.add_argument("--json", action="store_true", help="print one JSON object instead of a line")
    pool.set_defaults(handler=_cmd_gold_pool)


def add_import_options(parser: argparse.ArgumentParser) -> dict[str, ImportHandler]:
    """No options of its own (the command's --model, --out and --force serve): `import FOLDER`,
    the official outputs (docs/import.md). `import lm-eval|inspect|eee` are the shared command's."""
    return {IMPORT_DEFAULT: _cmd_import}


def check_data(log: Callable[[str], None]) -> list[dict[str, Any]]:
    """The CSV CIBUZZBENCH_CSV names (or the downloaded copy), validated, with its hashes."""
    return [_checked(dataset_path())]


def fetch_csv(log: Callable[[str], None]) -> None:
    """The CSV, downloaded unless a copy is present; validated only when just downloaded (a
    present copy is validated by every build)."""
    present = resolve_dataset_path(os.environ)
    path = ensure_dataset(os.environ, log=log)
    if present is None:
        try:
            log(_checked(path)["text"])
        except InputError:
            path.unlink(missing_ok=True)  # never leave an invalid download where builds look
            raise


def _cmd_gold_pool(args: argparse.Namespace) -> int:
    """The variant's CSV (dataset text: never commit it) for inspection and other tools;
    builds and `probe --variant NAME` derive the same bytes themselves."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.gold_pool import ensure_gold_pool, read_manifest
    variant = ensure_gold_pool(load_dataset(dataset_path()), args.out, variant=args.variant)
    counts = read_manifest(args.out, args.variant)["counts"]
    with reporting(args.json, command="data gold-pool") as report:
        report.add(f"{variant.path}: {args.variant} variant, content sha256 {variant.content_sha256}; items "
                   f"{counts['items']}, fully within 10% {counts['items_fully_within_10pct']}, widened "
                   f"{counts['items_with_widened_slot']}, unmatched {counts['items_with_unmatched_slot']}",
                   path=str(variant.path), variant=args.variant, content_sha256=variant.content_sha256, **counts)
    return 0


def _checked(path: Path) -> dict[str, Any]:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    ds = load_dataset(path)
    return {"benchmark": "cibuzzbench", "path": str(path), "rows": ds.rows, "file_sha256": ds.file_sha256,
            "content_sha256": ds.content_sha256,
            "text": f"{path}: valid, {ds.rows} rows; file sha256 {ds.file_sha256}; content sha256 {ds.content_sha256}"}


def _cmd_runs(args: argparse.Namespace) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    dataset = load_dataset(dataset_path())
    written = generate_probe_runs(dataset, args.out, created_stamp(), derive_variants(dataset), learned=True)
    with reporting(args.json, command="runs", out=str(args.out)) as report:
        report.add(f"wrote {len(written)} probe runs to {args.out}/", written=[str(path) for path in written])
    return 0


def _cmd_import(args: argparse.Namespace, created: str) -> int:
    """`buzzprobe import FOLDER --model NAME`: the official scripts' outputs for one model and language."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.official_import import import_official
    if args.model is None:
        raise InputError.single("--model", "required when importing official outputs")
    dataset = load_dataset(dataset_path())
    written = import_official(args.results, dataset, model=args.model, out_dir=args.out or "runs/official",
                              created=created, force=args.force)
    for path, changed in written:
        current().add(f"{'wrote' if changed else 'unchanged'} {path}", path=str(path), changed=changed)
    return 0
