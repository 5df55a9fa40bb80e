"""What the CLI imports before a command runs (issue 29 item 2): `buzzprobe --help`, and the
no-change `build` that parses its arguments first, build every parser; the `import` and
`export` parsers read each plug-in's `harness_tasks` flag, so no plug-in's interop hooks (and
with them pandas) load until a harness command runs."""

from __future__ import annotations

import json
import subprocess
import sys

from builder import benchmarks

# Importing any of these means a parser asked a plug-in for its harness part.
NOT_AT_START = ("builder.interop.harness", "builder.interop.command", "pandas", "numpy")


def test_building_the_parser_imports_no_interop_module() -> None:
    code = ("import json, sys; from builder.cli import _parser; _parser(); "
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    assert [m for m in loaded if m in NOT_AT_START or m.endswith(".interop.hooks")] == []


def test_the_flag_says_which_plugins_have_harness_tasks() -> None:
    """The flag the parsers read agrees with the part the commands run."""
    for benchmark in benchmarks.registered():
        assert benchmark.harness_tasks == (benchmark.harness_interop() is not None), benchmark.name
