"""CIBuzzBench's part of `export|import lm-eval|inspect` (the contract's `harness_interop`,
builder/interop/): its Task 2 sighted/blind and Task 3 tasks out, and back the outputs of the
tasks it wrote (their metadata's schema is METADATA_SCHEMA)."""

from __future__ import annotations

import argparse
from typing import Any

from builder.benchmarks.cibuzzbench.interop.spec import METADATA_SCHEMA
from builder.core.errors import InputError, Problem
from builder.interop.harness import HarnessInterop, HarnessOutput
from builder.runs.schema import Run
from builder.probing.command import distinct_seeds


class CIBuzzBenchHarness(HarnessInterop):
    """CIBuzzBench's tasks: `export lm-eval|inspect` without --benchmark."""

    def exports(self, benchmark: str | None) -> bool:
        return benchmark is None

    def export(self, args: argparse.Namespace) -> list[str]:
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.cibuzzbench.interop.export import (ExportRequest, export_inspect, export_lm_eval,
                                                                   plan_exports)
        from builder.benchmarks.cibuzzbench.prompts import DEFAULT_PROTOCOLS, load_protocols
        from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
        from builder.runs.selection import make_selection
        if args.split not in (None, "train", "test"):
            raise InputError.single("--split", f"CIBuzzBench's splits are train and test, not {args.split!r}")
        seeds = distinct_seeds(args, DEFAULT_SEED)
        dataset = _variant(args.variant)
        request = ExportRequest(tuple(dict.fromkeys(args.arms)), args.lang, tuple(seeds), args.variant,
                                make_selection(args.split, args.sample, args.sample_seed), tuple(args.protocol))
        tasks = plan_exports(request, load_protocols(args.protocols or DEFAULT_PROTOCOLS), dataset)
        write = export_lm_eval if args.harness == "lm-eval" else export_inspect
        return [f"wrote {path}" for path in write(tasks, dataset, args.out)] + \
            [f"{len(tasks)} task(s): {', '.join(t.name for t in tasks)}"]

    def claims(self, output: HarnessOutput, benchmark: str | None) -> bool:
        return isinstance(output.metadata, dict) and output.metadata.get("schema") == METADATA_SCHEMA

    def runs(self, outputs: list[HarnessOutput], benchmark: str | None, created: str,
             model: str | None) -> tuple[list[Run], list[Problem], dict[str, str]]:
        """Each output checked against the CSV (the variant its task names) and the protocols."""
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
        from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
        from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
        from builder.benchmarks.cibuzzbench.interop.importing import convert
        from builder.benchmarks.cibuzzbench.prompts import load_protocols
        dataset = load_dataset(dataset_path())
        datasets = {"original": dataset}
        if any(output.metadata.get("variant", "original") != "original" for output in outputs):
            datasets.update(derive_variants(dataset))  # seconds of work: only when a task needs it
        protocols = load_protocols()
        runs, problems = [], []
        for output in outputs:
            try:
                runs.append(convert(output, datasets, protocols, created, model))
            except InputError as exc:
                problems.extend(exc.problems)
        return runs, problems, {}


def _variant(name: str) -> Any:
    """The CSV, or its gold-pool variant."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    dataset = load_dataset(dataset_path())
    if name == "original":
        return dataset
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    return derive_variants(dataset)[name]
