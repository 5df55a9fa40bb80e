"""`buzzprobe mouse probe | judge | import | score`: the Mouse benchmark from the command line.

Only argparse is imported at module level, so registering the command costs the other
subcommands nothing. Runs are ordinary run files (benchmark "mouse") written by the shared
probing engine to `runs/<model>/` by default, where the build reads them beside every other
run. Exit codes follow `buzzprobe probe`: 0 done, 2 bad input
(every problem located: file, line, field), 4 a run had to stop (bad key, model or URL),
130 interrupted, 1 anything unexpected (shown with the key scrubbed).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from builder.core.build_date import utc_now
from builder.benchmarks.mouse.labels import TASKS
from builder.core.errors import InputError
from builder.core.names import check_name, confined, fill_template, slug
from builder.probing.command import (add_client_arguments, guarded, model_name, non_negative_float, positive_int,
                                     say_score, say_tokens)
from builder.runs.reader import read_run
import json

OUT_HELP = "output file; {run_id} and {model_slug} are filled in"


def add_mouse_parser(sub: Any) -> None:
    """Register `mouse` and its actions on the CLI's subparsers."""
    p = sub.add_parser("mouse", help="the Mouse benchmark: probe a model, judge translations, import, score",
                       description="The Mouse benchmark (Chinese Chouxiang language). See docs/mouse.md.")
    actions = p.add_subparsers(required=True, metavar="action")
    _add_probe(actions)
    _add_judge(actions)
    _add_import(actions)
    _add_score(actions)


def _add_probe(actions: Any) -> None:
    p = actions.add_parser("probe", help="ask a model one Mouse task and write a resumable run",
                           description="Ask a model on an OpenAI-compatible endpoint one Mouse task on one data "
                                       "file and write a resumable run file (default under runs/<model>/).")
    what = p.add_argument_group("what to ask")
    what.add_argument("--task", required=True, choices=TASKS, help="the Mouse task: " + ", ".join(TASKS))
    what.add_argument("--data", required=True, type=Path,
                      help="main_eval.csv (tr, rc, ir, td), single_choice.csv (ms) or icc.csv (cc); CSV or JSONL")
    what.add_argument("--condition", choices=("sighted", "blind"), default="sighted",
                      help="blind: ms/cc options only, the question withheld (default %(default)s)")
    what.add_argument("--sample", type=positive_int, metavar="N", help="a seeded sample of N items")
    what.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default %(default)s)")
    _add_config(p)
    _add_client(p, default_out="runs/{model_slug}/{run_id}.jsonl")
    _add_json(p)
    p.set_defaults(handler=guarded(_probe, "mouse"))


def _add_judge(actions: Any) -> None:
    p = actions.add_parser("judge", help="score a finished translation (tr) run with an LLM judge",
                           description="Ask a judge model to compare each translation of a finished tr run with "
                                       "the Reference (0/1/2, ending 分数：<score>) and write a judged tr run.")
    p.add_argument("--run", required=True, type=Path, help="the finished tr run (from `mouse probe --task tr`)")
    p.add_argument("--data", required=True, type=Path, help="the main_eval file the run was made on")
    _add_config(p)
    _add_client(p, default_out="next to --run: <run id>-judge-<judge slug>.jsonl")
    _add_json(p)
    p.set_defaults(handler=guarded(_judge, "mouse"))


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per run (metrics with intervals, usage) instead of text")


def _add_config(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold-columns", type=Path, default=None,
                   help="gold-column mapping (default content/mouse/gold_columns.yaml)")
    p.add_argument("--protocols", type=Path, default=None, help="prompt file (default content/protocols/mouse.yaml)")


def _add_client(p: argparse.ArgumentParser, default_out: str) -> None:
    """The client options of `buzzprobe probe`, with the same meanings and defaults."""
    add_client_arguments(
        p, max_tokens_help="output budget (default: the protocol's; 128 for the tasks, 512 for the judge)",
        out_help=f"{OUT_HELP} (default {default_out})", run_id_help="override the derived run id",
        retry_errors_help="re-ask the items whose request failed after its retries (raw null)")


def _add_import(actions: Any) -> None:
    p = actions.add_parser("import", help="convert official Mouse output files into run files",
                           description="Convert the official scripts' output files (main_eval, single_choice and "
                                       "icc outputs, the judge sheet exported to CSV) into run files (benchmark "
                                       "mouse). Each file is recognised by its columns.")
    p.add_argument("outputs", nargs="+", type=Path, help="official output files (.csv or .jsonl)")
    p.add_argument("--model", required=True, type=model_name, help="the model's name, as it should appear on the site")
    p.add_argument("--data", type=Path, action="append", default=[],
                   help="a data file to check the outputs against, row by row (repeatable)")
    p.add_argument("--temperature", type=non_negative_float, default=None, help="recorded in the runs when given")
    p.add_argument("--max-tokens", type=positive_int, default=None, help="recorded in the runs when given")
    p.add_argument("--gold-columns", type=Path, default=None,
                   help="gold-column mapping (default content/mouse/gold_columns.yaml)")
    p.add_argument("--out", type=Path, default=None,
                   help="folder (default runs/<model slug>/, where the build reads them)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing run that has different content (refused otherwise)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the runs written) instead of lines")
    p.set_defaults(handler=_import)


def _add_score(actions: Any) -> None:
    p = actions.add_parser("score", help="print the metrics of Mouse run files, with bootstrap intervals")
    p.add_argument("runs", nargs="+", type=Path, help="Mouse run files")
    p.add_argument("--data", type=Path, action="append", default=[],
                   help="the data files the runs were made on (repeatable; tr runs need none)")
    p.add_argument("--gold-columns", type=Path, default=None,
                   help="gold-column mapping (default content/mouse/gold_columns.yaml)")
    p.add_argument("--resamples", type=positive_int, default=2000, help="bootstrap resamples (default %(default)s)")
    p.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: the site's)")
    p.add_argument("--level", type=float, default=0.95, help="interval level (default %(default)s)")
    p.add_argument("--no-intervals", action="store_true", help="point values only")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")
    p.set_defaults(handler=_score)


# ---------------------------------------------------------------- probe and judge


def _settings(args: argparse.Namespace, sample: int | None = None, sample_seed: int = 0) -> Any:
    """The engine's settings (those of `buzzprobe probe`); no --max-tokens: the protocol's budget."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.probing.client import check_base_url
    from builder.probing.command import probe_settings
    from builder.runs.selection import make_selection
    if args.base_url is None and args.dry_run is None:
        raise InputError.single("--base-url", "required (e.g. http://127.0.0.1:8000/v1) unless --dry-run")
    check_base_url(args.base_url)
    return probe_settings(args, args.max_tokens, make_selection(None, sample, sample_seed))


def _check_out(args: argparse.Namespace) -> None:
    """--out fills in only plain {run_id} and {model_slug}; --run-id is a name, not a path."""
    if args.out is not None:
        fill_template(args.out, "--out", run_id="x", model_slug="x")
    if args.run_id is not None:
        check_name(args.run_id, "--run-id")


def _gold(args: argparse.Namespace) -> Any:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.config import load_gold_columns
    return load_gold_columns(args.gold_columns) if args.gold_columns else load_gold_columns()


def _protocol(args: argparse.Namespace, task: str, condition: str) -> Any:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.probe_protocols import DEFAULT_MOUSE_PROTOCOLS, find_mouse_protocol, load_mouse_protocols
    return find_mouse_protocol(load_mouse_protocols(args.protocols or DEFAULT_MOUSE_PROTOCOLS), task, condition)


def _probe(args: argparse.Namespace, key: str | None) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.probe import DEFAULT_OUT, plan_probe
    from builder.benchmarks.mouse.probe_score import figures, load_data
    from builder.benchmarks.mouse.run_format import DATA_FILES
    if args.condition == "blind" and args.task not in ("ms", "cc"):
        raise InputError.single("--condition", "the blind arm exists for ms and cc only")
    protocol = _protocol(args, args.task, args.condition)
    settings = _settings(args, args.sample, args.sample_seed)
    _check_out(args)
    data = load_data(args.data, _gold(args), DATA_FILES[args.task])
    plan = plan_probe(args.task, data, protocol, settings, out_template=args.out or DEFAULT_OUT, run_id=args.run_id)
    if args.task != "tr":  # a translation run is scored once judged (`mouse judge`)
        plan = replace(plan, score=lambda path: figures(path, [data]))
    return _execute(args, key, plan)


def _judge(args: argparse.Namespace, key: str | None) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.probe import plan_judge
    from builder.benchmarks.mouse.probe_score import MAIN, figures, load_data
    from builder.runs.reader import read_run
    protocol = _protocol(args, "judge", "sighted")
    settings = _settings(args)
    _check_out(args)
    translations = _mouse_run(read_run(args.run), args.run)
    data = load_data(args.data, _gold(args), MAIN)
    plan = plan_judge(translations, data, protocol, settings, out_template=args.out, run_id=args.run_id)
    return _execute(args, key, replace(plan, score=lambda path: figures(path, [data])))


def _execute(args: argparse.Namespace, key: str | None, plan: Any) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.probing.command import execute_plans
    return execute_plans([plan], args, key, command="buzzprobe mouse", report=_report)


def _mouse_run(run: Any, path: Path) -> Any:
    if run.header.benchmark != "mouse":
        raise InputError.single(path, f"not a Mouse run (benchmark {run.header.benchmark!r})", line=1,
                                field="benchmark")
    return run


def _report(plan: Any, outcome: Any) -> None:
    """What was asked, then (a finished run) its metrics with their intervals, then the tokens
    spent: the shape of `buzzprobe probe`'s closing lines."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.run_format import PROBE, unparsed
    from builder.runs.reader import read_run
    state = "complete" if outcome.complete else "incomplete"
    h = plan.header
    if not outcome.complete:
        parsed = ""
    elif h.task == "tr" and h.source.get("kind") == PROBE:
        parsed = "translations only: judge them with `buzzprobe mouse judge`; "
    else:
        parsed = f"{unparsed(h.task, read_run(plan.path).items)} unparsed (counted wrong); "
    print(f"{outcome.path}: {state}; asked {outcome.asked}, {outcome.errors} failed after retries"
          + (f"; {parsed.rstrip('; ')}" if parsed else ""))
    if outcome.complete:
        say_score(plan)
    say_tokens(outcome)
    if outcome.errors:
        print("  failed items keep raw null and count as wrong; re-ask them with --retry-errors", file=sys.stderr)


# ---------------------------------------------------------------- import and score

def _import(args: argparse.Namespace) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.importer import import_icc, import_judge, import_main, import_single_choice
    from builder.benchmarks.mouse.probe_score import ICC, JUDGE_FILE, MAIN, SINGLE_CHOICE, classify, data_kind, output_kind
    from builder.benchmarks.mouse.run_format import unparsed
    from builder.benchmarks.mouse.runs import make_runs
    from builder.core.report import reporting
    from builder.core.names import slug
    from builder.runs.overwrite import write_checked
    gold = _gold(args)
    outputs = classify(args.outputs, output_kind, "output")
    data = {kind: _load(kind, path, gold) for kind, path in classify(args.data, data_kind, "data").items()}
    main = import_main(outputs[MAIN], gold, data.get(MAIN)) if MAIN in outputs else None
    judge = import_judge(outputs[JUDGE_FILE], gold, data.get(MAIN)) if JUDGE_FILE in outputs else None
    ms = import_single_choice(outputs[SINGLE_CHOICE], gold, data.get(SINGLE_CHOICE)) \
        if SINGLE_CHOICE in outputs else None
    cc = import_icc(outputs[ICC], gold, data.get(ICC)) if ICC in outputs else None
    content = data[MAIN].content_sha256 if MAIN in data else main.instances.content_sha256 if main else None
    parameters = {k: v for k, v in (("temperature", args.temperature), ("max_tokens", args.max_tokens))
                  if v is not None}
    created = utc_now()
    runs = make_runs({"kind": "model", "name": args.model, "parameters": parameters}, created,
                     main=main, judge=judge, ms=ms, cc=cc, dataset_content=content)
    folder = args.out or Path("runs") / slug(args.model)
    planned = [(confined(folder, run.header.run_id, ".jsonl", "--out"), run) for run in runs]
    with reporting(args.json, command="mouse import") as report:
        for (path, changed), run in zip(write_checked(planned, force=args.force), runs, strict=True):
            left = unparsed(run.header.task, run.items)
            report.add(f"{'wrote' if changed else 'unchanged'} {path} ({run.header.task}, {len(run.items)} items, "
                       f"{left} unparsed)", path=str(path), changed=changed, run_id=run.header.run_id,
                       task=run.header.task, items=len(run.items), unparsed=left)
    return 0


def _load(kind: str, path: Path, gold: Any) -> Any:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mouse.probe_score import load_data
    return load_data(path, gold, kind)


def _score(args: argparse.Namespace) -> int:
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.stats.bootstrap import DEFAULT_SEED
    from builder.benchmarks.mouse.analyses.metrics import BootstrapOptions
    from builder.benchmarks.mouse.probe_score import as_json, load_data, render, score
    if not 0 < args.level < 1:
        raise InputError.single("--level", f"must be between 0 and 1, got {args.level}")
    boot = None if args.no_intervals else BootstrapOptions(args.resamples, DEFAULT_SEED if args.seed is None
                                                           else args.seed, args.level)
    level = None if boot is None else boot.level
    runs = [_mouse_run(read_run(path), path) for path in args.runs]
    gold = _gold(args)
    datasets = [load_data(path, gold) for path in args.data]
    results = [score(run, datasets, boot) for run in runs]
    if args.json:
        print(json.dumps([as_json(r, level) for r in results], ensure_ascii=False, indent=2))
    else:
        print("\n\n".join(render(r, level) for r in results))
    return 0
