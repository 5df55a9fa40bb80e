"""Probing a spec'd benchmark: `buzzprobe probe --benchmark NAME --condition sighted|blind`.

A plan per option seed hands the shared engine (builder.probing.runner) one Job per item: the
spec's sighted or blind prompt (prompts.render_prompt) with the item's options in the seeded
shuffle's order (shuffle.order), one user message. Only the items the audit keeps are asked
(findings.examine: one number of choices, no duplicated gold), so runs and audit cover the same
items. The answer is parsed to a letter (`parse_letter`); the raw text is always kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.fields import LETTERS, new_spec_budget
from builder.benchmarks.mcq.choice_set import ChoiceSet, choice_set
from builder.benchmarks.mcq.load import data_size, load_benchmark
from builder.benchmarks.mcq.probe_report import spec_probe_report
from builder.benchmarks.mcq.prompts import render_prompt
from builder.benchmarks.mcq.run_format import TASK, ChoiceItem
from builder.benchmarks.mcq.spec import DEFAULT_BLIND, DEFAULT_SIGHTED
from builder.core.build_date import utc_now
from builder.core.errors import InputError
from builder.core.names import check_name, did_you_mean, fill_template, slug
from builder.core.yamlfile import line_of, load_mapping
from builder.site.render_budget import TemplateLimit, spending
from builder.probing.jobs import ANSWER, Job, Reply
from builder.probing.runner import DEFAULT_OUT, ProbeSettings, RunPlan, subject_parameters
from builder.runs.selection import Selection, make_selection
from builder.runs.schema import new_header
from builder.benchmarks import probe_choices
from builder.probing.command import distinct_seeds, probe_settings
from builder.probing.options import check_run_options

DEFAULT_MAX_TOKENS = 8  # a letter, as for CIBuzzBench's Task 2
SPECS_DIR = Path("content") / "benchmarks"
UNPARSED = ""


def spec_path(name: str, given: Path | None, content_dir: Path = Path("content")) -> Path:
    """`--spec PATH`, else content/benchmarks/NAME.yaml."""
    if given is not None:
        return given
    check_name(name, "--benchmark")
    path = content_dir / "benchmarks" / f"{name}.yaml"
    if not path.is_file():
        raise InputError.single("--benchmark", f"no benchmark {name!r} to probe{_did_you_mean(name, content_dir)} "
                                f"(a spec'd benchmark is {content_dir / 'benchmarks'}/<name>.yaml, or give --spec PATH)")
    return path


def check_spec_place(spec: Path, name: str, out: str, content_dir: Path = Path("content"),
                     runs_dir: Path = Path("runs")) -> None:
    """A spec outside content/benchmarks/ may not write into runs/: the build reads a spec'd
    benchmark's runs only beside its spec there (content/benchmarks/<name>.yaml, the same bytes),
    and would refuse every such run. Say how to add the spec, or where else to write."""
    shipped = content_dir / "benchmarks" / f"{name}.yaml"
    if shipped.is_file() and (shipped.resolve() == spec.resolve() or shipped.read_bytes() == spec.read_bytes()):
        return
    target = Path(fill_template(out, "--out", run_id="x", model_slug="x")).resolve()
    if not target.is_relative_to(runs_dir.resolve()):
        return
    other = f"{shipped} is another spec of that name, so " if shipped.is_file() else ""
    raise InputError.single("--spec", f"{other}the build could not read these runs: it reads the runs of a spec'd "
                            f"benchmark only with its spec in {content_dir / 'benchmarks'}/. Add the spec "
                            f"(cp {spec} {shipped}) and probe with --benchmark {name}, or write the runs outside "
                            f"{runs_dir}/ with --out DIR/{{run_id}}.jsonl")


def _did_you_mean(name: str, content_dir: Path) -> str:
    """The closest names `probe --benchmark` takes (every probing plug-in's, spec files' too),
    then all of them: a typo gets its fix, and a newcomer the list."""
    return did_you_mean(name, sorted(probe_choices(content_dir)), "Benchmarks that can be probed")


_LEADING = re.compile(r"^\s*[(\[]?([A-Z])(?:[)\].:：、\s-]|$)")
_STANDALONE = re.compile(r"\b([A-Z])\b")


def parse_letter(response: str | None, k: int) -> str:
    """A letter among the first k, or "" (unparsed): a leading letter ("B", "(B)", "B. ..."),
    else the first standalone capital letter that is an option's. Case-sensitive, so the
    article "a" is never read as A."""
    if not response:
        return UNPARSED
    allowed = LETTERS[:k]
    for pattern in (_LEADING, _STANDALONE):
        for found in pattern.finditer(response.strip()):
            if found.group(1) in allowed:
                return found.group(1)
    return UNPARSED


def prompt_sha256(template: str) -> str:
    """As CIBuzzBench runs record it: sha256 of the JSON array of the template texts, unfilled."""
    return hashlib.sha256(json.dumps([template], ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def item_job(data: ChoiceSet, row_id: int, seed: int, condition: str) -> Job:
    item = data.items[row_id]
    shown = shuffle.order(seed, item.shuffle_key, len(item.choices))
    letter_map = {LETTERS[j]: i for j, i in enumerate(shown)}
    prompt = render_prompt(data.benchmark.spec, item, shown, condition)

    def finish(replies: dict[str, Reply]) -> ChoiceItem:
        r = replies[ANSWER]
        return ChoiceItem(row_id, item.id, letter_map, parse_letter(r.content, len(shown)), r.content, r.error,
                          r.latency_ms, r.usage, r.truncated or None)
    return Job(row_id, ((ANSWER, [{"role": "user", "content": prompt}]),), finish)


def run_id(model: str, name: str, condition: str, seed: int, selection: Selection) -> str:
    if selection.kind == "all":
        tag = "all"
    else:
        where = slug(selection.split) if selection.split else ""
        tag = where if selection.kind == "split" else f"{where + '-' if where else ''}n{selection.n}-r{selection.sample_seed}"
    return f"{slug(model)}-{name}-{condition}-s{seed}-{tag}"


def plan_spec_run(data: ChoiceSet, condition: str, settings: ProbeSettings, seed: int, out_template: str = DEFAULT_OUT,
                  rid: str | None = None) -> RunPlan:
    spec = data.benchmark.spec
    selection = settings.selection
    row_ids = selection.row_ids(data)
    if not row_ids:
        raise InputError.single("--split", f"no audited item of {spec.name} is in split {selection.split!r}")
    rid = rid or run_id(settings.model, spec.name, condition, seed, selection)
    check_name(rid, "run id")
    template = spec.sighted if condition == "sighted" else spec.blind
    default = template == (DEFAULT_SIGHTED if condition == "sighted" else DEFAULT_BLIND)
    parameters = subject_parameters(settings, {"protocol": f"mcq-{condition}-{'default' if default else 'spec'}",
                                               "protocol_version": 1, "prompt_sha256": prompt_sha256(template)})
    header = new_header(run_id=rid, benchmark=spec.name, task=TASK, condition=condition,
                        subject={"kind": "model", "name": settings.model, "parameters": parameters}, option_seed=seed,
                        items=selection.header(len(row_ids)),
                        dataset={"name": spec.title, "content_sha256": data.benchmark.content_sha256},
                        created=utc_now())
    path = fill_template(out_template, "--out", run_id=rid, model_slug=slug(settings.model))
    # a prompt is its item's text plus the instructions (a few hundred characters; 2,000 allowed)
    budget = new_spec_budget(len(row_ids), data_size(data.benchmark.data) + 2_000 * len(row_ids),
                             "the spec's prompt templates")

    def job(row_id: int) -> Job:
        """One item's job, its prompt rendered under the run's one budget (not one per item)."""
        try:
            with spending(budget):
                return item_job(data, row_id, seed, condition)
        except TemplateLimit as exc:
            raise InputError.single(spec.path, f"{condition} prompt of item {data.items[row_id].id}: {exc}",
                                    line=line_of(load_mapping(spec.path)[1], (condition,)), field=condition) from None
    return RunPlan(header, path, row_ids, job, settings, score=lambda done: spec_probe_report(done, data))


def spec_plans(args: argparse.Namespace) -> list[RunPlan]:
    """The plans of `buzzprobe probe --benchmark NAME` (or `--spec PATH`), one per seed."""
    seeds = distinct_seeds(args, shuffle.SEEDS[0])
    out = check_run_options(args, len(seeds))
    benchmark = load_benchmark(spec_path(args.benchmark, args.spec), given=args.data)
    if args.spec is not None and args.benchmark not in ("mcq", benchmark.spec.name):
        raise InputError.single("--benchmark", f"{args.spec} describes {benchmark.spec.name!r}, not {args.benchmark!r}")
    if args.spec is not None and args.dry_run is None:  # a dry run writes nothing
        check_spec_place(args.spec, benchmark.spec.name, out)
    data = choice_set(benchmark)
    if args.split is not None and benchmark.spec.split is None:
        raise InputError.single("--split", f"{benchmark.spec.name} has no splits (its spec names no split field)")
    settings = probe_settings(args, args.max_tokens or DEFAULT_MAX_TOKENS,
                              make_selection(args.split, args.sample, args.sample_seed))
    return [plan_spec_run(data, args.condition, settings, seed, out, args.run_id) for seed in seeds]
