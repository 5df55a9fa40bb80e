"""Command line: `buzzprobe build`, then the commands every benchmark shares (builder/commands/:
`probe`, `score`, `list`, `data`, `import`, `export`, `audit`; each plug-in contributes through
the contract), then the commands one benchmark has (its plug-in adds them: CIBuzzBench `runs`,
Mouse `mouse …`).

Heavy libraries are imported inside commands so that `build` can answer
"nothing changed" in a fraction of a second.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from builder import __version__
from builder import benchmarks  # the module, so a test's stand-in registry applies
from builder.commands import add_shared_commands
from builder.core.errors import DownloadError, InputError
from builder.core.redact import safe_message

EXIT_INPUT = 2
EXIT_FETCH = 3


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        return int(args.handler(args) or 0)
    except InputError as exc:
        print(f"buzzprobe: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except DownloadError as exc:
        print(f"buzzprobe: {safe_message(str(exc))}", file=sys.stderr)
        return EXIT_FETCH
    except KeyboardInterrupt:  # one line, not a traceback: whatever was written stays consistent
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C while workers wind down changes nothing
        print("buzzprobe: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `buzzprobe list runs | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    finally:
        _stop_workers()


def _stop_workers() -> None:
    """End any worker pool still computing (audits after a Ctrl-C or a failed build): no one will
    read its results, and leaving would otherwise wait for them. Without the module loaded no pool
    was made, so a quick command does not pay for importing it."""
    workers = sys.modules.get("builder.core.workers")
    if workers is not None:
        workers.stop_all()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="buzzprobe", description=__doc__)
    parser.add_argument("--version", action="version", version=f"buzzprobe {__version__}")
    sub = parser.add_subparsers(required=True, metavar="command")

    build = sub.add_parser("build", help="build the static site into site/")
    build.add_argument("--out", type=Path, default=Path("site"),
                       help="folder the site is written to, replaced whole on success (default %(default)s)")
    build.add_argument("--runs", type=Path, default=None,
                       help="folder of run files, searched recursively (default runs)")
    build.add_argument("--content", type=Path, default=None,
                       help="folder of pages, templates, specs and claims (default content)")
    build.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    build.add_argument("--json", action="store_true",
                       help="print the result as one JSON object (the stages still go to stderr)")
    build.set_defaults(handler=_cmd_build)

    add_shared_commands(sub)
    for benchmark in benchmarks.registered():
        benchmark.add_commands(sub)
    return parser


def _cmd_build(args: argparse.Namespace) -> int:
    # deferred: `build` alone loads the pipeline, and a no-change build answers with little more
    from builder.pipeline import BuildConfig, build
    from builder.probing.progress import stages
    runs, content = (_given_folder(args.runs, "--runs"), _given_folder(args.content, "--content"))
    start = time.perf_counter()
    stage = stages("build")  # one line per stage, on stderr: stdout keeps the one-line result

    result = build(BuildConfig(runs_dir=runs or Path("runs"), content_dir=content or Path("content"), out=args.out,
                               force=args.force, progress=stage))
    took = time.perf_counter() - start
    if args.json:
        print(json.dumps({"out": str(args.out), "skipped": result.skipped, "files": result.files,
                          "facts": result.facts, "runs": result.runs, "seconds": round(took, 2)}))
    elif result.skipped:
        print(f"site is up to date ({args.out}/), nothing to do [{took:.2f}s]")
    else:
        print(f"built {args.out}/: {result.files} files, {result.facts} facts from {result.runs} runs [{took:.2f}s]")
    return 0


def _given_folder(path: Path | None, flag: str) -> Path | None:
    """A folder named on the command line must exist: a typo would otherwise build a site from
    nothing (0 runs) and exit 0. The defaults keep their quiet meaning (no runs yet)."""
    if path is not None and not path.is_dir():
        raise InputError.single(flag, f"{path} is not a folder" if path.exists() else f"no such folder: {path}")
    return path


def run() -> None:
    """The `buzzprobe` command: main(), then the exit handlers (the audit pools', the collector's
    of a coverage or profiling tool) and the output flushed, then the process ends without the
    interpreter's teardown, which frees one by one every object a build held (half a second of a
    warm build: 424,000 imported items). In-process callers (tests) call main(). With another
    thread still alive (the interpreter would wait for it) or under a profiler (cProfile writes
    its file after this returns), the process ends as usual."""
    code = main()
    if sys.getprofile() is not None or threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # what the interpreter's exit would run first; the teardown is what is skipped
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left (`| head`), or a stream already closed
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
