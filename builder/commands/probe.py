"""`buzzprobe probe --benchmark NAME`: ask a model on an OpenAI-compatible endpoint and write one
run per seed, for whichever plug-in probes NAME (the registry's `probe_owner`).

The command's own options are the ones every probing plug-in reads (benchmark, condition,
items, seeds, model and client: builder/probing/command.py); each plug-in adds its own in a
group of its own (`add_probe_options`), and a value given for another plug-in's option is
refused rather than ignored. A name no plug-in probes is answered with the names there are,
each with its plug-in (`probe_names`), and the closest one.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.probing.command import add_client_arguments, execute_plans, guarded, positive_int
from builder import benchmarks  # the module, so a test's stand-in registry applies
from builder.core.names import did_you_mean


class OptionGroup:
    """A plug-in's argument group on `buzzprobe probe` that remembers what it added, so the
    command can refuse those options when another benchmark is asked."""

    def __init__(self, group: argparse._ArgumentGroup):
        self._group, self.actions = group, list[argparse.Action]()

    def add_argument(self, *flags: str, **kwargs: Any) -> argparse.Action:
        action = self._group.add_argument(*flags, **kwargs)
        self.actions.append(action)
        return action


def add_probe_parser(sub: Any) -> None:
    """Register `probe` on the CLI's subparsers, with every probing plug-in's options."""
    p = sub.add_parser("probe", help="ask a model (OpenAI-compatible endpoint) and write runs",
                       description="Ask a model on an OpenAI-compatible /v1/chat/completions endpoint "
                                   "and write one run per option seed; end with its score. See docs/probing.md.")
    what = p.add_argument_group("what to ask")
    names = ", ".join(b.name for b in benchmarks.registered() if b.probes)
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
    own = {b.name: OptionGroup(p.add_argument_group(f"{b.title} only")) for b in benchmarks.registered() if b.probes}
    for benchmark in benchmarks.registered():
        if benchmark.probes:
            benchmark.add_probe_options(own[benchmark.name])
    add_client_arguments(
        p, max_tokens_help="output budget (default: the protocol's; 8 for a letter)",
        out_help="output file; {run_id} and {model_slug} are filled in (default runs/{model_slug}/{run_id}.jsonl)",
        run_id_help="override the derived run id (single seed only)",
        retry_errors_help="re-ask the items whose line records an error (the file is rewritten without them)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per run (score, intervals, paired gaps, usage) instead of text")
    p.set_defaults(handler=guarded(lambda args, key: _run(args, key, own), "probe"))


def _run(args: argparse.Namespace, key: str | None, own: dict[str, OptionGroup]) -> int:
    """The plug-in that probes `--benchmark` plans the runs; the one engine asks them."""
    given = {name: [a for a in group.actions if getattr(args, a.dest) != a.default] for name, group in own.items()}
    if args.benchmark is None:
        used = [name for name, actions in given.items() if actions]
        default = next((b.name for b in benchmarks.registered() if b.probe_default), None)
        if len(used) != 1 and default is None:
            raise InputError.single("--benchmark", "required here (no installed plug-in is probed by default)"
                                    + unknown_hint("", Path("content")))
        args.benchmark = used[0] if len(used) == 1 else default
    owner = benchmarks.probe_owner(args.benchmark)
    if owner is None:
        raise InputError.single("--benchmark", f"no installed plug-in probes {args.benchmark!r}"
                                + unknown_hint(args.benchmark, Path("content")))
    for name, actions in sorted(given.items()):
        if name != owner.name and actions:
            flag = actions[0].option_strings[0]
            raise InputError.single(flag, f"an option of {name}'s probe; {args.benchmark} does not read it")
    return execute_plans(owner.probe_plans(args), args, key)


def unknown_hint(name: str, content_dir: Path) -> str:
    """The tail of an unknown `--benchmark` message: the closest names, then every name there
    is, and which plug-in probes which ("cibuzzbench: cibuzzbench; mcq: mmlu, truthfulqa-mc")."""
    choices = benchmarks.probe_choices(content_dir)
    by_plugin: dict[str, list[str]] = {}
    for known, owner in sorted(choices.items()):
        by_plugin.setdefault(owner, []).append(known)
    plugins = "; ".join(f"{owner}: {', '.join(names)}" for owner, names in sorted(by_plugin.items()))
    return did_you_mean(name, sorted(choices), "Benchmarks that can be probed") + (f" (by plug-in: {plugins})"
                                                                                  if plugins else "")
