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


def test_the_command_ends_after_the_exit_handlers_with_its_output_and_code(tmp_path) -> None:
    """cli.run skips the interpreter's teardown (an object's finaliser never runs), not what exit
    does before it: the exit handlers run, everything printed arrives, the exit code is main()'s;
    and a second thread still alive gets the usual exit (the interpreter waits for it)."""
    code = ("import atexit, sys, threading, time; from builder import cli; "
            "Loud = type('Loud', (), {'__del__': lambda self: print('torn down')}); kept = Loud(); "
            "atexit.register(lambda: print('exit handler ran')); "
            "late = sys.argv.pop() == 'thread'; "
            "late and threading.Thread(target=lambda: (time.sleep(0.3), print('thread finished'))).start(); "
            "sys.argv = ['buzzprobe', 'list', 'runs', '--runs', sys.argv[1]]; cli.run()")
    (tmp_path / "runs").mkdir()
    for mode in ("alone", "thread"):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "runs"), mode], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "exit handler ran" in done.stdout, done.stdout
        assert ("thread finished" in done.stdout) == ("torn down" in done.stdout) == (mode == "thread")
    missing = subprocess.run([sys.executable, "-c", code, str(tmp_path / "none"), "alone"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and "buzzprobe:" in missing.stderr and "exit handler ran" in missing.stdout


def test_the_rankers_modules_load_scipy_sparse_only_when_a_fit_uses_it() -> None:
    """A warm build imports the ranker (cached audits name its classes) but fits nothing: its
    modules take scipy.sparse from ranker.sparse, registered lazily (core.lazy_module), about
    0.11 s of start-up saved; the first use loads it whole."""
    code = ("import json, sys; import builder.benchmarks.mcq.analyses.audit, builder.ranker.cues as cues; "
            "before = type(sys.modules['scipy.sparse']).__name__; "
            "matrix = cues.sp.csr_matrix([[1, 0]]); "
            "print(json.dumps([before, type(sys.modules['scipy.sparse']).__name__, int(matrix.nnz)]))")
    found = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                      check=True).stdout)
    assert found == ["_LazyModule", "module", 1]
