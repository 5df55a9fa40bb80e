"""Shape CIBuzzBench's facts into the tables its pages show.

Only selection and layout happen here: every cell is a fact key resolved from the
table, so each displayed number can point back to its provenance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES
from builder.benchmarks.cibuzzbench.dataset.options import DISTRACTOR_TYPES
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.wording import (
    GOLD_POOL_ERRORS_NOTE, OPTION_SETS, has_distractor_types, option_seed_label, option_set_label, selection_label,
)
from builder.ranker.evaluate import FOLDS, folds_label
from builder.runs.schema import Header
from builder.site import tables as site_tables
from builder.site.tables import Cell, Table

PROBE_LABELS = {
    "random": "Uniform random letter",
    "constant_letter": "Always A (constant letter)",
    "longest_chars": "Longest option (characters)",
    "shortest_chars": "Shortest option (characters)",
    "longest_words": "Longest option (words)",
    "learned_lengths": "Learned length-only probe",
    "learned_options": "Learned option-only probe",
}


class FactCells(site_tables.FactCells):
    """Cells from the facts, plus what CIBuzzBench's run and pair rows need to know."""

    def run_items(self, rid: str) -> Cell:
        """A run's item count, as "n of N" while the run is incomplete."""
        cell = self(K.RUN_N.key(run_id=rid), "count")
        if self.complete(rid):
            return cell
        return Cell(key=cell.key, value=cell.value, kind="count", of=self.facts[K.RUN_SELECTED.key(run_id=rid)])

    def complete(self, rid: str) -> bool:
        return bool(self.facts[K.RUN_COMPLETE.key(run_id=rid)])

    def settings_note(self, pid: str) -> str | None:
        """What differs between a pair's arms (None when they were run alike)."""
        key = K.PAIR_SETTINGS_DIFFER.key(pair_id=pid)
        return self.facts.provenance[key].computation if self.facts[key] else None


def run_page(run_id: str) -> str:
    """The site-relative address of a run's own page (CIBuzzBench writes one per run)."""
    return f"runs/{run_id}.html"


def composition_table(f: FactCells) -> Table:
    rows = [
        (Cell("Items"), f(K.DATASET_ROWS.key(), "count")),
        (Cell("Train split"), f(K.DATASET_SPLIT.key(split="train"), "count")),
        (Cell("Test split"), f(K.DATASET_SPLIT.key(split="test"), "count")),
        (Cell("Harmful"), f(K.DATASET_HARM.key(harm="harmful"), "count")),
        (Cell("Non-harmful"), f(K.DATASET_HARM.key(harm="non_harmful"), "count")),
        (Cell("Harmful rate"), f(K.DATASET_HARMFUL_RATE.key(), "pct")),
        (Cell("Distinct terms"), f(K.DISTINCT_TERMS.key(), "count")),
    ]
    return Table("composition", "Dataset composition", ("", "Value"), tuple(rows))


def category_table(f: FactCells) -> Table:
    rows = []
    for c in CATEGORIES:
        rows.append((Cell(c), f(K.CATEGORY_COUNT.key(category=c), "count"), f(K.CATEGORY_SHARE.key(category=c), "pct"),
                     f(K.CATEGORY_TEST.key(category=c), "count"), f(K.CATEGORY_HARMFUL.key(category=c), "count"),
                     f(K.CATEGORY_HARMFUL_RATE.key(category=c), "pct")))
    return Table("categories", "Categories: size, test items and harmful rate",
                 ("Category", "Items", "Share", "Test items", "Harmful", "Harmful rate"), tuple(rows))


def heuristic_table(f: FactCells, probes: list[str], scope: str) -> Table:
    rows = []
    for probe in probes:
        on = {"probe": probe, "scope": scope, "metric": "macro_f1"}
        seeds = tuple(f.optional(K.PROBE_SEED.key(**on, seed=s)) for s in OFFICIAL_SEEDS)
        rows.append((Cell(PROBE_LABELS.get(probe, probe)), *seeds, f.optional(K.PROBE_SPREAD.key(**on, stat="mean")),
                     f.optional(K.PROBE_SPREAD.key(**on, stat="sd"))))
    where = "all items" if scope == "all" else f"the {scope} split"
    return Table(f"heuristics-{scope}", f"Surface heuristics, Task 2 macro F1 on {where}",
                 ("Heuristic", *(f"Option seed {s}" for s in OFFICIAL_SEEDS), "Mean", "SD"), tuple(rows),
                 note="Each option seed is one official shuffle of the letter order; SD is the sample standard "
                      "deviation over seeds.")


def heuristic_interval_table(f: FactCells, probes: list[str], scope: str, seed: int) -> Table:
    rows = []
    for probe in probes:
        row = [Cell(PROBE_LABELS.get(probe, probe))]
        for metric in ("accuracy", "macro_f1"):
            at: dict[str, Any] = {"probe": probe, "scope": scope, "metric": metric, "seed": seed}
            row += [f.optional(K.PROBE_SEED.key(**at)), f.optional(K.PROBE_SEED.low(**at)),
                    f.optional(K.PROBE_SEED.high(**at))]
        rows.append(tuple(row))
    where = "all items" if scope == "all" else f"the {scope} split"
    return Table(f"heuristic-intervals-{scope}", f"Surface heuristics with 95% bootstrap intervals ({option_seed_label(seed)}, {where})",
                 ("Heuristic", "Accuracy", "Low", "High", "Macro F1", "Low", "High"), tuple(rows),
                 note="Percentile bootstrap over items, 2,000 resamples.")


def length_table(f: FactCells, scope: str) -> Table:
    names = {"gold": "Gold equivalent", "literal": "Literal gloss", "cultural": "Cultural mismatch",
             "pragmatic": "Pragmatic neighbour"}
    rows = [(Cell(label), f(K.MEAN_CHARS.key(scope=scope, slot=slot), "num"),
             f(K.MEDIAN_CHARS.key(scope=scope, slot=slot), "num"),
             f(K.GOLD_LONGER_THAN.key(scope=scope, distractor=slot), "pct") if slot != "gold" else Cell("–"))
            for slot, label in names.items()]
    where = "all items" if scope == "all" else f"the {scope} split"
    return Table(f"lengths-{scope}", f"Option length by slot ({where})",
                 ("Option slot", "Mean characters", "Median characters", "Gold is longer than this slot"),
                 tuple(rows))


def longest_table(f: FactCells) -> Table:
    rows = [(Cell(label), f(K.GOLD_LONGEST_COUNT.key(scope=scope), "count"), f(K.GOLD_LONGEST_SHARE.key(scope=scope), "pct"))
            for scope, label in (("all", "All items"), ("test", "Test split"))]
    return Table("gold-longest", "Items whose gold is strictly the longest option",
                 ("Scope", "Items", "Share"), tuple(rows))


def audit_table(f: FactCells) -> Table:
    rows = [
        (Cell("Distractor strings equal to another item's gold"), f(K.OTHER_GOLD_COUNT.key(), "count"),
         f(K.OTHER_GOLD_SHARE.key(), "pct")),
        *((Cell(f"… of which {t} distractors"), f(K.OTHER_GOLD_BY_TYPE.key(distractor=t), "count"), Cell("–"))
          for t in DISTRACTOR_TYPES),
        (Cell("Items with two identical options"), f(K.DUPLICATE_OPTIONS.key(), "count"), Cell("–")),
        (Cell("Terms in both train and test"), f(K.TERM_OVERLAP.key(), "count"), Cell("–")),
    ]
    return Table("audits", "Audits (case-insensitive comparisons)", ("Check", "Count", "Share"), tuple(rows),
                 note="Share of distractor strings is over all three distractors of every item.")


def harm_table(f: FactCells, probe: str = "always_non_harmful") -> Table:
    rows = []
    for scope, label in (("all", "All items"), ("test", "Test split")):
        on = {"probe": probe, "scope": scope}
        rows.append((Cell(label), f(K.HARM_PROBE.key(**on, metric="accuracy")), f(K.HARM_PROBE.key(**on, metric="macro_f1")),
                     f(K.HARM_PROBE_CLASS.key(**on, score="f1", harm="harmful")),
                     f(K.HARM_PROBE_CLASS.key(**on, score="f1", harm="non_harmful"))))
    return Table("harm-baseline", "Task 3 trivial baseline: always answer non-harmful",
                 ("Scope", "Accuracy", "Macro F1", "F1 harmful", "F1 non-harmful"), tuple(rows))


def runs_table(f: FactCells, scores: dict[str, RunScore]) -> Table:
    rows = []
    for rid, s in scores.items():
        h = s.run.header
        seed = str(h.option_seed) if h.option_seed is not None else "–"
        warned = f" ⚠ imported with {len(h.import_warnings)} warning{'s' * (len(h.import_warnings) > 1)}" \
            if h.import_warnings else ""
        task, condition, option_set, items = run_setting(h)
        rows.append((Cell(rid, href=run_page(rid)), Cell(h.subject_label + warned), Cell(task), Cell(condition),
                     Cell(option_set if h.option_seed is not None else "–"), Cell(seed), Cell(items), f.run_items(rid),
                     *_run_score_cells(f, rid)))
    return Table("runs", "All runs", ("Run", "Subject", "Task", "Condition", "Option set", "Option seed", "Items asked",
                                      "n", "Accuracy", "Macro F1", "F1 low", "F1 high"), tuple(rows),
                 note="Intervals: 95% percentile bootstrap over items. Option seed: the seed of the letter order "
                      "(an item sample's own seed is in Items asked). \"n of N\": a run still in progress "
                      "(scored as it stands, left out of every headline figure, pair and the tracker). "
                      "\"⚠ imported with warnings\": its page says what the importer could not vouch for; "
                      "it is left out of every headline figure, pair, model table and the tracker.",
                 filters=("Subject", "Task", "Condition", "Option set"))


def category_scores_table(f: FactCells, probes: list[str]) -> Table:
    """Per category: size, harmful rate and each heuristic's accuracy (mean over seeds)."""
    rows = []
    for c in CATEGORIES:
        row = [Cell(c), f(K.CATEGORY_COUNT.key(category=c), "count"), f(K.CATEGORY_SHARE.key(category=c), "pct"),
               f(K.CATEGORY_HARMFUL_RATE.key(category=c), "pct")]
        row += [f.optional(K.PROBE_CATEGORY_MEAN.key(probe=p, category=c, metric="accuracy")) for p in probes]
        rows.append(tuple(row))
    return Table("category-scores", "Categories: size, harmful rate and surface-heuristic accuracy",
                 ("Category", "Items", "Share", "Harmful rate", *(PROBE_LABELS.get(p, p) for p in probes)),
                 tuple(rows), note="Heuristic accuracy is the mean over the five official option seeds, on all items.")


def category_interval_table(f: FactCells, probes: list[str], seed: int = DEFAULT_SEED) -> Table:
    rows = []
    for c in CATEGORIES:
        for p in probes:
            at: dict[str, Any] = {"probe": p, "category": c, "metric": "accuracy", "seed": seed}
            if K.PROBE_CATEGORY_SEED.key(**at) in f.facts:
                rows.append((Cell(c), Cell(PROBE_LABELS.get(p, p)), f(K.PROBE_CATEGORY_SEED.key(**at)),
                             f(K.PROBE_CATEGORY_SEED.low(**at)), f(K.PROBE_CATEGORY_SEED.high(**at))))
    return Table("category-intervals", f"Heuristic accuracy by category with 95% intervals ({option_seed_label(seed)}, all items)",
                 ("Category", "Heuristic", "Accuracy", "Low", "High"), tuple(rows),
                 note="Percentile bootstrap over the category's items, 2,000 resamples.")


def run_metrics_table(f: FactCells, score: RunScore) -> Table:
    rid = score.run_id
    rows = [(Cell(label), f(K.RUN_SCORE.key(run_id=rid, metric=metric)), f(K.RUN_SCORE.low(run_id=rid, metric=metric)),
             f(K.RUN_SCORE.high(run_id=rid, metric=metric)))
            for metric, label in (("accuracy", "Accuracy"), ("macro_f1", "Macro F1"))]
    rows.append((Cell("Items"), f.run_items(rid), Cell("–"), Cell("–")))
    rows.append((Cell("Unparsed answers"), f(K.RUN_UNPARSED.key(run_id=rid), "count"), Cell("–"), Cell("–")))
    rows.append((Cell("Failed requests"), f(K.RUN_FAILED.key(run_id=rid), "count"), Cell("–"), Cell("–")))
    return Table(f"run-{rid}-metrics", "Scores with 95% bootstrap intervals", ("Metric", "Value", "Low", "High"),
                 tuple(rows))


def run_labels_table(score: RunScore) -> Table:
    rows = tuple((Cell(label), _plain(s.precision), _plain(s.recall), _plain(s.f1), _plain(s.support, "count"))
                 for label, s in score.report.per_label.items())
    return Table(f"run-{score.run_id}-labels", "Per-label precision, recall and F1",
                 ("Label", "Precision", "Recall", "F1", "Support"), rows)


def run_confusion_table(score: RunScore) -> Table:
    labels = score.report.labels
    rows = tuple((Cell(gold), *(_plain(n, "count") for n in counts))
                 for gold, counts in zip(labels, score.report.confusion))
    return Table(f"run-{score.run_id}-confusion", "Confusion matrix (rows: gold, columns: prediction)",
                 ("Gold \\ predicted", *labels, "Unparsed"), rows)


def run_category_table(f: FactCells, score: RunScore) -> Table:
    rid = score.run_id
    rows = tuple((Cell(c), _plain(r.n, "count"), f(K.RUN_CATEGORY.key(run_id=rid, category=c, metric="accuracy")),
                  f(K.RUN_CATEGORY.key(run_id=rid, category=c, metric="macro_f1")))
                 for c, r in score.by_category.items())
    return Table(f"run-{rid}-categories", "Scores by category", ("Category", "Items", "Accuracy", "Macro F1"), rows)


def _run_score_cells(f: FactCells, rid: str) -> tuple[Cell, ...]:
    """Accuracy, macro F1 and the macro F1 interval of a run (the runs tables' last columns)."""
    return (f(K.RUN_SCORE.key(run_id=rid, metric="accuracy")), f(K.RUN_SCORE.key(run_id=rid, metric="macro_f1")),
            f(K.RUN_SCORE.low(run_id=rid, metric="macro_f1")), f(K.RUN_SCORE.high(run_id=rid, metric="macro_f1")))


def _plain(value: float, kind: str = "score") -> Cell:
    """A number taken straight from a run's report (its facts are summarised elsewhere)."""
    return Cell(key="", value=value, kind=kind)


def tie_groups(entries: list[tuple[str, float, float, float]]) -> dict[str, int]:
    """Rank by score, but put entries whose intervals overlap the group leader's in one group.

    entries: (name, score, low, high). Returns name -> group number (1 = best). A strict
    rank would claim differences the intervals cannot support.
    """
    ordered = sorted(entries, key=lambda e: (-e[1], e[0]))
    groups: dict[str, int] = {}
    group, leader_low = 0, None
    for name, _, low, high in ordered:
        if leader_low is None or high < leader_low:
            group += 1
            leader_low = low
        groups[name] = group
    return groups


def tie_groups_within(entries: list[tuple[tuple, str, float, float, float]]) -> dict[str, int]:
    """Tie groups formed only among comparable rows: entries are (setting, name, score, low, high),
    and a setting (task, condition, option set, prompt, items) is ranked on its own, from 1."""
    groups: dict[str, int] = {}
    for setting in sorted({e[0] for e in entries}):
        groups |= tie_groups([e[1:] for e in entries if e[0] == setting])
    return groups


def run_setting(h: Header) -> tuple[str, str, str, str]:
    """What a run measured besides its subject and seed, as table cells read it."""
    return (h.task.replace("_", " "), h.condition, option_set_label(h.variant), selection_label(h.items))


def model_runs_table(f: FactCells, scores: dict[str, RunScore]) -> Table | None:
    """Every complete model run, one row per option seed (the download behind the model
    summaries); runs still in progress are on the runs page only."""
    model_scores = [s for s in scores.values() if s.run.header.subject.get("kind") == "model"
                    and f.complete(s.run_id) and not s.run.header.import_warnings]
    if not model_scores:
        return None
    rows = []
    for s in sorted(model_scores, key=lambda s: (s.run.header.task, s.run.header.condition, s.run.header.subject_name,
                                                 s.run.header.option_seed or 0, s.run_id)):
        rid, h = s.run_id, s.run.header
        rows.append((Cell(h.subject_label), *map(Cell, run_setting(h)),
                     Cell(str(h.option_seed) if h.option_seed is not None else "–"), Cell(rid, href=run_page(rid)),
                     f(K.RUN_N.key(run_id=rid), "count"), *_run_score_cells(f, rid)))
    return Table("model-runs", "Model runs, one row per option seed",
                 ("Model", "Task", "Condition", "Option set", "Items asked", "Option seed", "Run", "n", "Accuracy",
                  "Macro F1", "F1 low", "F1 high"),
                 tuple(rows), note="Intervals: 95% percentile bootstrap over items. Option seed: the seed of the "
                 "letter order (an item sample's own seed is in Items asked).")


def model_pairs_table(f: FactCells, pairs: list[tuple[str, RunScore, RunScore]]) -> Table | None:
    """Sighted versus blind per model, grouped by overlapping sighted intervals."""
    if not pairs:
        return None
    def setting(blind: RunScore) -> tuple:
        return run_setting(blind.run.header)[2:] + (blind.run.header.option_seed,)
    groups = tie_groups_within([(setting(blind), pid, sighted.report.macro_f1, sighted.intervals["macro_f1"].low,
                                 sighted.intervals["macro_f1"].high) for pid, blind, sighted in pairs])
    rows, unlike = [], []
    for pid, blind, sighted in sorted(pairs, key=lambda p: (setting(p[1]), groups[p[0]], -p[2].report.macro_f1, p[0])):
        on = {"pair_id": pid}
        name = blind.run.header.subject_label
        differ = f.settings_note(pid)
        if differ:
            unlike.append(f"{name} ({option_seed_label(blind.run.header.option_seed)}): {differ} "
                          "(a = blind, b = sighted).")
        rows.append((Cell(str(groups[pid])), Cell(f"{name} †" if differ else name),
                     *map(Cell, run_setting(blind.run.header)[2:]),
                     Cell(str(blind.run.header.option_seed)), f(K.PAIR_N.key(**on), "count"),
                     f(K.PAIR_ARM.key(**on, arm="b", metric="macro_f1")), f(K.PAIR_ARM.key(**on, arm="a", metric="macro_f1")),
                     f(K.PAIR_GAP.key(**on, metric="macro_f1")),
                     f(K.PAIR_GAP.low(**on, metric="macro_f1")), f(K.PAIR_GAP.high(**on, metric="macro_f1")),
                     f.optional(K.PAIR_RATIO.key(**on, metric="macro_f1"), "pct"), f(K.PAIR_FIXES.key(**on), "count"),
                     f(K.PAIR_BREAKS.key(**on), "count"), f(K.PAIR_MCNEMAR.key(**on), "p")))
    return Table("model-pairs", "Sighted versus blind per model and option seed (macro F1 on shared items)",
                 ("Group", "Model", "Option set", "Items asked", "Option seed", "Items", "Sighted", "Blind", "Gap",
                  "Gap low", "Gap high", "Blind / sighted", "Fixes", "Breaks", "McNemar p"), tuple(rows),
                 note="Gap = sighted - blind with a 95% paired-bootstrap interval. Groups come from overlapping "
                      "95% intervals of the sighted score, formed only among pairs on the same option set, items "
                      "and option seed. Fixes: wrong blind, right sighted; breaks: the reverse."
                      + "".join(f" † Settings differ, so part of the gap may come from them: {u}" for u in unlike))


def pair_category_table(f: FactCells, pairs: list[tuple[str, RunScore, RunScore]]) -> Table | None:
    rows = []
    for pid, blind, _ in pairs:
        for c in CATEGORIES:
            on = {"pair_id": pid, "category": c}
            if K.PAIR_CATEGORY_N.key(**on) not in f.facts:
                continue
            rows.append((Cell(blind.run.header.subject_label), *map(Cell, run_setting(blind.run.header)[2:]),
                         Cell(str(blind.run.header.option_seed)), Cell(c), f(K.PAIR_CATEGORY_N.key(**on), "count"),
                         f(K.PAIR_CATEGORY_ARM.key(**on, arm="b")), f(K.PAIR_CATEGORY_ARM.key(**on, arm="a")),
                         f(K.PAIR_CATEGORY_GAP.key(**on)), f(K.PAIR_CATEGORY_GAP.low(**on)), f(K.PAIR_CATEGORY_GAP.high(**on)),
                         f(K.PAIR_CATEGORY_MCNEMAR.key(**on), "p"), f(K.PAIR_CATEGORY_HOLM.key(**on), "p")))
    if not rows:
        return None
    return Table("pair-categories", "Sighted minus blind accuracy by category, per option seed",
                 ("Model", "Option set", "Items asked", "Option seed", "Category", "Items", "Sighted", "Blind", "Gap",
                  "Low", "High", "McNemar p", "Holm p"),
                 tuple(rows), note="95% paired-bootstrap intervals; Holm adjusts each pair's p-values across categories.")


def blind_error_table(f: FactCells, pairs: list[tuple[str, RunScore, RunScore]]) -> Table | None:
    rows = []
    for pid, blind, _ in pairs:
        if K.PAIR_ERRORS_TOTAL.key(pair_id=pid) in f.facts and has_distractor_types(blind.run.header.variant):
            rows.append((Cell(blind.run.header.subject_label), *map(Cell, run_setting(blind.run.header)[2:]),
                         Cell(str(blind.run.header.option_seed)),
                         f(K.PAIR_ERRORS_TOTAL.key(pair_id=pid), "count"),
                         *(f(K.PAIR_ERRORS.key(pair_id=pid, source=s), "count")
                           for s in ("pragmatic", "cultural", "literal", "unparsed"))))
    if not rows:
        return None
    return Table("blind-errors", "Where the blind arm's wrong answers went, per option seed",
                 ("Model", "Option set", "Items asked", "Option seed", "Errors", "Pragmatic neighbour",
                  "Cultural mismatch", "Literal gloss", "Unparsed"), tuple(rows),
                 note=GOLD_POOL_ERRORS_NOTE)


def cv_folds(scores: Iterable[RunScore], probes: Sequence[str]) -> tuple[int, ...]:
    """The outer folds each cross-validated run of `probes` recorded (`subject.parameters.folds`)."""
    found = (s.run.header.subject.get("parameters") for s in scores
             if s.run.header.condition == "probe" and s.run.header.subject_name in probes)
    return tuple(p["folds"] for p in found if isinstance(p, dict) and isinstance(p.get("folds"), int))


def option_sets_table(f: FactCells, probes: list[str], scope: str, folds: Sequence[int] = ()) -> Table:
    """Every model-free probe on the original and both gold-pool sets: accuracy beside macro F1.
    `folds`: the learned probes' cross-validation folds as run (cv_folds; empty: none recorded)."""
    rows = []
    for p in probes:
        cells = [Cell(PROBE_LABELS.get(p, p))]
        for variant, _ in OPTION_SETS:
            cells += [f.optional(K.PROBE_SPREAD.key(variant, probe=p, scope=scope, metric=m, stat="mean"))
                      for m in ("accuracy", "macro_f1")]
        rows.append(tuple(cells))
    where = "all items" if scope == "all" else f"the {scope} split"
    columns = ("Probe", *(f"{label}: {m}" for _, label in OPTION_SETS for m in ("accuracy", "macro F1")))
    learned = ("The learned probes are trained on the train split and scored on the test split."
               if scope == "test" else
               f"Over all items the learned probes are scored by {folds_label(folds, FOLDS)} cross-validation; for "
               "the option-only probe that is not valid on a gold pool (held-out golds reappear as training "
               "distractors and its n-grams memorise them), so it is not computed there.")
    return Table(f"option-sets-{scope}", f"Model-free probes on the three option sets, Task 2 on {where}",
                 columns, tuple(rows),
                 note="Means over the five official option seeds. The constant letter is the same on every set, "
                 "because the sets share their letter maps: its macro F1, far below its accuracy, is what any rule "
                 f"that stops discriminating collapses to. {learned}")


def option_sets_length_table(f: FactCells) -> Table:
    """What each option set leaves of the length cue, straight from the options."""
    all_items, test = {"scope": "all"}, {"scope": "test"}
    specs = [("Gold strictly the longest option, all items", K.GOLD_LONGEST_SHARE, all_items, "pct"),
             ("Gold strictly the longest option, test split", K.GOLD_LONGEST_SHARE, test, "pct"),
             ("Gold strictly the shortest option, all items", K.GOLD_SHORTEST_SHARE, all_items, "pct"),
             ("Items whose four options are within 10% of each other", K.WITHIN_10PCT_COUNT, all_items, "count"),
             *((f"Mean characters: {name}", K.MEAN_CHARS, {**all_items, "slot": slot}, "score")
               for slot, name in (("gold", "gold"), ("literal", "literal slot"), ("cultural", "cultural slot"),
                                  ("pragmatic", "pragmatic slot")))]
    rows = tuple((Cell(label), *(f.optional(pattern.key(variant, **parts), kind) for variant, _ in OPTION_SETS))
                 for label, pattern, parts, kind in specs)
    return Table("option-sets-lengths", "The length cue on the three option sets",
                 ("", *(label for _, label in OPTION_SETS)), rows,
                 note="Characters are Python string lengths. Within 10%: |a-b| <= 0.1*max(a, b) for every pair "
                 "of the item's four options. On the gold pools every slot holds another item's gold.")


def importance_table(f: FactCells, kind: str, limit: int = 12) -> Table | None:
    pattern = K.IMPORTANCE_COEF if kind == "coef" else K.IMPORTANCE_PERMUTATION
    keys = [k for k in f.facts.values if pattern.regex.fullmatch(k)]
    if not keys:
        return None
    ranked = sorted(keys, key=lambda k: (-abs(f.facts[k]), k))[:limit]
    label = "Coefficient" if kind == "coef" else "Accuracy drop (points)"
    return Table(f"importance-{kind}", "Which features carry the learned probe's signal: " +
                 ("standardised coefficients" if kind == "coef" else "permutation importance on the test split"),
                 ("Feature", label), tuple((Cell((pattern.values(k) or {})["feature"]), f(k)) for k in ranked))
