"""The compute stage of the spec'd benchmarks: every figure a spec's page shows, as a fact
(fact_keys.py): composition, lengths, the audit and its learned probe, each run's summary
(run_summary.py, cached per run), the imported runs' tie groups, the leak split, and the pairs:
a sighted and a blind run of one model with the same option seed, items and sampling settings,
compared item by item (paired bootstrap interval of the gap, exact McNemar), as CIBuzzBench's
pairs are (docs/audit.md, Probing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.audit import PROBES, Audit
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.gold import gold_letters
from builder.benchmarks.mcq.loading import Loaded, SpecCache, spec_cached
from builder.benchmarks.mcq.analyses.option_scores import char_lengths, word_lengths
from builder.benchmarks.mcq.analyses.run_summary import run_summaries
from builder.benchmarks.mcq.analyses.reconcile import add_reconciliation_facts
from builder.core.errors import InputError
from builder.core.redact import excerpt
from builder.core.facts import FactTable
from builder.core.names import slug
from builder.runs.schema import Run
from builder.stats import classification_report, paired_bootstrap_difference
from builder.stats.paired import discordant, mcnemar_exact
from builder.benchmarks.mcq.analyses.leak_split import add_split_summary, solvable_rows
from builder.benchmarks.mcq.analyses.rankings import tie_groups


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
    strata: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # (run id, its split's StratumRows) per split run

    @property
    def name(self) -> str:
        return self.loaded.benchmark.spec.name


def compute_spec(loaded: Loaded, facts: FactTable, cache: SpecCache = SpecCache()) -> Computed:
    """One spec's facts; `cache` (loading.spec_cache): the build's caches, none by default."""
    bench = loaded.benchmark.spec.name
    facts.update(_spec_facts(loaded, bench, cache))
    categories = _labels(loaded, "category")
    summaries = dict(zip((run.header.run_id for run in loaded.runs), run_summaries(loaded, loaded.runs, categories, cache)))
    for summary in summaries.values():
        facts.update(summary.facts)
    pairs = find_pairs(loaded.runs)
    for pair in pairs:
        _pair_facts(loaded, pair, facts, bench)
    tie_groups(loaded.runs, summaries, facts, bench, len(loaded.data.items))
    split = [rid for rid, s in summaries.items() if s.split]
    # People (a paper's human study) keep their own split but are not counted among the models.
    from builder.site.model_names import is_human_group
    people = {r.header.run_id for r in loaded.runs if is_human_group(r.header.subject_label)}
    models = [rid for rid in split if rid not in people]
    leak = add_split_summary(models, summaries, solvable_rows(loaded), facts, bench, len(loaded.data.items)) if models else None
    if loaded.reconciliation is not None:
        add_reconciliation_facts(facts, bench, loaded.reconciliation)
    strata = tuple((rid, summaries[rid].strata) for rid in split)
    return Computed(loaded, _labels(loaded, "split"), categories, tuple(pairs), leak, strata)


def _spec_facts(loaded: Loaded, bench: str, cache: SpecCache) -> FactTable:
    """The facts of the data and its audit alone (composition, lengths, probes, ablation), cached
    (loading.spec_cached): measuring 40,000 items' options costs a quarter of a second per build."""
    def compute() -> FactTable:
        table = FactTable()
        _composition(loaded, table, bench)
        _lengths(loaded, table, bench)
        _audit(loaded.audit, table, bench)
        _learned(loaded.audit, table, bench)
        return table
    return spec_cached(loaded, cache, "facts", compute, FactTable)


def _labels(loaded: Loaded, field: str) -> tuple[tuple[str, str], ...]:
    """(value, slug) of a split or category, in first-seen order; two values with one slug are an error."""
    values = list(dict.fromkeys(getattr(i, field) for i in loaded.data.items.values() if getattr(i, field) is not None))
    slugs: dict[str, str] = {}
    for value in values:
        label = slug(value) if value.strip() else "blank"
        if label in slugs:
            spec = loaded.benchmark.spec
            raise InputError.single(spec.path, f"{field} values {excerpt(slugs[label])} and {excerpt(value)} have one key name "
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
        if finding.groups is not None:
            facts.add(K.SHARED_SETS.key(bench=bench), finding.groups, "option sets shared by more than one record")
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
        how = (f"options shuffled per item by {audit.shuffle_recipe}; mean over option seeds 1111-5555; interval: "
               "seed 1111's 95% percentile bootstrap over items" if block == "shuffled"
               else "in the file's option order; 95% percentile bootstrap over items")
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
    held = ("the test split" if audit.learned_evaluation == "train→test"
            else f"the first of the {audit.learned_folds} CV folds")
    for a in audit.ablation:
        what = f"learned probe without cue family {a.group}, refitted on the same training items and scored on {held}"
        facts.add(K.ABLATION.key(bench=bench, group=a.group, value="accuracy"), a.accuracy, what)
        facts.add(K.ABLATION.key(bench=bench, group=a.group, value="drop"), a.drop, what + ": full minus without")
        facts.add(K.ABLATION.low(bench=bench, group=a.group, value="drop"), a.ci95_low, what + ": paired bootstrap")
        facts.add(K.ABLATION.high(bench=bench, group=a.group, value="drop"), a.ci95_high, what + ": paired bootstrap")
    leak = audit.leak
    assert leak is not None  # every audit has one (audit.audit sets it; None is only the field's default)
    fitted = f"{audit.learned_folds}-fold cross-fitted"  # the folds group_folds gave, never the target
    facts.add(K.LEAK.key(bench=bench, value="solvable"), leak.solvable_share,
              f"% of audited items option-solvable: the {fitted} learned probe ranks the gold strictly first")
    facts.add(K.LEAK.key(bench=bench, value="mean_leak_score"), 100.0 * float(np.mean(leak.leak_score)),
              f"mean {fitted} probability the learned probe gives the gold (0-100)")


def _pair_key(run: Run) -> tuple[Any, ...]:
    """What must agree for two arms to differ in the condition alone (the tool that made them too:
    a probe run never pairs with an import)."""
    h = run.header
    p = h.subject.get("parameters") or {}
    return (h.subject_name, h.option_seed, repr(sorted(h.items.items())), h.made_by,
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

