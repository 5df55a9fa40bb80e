"""Every fact key of the spec'd multiple-choice benchmarks (`mcq.<name>.…`), as patterns.

Scores are on the 0–100 scale like CIBuzzBench's. Split and category labels are written into
keys as `builder.core.names.slug`s of the spec's values (the page shows the values themselves).
"""

from __future__ import annotations

from builder.benchmarks.mcq.analyses.audit import PROBES
from builder.core.factkeys import FactPattern, Part, Section, choice
from builder.ranker.cues import GROUPS

_SLUG = r"[a-z0-9][a-z0-9_-]*"
BENCH = Part("bench", _SLUG, "a spec's `name` (content/benchmarks/<name>.yaml)")
K = Part("k", r"\d+", "a number of choices")
LABEL = Part("label", _SLUG, "the slug of a split or category value of the data")
FINDING = choice("finding", ("varying_choice_counts", "gold_duplicated", "duplicate_choices", "empty_choices",
                             "lettered_choices", "shared_option_sets", "filtered_records", "multiple_answers",
                             "option_letters"), "an audit finding (docs/audit.md, *Findings*)")
ROLE = choice("role", ("gold", "distractor"), "")
UNIT = choice("unit", ("chars", "words"), "")
EXTREME = choice("extreme", ("longest", "shortest"), "")
BLOCK = choice("block", ("shuffled", "published"), "the five seeded option shuffles (mean over seeds) or the "
               "file's own order")
PROBE = choice("probe", PROBES, "a model-free probe of the audit (docs/audit.md, *The probes*)")
METRIC = choice("metric", ("accuracy", "macro_f1"), "")
GROUP = choice("group", GROUPS, "a cue family of the learned probe (docs/ranker.md, *Cue families*)")
ABLATION_VALUE = choice("value", ("accuracy", "drop"), "accuracy without the family, or the full probe's accuracy "
                        "minus it (points; interval: paired bootstrap over the held-out items)")
LEAK_VALUE = choice("value", ("solvable", "mean_leak_score"), "% of audited items whose gold the cross-fitted probe "
                    "ranks strictly first (option-solvable); mean cross-fitted probability of the gold (0-100)")
RUN_ID = Part("run_id", _SLUG, "a run's id (its header's `run_id`)")
COUNT = choice("count", ("n", "unparsed", "errors", "differs"), "items scored; answers with no letter (scored wrong); "
               "requests that failed after their retries (scored wrong); items of an imported run whose question, "
               "options or gold differ from the reference revision (scored against the file's own gold)")
PAIR_COUNT = choice("count", ("n", "fixes", "breaks"), "shared items; items only the sighted arm got right; "
                    "items only the blind arm got right")

RECORDS = FactPattern("mcq.{bench}.records", "count", "items loaded from the data file", {"bench": BENCH})
ITEMS = FactPattern("mcq.{bench}.items", "count", "items audited and probed (after the findings' exclusions)",
                    {"bench": BENCH})
OPTIONS = FactPattern("mcq.{bench}.options", "count", "the most common number of choices per audited item",
                      {"bench": BENCH})
CHANCE = FactPattern("mcq.{bench}.chance", "0–100", "a uniform guess's expected accuracy: the mean of 100/k over "
                     "the audited items", {"bench": BENCH})
CHOICE_COUNT = FactPattern("mcq.{bench}.choice_count.{k}", "count", "loaded items with k choices",
                           {"bench": BENCH, "k": K})
SPLIT = FactPattern("mcq.{bench}.split.{label}.n", "count", "audited items in a split", {"bench": BENCH, "label": LABEL})
CATEGORY = FactPattern("mcq.{bench}.category.{label}.n", "count", "audited items in a category",
                       {"bench": BENCH, "label": LABEL})
FINDING_COUNT = FactPattern("mcq.{bench}.finding.{finding}", "count", "loaded items with the finding",
                            {"bench": BENCH, "finding": FINDING})
SHARED_SETS = FactPattern("mcq.{bench}.finding.shared_option_sets.sets", "count",
                          "option sets (order ignored, text normalised) that more than one loaded item shares; the "
                          "learned probe keeps each on one side of every fold", {"bench": BENCH})
LENGTH = FactPattern("mcq.{bench}.length.{role}.{unit}.mean", "characters or words",
                     "mean length of the gold option, or of a distractor, over the audited items",
                     {"bench": BENCH, "role": ROLE, "unit": UNIT})
GOLD_EXTREME = FactPattern("mcq.{bench}.length.gold_{extreme}.{unit}", "% of items",
                           "audited items whose gold is strictly the longest (shortest) option",
                           {"bench": BENCH, "extreme": EXTREME, "unit": UNIT})
AUDIT = FactPattern("mcq.{bench}.audit.{block}.{probe}.{metric}", "0–100",
                    "an audit probe's score: shuffled, the mean over the five option seeds (interval: seed 1111's "
                    "bootstrap over items); published, the score in the file's order",
                    {"bench": BENCH, "block": BLOCK, "probe": PROBE, "metric": METRIC}, interval=True)
AUDIT_SD = FactPattern("mcq.{bench}.audit.shuffled.{probe}.{metric}.sd", "0–100",
                       "sample standard deviation of the probe's score over the five option seeds",
                       {"bench": BENCH, "probe": PROBE, "metric": METRIC})
ABLATION = FactPattern("mcq.{bench}.ablation.{group}.{value}", "0–100 / points",
                       "the learned probe refitted without one cue family, on the same held-out items",
                       {"bench": BENCH, "group": GROUP, "value": ABLATION_VALUE}, interval=True)
LEAK = FactPattern("mcq.{bench}.leak.{value}", "% of items / 0–100",
                   "per-item leak scores (the learned probe cross-fitted by group: 5 folds, or fewer when "
                   "a group holds over a fifth of the items; each fact names its count), summarised",
                   {"bench": BENCH, "value": LEAK_VALUE})
RUN_SCORE = FactPattern("mcq.{bench}.run.{run_id}.{metric}", "0–100", "a model run's score over its answered "
                        "items (letters of the shown order as labels)", {"bench": BENCH, "run_id": RUN_ID,
                                                                         "metric": METRIC}, interval=True)
RUN_OFFICIAL = FactPattern("mcq.{bench}.run.{run_id}.accuracy_official", "0–100",
                           "an imported run's accuracy as its upstream scores it (results/upstream.py: an unparsed "
                           "answer replaced by the upstream's seeded random letter); interval: bootstrap over items",
                           {"bench": BENCH, "run_id": RUN_ID}, interval=True)
RUN_UPSTREAM_ALL = FactPattern("mcq.{bench}.run.{run_id}.accuracy_upstream_all", "0–100",
                               "an imported run's accuracy over every question of the upstream's benchmark, the ones "
                               "the run leaves out too (ChemBench: numeric and several-gold), as the upstream scores "
                               "it; recomputed at import from the published reports (source.upstream_all)",
                               {"bench": BENCH, "run_id": RUN_ID})
RUN_UPSTREAM_PART = FactPattern("mcq.{bench}.run.{run_id}.upstream.{label}.accuracy", "0–100",
                                "an imported run's accuracy over every record of one part of the upstream's benchmark "
                                "(LawBench: a task), the ones the audit leaves out too, as the upstream scores it; "
                                "recomputed at import (source.upstream_parts)",
                                {"bench": BENCH, "run_id": RUN_ID, "label": LABEL})
RUN_COVERAGE = FactPattern("mcq.{bench}.run.{run_id}.coverage", "0–100", "% of the items a run's header declares "
                           "(its selection) that it answered", {"bench": BENCH, "run_id": RUN_ID})
RUN_TIE_GROUP = FactPattern("mcq.{bench}.run.{run_id}.tie_group", "group number", "an imported run's paired tie group "
                            "by strict accuracy on the items every ranked run answered (1 = the top group; only model "
                            "runs of at least 99% coverage are ranked; analyses/rankings.py)", {"bench": BENCH, "run_id": RUN_ID})
RUN_TIE_P = FactPattern("mcq.{bench}.run.{run_id}.tie_p", "p-value", "exact McNemar of an imported run against the run "
                        "ranked just above it, on the items every ranked run answered", {"bench": BENCH, "run_id": RUN_ID})
SPLIT_VALUE = choice("value", ("solvable_items", "accuracy_solvable", "accuracy_rest"), "answered items the "
                     "probe solves; strict accuracy on them; strict accuracy on the rest")
LEAK_SPLIT = FactPattern("mcq.{bench}.run.{run_id}.leak_split.{value}", "count or 0–100", "a model run split by the "
                         "cross-fitted leak score (leak_split.py)", {"bench": BENCH, "run_id": RUN_ID, "value": SPLIT_VALUE})
LEAK_GAP = FactPattern("mcq.{bench}.run.{run_id}.leak_split.gap", "points (0–100)", "accuracy on option-solvable "
                       "items minus on the rest; interval: bootstrap over items stratified by category",
                       {"bench": BENCH, "run_id": RUN_ID}, interval=True)
LEAK_ADJUSTED = FactPattern("mcq.{bench}.run.{run_id}.leak_split.gap_adjusted", "points (0–100)",
                            "accuracy on option-solvable items minus on the rest within each stratum (the spec's "
                            "strata, else category), pooled with Mantel–Haenszel weights n1·n0/(n1+n0); interval: "
                            "bootstrap over items stratified alike", {"bench": BENCH, "run_id": RUN_ID}, interval=True)
LEAK_MODAL_SPLIT = FactPattern("mcq.{bench}.run.{run_id}.leak_split.modal_options.{value}", "count or 0–100",
                               "the split restricted to the items with the benchmark's most common number of options",
                               {"bench": BENCH, "run_id": RUN_ID, "value": SPLIT_VALUE})
LEAK_MODAL_GAP = FactPattern("mcq.{bench}.run.{run_id}.leak_split.modal_options.gap", "points (0–100)",
                             "the crude gap on the items with the most common number of options",
                             {"bench": BENCH, "run_id": RUN_ID}, interval=True)
LEAK_MODAL_ADJUSTED = FactPattern("mcq.{bench}.run.{run_id}.leak_split.modal_options.gap_adjusted", "points (0–100)",
                                  "the adjusted gap on the items with the most common number of options",
                                  {"bench": BENCH, "run_id": RUN_ID}, interval=True)
ADJUSTED_COUNT = choice("count", ("positive", "above_zero", "below_zero", "disagree"), "model runs whose adjusted gap "
                        "is positive; whose adjusted interval lies above zero; below zero; whose crude and adjusted "
                        "gaps differ in sign or in whether their interval excludes zero")
LEAK_ADJUSTED_COUNT = FactPattern("mcq.{bench}.leak_split.adjusted.{count}", "count", "counts over the split runs' "
                                  "adjusted gaps", {"bench": BENCH, "count": ADJUSTED_COUNT})
LEAK_TAU = FactPattern("mcq.{bench}.leak_split.kendall_tau", "tau", "Kendall's tau between the models' ranking on "
                       "all items and on the items the probe does not solve", {"bench": BENCH})
LEAK_WIDER = FactPattern("mcq.{bench}.leak_split.gap_above_zero", "count", "model runs whose gap interval lies above "
                         "zero", {"bench": BENCH})
SCOPE = choice("scope", ("all", "rest"), "ranked by strict accuracy on every answered item, or on the items the "
               "probe does not solve")
RANK_VALUE = choice("value", ("rank", "tie_group", "tie_p"), "position (1 = highest); paired tie group (a new group "
                    "where exact McNemar against the model above gives p < 0.05); that p-value")
LEAK_RANK = FactPattern("mcq.{bench}.run.{run_id}.leak_split.{scope}.{value}", "rank, group or p-value",
                        "a split model run's place among the split runs, on all items or on the rest",
                        {"bench": BENCH, "run_id": RUN_ID, "scope": SCOPE, "value": RANK_VALUE})
LEAK_MODELS = FactPattern("mcq.{bench}.leak_split.models", "count", "model runs given a leak split", {"bench": BENCH})
LEAK_POSITIVE = FactPattern("mcq.{bench}.leak_split.gap_positive", "count", "model runs more accurate on the "
                            "option-solvable items than on the rest (point estimate)", {"bench": BENCH})
LEAK_BELOW = FactPattern("mcq.{bench}.leak_split.gap_below_zero", "count", "model runs whose gap interval lies below "
                         "zero", {"bench": BENCH})
LEAK_MOVED = FactPattern("mcq.{bench}.leak_split.rank_changes", "count", "model runs whose rank on the rest differs "
                         "from their rank on all items", {"bench": BENCH})
STATEMENT = Part("statement", _SLUG, "a statement's id in content/reconciliation/<bench>.yaml")
OUTCOME = choice("outcome", ("recomputed", "matches", "differs", "reported_only", "unavailable"), "")
RECONCILE_SITE = FactPattern("mcq.{bench}.reconcile.{statement}.site", "as quoted", "the site's value of an upstream "
                             "figure (its provenance names the fact)", {"bench": BENCH, "statement": STATEMENT})
RECONCILE_DIFFERENCE = FactPattern("mcq.{bench}.reconcile.{statement}.difference", "as quoted",
                                   "site minus the upstream's quoted figure (content/reported.yaml)",
                                   {"bench": BENCH, "statement": STATEMENT})
RECONCILE_MATCHES = FactPattern("mcq.{bench}.reconcile.{statement}.matches", "0/1", "1 when the site's value rounds "
                                "to the quoted figure (or lies within the statement's tolerance), else 0",
                                {"bench": BENCH, "statement": STATEMENT})
RECONCILE_COUNT = FactPattern("mcq.{bench}.reconcile.{outcome}.count", "count", "upstream figures recomputed, "
                              "matching, differing, quoted only or unavailable", {"bench": BENCH, "outcome": OUTCOME})
RUN_COUNT = FactPattern("mcq.{bench}.run.{run_id}.{count}", "count", "a model run's item counts",
                        {"bench": BENCH, "run_id": RUN_ID, "count": COUNT})
RUN_CATEGORY = FactPattern("mcq.{bench}.run.{run_id}.category.{label}.accuracy", "0–100",
                           "a model run's accuracy on one category's items", {"bench": BENCH, "run_id": RUN_ID,
                                                                               "label": LABEL})
PAIR_GAP = FactPattern("mcq.{bench}.pair.{run_id}.gap.{metric}", "points (0–100)",
                       "sighted minus blind on the shared items of a pair, named by its sighted run; interval: "
                       "paired bootstrap over items", {"bench": BENCH, "run_id": RUN_ID, "metric": METRIC},
                       interval=True)
PAIR_COUNTS = FactPattern("mcq.{bench}.pair.{run_id}.{count}", "count", "a pair's shared, fixed and broken items",
                          {"bench": BENCH, "run_id": RUN_ID, "count": PAIR_COUNT})
PAIR_P = FactPattern("mcq.{bench}.pair.{run_id}.mcnemar_p", "p-value", "exact McNemar test of fixes against breaks",
                     {"bench": BENCH, "run_id": RUN_ID})

INDEX_PROBE = choice("probe", ("rule", "learned"), "the strongest rule, or the learned option-only probe")
INDEX_COUNTS = choice("count", ("benchmarks", "above_chance", "rule_wins"), "benchmarks on the index; those whose "
                      "learned probe's interval lies above chance; those where the strongest rule gains more")
INDEX_GAIN = FactPattern("mcq.{bench}.index.{probe}.gain", "points (0–100)",
                         "accuracy on the seeded shuffles minus chance (mean of 100/k over the items answered); "
                         "interval: seed 1111's bootstrap less the same chance", {"bench": BENCH, "probe": INDEX_PROBE},
                         interval=True)
LEARNED_CHANCE = FactPattern("mcq.{bench}.index.learned_chance", "0–100",
                             "mean of 100/k over the items the learned probe answered", {"bench": BENCH})
SOLVABLE = FactPattern("mcq.{bench}.index.solvable", "% of items",
                       "items the learned probe answered whose top choice is the gold (option-solvable)",
                       {"bench": BENCH})
LEARNED_ITEMS = FactPattern("mcq.{bench}.index.learned_items", "count", "items the learned probe answered",
                            {"bench": BENCH})
INDEX_COUNT = FactPattern("mcq.index.{count}", "count", "the index page's counts over benchmarks",
                          {"count": INDEX_COUNTS})

SECTIONS: tuple[Section, ...] = (
    Section("Multiple-choice benchmarks from spec files (`mcq.*`)",
            "One family per spec in content/benchmarks/ (docs/audit.md): the data set's composition and findings, "
            "option lengths, the model-free audit, and the sighted and blind runs of models with their pairs. None "
            "exist when no spec is there.",
            (RECORDS, ITEMS, OPTIONS, CHANCE, CHOICE_COUNT, SPLIT, CATEGORY, FINDING_COUNT, SHARED_SETS, LENGTH,
             GOLD_EXTREME, AUDIT, AUDIT_SD, ABLATION, LEAK, RUN_SCORE, RUN_OFFICIAL, RUN_UPSTREAM_ALL, RUN_UPSTREAM_PART,
             RUN_COVERAGE, RUN_TIE_GROUP, RUN_TIE_P, LEAK_SPLIT, LEAK_GAP, LEAK_ADJUSTED, LEAK_MODAL_SPLIT, LEAK_MODAL_GAP,
             LEAK_MODAL_ADJUSTED, LEAK_ADJUSTED_COUNT, LEAK_TAU, LEAK_WIDER,
             LEAK_RANK, LEAK_MODELS, LEAK_POSITIVE, LEAK_BELOW, LEAK_MOVED,
             RECONCILE_SITE,
             RECONCILE_DIFFERENCE, RECONCILE_MATCHES, RECONCILE_COUNT, RUN_COUNT, RUN_CATEGORY, PAIR_GAP, PAIR_COUNTS,
             PAIR_P, INDEX_GAIN, LEARNED_CHANCE, SOLVABLE, LEARNED_ITEMS, INDEX_COUNT)),
)
