"""Which of CIBuzzBench's tables the site shows, chosen by which facts this build has."""

from __future__ import annotations

from collections.abc import Sequence

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.leak_split import LeakSplit
from builder.benchmarks.cibuzzbench.compute import Computed
from builder.benchmarks.cibuzzbench.views import model_views as mv
from builder.benchmarks.cibuzzbench.views.baselines import baselines_table
from builder.benchmarks.cibuzzbench.views.fidelity_view import fidelity_tables
from builder.benchmarks.cibuzzbench.views.leak_split_view import leak_split_tables
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED
from builder.claims.figure_statements import FigureStatement
from builder.core.reported import ReportedTable
from builder.benchmarks.cibuzzbench.views import tables as v


def site_tables(computed: Computed, statements: Sequence[FigureStatement], reported: ReportedTable,
                split: LeakSplit | None = None) -> dict[str, v.Table]:
    cells = v.FactCells(computed.facts)
    facts = computed.facts
    probes = [p for p in v.PROBE_LABELS if K.PROBE_SPREAD.key(probe=p, scope="all", metric="macro_f1", stat="mean") in facts]
    tables = [v.composition_table(cells), v.category_table(cells), v.longest_table(cells),
              v.length_table(cells, "all"), v.length_table(cells, "test"), v.audit_table(cells),
              v.runs_table(cells, computed.scores)]
    tables += [t for t in (baselines_table(cells, computed.scores),) if t]
    if probes:
        tables += [v.heuristic_table(cells, probes, "all"), v.heuristic_table(cells, probes, "test"),
                   v.heuristic_interval_table(cells, probes, "all", DEFAULT_SEED),
                   v.heuristic_interval_table(cells, probes, "test", DEFAULT_SEED),
                   v.category_scores_table(cells, probes), v.category_interval_table(cells, probes)]
    if all(K.HARM_PROBE.key(probe="always_non_harmful", scope=s, metric="macro_f1") in facts for s in ("all", "test")):
        tables.append(v.harm_table(cells))
    if any((found := K.PROBE_SPREAD.values(k)) and found.get("variant") == "gold_pool" and found["metric"] == "macro_f1"
           and found["stat"] == "mean" for k in facts.values):
        tables += [v.option_sets_table(cells, probes, "test"),
                   v.option_sets_table(cells, probes, "all", v.cv_folds(computed.scores.values(), probes))]
    if K.GOLD_LONGEST_SHARE.key("gold_pool", scope="all") in facts:
        tables.append(v.option_sets_length_table(cells))
    tables += [t for t in (v.importance_table(cells, "permutation"), v.importance_table(cells, "coef")) if t]
    triples = computed.pair_triples()
    models, summaries = computed.models, computed.pair_summaries
    optional = [v.model_runs_table(cells, computed.scores), v.model_pairs_table(cells, triples),
                v.pair_category_table(cells, triples), v.blind_error_table(cells, triples),
                mv.model_summary_table(cells, models, "equivalent_selection"),
                mv.model_summary_table(cells, models, "harmfulness_detection"),
                mv.pair_summary_table(cells, summaries), mv.pair_category_summary_table(cells, summaries),
                mv.pair_brief_table(cells, summaries)]
    tables += [t for t in optional if t is not None]
    tables += leak_split_tables(cells, computed.scores, split)
    tables += fidelity_tables(cells, statements, reported)
    return {t.id: t for t in tables}
