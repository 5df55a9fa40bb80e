"""Which harness outputs are a spec'd benchmark's, and their runs: the outputs of tasks
`export --benchmark NAME` wrote (their metadata names the spec), and, when the user gives
`--benchmark NAME`, every other task's samples mapped onto that spec (foreign.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from builder.benchmarks.cibuzzbench.interop.importing import HarnessOutput
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.interop.importing import convert_exported, exported_benchmark, is_spec_output
from builder.core.errors import InputError, Problem
from builder.runs.schema import Run


@dataclass
class SpecOutputs:
    """The outputs a spec'd benchmark reads: exported tasks', and foreign ones mapped to `benchmark`."""

    exported: list[HarnessOutput] = field(default_factory=list)
    foreign: list[HarnessOutput] = field(default_factory=list)
    benchmark: str | None = None
    _data: dict[str, ChoiceSet] = field(default_factory=dict)

    def convert(self, created: str, model: str | None) -> tuple[list[Run], list[Problem], dict[str, str]]:
        """(runs, problems, a note per run path to print after it)."""
        from builder.benchmarks.mcq.interop.foreign import convert_foreign
        from builder.benchmarks.mcq.results.store import summary
        runs, problems, notes = [], [], {}
        for output, exported in [(o, True) for o in self.exported] + [(o, False) for o in self.foreign]:
            try:
                if exported:
                    runs.append(convert_exported(output, self.data(exported_benchmark(output)), created, model))
                    continue
                imported = convert_foreign(output, self.data(str(self.benchmark)), created, model)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            runs.append(imported.run)
            notes[imported.run.path] = f"; mapped onto {self.benchmark}: {summary(imported.run)}"
            for note in imported.notes:
                print(f"{output.path}: note: {note}", file=sys.stderr)
        return runs, problems, notes

    def data(self, name: str) -> ChoiceSet:
        """The spec's audited items, loaded once per benchmark."""
        if name not in self._data:
            from builder.benchmarks.mcq.choice_set import choice_set
            from builder.benchmarks.mcq.load import load_benchmark
            from builder.benchmarks.mcq.probe import spec_path
            self._data[name] = choice_set(load_benchmark(spec_path(name, None)))
        return self._data[name]


def spec_runs(outputs: Sequence[HarnessOutput], benchmark: str | None) -> tuple[SpecOutputs, list[HarnessOutput]]:
    """(the spec'd benchmarks' outputs, CIBuzzBench's). With `benchmark`, an output that names
    no buzzprobe export is mapped onto it; a CIBuzzBench export stays CIBuzzBench's."""
    from builder.benchmarks.cibuzzbench.interop.spec import METADATA_SCHEMA
    found = SpecOutputs(benchmark=benchmark)
    others = []
    for output in outputs:
        cibuzzbench = isinstance(output.metadata, dict) and output.metadata.get("schema") == METADATA_SCHEMA
        if is_spec_output(output):
            found.exported.append(output)
        elif benchmark is not None and not cibuzzbench:
            found.foreign.append(output)
        else:
            others.append(output)
    return found, others
