"""`buzzprobe export lm-eval|inspect --benchmark NAME`: a spec'd benchmark's sighted and blind
arms as the harness's tasks, written by the same writers as CIBuzzBench's
(builder/interop/writers.py), into the user's folder only."""

from __future__ import annotations

import argparse

from builder.core.errors import InputError
from builder.core.names import identifier
from builder.probing.command import distinct_seeds


def run_spec_export(args: argparse.Namespace) -> list[str]:
    """The lines to print: each file written, then the tasks."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.interop.writers import export_inspect, export_lm_eval
    from builder.benchmarks.mcq import shuffle
    from builder.benchmarks.mcq.choice_set import choice_set
    from builder.benchmarks.mcq.load import load_benchmark
    from builder.benchmarks.mcq.probe import DEFAULT_MAX_TOKENS, spec_path
    from builder.benchmarks.mcq.interop.tasks import plan_spec_tasks
    from builder.runs.selection import make_selection
    _refuse_cibuzzbench_options(args)
    data = choice_set(load_benchmark(spec_path(args.benchmark, None)))
    spec = data.benchmark.spec
    if args.split is not None and spec.split is None:
        raise InputError.single("--split", f"{spec.name} has no splits (its spec names no split field)")
    seeds = tuple(distinct_seeds(args, shuffle.SEEDS[0]))
    conditions = tuple(dict.fromkeys(args.condition or ("sighted", "blind")))
    tasks = plan_spec_tasks(data, conditions, seeds, make_selection(args.split, args.sample, args.sample_seed),
                            DEFAULT_MAX_TOKENS)
    if args.harness == "lm-eval":
        written = export_lm_eval(tasks, data, args.out, tag=f"{identifier(spec.name)}_buzzprobe")
    else:
        written = export_inspect(tasks, data, args.out, filename=inspect_file(spec.name), title=spec.title)
    return [f"wrote {path}" for path in written] + [f"{len(tasks)} task(s): {', '.join(t.name for t in tasks)}"]


def inspect_file(benchmark: str) -> str:
    """The Inspect task file of a spec: `<name>_tasks.py` (an importable module name)."""
    return f"{identifier(benchmark)}_tasks.py"


def _refuse_cibuzzbench_options(args: argparse.Namespace) -> None:
    """Options that shape CIBuzzBench's tasks only: said, not silently ignored."""
    given = [name for name, value, default in (("--protocol", getattr(args, "protocol", []), []),
                                               ("--variant", getattr(args, "variant", "original"), "original"),
                                               ("--lang", getattr(args, "lang", "en"), "en"),
                                               ("--protocols", getattr(args, "protocols", None), None))
             if value != default]
    if getattr(args, "arms", None) not in (None, ["t2-sighted", "t2-blind", "t3"]):
        given.append("--arms")
    if given:
        raise InputError.single(given[0], f"{', '.join(given)} shape CIBuzzBench's tasks; a spec'd benchmark's "
                                "arms are chosen with --condition sighted|blind")
