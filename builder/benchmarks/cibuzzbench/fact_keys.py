"""Every CIBuzzBench fact key, as patterns with a unit and a meaning (builder.core.factkeys).

Compute writes keys with `PATTERN.key(...)` and views read them the same way, so a key is
spelt in one place; docs/facts.md is generated from the sections below.
"""

from __future__ import annotations

from builder.benchmarks.cibuzzbench.analyses.paired import COMPARED_SETTINGS, ERROR_SOURCES
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES
from builder.benchmarks.cibuzzbench.dataset.options import DISTRACTOR_TYPES
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from builder.core.factkeys import FactPattern, Part, Section, choice
from builder.stats.solvable_split import SPLIT_VALUES

_NAME = r"[a-z0-9][a-z0-9_-]*"  # builder.core.names: run ids and summary ids

METRIC = choice("metric", ("accuracy", "macro_f1"), "")
STAT = choice("stat", ("mean", "sd"), "mean, or sample standard deviation (ddof = 1; absent with one seed), over option seeds")
RANGE = choice("range", ("min", "max"), "smallest or largest value over option seeds")
SCOPE = Part("scope", r"(?:\.test)?", "nothing for all items, `.test` for the test split (value \"all\" or \"test\")",
             render=lambda s: "" if s == "all" else f".{s}", shown="[.test]")
SPLIT = choice("split", ("train", "test"), "")
CATEGORY = choice("category", CATEGORIES, "a category, spelt as in the CSV: " + ", ".join(CATEGORIES))
SLOT = choice("slot", ("gold", *DISTRACTOR_TYPES), "")
DISTRACTOR = choice("distractor", DISTRACTOR_TYPES, "")
HARM_CLASS = choice("harm", ("harmful", "non_harmful"), "")
CLASS_SCORE = choice("score", ("f1", "precision", "recall"), "")
LABEL = Part("label", r"[A-D]|harmful|non_harmful", "a label of the run's task: `A`–`D`, or `harmful` / `non_harmful`")
PROBE = Part("probe", _NAME, "a model-free probe: `random`, `constant_letter`, `longest_chars`, "
             "`shortest_chars`, `longest_words`, `learned_options`, `learned_lengths` (Task 3: `always_non_harmful`); "
             "another probe's name enters as its slug")
SEED = Part("seed", r"\d+", f"an option-shuffle seed (the official five: {', '.join(map(str, OFFICIAL_SEEDS))})")
RUN_ID = Part("run_id", _NAME, "a run's id (its header's `run_id`)")
PAIR_ID = Part("pair_id", f"{_NAME}__vs__{_NAME}", "`<blind run_id>__vs__<sighted run_id>` (docs/paired-facts.md)")
MODEL_ID = Part("id", _NAME, "a model or paired summary's id (docs/model-facts.md)")
ARM = choice("arm", ("a", "b"), "the arm of a pair: a = blind, b = sighted")
SETTING = choice("setting", COMPARED_SETTINGS, "")
SOURCE = choice("source", ERROR_SOURCES, "the option a wrong answer chose: " + ", ".join(ERROR_SOURCES))
FEATURE = Part("feature", r"[a-z0-9_]+", "a feature of the learned probe: a ranker cue or an n-gram prior (docs/ranker.md)")
STATEMENT = Part("statement", _NAME, "a statement's id in content/article-figures.yaml")
OUTCOME = choice("outcome", ("recomputed", "matches", "differs", "reported_only", "unavailable"), "")
CHECKED = choice("kind", ("data", "counts"), "`data`: recomputed independently from the CIBuzzBench data; `counts`: "
                 "arithmetic on the published probe's own counts (consistency, not a reproduction)")
KIND_OUTCOME = choice("outcome", ("recomputed", "matches", "differs", "unavailable"), "")

S = "official metric (scikit-learn, macro over labels), 0–100"
PCT, COUNT, PTS, P, CHARS = "% (0–100)", "count", "points", "p (0–1)", "characters"


def _p(pattern: str, unit: str, description: str, *parts: Part, interval: bool = False, bare: bool = True,
       variants: bool = False) -> FactPattern:
    return FactPattern(pattern, unit, description, {p.name: p for p in parts}, interval=interval, bare=bare,
                       variants=variants)


# ------------------------------------------------------------------------------ dataset
DATASET_ROWS = _p("dataset.rows", COUNT, "rows of the CSV")
DATASET_SPLIT = _p("dataset.{split}", COUNT, "rows in the split", SPLIT)
DATASET_HARM = _p("dataset.{harm}", COUNT, "rows with this harmful_label", HARM_CLASS)
DATASET_HARMFUL_RATE = _p("dataset.harmful_rate", PCT, "harmful rows / rows")
CATEGORY_COUNT = _p("dataset.category.{category}.count", COUNT, "rows in the category", CATEGORY)
CATEGORY_SHARE = _p("dataset.category.{category}.share", PCT, "category rows / rows", CATEGORY)
CATEGORY_HARMFUL = _p("dataset.category.{category}.harmful", COUNT, "harmful rows in the category", CATEGORY)
CATEGORY_HARMFUL_RATE = _p("dataset.category.{category}.harmful_rate", PCT, "harmful rows / category rows", CATEGORY)
CATEGORY_TEST = _p("dataset.category.{category}.test_count", COUNT, "test rows in the category", CATEGORY)

# ------------------------------------------------------------------------ option lengths
GOLD_LONGEST_COUNT = _p("leak{scope}.gold_strictly_longest.count", COUNT,
                        "items whose gold is longer than all three distractors", SCOPE, variants=True)
GOLD_LONGEST_SHARE = _p("leak{scope}.gold_strictly_longest.share", PCT,
                        "share of items whose gold is strictly the longest option", SCOPE, variants=True)
GOLD_SHORTEST_SHARE = _p("leak{scope}.gold_strictly_shortest.share", PCT,
                         "share of items whose gold is shorter than all three distractors", SCOPE, variants=True)
WITHIN_10PCT_COUNT = _p("leak{scope}.options_within_10pct.count", COUNT,
                        "items whose four options are pairwise within 10% in length, `|a-b| <= 0.1*max(a, b)` "
                        "(integers, so exact: `10*(longest-shortest) <= longest`)", SCOPE, variants=True)
WITHIN_10PCT_SHARE = _p("leak{scope}.options_within_10pct.share", PCT,
                        "share of items whose four options are pairwise within 10% in length", SCOPE, variants=True)
GOLD_LONGER_THAN = _p("leak{scope}.gold_longer_than.{distractor}.share", PCT,
                      "share of items whose gold is longer than this distractor", SCOPE, DISTRACTOR, variants=True)
MEAN_CHARS = _p("leak{scope}.mean_chars.{slot}", CHARS, "mean length of the option slot (Python `len`)",
                SCOPE, SLOT, variants=True)
MEDIAN_CHARS = _p("leak{scope}.median_chars.{slot}", CHARS, "median length of the option slot", SCOPE, SLOT,
                  variants=True)

# -------------------------------------------------------------------------------- audits
OTHER_GOLD_COUNT = _p("audit.distractor_is_other_gold.count", COUNT,
                      "distractor strings equal to another item's gold (case-insensitive, trimmed)", variants=True)
OTHER_GOLD_SHARE = _p("audit.distractor_is_other_gold.share", PCT,
                      "the same, as a share of all distractor strings", variants=True)
OTHER_GOLD_EXACT_COUNT = _p("audit.distractor_is_other_gold.exact.count", COUNT,
                            "the same comparing strings exactly (letter case and spaces count)", variants=True)
OTHER_GOLD_EXACT_SHARE = _p("audit.distractor_is_other_gold.exact.share", PCT,
                            "the exact comparison as a share of all distractor strings (the published probe "
                            "states the case-insensitive one)", variants=True)
OTHER_GOLD_BY_TYPE = _p("audit.distractor_is_other_gold.{distractor}.count", COUNT,
                        "distractors of this type equal to another item's gold", DISTRACTOR, variants=True)
DUPLICATE_OPTIONS = _p("audit.duplicate_option_items", COUNT, "items with two equal options", variants=True)
DISTINCT_TERMS = _p("audit.distinct_terms", COUNT, "distinct term_zh values", variants=True)
TERM_OVERLAP = _p("audit.train_test_term_overlap", COUNT, "distinct term_zh values in both splits", variants=True)

# -------------------------------------------------------------------- model-free probes
PROBE_SEED = _p("leak.{probe}{scope}.{metric}.seed_{seed}", S, "the probe's score at one option seed",
                PROBE, SCOPE, METRIC, SEED, interval=True, variants=True)
PROBE_SPREAD = _p("leak.{probe}{scope}.{metric}.{stat}", S, "the probe's score over the option seeds",
                  PROBE, SCOPE, METRIC, STAT, variants=True)
PROBE_CATEGORY_MEAN = _p("leak.{probe}.category.{category}.{metric}.mean", S,
                         "mean over option seeds of the score within the category (all items)",
                         PROBE, CATEGORY, METRIC, variants=True)
PROBE_CATEGORY_SEED = _p("leak.{probe}.category.{category}.{metric}.seed_{seed}", S,
                         f"the score within the category at the default seed ({DEFAULT_SEED}), bootstrapped within it",
                         PROBE, CATEGORY, METRIC, SEED, interval=True, variants=True)
HARM_PROBE = _p("harm.{probe}{scope}.{metric}", S, "a Task 3 probe's score", PROBE, SCOPE, METRIC,
                interval=True, variants=True)
HARM_PROBE_CLASS = _p("harm.{probe}{scope}.{score}.{harm}", S, "a Task 3 probe's F1, precision or recall of a class",
                      PROBE, SCOPE, CLASS_SCORE, HARM_CLASS, variants=True)
IMPORTANCE_COEF = _p("learned.importance.coef.{feature}", "coefficient",
                     "coefficient of the standardised feature in the learned option-only probe", FEATURE)
IMPORTANCE_PERMUTATION = _p("learned.importance.permutation.{feature}", PTS,
                            "accuracy drop on the test split when the feature is shuffled", FEATURE)

# ------------------------------------------------------------------------------ fidelity
FIDELITY_SITE = _p("fidelity.{statement}.site", "as quoted",
                   "the site's value of the statement (its provenance names the fact or the expression)", STATEMENT)
FIDELITY_DIFFERENCE = _p("fidelity.{statement}.difference", "as quoted", "site minus the quoted figure "
                         "(content/reported.yaml)", STATEMENT)
FIDELITY_MATCHES = _p("fidelity.{statement}.matches", "0/1", "1 when |difference| is within the tolerance (default: "
                      "half a unit in the quoted last digit, so the site's value rounds to the quote), else 0",
                      STATEMENT)
FIDELITY_COUNT = _p("fidelity.{outcome}.count", COUNT, "statements recomputed, matching, differing, quoted only "
                    "(they need the probe's model run) or unavailable in this build", OUTCOME)
FIDELITY_KIND_COUNT = _p("fidelity.{kind}.{outcome}.count", COUNT, "the same counts for one way of checking: from "
                         "the data, or against the probe's own counts", CHECKED, KIND_OUTCOME)

# ---------------------------------------------------------------------------------- runs
RUN_N = _p("run.{run_id}.n", COUNT, "items in the run", RUN_ID)
RUN_SELECTED = _p("run.{run_id}.selected", COUNT, "items in the run's declared selection (N of \"n of N\")", RUN_ID)
RUN_COMPLETE = _p("run.{run_id}.complete", "0/1", "1 when the run is finished (footer present; validation guarantees "
                  "every declared item is then in the file), 0 while in progress: an incomplete run is left out "
                  "of the probe figures, pairs, model tables and the tracker", RUN_ID)
RUN_FAILED = _p("run.{run_id}.failed", COUNT, "items whose request failed (`error` set, no answer); scored as wrong",
                RUN_ID)
RUN_UNPARSED = _p("run.{run_id}.unparsed", COUNT, "items with a response that could not be parsed (failed requests "
                  "not included); scored as wrong", RUN_ID)
RUN_SCORE = _p("run.{run_id}.{metric}", S, "the run's score", RUN_ID, METRIC, interval=True)
RUN_CHANCE = _p("run.{run_id}.chance.{metric}", S, "a uniformly random letter (the `random` probe's rule, rng seed 0) "
                 "scored on the run's own items and option order (Task 2 model runs): the chance line the "
                 "tracker's premises compare the run with", RUN_ID, METRIC, interval=True)
RUN_F1 = _p("run.{run_id}.f1.{label}", S, "F1 of one label", RUN_ID, LABEL)
RUN_CATEGORY = _p("run.{run_id}.category.{category}.{metric}", S, "the score within the category", RUN_ID, CATEGORY,
                  METRIC)


# --------------------------------------------------------------------------- leak split
LEAK_SCORE_ITEMS = _p("leak_score.items", COUNT, "items given a leak score: every CSV row, four options of the "
                      "original set in the published slot order")
LEAK_SCORE_SOLVABLE = _p("leak_score.solvable.{value}", "count or 0–100", "items whose gold the cross-fitted "
                         "learned probe ranks strictly first (option-solvable), and their share",
                         choice("value", ("count", "share"), ""))
SPLIT_LEAK = _p("run.{run_id}.leak_split.{value}", "count or 0–100", "a sighted Task 2 model run on the original "
                "options split by the leak score", RUN_ID, choice("value", SPLIT_VALUES, ""))
SPLIT_COVERAGE = _p("run.{run_id}.leak_split.coverage", PCT, "the run's items / items given a leak score", RUN_ID)
SPLIT_GAP = _p("run.{run_id}.leak_split.gap", PTS, "accuracy on option-solvable items minus on the rest, 95% "
               "bootstrap interval resampling items within each category", RUN_ID, interval=True)
SPLIT_GAP_ADJUSTED = _p("run.{run_id}.leak_split.gap_adjusted", PTS, "accuracy on option-solvable items minus on the "
                        "rest within each category, pooled with Mantel–Haenszel weights n1·n0/(n1+n0); 95% "
                        "bootstrap interval resampling items within each category", RUN_ID, interval=True)
SPLIT_TAU = _p("leak_split.kendall_tau", "tau", "Kendall's tau-b between the split runs' strict accuracy on all "
               "items and on the rest (three runs or more)")
SPLIT_ABOVE_ZERO = _p("leak_split.gap_above_zero", COUNT, "split runs whose gap interval lies above zero (three runs "
                      "or more)")

# --------------------------------------------------------------------------------- pairs
PAIR_N = _p("pair.{pair_id}.n", COUNT, "shared items analysed", PAIR_ID)
PAIR_ONLY = _p("pair.{pair_id}.only_{arm}", COUNT, "items only in this arm's run (left out)", PAIR_ID, ARM)
PAIR_AGREEMENT_COUNT = _p("pair.{pair_id}.agreement.count", COUNT,
                          "shared items with the identical prediction (two unparsed answers agree)", PAIR_ID)
PAIR_AGREEMENT_SHARE = _p("pair.{pair_id}.agreement.share", PCT, "agreement count / shared items", PAIR_ID)
PAIR_FIXES = _p("pair.{pair_id}.fixes", COUNT, "shared items a got wrong and b got right", PAIR_ID)
PAIR_BREAKS = _p("pair.{pair_id}.breaks", COUNT, "shared items a got right and b got wrong", PAIR_ID)
PAIR_MCNEMAR = _p("pair.{pair_id}.mcnemar_p", P, "exact McNemar: two-sided binomial test of fixes among fixes + "
                  "breaks at p = ½ (1 when there are none)", PAIR_ID)
PAIR_SETTINGS_DIFFER = _p("pair.{pair_id}.settings_differ", COUNT, "generation settings the arms were not run alike "
                          "on (0: alike); the provenance lists them", PAIR_ID)
PAIR_DIFFERS = _p("pair.{pair_id}.differs.{setting}", "1", "present only for a setting that differs", PAIR_ID, SETTING)
PAIR_ARM = _p("pair.{pair_id}.{arm}.{metric}", S, "an arm's score on the shared items", PAIR_ID, ARM, METRIC)
PAIR_RATIO = _p("pair.{pair_id}.ratio.{metric}", PCT, "a score / b score × 100 (absent when b scores 0)",
                PAIR_ID, METRIC)
PAIR_GAP = _p("pair.{pair_id}.gap.{metric}", PTS, "b − a, with a paired bootstrap interval", PAIR_ID, METRIC,
              interval=True)
PAIR_CATEGORY_N = _p("pair.{pair_id}.category.{category}.n", COUNT, "shared items in the category", PAIR_ID, CATEGORY)
PAIR_CATEGORY_ARM = _p("pair.{pair_id}.category.{category}.{arm}.accuracy", S, "an arm's accuracy within the category",
                       PAIR_ID, CATEGORY, ARM)
PAIR_CATEGORY_FIXES = _p("pair.{pair_id}.category.{category}.fixes", COUNT, "a wrong, b right within the category",
                         PAIR_ID, CATEGORY)
PAIR_CATEGORY_BREAKS = _p("pair.{pair_id}.category.{category}.breaks", COUNT, "a right, b wrong within the category",
                          PAIR_ID, CATEGORY)
PAIR_CATEGORY_GAP = _p("pair.{pair_id}.category.{category}.gap.accuracy", PTS,
                       "b − a accuracy within the category, bootstrapped within it", PAIR_ID, CATEGORY, interval=True)
PAIR_CATEGORY_MCNEMAR = _p("pair.{pair_id}.category.{category}.mcnemar_p", P, "exact McNemar p within the category",
                           PAIR_ID, CATEGORY)
PAIR_CATEGORY_HOLM = _p("pair.{pair_id}.category.{category}.holm_p", P,
                        "Holm step-down adjusted p across the categories present in the pair", PAIR_ID, CATEGORY)
PAIR_ERRORS_TOTAL = _p("pair.{pair_id}.errors.total.count", COUNT, "wrong answers of run a on the shared items "
                       "(Task 2)", PAIR_ID)
PAIR_ERRORS = _p("pair.{pair_id}.errors.{source}.count", COUNT, "wrong answers of run a by the source of the chosen "
                 "letter", PAIR_ID, SOURCE)

# ------------------------------------------------------------------------ model summaries
MODEL_SEEDS = _p("model.{id}.seeds", COUNT, "runs in the summary (one per option seed)", MODEL_ID)
MODEL_ITEMS = _p("model.{id}.items", COUNT, "items in each run (the smallest run)", MODEL_ID)
MODEL_ITEMS_DECLARED = _p("model.{id}.items_declared", COUNT, "items the runs' headers declare (`items.n`)", MODEL_ID)
MODEL_SPREAD = _p("model.{id}.{metric}.{stat}", S, "the model's score over option seeds", MODEL_ID, METRIC, STAT)
MODEL_INTERVAL = _p("model.{id}.{metric}", S, f"bootstrap interval of the seed-{DEFAULT_SEED} run (else the lowest seed's)",
                    MODEL_ID, METRIC, interval=True, bare=False)
MODEL_HARMFUL_F1 = _p("model.{id}.f1.harmful.{stat}", S, "Task 3: F1 of the harmful class over seeds",
                      MODEL_ID, STAT)
PAIRED_MODELS = _p("paired_models.count", COUNT,
                   "models with paired sighted and blind runs (each counted once, however many summaries)")
PAIRED_SEEDS = _p("paired.{id}.seeds", COUNT, "pairs in the summary (one per option seed)", MODEL_ID)
PAIRED_N = _p("paired.{id}.n", COUNT, "shared items in each pair (the smallest pair)", MODEL_ID)
PAIRED_CHANCE = _p("paired.{id}.chance.accuracy", S, "accuracy of a uniformly random label: 100 / number of labels",
                   MODEL_ID)
PAIRED_ARM = _p("paired.{id}.{arm}.{metric}.{stat}", S, "an arm's score on the shared items", MODEL_ID, ARM, METRIC,
                STAT)
PAIRED_GAP = _p("paired.{id}.gap.{metric}.{stat}", PTS, "sighted − blind", MODEL_ID, METRIC, STAT)
PAIRED_GAP_INTERVAL = _p("paired.{id}.gap.{metric}", PTS, f"paired-bootstrap interval of the seed-{DEFAULT_SEED} pair",
                         MODEL_ID, METRIC, interval=True, bare=False)
PAIRED_RATIO = _p("paired.{id}.ratio.{metric}.{stat}", PCT, "blind / sighted × 100 (absent if a sighted score is 0)",
                  MODEL_ID, METRIC, STAT)
PAIRED_B_ABOVE_CHANCE = _p("paired.{id}.b.above_chance.accuracy.{stat}", PTS, "sighted accuracy − chance", MODEL_ID,
                           STAT)
PAIRED_ABOVE_CHANCE = _p("paired.{id}.above_chance.accuracy.{stat}", PCT,
                         "(blind − chance) / (sighted − chance) accuracy × 100: of the sighted arm's points above "
                         "chance, the share the blind arm also reaches (absent if a sighted arm is at or below "
                         "chance)", MODEL_ID, STAT)
PAIRED_AGREEMENT = _p("paired.{id}.agreement.share.{stat}", PCT, "shared items with the same answer", MODEL_ID, STAT)
PAIRED_FIXES = _p("paired.{id}.fixes.{stat}", COUNT, "items wrong blind, right sighted", MODEL_ID, STAT)
PAIRED_BREAKS = _p("paired.{id}.breaks.{stat}", COUNT, "items right blind, wrong sighted", MODEL_ID, STAT)
PAIRED_MCNEMAR = _p("paired.{id}.mcnemar_p.{range}", P, "exact McNemar p of each pair: its range over seeds",
                    MODEL_ID, RANGE)
PAIRED_ERRORS_TOTAL = _p("paired.{id}.errors.total.{stat}", COUNT, "blind wrong answers on shared items", MODEL_ID,
                         STAT)
PAIRED_ERRORS_COUNT = _p("paired.{id}.errors.{source}.count", COUNT, "blind wrong answers on this option, summed over "
                         "seeds", MODEL_ID, SOURCE)
PAIRED_ERRORS_SHARE = _p("paired.{id}.errors.{source}.share", PCT, "blind wrong answers on this option, % of all, "
                         "pooled over seeds", MODEL_ID, SOURCE)
PAIRED_CATEGORY_N = _p("paired.{id}.category.{category}.n", COUNT, "shared items in the category (the smallest pair)",
                       MODEL_ID, CATEGORY)
PAIRED_CATEGORY_ARM = _p("paired.{id}.category.{category}.{arm}.accuracy.{stat}", S,
                         "an arm's accuracy within the category", MODEL_ID, CATEGORY, ARM, STAT)
PAIRED_CATEGORY_GAP = _p("paired.{id}.category.{category}.gap.accuracy.{stat}", PTS,
                         "sighted − blind accuracy within the category", MODEL_ID, CATEGORY, STAT)
PAIRED_CATEGORY_GAP_INTERVAL = _p("paired.{id}.category.{category}.gap.accuracy", PTS,
                                  f"paired-bootstrap interval of the seed-{DEFAULT_SEED} pair, within the category",
                                  MODEL_ID, CATEGORY, interval=True, bare=False)
PAIRED_CATEGORY_MCNEMAR = _p("paired.{id}.category.{category}.mcnemar_p.{range}", P,
                             "exact McNemar p within the category, range over seeds", MODEL_ID, CATEGORY, RANGE)
PAIRED_CATEGORY_HOLM = _p("paired.{id}.category.{category}.holm_p.{range}", P,
                          "Holm-adjusted McNemar p within the category, range over seeds", MODEL_ID, CATEGORY, RANGE)


def _all(prefix: str) -> tuple[FactPattern, ...]:
    """The module's patterns whose constant names start with `prefix`, in definition order."""
    return tuple(v for k, v in globals().items() if isinstance(v, FactPattern) and k.startswith(prefix))


SECTIONS: tuple[Section, ...] = (
    Section("Dataset", "", _all("DATASET_") + _all("CATEGORY_")),
    Section("Option-length leakage", "Lengths are characters (Python `len`) per option slot; `[.test]`: the same on "
            "the test split.",
            (GOLD_LONGEST_COUNT, GOLD_LONGEST_SHARE, GOLD_SHORTEST_SHARE, WITHIN_10PCT_COUNT, WITHIN_10PCT_SHARE,
             GOLD_LONGER_THAN, MEAN_CHARS, MEDIAN_CHARS)),
    Section("Audits", "", _all("OTHER_GOLD_") + (DUPLICATE_OPTIONS, DISTINCT_TERMS, TERM_OVERLAP)),
    Section("Model-free probes", "Task 2 probes (`leak.*`) and the Task 3 baseline (`harm.*`): `random` (uniform "
            "random letter, seeded per item), `constant_letter` (always A: the floor of a rule that stops "
            "discriminating, about 25 accuracy but about 10 macro F1; original only, since every variant has the "
            "same letter maps), `longest_chars`, `shortest_chars`, `longest_words` (ties go to the earliest "
            "letter), `learned_options`, the learned option-only probe, and `learned_lengths`, the same learner "
            "restricted to length features (characters, words, their ranks and relative sizes; no n-grams). For "
            "both learned probes `.test` is trained on the train split and scored on the test split, and the key "
            "without it is cross-validation over all items by group: 5 folds, or fewer when a group holds over a "
            "fifth of the items (each run's `subject.parameters.folds` names its count; not computed for "
            "`learned_options` on a variant, where it is invalid: see docs/gold-pool.md).\n\n"
            "Dataset variants: the gold-pool variants (docs/gold-pool.md) are derived from the CSV at every build "
            "(`gold_pool`, the article's set; `gold_pool_slot`, the ablation); their figures mirror the "
            "original's under `variant.<name>.` wherever a pattern says so.",
            (PROBE_SEED, PROBE_SPREAD, PROBE_CATEGORY_MEAN, PROBE_CATEGORY_SEED, HARM_PROBE, HARM_PROBE_CLASS,
             IMPORTANCE_COEF, IMPORTANCE_PERMUTATION)),
    Section("The published probe's figures", "One entry per statement of `content/article-figures.yaml` that the site "
            "can recompute (from a fact, or from the article's own figures with a `derive` expression).",
            _all("FIDELITY_")),
    Section("Every run", "Pages show an incomplete run's items as \"n of N\".", _all("RUN_")),
    Section("Leak split of model runs", "The shared ranker's cross-fitted leak score (builder.ranker.leak) of every "
            "item on the original option set, and each sighted Task 2 model run on it split into the items the "
            "options alone give away and the rest (analyses/leak_split.py).", _all("LEAK_SCORE_") + _all("SPLIT_")),
    Section("Paired runs", "Arm a is the blind run, b the sighted one, on the items both answered; see "
            "[paired-facts.md](paired-facts.md).", _all("PAIR_")),
    Section("Model summaries", "A model's runs over option seeds, and its per-seed pairs, summarised; see "
            "[model-facts.md](model-facts.md).", _all("MODEL_") + _all("PAIRED_")),
)
