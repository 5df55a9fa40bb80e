"""Choose the site's charts and feed them computed rows (the builders only draw)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from builder.benchmarks.cibuzzbench.compute import Computed
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.views.tables import PROBE_LABELS
from builder.benchmarks.cibuzzbench.wording import has_distractor_types

if TYPE_CHECKING:
    from builder.site.charts import SvgRenderer


def build_charts(computed: Computed, renderer: SvgRenderer | None = None) -> dict[str, Any]:
    from builder.site import charts as c
    facts = computed.facts
    out = {}
    out["option-lengths"] = c.option_length_chart(computed.length_distribution, renderer=renderer)
    probes = [p for p in PROBE_LABELS if K.PROBE_SPREAD.key(probe=p, scope="all", metric="macro_f1", stat="mean") in facts]
    seed_keys = [(p, seed, K.PROBE_SEED.key(probe=p, scope="all", metric="macro_f1", seed=seed))
                 for p in probes for seed in OFFICIAL_SEEDS]
    seed_rows = [(PROBE_LABELS[p], seed, facts[key]) for p, seed, key in seed_keys if key in facts]
    if seed_rows:
        out["heuristic-seeds"] = c.heuristic_seed_chart(seed_rows, renderer=renderer)
    category_rows = _category_rows(facts, probes)
    if category_rows:
        out["category-scores"] = c.category_score_chart(category_rows, renderer=renderer)
    out.update(_pair_charts(computed, renderer))
    return out


def _pair_charts(computed: Computed, renderer: SvgRenderer | None) -> dict[str, Any]:
    """One point (and one set of bars) per model: means over its per-seed pairs."""
    from builder.site import charts as c
    from builder.benchmarks.cibuzzbench.views.model_views import chart_labels
    facts = computed.facts
    if not computed.pair_summaries:
        return {}
    scatter, errors = [], []
    labels = chart_labels(computed.pair_summaries)
    for s in computed.pair_summaries:
        name = labels[s.id]
        blind, sighted = {"id": s.blind.id, "metric": "macro_f1"}, {"id": s.sighted.id, "metric": "macro_f1"}
        arm = {"id": s.id, "metric": "macro_f1", "stat": "mean"}
        scatter.append((name, facts[K.PAIRED_ARM.key(**arm, arm="a")], facts[K.PAIRED_ARM.key(**arm, arm="b")],
                        facts[K.MODEL_INTERVAL.low(**blind)], facts[K.MODEL_INTERVAL.high(**blind)],
                        facts[K.MODEL_INTERVAL.low(**sighted)], facts[K.MODEL_INTERVAL.high(**sighted)]))
        if K.PAIRED_ERRORS_COUNT.key(id=s.id, source="pragmatic") in facts and has_distractor_types(s.blind.variant):
            errors += [(kind, facts[K.PAIRED_ERRORS_COUNT.key(id=s.id, source=kind)], name)
                       for kind in ("pragmatic", "cultural", "literal", "unparsed")]
    out = {"sighted-blind": c.sighted_blind_scatter(
        scatter, id="sighted-blind", value_title="Macro F1", label_title="Model", renderer=renderer,
        description="Mean sighted macro F1 over a model's option seeds against its mean blind macro F1, with the "
                    "95% bootstrap intervals of the runs at option order seed 1111; the dashed diagonal is y = x.")}
    if errors:
        out["blind-errors"] = c.blind_error_chart(
            errors, id="blind-errors", source_title="Model", renderer=renderer,
            description="The blind arm's wrong answers by the type of distractor chosen, summed over each "
                        "model's option seeds.")
    return out


def _category_rows(facts, probes: list[str]) -> list[tuple]:
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES
    rows = []
    for category in CATEGORIES:
        for p in probes:
            at = {"probe": p, "category": category, "metric": "accuracy", "seed": DEFAULT_SEED}
            if K.PROBE_CATEGORY_SEED.key(**at) in facts:
                rows.append((category, PROBE_LABELS[p], facts[K.PROBE_CATEGORY_SEED.key(**at)],
                             facts[K.PROBE_CATEGORY_SEED.low(**at)], facts[K.PROBE_CATEGORY_SEED.high(**at)]))
    return rows
