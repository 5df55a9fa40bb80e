"""The site's part of the spec'd benchmarks: load each spec in content/benchmarks/ with its data
and runs, and compute every figure its page shows as a fact (fact_keys.py).

Runs are checked against the data they claim (content hash, record, id, the seeded letter map)
and scored on their answered items; a sighted and a blind run of one model with the same option
seed, items and sampling settings form a pair, compared item by item (paired bootstrap
interval of the gap, exact McNemar), as CIBuzzBench's pairs are (docs/paired.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.audit import PROBES, Audit
from builder.benchmarks.mcq.audit_cache import cache_key, cached_audit, cached_benchmark, cached_choice_set
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.gold import gold_letters
from builder.benchmarks.mcq.load import Benchmark
from builder.benchmarks.mcq.option_scores import char_lengths, word_lengths
from builder.benchmarks.mcq.probe import ChoiceSet
from builder.benchmarks.mcq.run_format import ChoiceItem
from builder.benchmarks.mcq.run_summary import run_summary
from builder.benchmarks.mcq.spec import Spec, load_spec, spec_files
from builder.core.errors import InputError, Problem, gather
from builder.core.facts import FactTable
from builder.core.names import slug
from builder.core.yamlfile import line_of, load_mapping
from builder.runs.checks import (declared_row_ids, footer_problems, no_items_problem, number_problems,
                                 outside_selection, parameters_problems, selection_text)
from builder.runs.cache import RunCache
from builder.runs.schema import Run
from builder.stats import classification_report, paired_bootstrap_difference
from builder.stats.paired import discordant, mcnemar_exact

@dataclass(frozen=True)
class Loaded:
    benchmark: Benchmark
    data: ChoiceSet
    audit: Audit
    runs: tuple[Run, ...]  # checked against the data, in run-id order
    reconciliation: Any = None  # reconcile.Reconciliation: the upstream's reported figures, when a file names them
    cache: "RunCache | None" = None  # the build's per-run cache (run_summary.py), None outside a build
    key: str = ""  # audit_cache.cache_key: what the audit and each run's summary are computed from


@dataclass(frozen=True)
class Pair:
    sighted: Run
    blind: Run
    row_ids: tuple[int, ...]  # shared items


@dataclass(frozen=True)
class Computed:
    loaded: Loaded
    splits: tuple[tuple[str, str], ...]  # (value, key label), in first-seen order
    categories: tuple[tuple[str, str], ...]
    pairs: tuple[Pair, ...]
    leak: Any = None  # leak_split.SplitSummary: what the page says about the split, when 2+ runs have one

    @property
    def name(self) -> str:
        return self.loaded.benchmark.spec.name


def spec_name_problem(path: Path, name: str) -> Problem | None:
    """The file is named after its benchmark, so `probe --benchmark NAME` finds it."""
    if path.stem == name:
        return None
    _, lines = load_mapping(path)
    return Problem(str(path), f"the spec of {name!r} must be named {name}.yaml", line_of(lines, ("name",)), "name")


def load_specs(content_dir: Path, cache_dir: Path, runs: Sequence[Run], run_cache: RunCache | None = None) -> list[Loaded]:
    """Every spec, its data, its audit (cached) and its runs; every problem at once."""
    by_name: dict[str, list[Run]] = {}
    for run in runs:
        by_name.setdefault(run.header.benchmark, []).append(run)
    from builder.benchmarks.mcq.reconcile import load_reconciliation
    return gather(spec_files(content_dir), lambda path: replace(
        load_spec_runs(path, cache_dir, by_name, run_cache), reconciliation=load_reconciliation(content_dir, path.stem)))


def load_spec_runs(path: Path, cache_dir: Path, by_name: dict[str, list[Run]],
                   run_cache: RunCache | None = None) -> Loaded:
    """One spec with its data, audit and the runs named for it (by benchmark name), checked."""
    spec = load_spec(path)
    if (problem := spec_name_problem(path, spec.name)) is not None:
        raise InputError([problem])
    _check_data_file(spec)
    benchmark = cached_benchmark(path, cache_dir)
    data = cached_choice_set(benchmark, cache_dir)
    mine = sorted(by_name.get(spec.name, []), key=lambda r: r.header.run_id)
    key = cache_key(benchmark, cache_dir)
    found = [p for run in mine for p in _checked(run, benchmark, data, run_cache, key)]
    if found:
        raise InputError(found)
    return Loaded(benchmark, data, cached_audit(benchmark, cache_dir), tuple(mine), cache=run_cache, key=key)


def _checked(run: Run, benchmark: Benchmark, data: ChoiceSet, run_cache: RunCache | None, key: str) -> list[Problem]:
    """run_problems, kept in the run cache by the benchmark's key (spec, data, audit code)."""
    if run_cache is None:
        return run_problems(run, benchmark, data)
    return run_cache.derived(run, f"mcq-problems:{key}", lambda: run_problems(run, benchmark, data))


def _check_data_file(spec: Spec) -> None:
    from builder.benchmarks.mcq.fetch import missing_problem
    missing = spec.location.missing()
    if missing:
        raise InputError([missing_problem(spec, path) for path in missing])


def run_problems(run: Run, benchmark: Benchmark, data: ChoiceSet) -> list[Problem]:
    """A run must be made on this data (content hash), hold exactly the selection its header
    declares (a finished run every declared item), show each item as the seeded shuffle does and
    record real numbers: the checks every CIBuzzBench run gets, so a sample cut to its correct
    items cannot be published as a complete run."""
    made_on = run.header.dataset.get("content_sha256")
    if made_on != benchmark.content_sha256:
        return [Problem(run.path, f"made on other data than {benchmark.data.path} ({made_on} vs "
                        f"{benchmark.content_sha256})", 1, "dataset.content_sha256")]
    declared, problems = declared_row_ids(run, data)
    if declared is not None:
        problems += no_items_problem(run) + footer_problems(run, declared) + outside_selection(
            run, declared, lambda row_id: _outside_message(run, row_id, benchmark, data))
    problems += parameters_problems(run)
    return problems + _item_problems(run, benchmark, data, declared or set())


def _outside_message(run: Run, row_id: int, benchmark: Benchmark, data: ChoiceSet) -> str:
    if row_id in data.items:
        return f"record {row_id} is outside the run's item selection ({selection_text(run)})"
    return f"record {row_id} is not an audited item of {benchmark.spec.name}"


def _prediction_problem(run: Run, prediction: str, k: int) -> str | None:
    """A probed run's prediction is one of the item's letters (the parser reads no other); an
    imported one may be any letter the publisher's extraction read (MMLU-Pro's reads A-J on
    every question), and one beyond the item's options is a wrong answer, as the upstream scores it."""
    imported = run.header.source is not None
    if prediction == "" or prediction in (LETTERS if imported else LETTERS[:k]):
        return None
    allowed = "a capital letter" if imported else f"a letter {LETTERS[0]}-{LETTERS[k - 1]}"
    return f"prediction {prediction[:20]!r} is not {allowed} (nor '' for unparsed)"


def _item_problems(run: Run, benchmark: Benchmark, data: ChoiceSet, declared: set[int]) -> list[Problem]:
    problems = []
    seed = run.header.option_seed
    for item in run.items:
        line = run.item_lines.get(item.row_id)
        known = data.items.get(item.row_id)
        if known is None or item.row_id not in declared:
            continue  # said once above
        problems += number_problems(run, item.latency_ms, item.usage, line or 1)
        if (problem := _prediction_problem(run, item.prediction, len(known.choices))) is not None:
            problems.append(Problem(run.path, problem, line, "prediction"))
        if item.id != known.id:
            problems.append(Problem(run.path, f"record {item.row_id} has id {known.id!r}, not {item.id!r}", line, "id"))
        elif item.letter_map != shown_letters(seed, known.id, shown_count(item, known)):
            how = f"the seed-{seed} shuffle" if seed is not None else "the published order (A = the first option)"
            problems.append(Problem(run.path, f"not {how} of item {known.id!r}", line, "letter_map"))
        elif item.revision is not None and not 0 <= item.revision["gold"] < item.revision["k"]:
            problems.append(Problem(run.path, f"gold {item.revision['gold']} is not one of its {item.revision['k']} "
                                    "options", line, "revision.gold"))
    return problems


def shown_count(item: ChoiceItem, known: Any) -> int:
    """The number of options the model saw: the file's own when its revision differs."""
    return int(item.revision["k"]) if item.revision is not None else len(known.choices)


def shown_letters(seed: int | None, item_id: str, k: int) -> dict[str, int]:
    """The letter map a run must have: the seeded shuffle, or (an import, seed None) the published order."""
    return {LETTERS[j]: j for j in range(k)} if seed is None else letter_map(seed, item_id, k)


def letter_map(seed: int | None, item_id: str, k: int) -> dict[str, int]:
    return {LETTERS[j]: i for j, i in enumerate(shuffle.order(int(seed or 0), item_id, k))}


# ---------------------------------------------------------------- compute

def compute_spec(loaded: Loaded, facts: FactTable) -> Computed:
    bench = loaded.benchmark.spec.name
    _composition(loaded, facts, bench)
    _lengths(loaded, facts, bench)
    _audit(loaded.audit, facts, bench)
    _learned(loaded.audit, facts, bench)
    categories = _labels(loaded, "category")
    summaries = {run.header.run_id: run_summary(loaded, run, categories) for run in loaded.runs}
    for summary in summaries.values():
        facts.update(summary.facts)
    pairs = find_pairs(loaded.runs)
    for pair in pairs:
        _pair_facts(loaded, pair, facts, bench)
    from builder.benchmarks.mcq.leak_split import add_split_summary, solvable_rows
    from builder.benchmarks.mcq.published import tie_groups
    tie_groups(loaded.runs, summaries, facts, bench)
    split = [rid for rid, s in summaries.items() if s.split]
    leak = add_split_summary(split, summaries, solvable_rows(loaded), facts, bench) if split else None
    if loaded.reconciliation is not None:
        from builder.benchmarks.mcq.reconcile import add_reconciliation_facts
        add_reconciliation_facts(facts, bench, loaded.reconciliation)
    return Computed(loaded, _labels(loaded, "split"), categories, tuple(pairs), leak)


def _labels(loaded: Loaded, field: str) -> tuple[tuple[str, str], ...]:
    """(value, slug) of a split or category, in first-seen order; two values with one slug are an error."""
    values = list(dict.fromkeys(getattr(i, field) for i in loaded.data.items.values() if getattr(i, field) is not None))
    slugs: dict[str, str] = {}
    for value in values:
        label = slug(value) if value.strip() else "blank"
        if label in slugs:
            spec = loaded.benchmark.spec
            raise InputError.single(spec.path, f"{field} values {slugs[label]!r} and {value!r} have one key name "
                                    f"{label!r}; make them differ in letters or digits", field=field)
        slugs[label] = value
    return tuple((value, label) for label, value in slugs.items())


def _composition(loaded: Loaded, facts: FactTable, bench: str) -> None:
    audit, items = loaded.audit, loaded.data.items.values()
    where = f"{loaded.benchmark.spec.path.name} over {loaded.benchmark.data.path.name}"
    facts.add(K.RECORDS.key(bench=bench), len(loaded.benchmark.items), f"records read from {where}")
    facts.add(K.ITEMS.key(bench=bench), audit.items, "items kept by the audit's findings rules")
    facts.add(K.OPTIONS.key(bench=bench), audit.options, "the most common number of choices (ties: the larger)")
    facts.add(K.CHANCE.key(bench=bench), audit.chance, "mean over the audited items of 100/k (k: the item's number "
              "of options): the expected accuracy of a uniform guess")
    for k, n in audit.findings.choice_counts.items():
        facts.add(K.CHOICE_COUNT.key(bench=bench, k=k), n, f"records with {k} choices")
    for finding in audit.findings.items:
        facts.add(K.FINDING_COUNT.key(bench=bench, finding=finding.name), finding.count,
                  f"records with the finding ({finding.rule})")
    for field, pattern in (("split", K.SPLIT), ("category", K.CATEGORY)):
        counts = Counter(getattr(i, field) for i in items)
        for value, label in _labels(loaded, field):
            facts.add(pattern.key(bench=bench, label=label), counts[value], f"audited items whose {field} is {value!r}")


def _lengths(loaded: Loaded, facts: FactTable, bench: str) -> None:
    items = list(loaded.data.items.values())
    texts = [i.choices for i in items]
    gold = np.array([i.gold for i in items])
    rows = np.arange(len(items))
    for unit, measure in (("chars", char_lengths), ("words", word_lengths)):
        lengths = measure(texts)  # NaN past an item's own options
        gold_len = lengths[rows, gold]
        others = lengths.copy()
        others[rows, gold] = np.nan
        facts.add(K.LENGTH.key(bench=bench, role="gold", unit=unit), float(gold_len.mean()),
                  f"mean {unit} of the gold option over the audited items")
        facts.add(K.LENGTH.key(bench=bench, role="distractor", unit=unit), float(np.nanmean(others)),
                  f"mean {unit} of a distractor over the audited items")
        for extreme, beats in (("longest", np.greater), ("shortest", np.less)):
            strictly = np.all(np.where(np.isnan(others), True, beats(gold_len[:, None], others)), axis=1)
            facts.add(K.GOLD_EXTREME.key(bench=bench, extreme=extreme, unit=unit), 100.0 * float(strictly.mean()),
                      f"% of audited items whose gold has strictly the {'most' if extreme == 'longest' else 'fewest'} "
                      f"{unit}")


def _audit(audit: Audit, facts: FactTable, bench: str) -> None:
    for block, scores in (("shuffled", audit.probes), ("published", audit.as_published)):
        how = ("mean over option seeds 1111-5555; interval: seed 1111's 95% percentile bootstrap over items"
               if block == "shuffled" else "in the file's option order; 95% percentile bootstrap over items")
        for probe in PROBES:
            for metric in ("accuracy", "macro_f1"):
                score = getattr(scores[probe], metric)
                if score is None:  # macro F1 where the number of options varies
                    continue
                values = {"bench": bench, "block": block, "probe": probe, "metric": metric}
                what = f"audit probe {probe}, {metric.replace('_', ' ')} ({how})"
                facts.add(K.AUDIT.key(**values), score.mean, what)
                facts.add(K.AUDIT.low(**values), score.ci95_low, what)
                facts.add(K.AUDIT.high(**values), score.ci95_high, what)
                if score.sd is not None:
                    facts.add(K.AUDIT_SD.key(bench=bench, probe=probe, metric=metric), score.sd,
                              f"audit probe {probe}, {metric.replace('_', ' ')}: sample sd over the five option seeds")


def _learned(audit: Audit, facts: FactTable, bench: str) -> None:
    """The ablation by cue family and the leak summary (the per-item scores are a download)."""
    held = "the test split" if audit.learned_evaluation == "train→test" else "the first of the 5 CV folds"
    for a in audit.ablation:
        what = f"learned probe without cue family {a.group}, refitted on the same training items and scored on {held}"
        facts.add(K.ABLATION.key(bench=bench, group=a.group, value="accuracy"), a.accuracy, what)
        facts.add(K.ABLATION.key(bench=bench, group=a.group, value="drop"), a.drop, what + ": full minus without")
        facts.add(K.ABLATION.low(bench=bench, group=a.group, value="drop"), a.ci95_low, what + ": paired bootstrap")
        facts.add(K.ABLATION.high(bench=bench, group=a.group, value="drop"), a.ci95_high, what + ": paired bootstrap")
    leak = audit.leak
    facts.add(K.LEAK.key(bench=bench, value="solvable"), leak.solvable_share,
              "% of audited items option-solvable: the cross-fitted learned probe ranks the gold strictly first")
    facts.add(K.LEAK.key(bench=bench, value="mean_leak_score"), 100.0 * float(np.mean(leak.leak_score)),
              "mean cross-fitted probability the learned probe gives the gold (0-100)")


def _pair_key(run: Run) -> tuple[Any, ...]:
    """What must agree for two arms to differ in the condition alone."""
    h = run.header
    p = h.subject.get("parameters") or {}
    return (h.subject_name, h.option_seed, repr(sorted(h.items.items())),
            *(repr(p.get(k)) for k in ("temperature", "top_p", "max_tokens", "endpoint_host")))


def find_pairs(runs: Sequence[Run]) -> list[Pair]:
    """One pair per complete sighted run: the first complete blind run (by id) run alike."""
    blind: dict[tuple[Any, ...], Run] = {}
    for run in runs:
        if run.complete and run.header.condition == "blind":
            blind.setdefault(_pair_key(run), run)
    pairs = []
    for run in runs:
        other = blind.get(_pair_key(run)) if run.complete and run.header.condition == "sighted" else None
        if other is not None:
            shared = tuple(sorted(set(run.row_ids) & set(other.row_ids)))
            if shared:
                pairs.append(Pair(run, other, shared))
    return pairs


def _pair_facts(loaded: Loaded, pair: Pair, facts: FactTable, bench: str) -> None:
    labels = LETTERS[:loaded.audit.options_range[1]]
    gold, sighted = gold_letters(pair.sighted, loaded, pair.row_ids)
    _, blind = gold_letters(pair.blind, loaded, pair.row_ids)
    runs = (pair.sighted.header.run_id, pair.blind.header.run_id)
    values = {"bench": bench, "run_id": pair.sighted.header.run_id}
    ci = paired_bootstrap_difference(gold, sighted, blind, labels)
    rep_s, rep_b = classification_report(gold, sighted, labels), classification_report(gold, blind, labels)
    for metric in ("accuracy", "macro_f1"):
        what = f"sighted minus blind {metric.replace('_', ' ')} on the shared items; 95% paired bootstrap over items"
        facts.add(K.PAIR_GAP.key(metric=metric, **values), getattr(rep_s, metric) - getattr(rep_b, metric), what, runs)
        facts.add(K.PAIR_GAP.low(metric=metric, **values), ci[metric].low, what, runs)
        facts.add(K.PAIR_GAP.high(metric=metric, **values), ci[metric].high, what, runs)
    fixes, breaks = discordant(gold, blind, sighted)
    facts.add(K.PAIR_COUNTS.key(count="n", **values), len(pair.row_ids), "items both arms answered", runs)
    facts.add(K.PAIR_COUNTS.key(count="fixes", **values), fixes, "items the blind arm got wrong and the sighted right",
              runs)
    facts.add(K.PAIR_COUNTS.key(count="breaks", **values), breaks, "items the blind arm got right and the sighted "
              "wrong", runs)
    facts.add(K.PAIR_P.key(**values), mcnemar_exact(fixes, breaks), "exact McNemar (two-sided binomial of fixes "
              "among the discordant items)", runs)
