"""The spec'd benchmarks' part of `export|import lm-eval|inspect` (the contract's
`harness_interop`, builder/interop/): `export --benchmark NAME` writes a spec's arms as tasks;
the import reads back the outputs of those tasks (their metadata names the spec), and, with
`--benchmark NAME`, maps the samples of any other multiple-choice task onto that spec."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.interop.importing import convert_exported, exported_benchmark, is_spec_output
from builder.core.errors import InputError, Problem
from builder.interop.harness import HarnessInterop, HarnessOutput
from builder.runs.schema import Run

_EXPORTED = "buzzprobe.export"  # every buzzprobe export schema starts so: such a task is never "foreign"


@dataclass
class SpecHarness(HarnessInterop):
    """A spec'd benchmark's tasks, named by --benchmark (its data loaded once per import)."""

    _data: dict[str, ChoiceSet] = field(default_factory=dict)

    def exports(self, benchmark: str | None) -> bool:
        return benchmark is not None

    def export(self, args: argparse.Namespace) -> list[str]:
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.mcq.interop.export import run_spec_export
        return run_spec_export(args)

    def claims(self, output: HarnessOutput, benchmark: str | None) -> bool:
        """Its own exports' outputs; with --benchmark, any output no buzzprobe export wrote."""
        if is_spec_output(output):
            return True
        meta = output.metadata
        return benchmark is not None and not (isinstance(meta, dict) and str(meta.get("schema", "")).startswith(_EXPORTED))

    def runs(self, outputs: list[HarnessOutput], benchmark: str | None, created: str,
             model: str | None) -> tuple[list[Run], list[Problem], dict[str, str]]:
        # deferred: `buzzprobe --help` loads this module and does not need these
        from builder.benchmarks.mcq.interop.foreign import convert_foreign
        from builder.benchmarks.mcq.results.store import summary
        runs, problems, notes = [], [], {}
        for output in outputs:
            try:
                if is_spec_output(output):
                    runs.append(convert_exported(output, self.data(exported_benchmark(output)), created, model))
                    continue
                imported = convert_foreign(output, self.data(str(benchmark)), created, model)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            runs.append(imported.run)
            notes[imported.run.path] = f"; mapped onto {benchmark}: {summary(imported.run)}"
            for note in imported.notes:
                print(f"{output.path}: note: {note}", file=sys.stderr)
        return runs, problems, notes

    def data(self, name: str) -> ChoiceSet:
        """The spec's audited items, loaded once per benchmark."""
        if name not in self._data:
            # deferred: `buzzprobe --help` loads this module and does not need these
            from builder.benchmarks.mcq.choice_set import choice_set
            from builder.benchmarks.mcq.load import load_benchmark
            from builder.benchmarks.mcq.probe import spec_path
            self._data[name] = choice_set(load_benchmark(spec_path(name, None)))
        return self._data[name]
