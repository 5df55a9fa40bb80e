"""Choose the site's charts and feed them computed rows (the builders only draw)."""

from __future__ import annotations

from typing import Any

from builder.compute import Computed
from builder.dataset.options import OFFICIAL_SEEDS
from builder.render.views import PROBE_LABELS


def build_charts(computed: Computed) -> dict[str, Any]:
    from builder.render import charts as c
    facts = computed.facts
    out = {}
    out["option-lengths"] = c.option_length_chart(computed.length_distribution)
    probes = [p for p in PROBE_LABELS if f"leak.{p}.macro_f1.mean" in facts]
    seed_rows = [(PROBE_LABELS[p], seed, facts[f"leak.{p}.macro_f1.seed_{seed}"])
                 for p in probes for seed in OFFICIAL_SEEDS if f"leak.{p}.macro_f1.seed_{seed}" in facts]
    if seed_rows:
        out["heuristic-seeds"] = c.heuristic_seed_chart(seed_rows)
    category_rows = _category_rows(facts, probes)
    if category_rows:
        out["category-scores"] = c.category_score_chart(category_rows)
    out.update(_pair_charts(computed))
    return out


def _pair_charts(computed: Computed) -> dict[str, Any]:
    from builder.render import charts as c
    facts = computed.facts
    triples = computed.pair_triples()
    if not triples:
        return {}
    scatter, errors = [], []
    for pid, blind, sighted in triples:
        unlike = " †" if facts[f"pair.{pid}.settings_differ"] else ""  # explained in the model-pairs table
        name = f"{blind.run.header.subject_name} (seed {blind.run.header.option_seed}){unlike}"
        b, s = blind.intervals["macro_f1"], sighted.intervals["macro_f1"]
        scatter.append((name, facts[f"pair.{pid}.a.macro_f1"], facts[f"pair.{pid}.b.macro_f1"], b.low, b.high, s.low, s.high))
        if f"pair.{pid}.errors.total.count" in facts:
            errors += [(kind, facts[f"pair.{pid}.errors.{kind}.count"], name)
                       for kind in ("pragmatic", "cultural", "literal", "unparsed")]
    out = {"sighted-blind": c.sighted_blind_scatter(scatter, id="sighted-blind")}
    if errors:
        out["blind-errors"] = c.blind_error_chart(errors, id="blind-errors")
    return out


def _category_rows(facts, probes: list[str]) -> list[tuple]:
    from builder.dataset.cibuzzbench import CATEGORIES
    rows = []
    for category in CATEGORIES:
        for p in probes:
            key = f"leak.{p}.category.{category}.accuracy.seed_1111"
            if key in facts:
                rows.append((category, PROBE_LABELS[p], facts[key], facts[f"{key}.ci95_low"], facts[f"{key}.ci95_high"]))
    return rows
