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
