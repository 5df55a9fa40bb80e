"""Tables that speak in model summaries: one row per model (over its option seeds), not per run.

Per-seed rows live in the downloadable per-run tables (views.model_runs_table and friends,
each with a Seed column); these are what the models, categories and article pages show.
"""

from __future__ import annotations

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.model_summaries import ModelSummary, PairSummary
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES
from builder.benchmarks.cibuzzbench.analyses.paired_facts import pair_id
from builder.benchmarks.cibuzzbench.views.tables import FactCells, run_page, tie_groups_within
from builder.benchmarks.cibuzzbench.wording import option_seed_label, option_set_label, option_set_rank, selection_label
from builder.site.tables import Cell, Table

TASK_NAMES = {"equivalent_selection": "Task 2", "harmfulness_detection": "Task 3"}
SEEDS_NOTE = ("Scores are means over the model's option seeds, SD the sample standard deviation over "
              "seeds (– with one seed); Low and High are the 95% bootstrap interval of the run at option order seed 1111 "
              "(or of the only run). The model's name links to that run's page.")
# Task 3 has no options, so no option seed: a model's rows differ only when it was run more than once.
RUNS_NOTE = ("Scores are means over the model's runs, SD the sample standard deviation over runs (– with "
             "one run); Low and High are the 95% bootstrap interval of the first run. The model's name "
             "links to that run's page.")


def chart_labels(summaries: list[PairSummary]) -> dict[str, str]:
    """Legend labels, one per summary and never two alike: the short display name plus the
    option set; the items asked and the prompt are added only where two would still read alike."""
    def parts(s: PairSummary) -> list[str]:
        return [s.blind.members[0].run.header.display_name, option_set_label(s.blind.variant)]
    extras = (lambda s: selection_label(s.blind.selection), lambda s: f"prompt {s.blind.lang}", lambda s: s.id)
    labels = {s.id: parts(s) for s in summaries}
    for extra in extras:
        seen = [" · ".join(v) for v in labels.values()]
        for s in summaries:
            if seen.count(" · ".join(labels[s.id])) > 1:
                labels[s.id] = labels[s.id] + [extra(s)]
    return {sid: " · ".join(v) for sid, v in labels.items()}


def _completeness(f: FactCells, model_id: str) -> Cell:
    items = f.facts[K.MODEL_ITEMS.key(id=model_id)]
    declared = f.facts.values.get(K.MODEL_ITEMS_DECLARED.key(id=model_id))
    if declared is None or items == declared:
        return Cell("yes")
    return Cell(f"{int(items):,} of {int(declared):,}")


def _setting(m: ModelSummary) -> tuple[str, str, str, str]:
    return (m.condition, option_set_label(m.variant), m.lang, selection_label(m.selection))


def _groups(f: FactCells, members: list[ModelSummary]) -> dict[str, int]:
    """Tie groups within each comparable setting (same condition, option set, language, items)."""
    return tie_groups_within([(_setting(m), m.id, f.facts[K.MODEL_SPREAD.key(id=m.id, metric="macro_f1", stat="mean")],
                               f.facts[K.MODEL_INTERVAL.low(id=m.id, metric="macro_f1")],
                               f.facts[K.MODEL_INTERVAL.high(id=m.id, metric="macro_f1")]) for m in members])


def _pair_setting(s: PairSummary) -> tuple[str, str, str]:
    """What a pair summary measured besides the model: option set, prompt language, items asked."""
    return (option_set_label(s.blind.variant), s.blind.lang, selection_label(s.blind.selection))


def model_summary_table(f: FactCells, models: list[ModelSummary], task: str) -> Table | None:
    """Every model on one task: both conditions, every variant, with items and completeness."""
    members = [m for m in models if m.task == task]
    if not members:
        return None
    groups = _groups(f, members)
    harm = task == "harmfulness_detection"
    rows = []
    def mean_f1(m: ModelSummary) -> float:
        return f.facts[K.MODEL_SPREAD.key(id=m.id, metric="macro_f1", stat="mean")]

    for m in sorted(members, key=lambda m: (m.condition, option_set_rank(m.variant), _setting(m), groups[m.id],
                                            -mean_f1(m), m.id)):
        on = {"id": m.id}
        condition, variant, lang, items = _setting(m)
        row = [Cell(str(groups[m.id])), Cell(m.model, href=run_page(m.representative.run_id)), Cell(condition), Cell(variant), Cell(lang), Cell(items),
               f(K.MODEL_ITEMS.key(**on), "count"), _completeness(f, m.id), f(K.MODEL_SEEDS.key(**on), "count"),
               f(K.MODEL_SPREAD.key(**on, metric="accuracy", stat="mean")),
               f.optional(K.MODEL_SPREAD.key(**on, metric="accuracy", stat="sd")),
               f(K.MODEL_SPREAD.key(**on, metric="macro_f1", stat="mean")),
               f.optional(K.MODEL_SPREAD.key(**on, metric="macro_f1", stat="sd")),
               f(K.MODEL_INTERVAL.low(**on, metric="macro_f1")), f(K.MODEL_INTERVAL.high(**on, metric="macro_f1"))]
        if harm:
            row.append(f(K.MODEL_HARMFUL_F1.key(**on, stat="mean")))
        rows.append(tuple(row))
    columns = ("Group", "Model", "Condition", "Option set", "Prompt", "Items asked", "n", "Complete",
               "Runs" if harm else "Seeds",
               "Accuracy", "SD", "Macro F1", "SD", "F1 low", "F1 high") + (("F1 harmful",) if harm else ())
    tag = "t3" if harm else "t2"
    return Table(f"models-{tag}", f"{TASK_NAMES.get(task, task)}: every model, in tie groups", columns, tuple(rows),
                 note=(RUNS_NOTE if harm else SEEDS_NOTE) + " Groups are formed within one condition, option set, prompt language and item "
                 "selection: a model shares a group while its interval reaches the group leader's. Complete: "
                 "yes, or items answered of items declared.")


def pair_summary_table(f: FactCells, summaries: list[PairSummary]) -> Table | None:
    """Sighted versus blind per model: means over the per-seed pairs."""
    if not summaries:
        return None
    def sighted_f1(s: PairSummary) -> float:
        return f.facts[K.PAIRED_ARM.key(id=s.id, arm="b", metric="macro_f1", stat="mean")]

    groups = tie_groups_within([(_pair_setting(s), s.id, sighted_f1(s),
                                 f.facts[K.MODEL_INTERVAL.low(id=s.sighted.id, metric="macro_f1")],
                                 f.facts[K.MODEL_INTERVAL.high(id=s.sighted.id, metric="macro_f1")]) for s in summaries])
    rows, unlike = [], []
    for s in sorted(summaries, key=lambda s: (option_set_rank(s.blind.variant), _pair_setting(s), groups[s.id],
                                              -sighted_f1(s), s.id)):
        on, f1 = {"id": s.id}, {"id": s.id, "metric": "macro_f1"}
        notes = [f"{s.model} ({option_seed_label(p.option_seed)}): {note} (a = blind, b = sighted)."
                 for p in s.pairs if (note := f.settings_note(pair_id(p.run_a, p.run_b)))]
        unlike += notes
        rows.append((Cell(str(groups[s.id])), Cell(f"{s.model} †" if notes else s.model,
                                                    href=run_page(s.sighted.representative.run_id)),
                     *map(Cell, _pair_setting(s)),
                     f(K.PAIRED_N.key(**on), "count"), f(K.PAIRED_SEEDS.key(**on), "count"),
                     f(K.PAIRED_ARM.key(**f1, arm="b", stat="mean")), f(K.PAIRED_ARM.key(**f1, arm="a", stat="mean")),
                     f(K.PAIRED_GAP.key(**f1, stat="mean")),
                     f.optional(K.PAIRED_GAP.key(**f1, stat="sd")), f(K.PAIRED_GAP_INTERVAL.low(**f1)),
                     f(K.PAIRED_GAP_INTERVAL.high(**f1)), f.optional(K.PAIRED_RATIO.key(**f1, stat="mean"), "pct"),
                     f.optional(K.PAIRED_ABOVE_CHANCE.key(**on, stat="mean"), "pct"),
                     f(K.PAIRED_MCNEMAR.key(**on, range="min"), "p"), f(K.PAIRED_MCNEMAR.key(**on, range="max"), "p")))
    return Table("model-pair-summaries", "Sighted versus blind per model (macro F1 on shared items, mean over the option seeds in the Seeds column)",
                 ("Group", "Model", "Option set", "Prompt", "Items asked", "n", "Seeds", "Sighted", "Blind", "Gap",
                  "Gap SD", "Gap low",
                  "Gap high", "Blind / sighted", "Above chance kept", "McNemar p (lowest)", "McNemar p (highest)"),
                 tuple(rows),
                 note="Each seed is paired on its own (the arms share a letter order only within a seed), then "
                 "summarised: Sighted, Blind and Gap (sighted - blind) are means over seeds, Gap low/high the 95% "
                 "paired-bootstrap interval of the pair at option order seed 1111. Above chance kept: of the sighted arm's accuracy "
                 "points above a random letter, the share the blind arm also reaches. McNemar p: the range over "
                 "seeds. Groups come from overlapping 95% intervals of the sighted score, formed only among pairs on the "
                 "same option set, prompt language and items: a model on the gold pool is never ranked against "
                 "one on the original options. The model's name links "
                 "to that sighted run, whose page links its blind pair."
                 + "".join(f" † Settings differ, so part of the gap may come from them: {u}" for u in unlike))


def pair_category_summary_table(f: FactCells, summaries: list[PairSummary]) -> Table | None:
    rows = []
    for s in summaries:
        for c in CATEGORIES:
            on = {"id": s.id, "category": c}
            if K.PAIRED_CATEGORY_N.key(**on) not in f.facts:
                continue
            rows.append((Cell(s.model), *map(Cell, _pair_setting(s)), Cell(c), f(K.PAIRED_CATEGORY_N.key(**on), "count"),
                         f(K.PAIRED_SEEDS.key(id=s.id), "count"),
                         f(K.PAIRED_CATEGORY_ARM.key(**on, arm="b", stat="mean")),
                         f(K.PAIRED_CATEGORY_ARM.key(**on, arm="a", stat="mean")),
                         f(K.PAIRED_CATEGORY_GAP.key(**on, stat="mean")), f.optional(K.PAIRED_CATEGORY_GAP.key(**on, stat="sd")),
                         f(K.PAIRED_CATEGORY_GAP_INTERVAL.low(**on)), f(K.PAIRED_CATEGORY_GAP_INTERVAL.high(**on)),
                         f(K.PAIRED_CATEGORY_HOLM.key(**on, range="min"), "p"),
                         f(K.PAIRED_CATEGORY_HOLM.key(**on, range="max"), "p")))
    if not rows:
        return None
    return Table("pair-category-summaries", "Sighted minus blind accuracy by category, per model",
                 ("Model", "Option set", "Prompt", "Items asked", "Category", "Items", "Seeds", "Sighted", "Blind",
                  "Gap", "Gap SD", "Low", "High",
                  "Holm p (lowest)", "Holm p (highest)"), tuple(rows),
                 note="Means over seeds; Low and High: 95% paired-bootstrap interval of the pair at option order seed 1111; Holm "
                 "adjusts each pair's category p-values, shown as the range over seeds. Per-seed rows: "
                 "pair-categories.csv on the downloads page.")


def sighted_at_chance(f: FactCells, s: PairSummary) -> bool:
    """A negative control: the sighted arm's 95% interval reaches down to a random letter (the
    article's rule, content/templates/blocks/paired_summary.html), so its gaps locate nothing."""
    low, chance = K.MODEL_INTERVAL.low(id=s.sighted.id, metric="accuracy"), K.PAIRED_CHANCE.key(id=s.id)
    return low in f.facts and chance in f.facts and f.facts[low] <= f.facts[chance]


def largest_gap(f: FactCells, s: PairSummary) -> str:
    """The category where seeing the term adds most accuracy; none for a model at chance, whose
    category gaps are noise (issue 32: shown with intervals or not at all)."""
    if sighted_at_chance(f, s):
        return "none (at chance sighted)"
    gaps = {c: f.facts[k] for c in CATEGORIES
            if (k := K.PAIRED_CATEGORY_GAP.key(id=s.id, stat="mean", category=c)) in f.facts}
    return max(gaps, key=lambda c: (gaps[c], -CATEGORIES.index(c))) if gaps else "–"


def pair_brief_table(f: FactCells, summaries: list[PairSummary]) -> Table | None:
    """The article's view of several models: accuracy and macro F1 side by side, one row each."""
    if len(summaries) < 2:
        return None
    rows = []
    for s in summaries:
        on, mean = {"id": s.id}, {"id": s.id, "stat": "mean"}
        rows.append((Cell(s.model), *map(Cell, _pair_setting(s)), f(K.PAIRED_SEEDS.key(**on), "count"),
                     f(K.PAIRED_ARM.key(**mean, arm="b", metric="accuracy"), "pct"),
                     f(K.PAIRED_ARM.key(**mean, arm="b", metric="macro_f1")),
                     f(K.PAIRED_ARM.key(**mean, arm="a", metric="accuracy"), "pct"),
                     f(K.PAIRED_ARM.key(**mean, arm="a", metric="macro_f1")),
                     f(K.PAIRED_GAP.key(**mean, metric="macro_f1")),
                     f.optional(K.PAIRED_ABOVE_CHANCE.key(**mean), "pct"), Cell(largest_gap(f, s))))
    return Table("model-pairs-brief", "Sighted and blind, per model (means over option seeds)",
                 ("Model", "Option set", "Prompt", "Items asked", "Seeds", "Sighted accuracy", "Sighted F1", "Blind accuracy", "Blind F1", "Gap (F1)",
                  "Above chance kept", "Largest gap on"), tuple(rows),
                 note="Gap: sighted minus blind macro F1. Above chance kept: of the sighted arm's accuracy points "
                 "above a random letter, the share the blind arm also reaches. Largest gap on: the category where "
                 "seeing the term adds the most accuracy (none for a model no better than a random letter sighted). Intervals, SDs and McNemar tests: the models page.")
