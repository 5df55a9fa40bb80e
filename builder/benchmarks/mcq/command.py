"""The spec'd benchmarks' part of the shared `buzzprobe audit SPEC|NAME [--json]`
(builder/commands/audit.py): the model-free audit of a spec'd benchmark, as a table or JSON."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.core.errors import InputError
from builder.core.names import did_you_mean
from builder.probing.progress import counter, stages

if TYPE_CHECKING:  # the CLI registers this command on every start: no numpy until it runs
    from builder.benchmarks.mcq.analyses.audit import Audit, ProbeScore, Score


def add_audit_options(p: Any) -> Callable[[argparse.Namespace], int]:
    """Add the audit's own options to the shared command; returns its handler."""
    add_data_option(p)
    return run_audit_command


def add_data_option(parser: Any) -> None:
    """`--data PATH`: the benchmark's data copy, named by the user (the spec's variable's meaning,
    and the one way to read data outside the repository and the spec's folder)."""
    parser.add_argument("--data", type=Path, default=None, metavar="PATH",
                        help="the data: the folder that replaces the spec's data_dir, or its one data file "
                             "(as the spec's BUZZPROBE_DATA_<NAME> variable; wins over it). A spec reads data "
                             "only inside the repository, its own folder and this copy (docs/audit.md)")


def run_audit_command(args: argparse.Namespace) -> int:
    """Progress on stderr (records counted, then the stages), the audit on stdout."""
    # deferred: `buzzprobe --help` loads this module and does not need these
    from builder.benchmarks.mcq.analyses.audit import run_audit
    from builder.benchmarks.mcq.load import load_benchmark
    from builder.benchmarks.mcq.shuffle import SEEDS
    say = stages("audit")
    spec = find_spec(args.spec)
    say(f"reading the records of {spec}")
    benchmark = load_benchmark(spec, given=args.data, progress=counter("audit", "record"))
    say(f"auditing {len(benchmark.items):,} items: rule probes over {len(SEEDS)} option seeds, then the learned "
        "probe (the longest step)")
    try:
        audit = run_audit(benchmark)
    except MemoryError:  # numpy's ArrayMemoryError too: a machine smaller than the audit's budget
        raise InputError.single(args.spec, f"the audit of {len(benchmark.items):,} items ran out of memory; it needs "
                                "up to 2 GB at 200,000 items and 4 GB at 1,000,000 (docs/audit.md)") from None
    say("done")
    print(audit_json(audit) if args.json else audit_table(audit))
    return 0


def find_spec(given: Path, content_dir: Path = Path("content")) -> Path:
    """A spec file as given, or a bare name (no folder, no suffix) looked up among the shipped
    specs, content/benchmarks/NAME.yaml; an unknown name says which names there are."""
    if given.is_file() or given.parent != Path(".") or given.suffix:
        return given
    found = content_dir / "benchmarks" / f"{given.name}.yaml"
    if found.is_file():
        return found
    where = content_dir / "benchmarks"
    known = sorted(p.stem for p in where.glob("*.yaml"))
    raise InputError.single(str(given), "no spec file and no benchmark of that name"
                            + did_you_mean(given.name, known, f"Specs in {where}"))


def audit_json(audit: Audit) -> str:
    """Deterministic: keys in a fixed order, floats rounded to 6 decimals (display noise only)."""
    return json.dumps(_rounded(audit.as_json()), indent=2, ensure_ascii=False)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _cell(score: Score | None) -> str:
    if score is None:  # macro F1 where the number of options varies
        return "–"
    sd = "" if score.sd is None else f" ± {score.sd:5.2f}"
    return f"{score.mean:6.2f}{sd} [{score.ci95_low:6.2f}, {score.ci95_high:6.2f}]"


def audit_table(audit: Audit) -> str:
    from builder.ranker.evaluate import folds_label  # numpy: only once an audit has run, never at start-up

    low, high = audit.options_range
    each = f"{low} options each" if low == high else f"{low}-{high} options (macro F1 needs one k: not reported)"
    lines = [f"{audit.title} ({audit.benchmark}): {audit.items:,} items audited, {each}; chance {audit.chance:.2f}",
             f"options per item (all records): " + ", ".join(f"{k}: {v:,}" for k, v in audit.findings.choice_counts.items())]
    for f in audit.findings.items:
        where = "; ".join(f"{e.id} (record {e.record}" + (f", line {e.line})" if e.line else ")") for e in f.examples)
        lines.append(f"  {f.name}: {f.count:,} ({f.rule})" + (f": {where}" + (" ..." if f.count > len(f.examples) else "")
                                                              if f.count else ""))
        if f.groups:
            lines.append(f"    {f.groups:,} shared sets, kept whole in every fold; e.g. " + "; ".join(f.excerpts))
    seeds = ", ".join(map(str, audit.seeds))
    lines += ["", f"shuffled options (seeds {seeds}, each item's order from {audit.shuffle_recipe}): "
              f"mean ± sd over seeds [95% interval, seed {audit.seeds[0]}]",
              _rows(audit.probes, sd=True), "",
              "as published (the file's option order): score [95% interval]",
              _rows(audit.as_published, sd=False), "",
              f"learned_options: {audit.learned_evaluation}, {audit.probes['learned_options'].items:,} items scored"
              + (f" (of a seeded sample of {audit.learned_sample:,} items)" if audit.learned_sample else ""),
              f"  model chosen per fit by {folds_label(audit.learned_inner_folds)} inner CV (ranker, n-gram "
              f"regression or a rule): {', '.join(audit.learned_choice)}"]
    return "\n".join(lines)


def _rows(block: dict[str, ProbeScore], sd: bool) -> str:
    width = 36 if sd else 28
    head = f"  {'probe':<16}{'accuracy':<{width}}{'macro F1':<{width}}".rstrip()
    return "\n".join([head] + [f"  {name:<16}{_cell(s.accuracy):<{width}}{_cell(s.macro_f1):<{width}}".rstrip()
                               for name, s in block.items()])
