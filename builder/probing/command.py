"""`buzzprobe probe`: ask a model on an OpenAI-compatible endpoint and write one run per seed,
for whichever benchmark `--benchmark NAME` names (the CLI hands it the registry, which finds the
plug-in that probes it), plus what every command that asks a model shares: the client options, their number checks,
the guarded handler and the run loop.

The command's own options are the ones every probing plug-in reads (benchmark, condition,
items, seeds, model and client); each plug-in adds its own in a group of its own, and a value
given for another plug-in's option is refused rather than ignored. Only argparse is imported at
module level, so registering the command costs nothing for the other subcommands; the HTTP
stack loads when a probe actually runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import traceback
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

from builder.core.errors import InputError
from builder.core.names import display_name_problem
from builder.core.textfiles import read_input
from builder.runs.lines import LineError, load_line

EXIT_FAILED = 1
EXIT_FATAL = 4
EXIT_INTERRUPTED = 130


class ProbingPlugin(Protocol):
    """What `probe` reads of a plug-in (builder.benchmarks.base.Benchmark): the CLI hands the
    command the registry's plug-ins and its owner rule, so this layer names neither."""

    name: ClassVar[str]
    title: ClassVar[str]
    probes: ClassVar[bool]
    probe_default: ClassVar[bool]

    def add_probe_options(self, group: Any) -> None: ...

    def probe_plans(self, args: argparse.Namespace) -> list[Any]: ...


class OptionGroup:
    """A plug-in's argument group on `buzzprobe probe` that remembers what it added, so the
    command can refuse those options when another benchmark is asked."""

    def __init__(self, group: argparse._ArgumentGroup):
        self._group, self.actions = group, list[argparse.Action]()

    def add_argument(self, *flags: str, **kwargs: Any) -> argparse.Action:
        action = self._group.add_argument(*flags, **kwargs)
        self.actions.append(action)
        return action


def add_probe_parser(sub: Any, plugins: Sequence[ProbingPlugin],
                     owner: Callable[[str], ProbingPlugin | None]) -> None:
    """Register `probe` on the CLI's subparsers, with every probing plug-in's options; `owner`
    names the plug-in that plans a `--benchmark` (builder.benchmarks.probe_owner)."""
    registered = [b for b in plugins if b.probes]
    p = sub.add_parser("probe", help="ask a model (OpenAI-compatible endpoint) and write runs",
                       description="Ask a model on an OpenAI-compatible /v1/chat/completions endpoint "
                                   "and write one run per option seed. See docs/probing.md.")
    what = p.add_argument_group("what to ask")
    names = ", ".join(b.name for b in registered)
    what.add_argument("--benchmark", default=None, metavar="NAME",
                      help=f"the benchmark to ask: {names}, or a spec'd multiple-choice benchmark's name "
                           "(default: the benchmark whose options are given, else the default one)")
    what.add_argument("--condition", choices=("sighted", "blind"), default="sighted",
                      help="blind: without what the benchmark hides (CIBuzzBench's term, a spec'd "
                           "benchmark's question); default %(default)s")
    what.add_argument("--split", help="only this split (or a sample within it)")
    what.add_argument("--sample", type=positive_int, metavar="N", help="a seeded sample of N items")
    what.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default %(default)s)")
    what.add_argument("--seeds", type=int, nargs="+", metavar="SEED",
                      help="option-shuffle seeds, one run each (default: the benchmark's first)")
    own = {b.name: OptionGroup(p.add_argument_group(f"{b.title} only")) for b in registered}
    for benchmark in registered:
        benchmark.add_probe_options(own[benchmark.name])
    add_client_arguments(
        p, max_tokens_help="output budget (default: the protocol's; 8 for a letter)",
        out_help="output file; {run_id} and {model_slug} are filled in (default runs/{model_slug}/{run_id}.jsonl)",
        run_id_help="override the derived run id (single seed only)",
        retry_errors_help="re-ask the items whose line records an error (the file is rewritten without them)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per run (score, intervals, paired gaps, usage) instead of text")
    p.set_defaults(handler=guarded(lambda args, key: _run(args, key, own, registered, owner), "probe"))


def _run(args: argparse.Namespace, key: str | None, own: dict[str, OptionGroup],
         plugins: Sequence[ProbingPlugin], probe_owner: Callable[[str], ProbingPlugin | None]) -> int:
    """The plug-in that probes `--benchmark` plans the runs; the one engine asks them."""
    given = {name: [a for a in group.actions if getattr(args, a.dest) != a.default] for name, group in own.items()}
    if args.benchmark is None:
        used = [name for name, actions in given.items() if actions]
        args.benchmark = used[0] if len(used) == 1 else next(b.name for b in plugins if b.probe_default)
    owner = probe_owner(args.benchmark)
    if owner is None:
        raise InputError.single("--benchmark", f"no plug-in probes {args.benchmark!r}")
    for name, actions in sorted(given.items()):
        if name != owner.name and actions:
            flag = actions[0].option_strings[0]
            raise InputError.single(flag, f"an option of {name}'s probe; {args.benchmark} does not read it")
    return execute_plans(owner.probe_plans(args), args, key)


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
                _say_score(plan)
            continue
        try:
            outcome = asyncio.run(execute(plan, key, prior=prior))
        except FatalError as exc:
            kept = (f"the run so far is kept in {plan.path}; fix the cause and re-run the same command to resume"
                    if plan.path.exists() else "nothing was written (no item was answered); fix the cause and "
                    "re-run the same command")
            print(f"{command}: stopped: {redact(str(exc))}\n  {kept}", file=sys.stderr)
            return EXIT_FATAL
        failed = set_aside_if_failed(plan)
        if failed is not None:
            print(f"{command}: failed: no item of {plan.header.run_id} was answered ({outcome.errors} of "
                  f"{outcome.asked} asked failed after retries; first error: {redact(failed[1])[:300]}); the run "
                  f"is not published: moved to {failed[0]}. Check the endpoint, model name and key, then re-run "
                  "the same command to ask every item again", file=sys.stderr)
            return EXIT_FAILED
        if getattr(args, "json", False):
            print(json.dumps(_result(plan, outcome)))
        else:
            (report or _report)(plan, outcome)
    return 0


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


def _say_score(plan: Any) -> None:
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
        _say_score(plan)
    usage = outcome.usage_totals
    if usage.get("prompt_tokens") is not None or usage.get("completion_tokens") is not None:
        print(f"  tokens: {usage.get('prompt_tokens', 0):,} prompt, {usage.get('completion_tokens', 0):,} completion")
    if outcome.errors:
        print("  failed items are recorded with `error` and count as wrong; "
              "re-ask them with --retry-errors", file=sys.stderr)


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
