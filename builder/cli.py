"""Command line: `buzzprobe build` and `buzzprobe probe` (any benchmark a plug-in probes), plus
each benchmark's subcommands (its plug-in adds them: CIBuzzBench `data | runs | import | export`,
Mouse `mouse …`, the spec'd benchmarks `audit`).

Heavy libraries are imported inside commands so that `build` can answer
"nothing changed" in a fraction of a second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from builder.core.errors import DownloadError, InputError

EXIT_INPUT = 2
EXIT_FETCH = 3


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except InputError as exc:
        print(f"buzzprobe: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except DownloadError as exc:
        from builder.core.redact import safe_message
        print(f"buzzprobe: {safe_message(str(exc))}", file=sys.stderr)
        return EXIT_FETCH


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="buzzprobe", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="command")

    build = sub.add_parser("build", help="build the static site into site/")
    build.add_argument("--out", type=Path, default=Path("site"))
    build.add_argument("--runs", type=Path, default=Path("runs"))
    build.add_argument("--content", type=Path, default=Path("content"))
    build.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    build.set_defaults(handler=_cmd_build)

    from builder.benchmarks import registered
    from builder.probing.command import add_probe_parser
    add_probe_parser(sub)
    for benchmark in registered():
        benchmark.add_commands(sub)
    return parser


def _cmd_build(args: argparse.Namespace) -> int:
    from builder.pipeline import BuildConfig, build
    start = time.perf_counter()
    result = build(BuildConfig(runs_dir=args.runs, content_dir=args.content, out=args.out, force=args.force))
    took = time.perf_counter() - start
    if result.skipped:
        print(f"site is up to date ({args.out}/), nothing to do [{took:.2f}s]")
    else:
        print(f"built {args.out}/: {result.files} files, {result.facts} facts from {result.runs} runs [{took:.2f}s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
