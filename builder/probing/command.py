"""What every command that asks a model shares (`buzzprobe probe`, builder/commands/probe.py,
and a plug-in's own, e.g. `buzzprobe mouse probe`): the client options, their number checks,
the guarded handler and the run loop with its closing score.

Only argparse is imported at module level, so registering the commands costs nothing for the
other subcommands; the HTTP stack loads when a probe actually runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import traceback
from pathlib import Path
from collections.abc import Callable
from typing import Any

from builder.core.errors import InputError
from builder.core.names import display_name_problem
from builder.core.textfiles import read_input
from builder.runs.lines import LineError, load_line

EXIT_FAILED = 1
EXIT_FATAL = 4
EXIT_INTERRUPTED = 130


def add_client_arguments(p: argparse.ArgumentParser, *, max_tokens_help: str, out_help: str,
                         run_id_help: str, retry_errors_help: str) -> None:
    """The endpoint and client options shared by every command that asks a model."""
    model = p.add_argument_group("model and sampling")
    model.add_argument("--model", required=True, type=model_name, help="model name sent to the endpoint")
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


def number(kind: type, name: str, low: float | None = None, high: float | None = None, *,
           low_open: bool = False) -> Callable[[str], Any]:
    """An argparse type for an int or a finite float within bounds (`low_open`: `low` itself
    is refused). nan and inf are refused: nan silently disables every comparison (e.g. the
    Retry-After cap), and neither can be written to a run as JSON."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {'an integer' if kind is int else 'a number'}: {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        below = low is not None and (value <= low if low_open else value < low)
        if below or (high is not None and value > high):
            raise argparse.ArgumentTypeError(_bounds(low, high, low_open))
        return value
    parse.__name__ = name  # argparse names the type in its messages
    return parse


def _bounds(low: float | None, high: float | None, low_open: bool) -> str:
    if high is not None:
        return f"must be between {low:g} and {high:g}"
    return f"must be more than {low:g}" if low_open else ("must be 0 or more" if low == 0 else f"must be at least {low:g}")


non_negative_int = number(int, "non_negative_int", 0)
positive_int = number(int, "positive_int", 1)
finite_float = number(float, "finite_float")
non_negative_float = number(float, "non_negative_float", 0)
positive_float = number(float, "positive_float", 0, low_open=True)
unit_float = number(float, "unit_float", 0, 1)


def distinct_seeds(args: argparse.Namespace, default: int) -> list[int]:
    """--seeds, each once (default: the benchmark's first seed)."""
    seeds = args.seeds or [default]
    if len(set(seeds)) != len(seeds):
        raise InputError.single("--seeds", "a seed is listed twice")
    return list(seeds)


def model_name(text: str) -> str:
    """A --model value: control characters are refused here, before anything is asked."""
    problem = display_name_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def probe_settings(args: argparse.Namespace, max_tokens: int, selection: Any) -> Any:
    """The engine's settings from the client options every probing command shares."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.probing.client import RetryPolicy
    from builder.probing.runner import ProbeSettings
    return ProbeSettings(
        model=args.model, base_url=args.base_url or "", temperature=args.temperature, top_p=args.top_p,
        max_tokens=max_tokens, selection=selection, concurrency=args.concurrency, timeout=args.timeout,
        policy=RetryPolicy(args.retries, args.backoff, max(60.0, args.backoff), args.max_retry_after),
        progress=not args.quiet)


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
            # deferred: `buzzprobe --help` loads this module and does not need these
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


def execute_plans(plans: list[Any], args: argparse.Namespace, key: str | None, *, command: str = "buzzprobe probe",
                  report: Callable[[Any, Any], None] | None = None) -> int:
    """Dry run, resume, --retry-errors and the exit codes, the same for every benchmark's
    probe command: each plan is run by the one engine (builder.probing.runner)."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    import asyncio

    from builder.probing.client import FatalError, Redactor, url_secrets
    from builder.probing.runner import (
        Prior, check_prompts, drop_errored_items, execute, is_complete, preview, set_aside_if_failed,
    )

    for plan in plans:
        check_prompts(plan)
    if args.dry_run is not None:
        print("\n".join(preview(plan, args.dry_run) for plan in plans))
        return 0
    if key is None:
        print(f"{command}: ${args.api_key_env} is not set; sending no Authorization header", file=sys.stderr)
    redact = Redactor(key, *url_secrets(args.base_url))
    for plan in plans:
        prior: Prior = {}
        if args.retry_errors:
            dropped, prior = drop_errored_items(plan)
            print(f"{plan.path}: re-asking {dropped} errored item(s)", file=sys.stderr)
        elif is_complete(plan):
            if getattr(args, "json", False):
                print(json.dumps(_result(plan, None)))
            else:
                print(f"{plan.path}: already complete, nothing to ask")
                say_score(plan)
            continue
        try:
            outcome = asyncio.run(execute(plan, key, prior=prior))
        except FatalError as exc:
            _say_stopped(command, plan, redact(str(exc)))
            return EXIT_FATAL
        failed = set_aside_if_failed(plan)
        if failed is not None:
            _say_failed(command, plan, outcome, failed[0], redact(failed[1]))
            return EXIT_FAILED
        if getattr(args, "json", False):
            print(json.dumps(_result(plan, outcome)))
        else:
            (report or _report)(plan, outcome)
    return 0


def _say_stopped(command: str, plan: Any, error: str) -> None:
    """A fatal error (a refused key, an unreachable endpoint) stops the command; the run so far
    is kept, so the same command resumes it."""
    kept = (f"the run so far is kept in {plan.path}; fix the cause and re-run the same command to resume"
            if plan.path.exists() else "nothing was written (no item was answered); fix the cause and "
            "re-run the same command")
    print(f"{command}: stopped: {error}\n  {kept}", file=sys.stderr)


def _say_failed(command: str, plan: Any, outcome: Any, moved_to: Path, first_error: str) -> None:
    """A run in which no item was answered was set aside (see set_aside_if_failed): say where,
    and the first error, so the cause can be fixed before asking every item again."""
    print(f"{command}: failed: no item of {plan.header.run_id} was answered ({outcome.errors} of "
          f"{outcome.asked} asked failed after retries; first error: {first_error[:300]}); the run "
          f"is not published: moved to {moved_to}. Check the endpoint, model name and key, then re-run "
          "the same command to ask every item again", file=sys.stderr)


def _result(plan: Any, outcome: Any) -> dict[str, Any]:
    """`probe --json`: one object per run, one line each (outcome None: it was already complete)."""
    out: dict[str, Any] = {"run_id": plan.header.run_id, "path": str(plan.path),
                           "complete": True if outcome is None else outcome.complete,
                           "asked": 0 if outcome is None else outcome.asked,
                           "failed": 0 if outcome is None else outcome.errors}
    if (outcome is None or outcome.complete) and plan.score is not None:
        out["score"], out["gaps"] = plan.score(plan.path)
    if outcome is not None:
        out["usage"] = outcome.usage_totals
    return out


def say_score(plan: Any) -> None:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.probing.summary import describe
    if plan.score is not None:
        for line in describe(*plan.score(plan.path)):
            print(f"  {line}")


def _report(plan: Any, outcome: Any) -> None:
    """What was asked, then (a finished run) its score and any paired gap, then the tokens spent."""
    state = "complete" if outcome.complete else "incomplete"
    print(f"{outcome.path}: {state}; asked {outcome.asked}, {outcome.errors} failed after retries")
    if outcome.complete:
        say_score(plan)
    say_tokens(outcome)
    if outcome.errors:
        print("  failed items are recorded with `error` and count as wrong; "
              "re-ask them with --retry-errors", file=sys.stderr)


def say_tokens(outcome: Any) -> None:
    """The tokens the run spent, when the endpoint counted them."""
    usage = outcome.usage_totals
    if usage.get("prompt_tokens") is not None or usage.get("completion_tokens") is not None:
        print(f"  tokens: {usage.get('prompt_tokens', 0):,} prompt, {usage.get('completion_tokens', 0):,} completion")


def read_runtime_info(path: Path) -> dict[str, Any]:
    """A flat JSON object of strings, numbers and booleans: it goes into run headers verbatim."""
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
