"""Choose the site's charts and feed them computed rows (the builders only draw)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from builder.benchmarks.cibuzzbench.compute import Computed
from builder.benchmarks.cibuzzbench.dataset.options import OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.views.tables import PROBE_LABELS

if TYPE_CHECKING:
    from builder.site.charts import SvgRenderer


def build_charts(computed: Computed, renderer: SvgRenderer | None = None) -> dict[str, Any]:
    from builder.site import charts as c
    facts = computed.facts
    out = {}
    out["option-lengths"] = c.option_length_chart(computed.length_distribution, renderer=renderer)
    probes = [p for p in PROBE_LABELS if f"leak.{p}.macro_f1.mean" in facts]
    seed_rows = [(PROBE_LABELS[p], seed, facts[f"leak.{p}.macro_f1.seed_{seed}"])
                 for p in probes for seed in OFFICIAL_SEEDS if f"leak.{p}.macro_f1.seed_{seed}" in facts]
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
    from builder.benchmarks.cibuzzbench.views.model_views import model_label
    facts = computed.facts
    if not computed.pair_summaries:
        return {}
    scatter, errors = [], []
    for s in computed.pair_summaries:
        base, name = f"paired.{s.id}", model_label(s.model, len(s.pairs), s.blind.variant)
        blind, sighted = f"model.{s.blind.id}.macro_f1", f"model.{s.sighted.id}.macro_f1"
        scatter.append((name, facts[f"{base}.a.macro_f1.mean"], facts[f"{base}.b.macro_f1.mean"],
                        facts[f"{blind}.ci95_low"], facts[f"{blind}.ci95_high"],
                        facts[f"{sighted}.ci95_low"], facts[f"{sighted}.ci95_high"]))
        if f"{base}.errors.pragmatic.count" in facts:
            errors += [(kind, facts[f"{base}.errors.{kind}.count"], name)
                       for kind in ("pragmatic", "cultural", "literal", "unparsed")]
    out = {"sighted-blind": c.sighted_blind_scatter(
        scatter, id="sighted-blind", value_title="Macro F1", label_title="Model", renderer=renderer,
        description="Mean sighted macro F1 over a model's option seeds against its mean blind macro F1, with the "
                    "95% bootstrap intervals of the seed-1111 runs; the dashed diagonal is y = x.")}
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
            key = f"leak.{p}.category.{category}.accuracy.seed_1111"
            if key in facts:
                rows.append((category, PROBE_LABELS[p], facts[key], facts[f"{key}.ci95_low"], facts[f"{key}.ci95_high"]))
    return rows
