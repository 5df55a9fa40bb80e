"""The tables of a spec'd benchmark's page, every number a fact cell (report.py computed them)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.audit import PROBES
from builder.benchmarks.mcq.analyses.compute import Computed
from builder.benchmarks.mcq.analyses.reconcile import reconciliation_table
from builder.benchmarks.mcq.analyses.index import chosen_model
from builder.benchmarks.mcq.analyses.rankings import RULE, imported, unranked_note
from builder.benchmarks.mcq.analyses.run_summary import strata_names
from builder.runs.schema import Run
from builder.site.tables import Cell, FactCells, Table
from builder.stats.solvable_split import MIN_RANKED, TABLE_COLUMNS
from builder.benchmarks.mcq.views.tie_note import tie_cell

METRICS = (("accuracy", "Accuracy"), ("macro_f1", "Macro F1"))


LEAK_DIR = "leak"  # per-item leak-score downloads: leak/<name>.csv


def table_id(name: str, part: str) -> str:
    return f"mcq-{name}-{part}"


def spec_tables(c: Computed, cells: FactCells) -> dict[str, Table]:
    tables = [_composition(c, cells), _findings(c, cells), _lengths(c, cells), _audit(c, cells, "shuffled"),
              _audit(c, cells, "published"), _ablation(c, cells)]
    if c.categories:
        tables.append(_categories(c, cells))
    if len(imported(c.loaded.runs)) < len(c.loaded.runs):
        tables.append(_runs(c, cells))
    if imported(c.loaded.runs):
        tables.append(_published(c, cells))
    split = _leak_split(c, cells)
    tables += [split] if split is not None else []
    modal = _leak_modal(c, cells)
    tables += [modal] if modal is not None else []
    if c.leak is not None:
        tables.append(_leak_ranks(c, cells))
    if c.pairs:
        tables.append(_pairs(c, cells))
    if c.loaded.reconciliation is not None:
        found = reconciliation_table(cells, c.name, c.loaded.benchmark.spec.title, c.loaded.reconciliation)
        tables += [found] if found is not None else []
    return {t.id: t for t in tables}


def _composition(c: Computed, cells: FactCells) -> Table:
    b = c.name
    rows = [(Cell("items in the data file"), cells(K.RECORDS.key(bench=b), "count")),
            (Cell("items audited and probed"), cells(K.ITEMS.key(bench=b), "count")),
            (Cell("options per audited item (most common)"), cells(K.OPTIONS.key(bench=b), "count")),
            (Cell("chance accuracy, mean of 1/k (%)"), cells(K.CHANCE.key(bench=b), "pct"))]
    rows += [(Cell(f"items with {k} choices"), cells(K.CHOICE_COUNT.key(bench=b, k=k), "count"))
             for k in c.loaded.audit.findings.choice_counts]
    rows += [(Cell(f"split {value}"), cells(K.SPLIT.key(bench=b, label=label), "count")) for value, label in c.splits]
    return Table(table_id(b, "composition"), f"{c.loaded.benchmark.spec.title}: composition", ("What", "Items"),
                 tuple(rows), "Splits count audited items only: the findings' exclusions come first.")


def _findings(c: Computed, cells: FactCells) -> Table:
    b = c.name
    rows = tuple((Cell(f.name.replace("_", " ")), Cell(f.rule), cells(K.FINDING_COUNT.key(bench=b, finding=f.name),
                                                                       "count"))
                 for f in c.loaded.audit.findings.items)
    shared = c.loaded.audit.findings.by_name().get("shared_option_sets")
    note = "Excluded items are neither audited nor probed; kept ones are counted (docs/audit.md, Findings)."
    if shared is not None and shared.groups:
        sets = cells(K.SHARED_SETS.key(bench=b), "count").shown
        note += f" Shared option sets: {sets} sets, each kept on one side of every fold of the learned probe"
        # the options themselves only where the data's licence lets the page quote its text (spec quote_items)
        note += f"; e.g. {'; '.join(shared.excerpts)}." if c.loaded.benchmark.spec.quote_items else "."
    return Table(table_id(b, "findings"), "Findings: flaws the data set ships with", ("Finding", "Rule", "Items"), rows,
                 note)


def _lengths(c: Computed, cells: FactCells) -> Table:
    b = c.name
    rows = [(Cell(f"{role} option, mean"), cells(K.LENGTH.key(bench=b, role=role, unit="chars"), "num"),
             cells(K.LENGTH.key(bench=b, role=role, unit="words"), "num")) for role in ("gold", "distractor")]
    rows += [(Cell(f"gold strictly the {extreme} (% of items)"),
              cells(K.GOLD_EXTREME.key(bench=b, extreme=extreme, unit="chars"), "pct"),
              cells(K.GOLD_EXTREME.key(bench=b, extreme=extreme, unit="words"), "pct"))
             for extreme in ("longest", "shortest")]
    return Table(table_id(b, "lengths"), "Option lengths", ("Option", "Characters", "Words"), tuple(rows))


def _audit(c: Computed, cells: FactCells, block: str) -> Table:
    b, shuffled = c.name, block == "shuffled"
    metrics = METRICS if c.loaded.audit.fixed_k else METRICS[:1]  # macro F1 over positions needs one k
    columns = ["Probe"]
    for _, label in metrics:
        columns += [label, *([f"{label} sd"] if shuffled else []), f"{label} 95% low", f"{label} 95% high"]
    rows = []
    for probe in PROBES:
        row = [Cell(probe.replace("_", " "))]
        for metric, _ in metrics:
            values = {"bench": b, "block": block, "probe": probe, "metric": metric}
            row.append(cells(K.AUDIT.key(**values)))
            if shuffled:
                row.append(cells(K.AUDIT_SD.key(bench=b, probe=probe, metric=metric)))
            row += [cells(K.AUDIT.low(**values)), cells(K.AUDIT.high(**values))]
        rows.append(tuple(row))
    if shuffled:
        caption = (f"Audit: options shuffled per item by {c.loaded.audit.shuffle_recipe} (mean ± sd over seeds "
                   "1111–5555; 95% interval of seed 1111)")
        note = (f"Accuracy and macro F1 are two metrics, each on these shuffles; learned options: "
                f"{c.loaded.audit.learned_evaluation}, the model chosen per fit by inner cross-validation on its "
                f"training items among the ranker, a plain n-gram logistic regression and the rules: "
                f"{chosen_model(c.loaded.audit)}. {PRIOR_NOTE}")
    else:
        caption, note = "Audit: options as published (the file's order)", ("Position bias in the published order is "
                                                                            f"itself a finding. {PRIOR_NOTE}")
    return Table(table_id(b, "audit" if shuffled else "published"), caption, tuple(columns), tuple(rows), note)


def _ablation(c: Computed, cells: FactCells) -> Table:
    """Which cue families carry the learned probe's signal, largest drop first (the audit's order)."""
    b, audit = c.name, c.loaded.audit
    rows = []
    for a in audit.ablation:
        values = {"bench": b, "group": a.group}
        rows.append((Cell(a.group), cells(K.ABLATION.key(value="accuracy", **values)),
                     cells(K.ABLATION.key(value="drop", **values)), cells(K.ABLATION.low(value="drop", **values)),
                     cells(K.ABLATION.high(value="drop", **values))))
    held = ("the test split" if audit.learned_evaluation == "train→test"
            else f"the first of the {audit.learned_folds} CV folds")
    return Table(table_id(b, "ablation"), "Learned probe without each cue family (drop-one ablation)",
                 ("Cue family left out", "Accuracy without it", "Drop (points)", "Drop 95% low", "Drop 95% high"),
                 tuple(rows),
                 f"The ranker (the cue model among the learned probe's candidates, chosen or not) refitted on the "
                 f"same training items with its full-model penalty and scored on {held}; a drop "
                 f"whose interval excludes 0 is a family the probe relies on. Accuracy counts an item solved only "
                 f"when the gold scores strictly highest. Option-solvable items (cross-fitted, every audited item): "
                 f"{cells(K.LEAK.key(bench=b, value='solvable')).shown}% — per item: {LEAK_DIR}/{b}.csv.")


def _categories(c: Computed, cells: FactCells) -> Table:
    """Strict accuracy per category, a column per run headed by its model, best model first."""
    b = c.name
    runs = sorted(c.loaded.runs, key=lambda r: (-_strict(c, cells, r), r.header.run_id))
    labels = run_labels(runs)
    columns = ("Category", "Items", *(labels[r.header.run_id] for r in runs))
    rows = []
    for value, label in c.categories:
        row = [Cell(value), cells(K.CATEGORY.key(bench=b, label=label), "count")]
        row += [cells.optional(K.RUN_CATEGORY.key(bench=b, run_id=r.header.run_id, label=label)) for r in runs]
        rows.append(tuple(row))
    return Table(table_id(b, "categories"), "Strict accuracy by category, one column per model (best first)",
                 columns, tuple(rows), compact=True,
                 note="Strict accuracy (%; an answer the parser cannot read is wrong) on the category's items each "
                      "model answered; models ordered by strict accuracy on all items, best first.")


def _strict(c: Computed, cells: FactCells, run: Run) -> float:
    """A run's strict accuracy on all its items (-1 where it has none: last)."""
    key = K.RUN_SCORE.key(bench=c.name, run_id=run.header.run_id, metric="accuracy")
    return float(cells.facts[key]) if key in cells.facts else -1.0


def _runs(c: Computed, cells: FactCells) -> Table:
    b = c.name
    rows = []
    mine = {id(r) for r in imported(c.loaded.runs)}
    for run in (r for r in c.loaded.runs if id(r) not in mine):
        h, values = run.header, {"bench": c.name, "run_id": run.header.run_id}
        row = [Cell(h.subject_label), Cell(h.condition), Cell(str(h.option_seed)), Cell(h.run_id),
               cells(K.RUN_COUNT.key(count="n", **values), "count")]
        for metric, _ in METRICS:
            row += [cells.optional(K.RUN_SCORE.key(metric=metric, **values)),
                    cells.optional(K.RUN_SCORE.low(metric=metric, **values)),
                    cells.optional(K.RUN_SCORE.high(metric=metric, **values))]
        row += [cells(K.RUN_COUNT.key(count="unparsed", **values), "count"),
                cells(K.RUN_COUNT.key(count="errors", **values), "count"), Cell("yes" if run.complete else "no")]
        rows.append(tuple(row))
    return Table(table_id(b, "runs"), "Models: sighted and blind runs",
                 ("Model", "Condition", "Option seed", "Run", "Items", "Accuracy", "Accuracy 95% low",
                  "Accuracy 95% high", "Macro F1", "Macro F1 95% low", "Macro F1 95% high", "Unparsed", "Failed",
                  "Complete"), tuple(rows),
                 "Scores over the answered items; unparsed answers and failed requests count as wrong. A run without "
                 "its footer is still in progress and is left out of the pairs.")


def _published(c: Computed, cells: FactCells) -> Table:
    """Imported published results: strict and official accuracy, coverage, tie groups."""
    runs = sorted(imported(c.loaded.runs), key=lambda r: (-_strict(c, cells, r), r.header.run_id))
    rows = []
    for run in runs:
        values = {"bench": c.name, "run_id": run.header.run_id}
        rows.append((tie_cell(c, run, cells), Cell(run.header.subject_label),
                     Cell(f"{len(run.items):,} of {run.header.items['n']:,}"),
                     cells.optional(K.RUN_SCORE.key(metric="accuracy", **values)),
                     cells.optional(K.RUN_SCORE.low(metric="accuracy", **values)),
                     cells.optional(K.RUN_SCORE.high(metric="accuracy", **values)),
                     cells.optional(K.RUN_OFFICIAL.key(**values)), cells.optional(K.RUN_OFFICIAL.low(**values)),
                     cells.optional(K.RUN_OFFICIAL.high(**values)),
                     cells(K.RUN_COUNT.key(count="unparsed", **values), "count"),
                     cells.optional(K.RUN_COUNT.key(count="differs", **values), "count"),
                     Cell(str((run.header.source or {}).get("file", "")))))
    return Table(table_id(c.name, "imported"), "Models: published per-item results, imported",
                 ("Tie group", "Model", "Items", "Strict accuracy", "Strict 95% low", "Strict 95% high",
                  "Official accuracy", "Official 95% low", "Official 95% high", "Unparsed", "Differ from reference",
                  "File"), tuple(rows),
                 "Strict: an answer the upstream's three regexes cannot read is wrong; official: it gets the "
                 "upstream script's seeded random letter. Each item is scored against the gold its own file "
                 "carries; 'differ from reference' counts the items whose question, options or gold in that file "
                 "differ from the spec's reference revision. " + RULE + " Tie groups: by strict accuracy on those "
                 "common items, a new group where an exact McNemar test against the model above gives p < 0.05. "
                 "Intervals: 95% percentile bootstrap over items.", compact=True)


LEAK_COLUMNS = TABLE_COLUMNS  # one spelling for every benchmark's split table (stats/solvable_split.py)


def _leak_split(c: Computed, cells: FactCells) -> Table | None:
    """Each model's strict accuracy on option-solvable items and on the rest (leak_split.py)."""
    rows, labels = [], _labels_of(c)
    for run in c.loaded.runs:
        values = {"bench": c.name, "run_id": run.header.run_id}
        if K.LEAK_GAP.key(**values) not in cells.facts:
            continue
        rows.append((Cell(labels[run.header.run_id]), cells(K.RUN_COUNT.key(count="n", **values), "count"),
                     cells.optional(K.RUN_COVERAGE.key(**values)),
                     cells(K.RUN_SCORE.key(metric="accuracy", **values)), cells.optional(K.RUN_OFFICIAL.key(**values)),
                     cells(K.LEAK_SPLIT.key(value="solvable_items", **values), "count"),
                     cells(K.LEAK_SPLIT.key(value="accuracy_solvable", **values)),
                     cells(K.LEAK_SPLIT.key(value="accuracy_rest", **values)), cells(K.LEAK_GAP.key(**values)),
                     cells(K.LEAK_GAP.low(**values)), cells(K.LEAK_GAP.high(**values)),
                     cells.optional(K.LEAK_ADJUSTED.key(**values)), cells.optional(K.LEAK_ADJUSTED.low(**values)),
                     cells.optional(K.LEAK_ADJUSTED.high(**values))))
    if not rows:
        return None
    strata = strata_names(c.loaded)
    return Table(table_id(c.name, "leak-split"), "Models on the items the options give away, and on the rest",
                 LEAK_COLUMNS, tuple(rows), compact=True, note=
                 "Option-solvable: the cross-fitted choices-only probe ranks the gold strictly first (the audit's "
                 "leak score). Accuracy is strict; coverage is the % of audited items the run answered; gap = "
                 "accuracy on the option-solvable items minus accuracy on the rest (points, crude: over the strata "
                 f"as they are mixed), 95% bootstrap interval resampling items within each stratum ({strata}); the "
                 "adjusted gap compares the two "
                 f"kinds within each stratum and pools those gaps with Mantel–Haenszel weights n1·n0/(n1+n0), so "
                 f"which {strata} the solvable items come from drops out (same bootstrap). The per-stratum rows are "
                 f"the download {LEAK_DIR}/{c.name}-strata.csv. A leak score says what a reader could exploit, not "
                 "what a model did.")


def _leak_modal(c: Computed, cells: FactCells) -> Table | None:
    """The split on the items with the benchmark's most common number of options (absent when
    every item has it): option count is another thing the solvable items may differ in."""
    rows, labels = [], _labels_of(c)
    for rid in (c.leak.run_ids if c.leak is not None else ()):
        values = {"bench": c.name, "run_id": rid}
        if K.LEAK_MODAL_GAP.key(**values) not in cells.facts:
            continue
        rows.append((Cell(labels[rid]), *(cells(K.LEAK_MODAL_SPLIT.key(value=v, **values),
                                                      "count" if v == "solvable_items" else "score")
                                                for v in ("solvable_items", "accuracy_solvable", "accuracy_rest")),
                     cells(K.LEAK_MODAL_GAP.key(**values)), cells.optional(K.LEAK_MODAL_ADJUSTED.key(**values)),
                     cells.optional(K.LEAK_MODAL_ADJUSTED.low(**values)),
                     cells.optional(K.LEAK_MODAL_ADJUSTED.high(**values))))
    if not rows:
        return None
    k = cells(K.OPTIONS.key(bench=c.name), "count").shown
    return Table(table_id(c.name, "leak-split-modal"), f"The same split on the items with {k} options only",
                 ("Model", "Solvable items", "Accuracy, solvable", "Accuracy, the rest", "Gap", "Gap adjusted",
                  "Gap adjusted 95% low", "Gap adjusted 95% high"), tuple(rows), compact=True,
                 note=f"Restricted to the audited items with the benchmark's most common number of options ({k}), "
                      "so that a gap cannot come from solvable items having fewer options; gaps as in the table "
                      "above (adjusted: Mantel–Haenszel within strata).")


def _labels_of(c: Computed) -> dict[str, str]:
    """Each split run's model label (run_labels over the split runs)."""
    split = set(c.leak.run_ids if c.leak is not None else ()) | {rid for rid, _ in c.strata}
    return run_labels([r for r in c.loaded.runs if r.header.run_id in split])


def run_labels(runs: list[Run]) -> dict[str, str]:
    """Each run's model label, told apart where one model has several runs (option seeds, item
    selections): the seed is added, then the run id, so no two rows, columns or chart bars
    share a label."""
    plain = Counter(r.header.subject_label for r in runs)
    labels = {r.header.run_id: r.header.subject_label if plain[r.header.subject_label] == 1 else
              f"{r.header.subject_label} (seed {r.header.option_seed})" for r in runs}
    seeded = Counter(labels.values())
    return {rid: label if seeded[label] == 1 else f"{label} [{rid}]" for rid, label in labels.items()}


def _leak_ranks(c: Computed, cells: FactCells) -> Table:
    """Each split run's rank and tie group on all items and on the rest (leak_split.py)."""
    rows = []
    labels = _labels_of(c)
    for rid in c.leak.run_ids:
        values = {"bench": c.name, "run_id": rid}
        row = [Cell(labels[rid])]
        if K.LEAK_RANK.key(scope="all", value="rank", **values) not in cells.facts:
            rows.append((*row, Cell(_unranked(c, rid)), Cell("–"), Cell("–"), Cell("–")))
            continue
        for scope in ("all", "rest"):
            row += [cells(K.LEAK_RANK.key(scope=scope, value=v, **values), "count") for v in ("rank", "tie_group")]
        rows.append(tuple(row))
    return Table(table_id(c.name, "leak-rank"), "Rank on all items against rank on the items the options do not give "
                 "away", ("Model", "Rank, all items", "Tie group, all items", "Rank, the rest", "Tie group, the rest"),
                 tuple(rows), compact=True, note="Strict accuracy, among the runs of the split table that are ranked: "
                 + RULE + " A tie group starts where an exact McNemar test against the run ranked just above (on "
                 "those common items, of that scope) gives p < 0.05.")


def _unranked(c: Computed, rid: str) -> str:
    """Why a split run has no rank (rankings.py's like-with-like rule)."""
    run = next(r for r in c.loaded.runs if r.header.run_id == rid)
    return unranked_note(len(run.items), len(c.loaded.data.items), people=False)


def leak_prose(c: Computed, cells: FactCells) -> list[str]:
    """The split's sentences, each chosen by the counts leak_split.py computed: on the adjusted
    gaps where every split run has one, and saying where the crude reading would differ."""
    b, leak, labels = c.name, c.leak, _labels_of(c)
    headline = K.LEAK_ADJUSTED if leak.adjusted else K.LEAK_GAP
    count = {name: cells(p.key(bench=b), "count").shown for name, p in (
        ("models", K.LEAK_MODELS), ("positive", K.LEAK_POSITIVE), ("above", K.LEAK_WIDER), ("below", K.LEAK_BELOW),
        ("moved", K.LEAK_MOVED))}
    within = ""
    if leak.adjusted:
        count.update({name: cells(K.LEAK_ADJUSTED_COUNT.key(bench=b, count=n), "count").shown for name, n in (
            ("positive", "positive"), ("above", "above_zero"), ("below", "below_zero"))})
        within = f"Compared within the same {strata_names(c.loaded)} (Mantel–Haenszel), "
    below_zero = count["below"] != "0"
    if leak.above == "all":
        first = (f"{within}{'e' if within else 'E'}very one of the {count['models']} models is more accurate on the items the "
                 "options give away than on the rest, each by a gap whose 95% interval lies above zero.")
    else:
        below = f", for {count['below']} below zero" if below_zero else ""
        first = (f"{within}{count['positive']} of the {count['models']} models are more accurate on the "
                 f"items the options give away than on the rest; for {count['above']} the gap's 95% interval lies "
                 f"above zero{below}.")

    def gap(rid: str) -> str:
        values = {"bench": b, "run_id": rid}
        return (f"{labels[rid]} ({cells(headline.key(**values)).shown} points, 95% interval "
                f"{cells(headline.low(**values)).shown} to {cells(headline.high(**values)).shown})")
    sentences = [first]
    if leak.largest != leak.smallest:
        sentences.append(f"The {'adjusted ' if leak.adjusted else ''}gap is largest for {gap(leak.largest)} and "
                         f"smallest for {gap(leak.smallest)}.")
    if leak.adjusted:
        sentences.append(_disagreement(c, cells, labels))
    tau = (f"Kendall's tau between the two rankings is "
           f"{replace(cells(K.LEAK_TAU.key(bench=b), 'num'), digits=2).shown}" if K.LEAK_TAU.key(bench=b) in cells.facts
           else f"too few models for Kendall's tau (it needs {MIN_RANKED})")
    ranked = sum(K.LEAK_RANK.key(bench=b, run_id=rid, scope="all", value="rank") in cells.facts for rid in leak.run_ids)
    of = (f"{ranked:,} ranked models (runs answering at least 99% of the items, on the items all of them answered)"
          if str(ranked) != count["models"] else f"{count['models']} models")
    sentences.append(f"Ranked on the rest alone, no model changes place; {tau}." if not leak.moved else
                     f"Ranked on the rest alone, {count['moved']} of the {of} change place; {tau}.")
    return sentences + _people_prose(c, cells, labels)


def _people_prose(c: Computed, cells: FactCells, labels: dict[str, str]) -> list[str]:
    """Split runs of people (builder.site.model_names.is_human_group), counted apart from the
    models: each one's own gap, in the same reading as the models' sentences."""
    sentences = []
    for rid, _ in c.strata:
        if rid in c.leak.run_ids:
            continue
        values = {"bench": c.name, "run_id": rid}
        pattern = K.LEAK_ADJUSTED if K.LEAK_ADJUSTED.key(**values) in cells.facts else K.LEAK_GAP
        sentences.append(
            f"Counted apart from the models, not among them: {labels[rid]} (people, "
            f"{cells(K.RUN_COUNT.key(count='n', **values), 'count').shown} items answered) are "
            f"{cells(K.LEAK_SPLIT.key(value='accuracy_solvable', **values)).shown}% accurate on the items the options "
            f"give away and {cells(K.LEAK_SPLIT.key(value='accuracy_rest', **values)).shown}% on the rest, "
            f"{'an adjusted' if pattern is K.LEAK_ADJUSTED else 'a crude'} gap of {cells(pattern.key(**values)).shown} "
            f"points (95% interval {cells(pattern.low(**values)).shown} to {cells(pattern.high(**values)).shown}).")
    return sentences


def _disagreement(c: Computed, cells: FactCells, labels: dict[str, str]) -> str:
    """Whether comparing within strata changes any run's reading (sign, or interval against zero)."""
    b, runs = c.name, c.leak.disagree
    if not runs:
        return ("For every model the crude gap (all items pooled) agrees with the adjusted one in sign and in "
                "whether its interval excludes zero.")

    def both(rid: str) -> str:
        values = {"bench": b, "run_id": rid}
        return (f"{labels[rid]} (crude {cells(K.LEAK_GAP.key(**values)).shown} "
                f"[{cells(K.LEAK_GAP.low(**values)).shown}, {cells(K.LEAK_GAP.high(**values)).shown}], adjusted "
                f"{cells(K.LEAK_ADJUSTED.key(**values)).shown} [{cells(K.LEAK_ADJUSTED.low(**values)).shown}, "
                f"{cells(K.LEAK_ADJUSTED.high(**values)).shown}])")
    named = "; ".join(both(rid) for rid in runs[:5]) + ("; …" if len(runs) > 5 else "")
    n = cells(K.LEAK_ADJUSTED_COUNT.key(bench=b, count="disagree"), "count").shown
    return (f"For {n} of the models the crude gap (all items pooled) reads differently from the adjusted one, in "
            f"sign or in whether its interval excludes zero: {named}.")


def leak_chart_rows(c: Computed, facts: Any) -> list[tuple[str, str, float, float, float]]:
    """(model, series, gap, low, high) for the gap chart, by strict accuracy on all items: the
    crude gap and, where defined, the adjusted one."""
    labels = _labels_of(c)
    rows = []
    for rid in c.leak.run_ids:
        values = {"bench": c.name, "run_id": rid}
        rows.append((labels[rid], "crude (all items pooled)", facts[K.LEAK_GAP.key(**values)],
                     facts[K.LEAK_GAP.low(**values)], facts[K.LEAK_GAP.high(**values)]))
        if K.LEAK_ADJUSTED.key(**values) in facts:
            rows.append((labels[rid], "adjusted (within strata)", facts[K.LEAK_ADJUSTED.key(**values)],
                         facts[K.LEAK_ADJUSTED.low(**values)], facts[K.LEAK_ADJUSTED.high(**values)]))
    return rows


def leak_chart_id(name: str) -> str:
    return table_id(name, "leak-gap")


def _pairs(c: Computed, cells: FactCells) -> Table:
    rows = []
    for pair in c.pairs:
        values = {"bench": c.name, "run_id": pair.sighted.header.run_id}
        row = [Cell(pair.sighted.header.subject_label), Cell(str(pair.sighted.header.option_seed)),
               Cell(pair.sighted.header.run_id), Cell(pair.blind.header.run_id),
               cells(K.PAIR_COUNTS.key(count="n", **values), "count")]
        for metric, _ in METRICS:
            row += [cells(K.PAIR_GAP.key(metric=metric, **values)), cells(K.PAIR_GAP.low(metric=metric, **values)),
                    cells(K.PAIR_GAP.high(metric=metric, **values))]
        row += [cells(K.PAIR_COUNTS.key(count="fixes", **values), "count"),
                cells(K.PAIR_COUNTS.key(count="breaks", **values), "count"), cells(K.PAIR_P.key(**values), "p")]
        rows.append(tuple(row))
    return Table(table_id(c.name, "pairs"), "Sighted minus blind, item by item",
                 ("Model", "Option seed", "Sighted run", "Blind run", "Shared items", "Accuracy gap", "Accuracy gap 95% low",
                  "Accuracy gap 95% high", "Macro F1 gap", "Macro F1 gap 95% low", "Macro F1 gap 95% high", "Fixes",
                  "Breaks", "McNemar p"), tuple(rows),
                 "Gaps in points, sighted minus blind, with paired bootstrap intervals over the shared items; fixes: "
                 "items only the sighted arm got right, breaks: only the blind arm; exact McNemar on the two.")


INDEX_TABLE, INDEX_CHART = "mcq-index", "mcq-index-gain"
# The position prior is cross-fitted (analyses/position_prior.py): fitted on the items it scores it
# beats chance on random golds, so every table that shows it says how it was fitted.
PRIOR_NOTE = ("Position prior: each item gets the most common gold position of the folds that did not hold it "
              "(cross-fitted on the learned probe's folds).")


def _fold_counts(rows: Any) -> str:
    """`5-fold` when every row's cross-fitting used 5 folds, else each count with its benchmarks:
    the note must not claim folds a benchmark did not get (group_folds gives fewer)."""
    counts = sorted({r.folds for r in rows}, reverse=True)
    if len(counts) <= 1:
        return f"{counts[0] if counts else 5}-fold"
    return "; ".join(f"{k}-fold for " + ", ".join(r.title for r in rows if r.folds == k) for k in counts)


def index_table(index: Any, cells: FactCells) -> Table:
    """One row per benchmark, largest learned gain first; each name links to its page."""
    rows = []
    for r in index.rows:
        b = r.name
        rule = {"bench": b, "block": "shuffled", "probe": r.rule, "metric": "accuracy"}
        learned = {"bench": b, "block": "shuffled", "probe": "learned_options", "metric": "accuracy"}
        gain = {"bench": b, "probe": "learned"}
        rows.append((Cell(r.title, href=r.href), cells(K.ITEMS.key(bench=b), "count"), Cell(r.options),
                     cells(K.CHANCE.key(bench=b)), Cell(r.shuffle), Cell(r.rule.replace("_", " ")),
                     cells(K.AUDIT.key(**rule)),
                     cells(K.AUDIT.low(**rule)), cells(K.AUDIT.high(**rule)),
                     cells(K.LEARNED_ITEMS.key(bench=b), "count"), cells(K.AUDIT.key(**learned)),
                     cells(K.AUDIT.low(**learned)), cells(K.AUDIT.high(**learned)),
                     cells(K.INDEX_GAIN.key(**gain)), cells(K.INDEX_GAIN.low(**gain)),
                     cells(K.INDEX_GAIN.high(**gain)), cells(K.SOLVABLE.key(bench=b), "pct"), Cell(r.cue),
                     Cell(r.model)))
    return Table(INDEX_TABLE, "How much the options alone give away, per benchmark",
                 ("Benchmark", "Items", "Options", "Chance", "Shuffle", "Strongest rule", "Rule accuracy", "Rule 95% low",
                  "Rule 95% high", "Learned probe items", "Learned probe accuracy", "Learned 95% low", "Learned 95% high",
                  "Gain over chance", "Gain 95% low", "Gain 95% high", "Option-solvable", "Top cue family",
                  "Learned model"),
                 tuple(rows), "Accuracy (0–100; not macro F1) on the five seeded option shuffles of the Shuffle "
                 "column (each item's order, as Python; seeds 1111–5555): mean over seeds, 95% bootstrap "
                 "interval of seed 1111. Rules are scored on every audited item (the position prior cross-fitted on "
                 "the learned probe's folds); the learned probe on the test split "
                 f"where the spec has one (else every item, {_fold_counts(index.rows)} cross-validation). Chance: "
                 "the mean of 1/k over the items. Gain: the learned probe's accuracy minus chance on the items it answered. "
                 "Option-solvable: the share of those items whose learned top choice is the gold (strictly highest). "
                 "Top cue family: the feature family whose removal costs the learned probe most in the drop-one-group "
                 "ablation, named only when that drop's 95% interval excludes 0 (each benchmark's page has the "
                 "ablation). Learned model: what inner cross-validation on each fit's training items chose among "
                 "the ranker (and its penalty α), a plain n-gram logistic regression (C) and the rules; the "
                 "published learned figure is that choice's held-out score.")


def index_chart_rows(index: Any, facts: Any) -> list[tuple[str, str, float, float, float]]:
    """(benchmark, probe, gain, low, high) for the gain chart, in the table's order."""
    rows = []
    for r in index.rows:
        for probe, label in (("learned", "learned probe"), ("rule", "strongest rule")):
            values = {"bench": r.name, "probe": probe}
            rows.append((r.title, label, facts[K.INDEX_GAIN.key(**values)], facts[K.INDEX_GAIN.low(**values)],
                         facts[K.INDEX_GAIN.high(**values)]))
    return rows
