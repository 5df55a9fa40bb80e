"""`buzzprobe probe`: ask a model on an OpenAI-compatible endpoint and write one run per seed.

Only argparse is imported at module level, so registering the command costs nothing for the
other subcommands; the HTTP stack loads when a probe actually runs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import traceback
from pathlib import Path
from collections.abc import Callable
from typing import Any

from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, TASKS
from builder.core.errors import InputError
from builder.runs.schema import VARIANTS

EXIT_FAILED = 1
EXIT_FATAL = 4
EXIT_INTERRUPTED = 130


def add_probe_parser(sub: Any) -> None:
    """Register the subcommand on the CLI's subparsers."""
    p = sub.add_parser("probe", help="ask a model (OpenAI-compatible endpoint) and write runs",
                       description="Ask a model on an OpenAI-compatible /v1/chat/completions endpoint "
                                   "and write one run per option seed. See docs/probing.md.")
    what = p.add_argument_group("what to ask")
    what.add_argument("--benchmark", default="cibuzzbench", metavar="NAME",
                      help="cibuzzbench (default), or a spec'd multiple-choice benchmark: content/benchmarks/NAME.yaml "
                           "(docs/audit.md)")
    what.add_argument("--spec", type=Path, default=None, metavar="PATH",
                      help="a multiple-choice benchmark's spec file (instead of content/benchmarks/NAME.yaml)")
    what.add_argument("--task", choices=TASKS, default="equivalent_selection", help="(default %(default)s)")
    what.add_argument("--condition", choices=("sighted", "blind"), default="sighted",
                      help="blind: Task 2 without the Chinese term, or a spec'd benchmark without its question "
                           "(default %(default)s)")
    what.add_argument("--lang", choices=("en", "zh"), default="en", help="prompt language (default %(default)s)")
    what.add_argument("--variant", choices=VARIANTS, default="original",
                      help="option set: the official distractors, the article's length-matched gold pool, or "
                           "the gold_pool_slot ablation (docs/gold-pool.md; default %(default)s)")
    what.add_argument("--items", choices=("all",), default=None, help="every item (the default)")
    what.add_argument("--split", help="only this split (or sample within it): CIBuzzBench train or test; a spec'd "
                                      "benchmark's split values")
    what.add_argument("--sample", type=positive_int, metavar="N", help="a seeded sample of N items")
    what.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default %(default)s)")
    what.add_argument("--seeds", type=int, nargs="+", metavar="SEED",
                      help=f"option-shuffle seeds, one run each (Task 2; default {DEFAULT_SEED})")
    what.add_argument("--protocols", type=Path, default=None,
                      help="protocol file (default: content/protocols/cibuzzbench.yaml)")
    what.add_argument("--protocol", default=None, metavar="ID",
                      help="a named alternative prompt, e.g. t2-blind-en (default: the protocol marked "
                           "default for the task, condition and language; docs/probing.md lists them)")
    what.add_argument("--runtime-info", type=Path, default=None, metavar="JSON",
                      help="a JSON object describing what serves the model (file sha256, quantisation, runtime "
                           "and version, threads), recorded in each run's header; `make local-serve` writes one")

    add_client_arguments(
        p, max_tokens_help="output budget (default: the protocol's, 8 for both tasks as officially)",
        out_help="output file; {run_id} and {model_slug} are filled in (default runs/{model_slug}/{run_id}.jsonl)",
        run_id_help="override the derived run id (single seed only)",
        retry_errors_help="re-ask the items whose line records an error (the file is rewritten without them)")
    p.set_defaults(handler=guarded(_run, "probe"))


def add_client_arguments(p: argparse.ArgumentParser, *, max_tokens_help: str, out_help: str,
                         run_id_help: str, retry_errors_help: str) -> None:
    """The endpoint and client options shared by every command that asks a model."""
    model = p.add_argument_group("model and sampling")
    model.add_argument("--model", required=True, help="model name sent to the endpoint")
    model.add_argument("--base-url", help="e.g. http://127.0.0.1:8000/v1 (required unless --dry-run)")
    model.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                       help="environment variable holding the API key (default %(default)s; "
                            "unset: no Authorization header)")
    model.add_argument("--temperature", type=non_negative_float, default=0.0, help="(default %(default)s, as officially)")
    model.add_argument("--top-p", type=unit_float, default=None, help="sent only when given (0 to 1)")
    model.add_argument("--max-tokens", type=positive_int, default=None, help=max_tokens_help)

    how = p.add_argument_group("how to ask")
    how.add_argument("--concurrency", type=positive_int, default=8,
                     help="requests in flight at most (default %(default)s)")
    how.add_argument("--timeout", type=positive_float, default=60.0,
                     help="seconds per request attempt (default %(default)s)")
    how.add_argument("--retries", type=non_negative_int, default=4,
                     help="extra attempts on 429/5xx/timeouts/drops (default %(default)s)")
    how.add_argument("--backoff", type=non_negative_float, default=1.0,
                     help="first retry wait in seconds, doubling, with jitter (default %(default)s)")
    how.add_argument("--max-retry-after", type=non_negative_float, default=300.0,
                     help="clamp a server's Retry-After, seconds (default %(default)s)")
    how.add_argument("--out", default=None, metavar="TEMPLATE", help=out_help)
    how.add_argument("--run-id", default=None, help=run_id_help)
    how.add_argument("--retry-errors", action="store_true", help=retry_errors_help)
    how.add_argument("--dry-run", nargs="?", type=int, const=3, default=None, metavar="N",
                     help="print the exact request bodies of the first N items (default 3); no network, no files")
    how.add_argument("--quiet", action="store_true", help="no progress bar")


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def finite_float(text: str) -> float:
    """A real number: nan and inf are refused (nan silently disables every comparison,
    e.g. the Retry-After cap, and neither can be written to a run as JSON)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def positive_float(text: str) -> float:
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def unit_float(text: str) -> float:
    value = finite_float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def guarded(run: Callable[[argparse.Namespace, str | None], int], command: str) -> Callable[[argparse.Namespace], int]:
    """A probe handler: InputError goes to the CLI (exit 2); an interrupt says how to resume;
    anything unexpected is printed with the key and URL credentials scrubbed, never raw."""
    def handler(args: argparse.Namespace) -> int:
        key = read_api_key(args.api_key_env)
        try:
            return run(args, key)
        except InputError:
            raise
        except KeyboardInterrupt:
            print(f"buzzprobe {command}: interrupted; re-run the same command to resume", file=sys.stderr)
            return EXIT_INTERRUPTED
        except OSError as exc:  # disk full, read-only or vanished folder: what and where, no traceback
            where = f" ({exc.filename})" if exc.filename else ""
            print(f"buzzprobe {command}: cannot read or write a file: {exc.strerror or exc}{where}; every item "
                  "already written is kept: free the space (or fix the folder) and re-run the same command "
                  "to resume", file=sys.stderr)
            return EXIT_FAILED
        except Exception:
            from builder.probing.client import Redactor, url_secrets
            redact = Redactor(key, *url_secrets(args.base_url or ""))
            print(redact(traceback.format_exc()), file=sys.stderr)
            return EXIT_FAILED
    return handler


def read_api_key(name: str) -> str | None:
    """The key from the environment, trimmed. A key with inner whitespace or non-ASCII
    characters is refused before any request, because HTTP libraries quote an invalid header
    value in their error messages, in an escaped form no redaction would recognise."""
    key = (os.environ.get(name) or "").strip()
    if key and not all("!" <= ch <= "~" for ch in key):
        raise InputError.single(f"${name}", "the API key contains whitespace or non-ASCII characters "
                                "(the key itself is not shown)")
    return key or None


def _run(args: argparse.Namespace, key: str | None) -> int:
    if args.spec is not None or args.benchmark != "cibuzzbench":
        from builder.benchmarks.mcq.probe import spec_plans
        return execute_plans(spec_plans(args), args, key)
    return execute_plans(_plans(args), args, key)


def execute_plans(plans: list[Any], args: argparse.Namespace, key: str | None, *, command: str = "buzzprobe probe",
                  report: Callable[[Any, Any], None] | None = None) -> int:
    """Dry run, resume, --retry-errors and the exit codes, the same for every benchmark's
    probe command: each plan is run by the one engine (builder.probing.runner)."""
    import asyncio

    from builder.probing.client import FatalError, Redactor, url_secrets
    from builder.probing.runner import check_prompts, drop_errored_items, execute, is_complete, preview

    for plan in plans:
        check_prompts(plan)
    if args.dry_run is not None:
        print("\n".join(preview(plan, args.dry_run) for plan in plans))
        return 0
    if key is None:
        print(f"{command}: ${args.api_key_env} is not set; sending no Authorization header", file=sys.stderr)
    redact = Redactor(key, *url_secrets(args.base_url))
    for plan in plans:
        prior = {}
        if args.retry_errors:
            dropped, prior = drop_errored_items(plan)
            print(f"{plan.path}: re-asking {dropped} errored item(s)", file=sys.stderr)
        elif is_complete(plan):
            print(f"{plan.path}: already complete, nothing to ask")
            continue
        try:
            outcome = asyncio.run(execute(plan, key, prior=prior))
        except FatalError as exc:
            print(f"{command}: stopped: {redact(str(exc))}\n  the run so far is kept in "
                  f"{plan.path}; fix the cause and re-run the same command to resume", file=sys.stderr)
            return EXIT_FATAL
        (report or _report)(plan, outcome)
    return 0


def _report(plan: Any, outcome: Any) -> None:
    state = "complete" if outcome.complete else "incomplete"
    print(f"{outcome.path}: {state}; asked {outcome.asked}, {outcome.errors} failed after retries; "
          f"usage {outcome.usage_totals}")
    if outcome.errors:
        print("  failed items are recorded with `error` and count as wrong; "
              "re-ask them with --retry-errors", file=sys.stderr)


def _plans(args: argparse.Namespace) -> list[Any]:
    from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.probing.client import RetryPolicy
    from builder.probing.protocols import DEFAULT_PROTOCOLS, find_protocol, load_protocols
    from builder.probing.runner import ProbeSettings, plan_run
    from builder.probing.selection import make_selection

    seeds = _seeds(args)
    if args.split not in (None, "train", "test"):
        raise InputError.single("--split", f"CIBuzzBench's splits are train and test, not {args.split!r}")
    if args.items and (args.split or args.sample):
        raise InputError.single("--items", "--items all cannot be combined with --split or --sample")
    from builder.probing.options import check_run_options
    out = check_run_options(args, len(seeds))
    protocol = find_protocol(load_protocols(args.protocols or DEFAULT_PROTOCOLS),
                             args.task, args.condition, args.lang, args.protocol)
    runtime = read_runtime_info(args.runtime_info) if args.runtime_info else None
    settings = ProbeSettings(
        model=args.model, base_url=args.base_url or "", temperature=args.temperature, top_p=args.top_p,
        max_tokens=args.max_tokens or protocol.max_tokens,
        selection=make_selection(args.split, args.sample, args.sample_seed),
        concurrency=args.concurrency, timeout=args.timeout,
        policy=RetryPolicy(args.retries, args.backoff, max(60.0, args.backoff), args.max_retry_after),
        progress=not args.quiet)
    dataset = load_dataset(dataset_path())
    if args.variant != "original":
        from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
        dataset = derive_variants(dataset, [args.variant])[args.variant]
    return [plan_run(dataset, protocol, settings, seed, out, args.run_id, args.variant, runtime) for seed in seeds]


def read_runtime_info(path: Path) -> dict[str, Any]:
    """A flat JSON object of strings, numbers and booleans: it goes into run headers verbatim."""
    import math

    from builder.core.textfiles import read_input
    from builder.runs.lines import LineError, load_line
    try:
        data = load_line(read_input(path, 1024 * 1024))
    except (OSError, LineError) as exc:
        raise InputError.single(path, f"cannot read runtime info: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise InputError.single(path, "runtime info must be a non-empty JSON object", line=1)
    bad = sorted(k for k, v in data.items() if not isinstance(v, (str, int, float, bool)) or
                 (isinstance(v, float) and not math.isfinite(v)))
    if bad:
        raise InputError.single(path, "values must be strings, numbers or booleans", field=", ".join(bad))
    return data


def _seeds(args: argparse.Namespace) -> list[int | None]:
    if args.task == "harmfulness_detection":
        if args.seeds:
            raise InputError.single("--seeds", "harmfulness_detection has no options, so no option seed")
        if args.condition == "blind":
            raise InputError.single("--condition", "the blind condition applies to equivalent_selection only")
        return [None]
    seeds = args.seeds or [DEFAULT_SEED]
    if len(set(seeds)) != len(seeds):
        raise InputError.single("--seeds", "a seed is listed twice")
    return list(seeds)
