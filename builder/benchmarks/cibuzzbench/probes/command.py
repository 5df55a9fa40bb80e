"""CIBuzzBench's part of `buzzprobe probe`: its own options (task, prompt language, option set,
protocol file, runtime info) and the plans of one run per option seed.

The command itself, its shared options and the engine that asks are builder.probing's.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, HARMFULNESS_DETECTION, TASKS
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.run_format import VARIANTS
from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path


def add_probe_options(group: Any) -> None:
    """The options only CIBuzzBench's probe reads (group: builder.commands.probe.OptionGroup)."""
    group.add_argument("--task", choices=TASKS, default="equivalent_selection", help="(default %(default)s)")
    group.add_argument("--lang", choices=("en", "zh"), default="en", help="prompt language (default %(default)s)")
    group.add_argument("--variant", choices=VARIANTS, default="original",
                       help="option set: the official distractors, the article's length-matched gold pool, or "
                            "the gold_pool_slot ablation (docs/gold-pool.md; default %(default)s)")
    group.add_argument("--items", choices=("all",), default=None, help="every item (the default)")
    group.add_argument("--protocols", type=Path, default=None,
                       help="protocol file (default: content/protocols/cibuzzbench.yaml)")
    group.add_argument("--protocol", default=None, metavar="ID",
                       help="a named alternative prompt, e.g. t2-blind-en (default: the protocol marked "
                            "default for the task, condition and language; docs/probing.md lists them)")
    group.add_argument("--runtime-info", type=Path, default=None, metavar="JSON",
                       help="a JSON object describing what serves the model (file sha256, quantisation, runtime "
                            "and version, threads), recorded in each run's header; `make local-serve` writes one")


def probe_plans(args: argparse.Namespace) -> list[Any]:
    """One plan per option seed (Task 3: one plan, no seed)."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.probes.plan import plan_run
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    from builder.probing.command import probe_settings, read_runtime_info
    from builder.probing.options import check_run_options
    from builder.probing.protocols import find_protocol
    from builder.runs.selection import make_selection

    seeds = _seeds(args)
    if args.split not in (None, "train", "test"):
        raise InputError.single("--split", f"CIBuzzBench's splits are train and test, not {args.split!r}")
    if args.items and (args.split or args.sample):
        raise InputError.single("--items", "--items all cannot be combined with --split or --sample")
    out = check_run_options(args, len(seeds))
    protocol = find_protocol(load_protocols(args.protocols) if args.protocols else load_protocols(),
                             args.task, args.condition, args.lang, args.protocol)
    runtime = read_runtime_info(args.runtime_info) if args.runtime_info else None
    settings = probe_settings(args, args.max_tokens or protocol.max_tokens,
                              make_selection(args.split, args.sample, args.sample_seed))
    dataset = load_dataset(dataset_path())
    if args.variant != "original":
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
        dataset = derive_variants(dataset, [args.variant])[args.variant]
    return [plan_run(dataset, protocol, settings, seed, out, args.run_id, args.variant, runtime) for seed in seeds]


def _seeds(args: argparse.Namespace) -> list[int | None]:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.probing.command import distinct_seeds
    if args.task == HARMFULNESS_DETECTION:
        if args.seeds:
            raise InputError.single("--seeds", "harmfulness_detection has no options, so no option seed")
        if args.condition == "blind":
            raise InputError.single("--condition", "the blind condition applies to equivalent_selection only")
        return [None]
    return list(distinct_seeds(args, DEFAULT_SEED))
