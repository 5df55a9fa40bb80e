"""Choose the site's charts and feed them computed rows (the builders only draw)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from builder.benchmarks.cibuzzbench.compute import Computed
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED, OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.views.tables import PROBE_LABELS
from builder.benchmarks.cibuzzbench.wording import has_distractor_types
from builder.benchmarks.cibuzzbench.views import charts as views_charts
from builder.site import charts as c
from builder.site.labels import column_label
from builder.benchmarks.cibuzzbench.views.model_views import chart_labels
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES

if TYPE_CHECKING:
    from builder.site.charts import SvgRenderer


def build_charts(computed: Computed, renderer: SvgRenderer | None = None) -> dict[str, Any]:
    facts = computed.facts
    out = {}
    out["option-lengths"] = views_charts.option_length_chart(computed.length_distribution, renderer=renderer)
    probes = [p for p in PROBE_LABELS if K.PROBE_SPREAD.key(probe=p, scope="all", metric="macro_f1", stat="mean") in facts]
    seed_keys = [(p, seed, K.PROBE_SEED.key(probe=p, scope="all", metric="macro_f1", seed=seed))
                 for p in probes for seed in OFFICIAL_SEEDS]
    seed_rows = [(PROBE_LABELS[p], seed, facts[key]) for p, seed, key in seed_keys if key in facts]
    if seed_rows:
        out["heuristic-seeds"] = views_charts.heuristic_seed_chart(seed_rows, renderer=renderer)
    category_rows = _category_rows(facts, probes)
    if category_rows:
        out["category-scores"] = c.category_score_chart(
            category_rows, renderer=renderer, title="Accuracy by category, options alone",
            value_title=f"{column_label('accuracy')} (%)", series_title=column_label("probe"),
            description=f"Each model-free probe's accuracy within each category at option seed {DEFAULT_SEED}, "
                        "with its 95% bootstrap interval.")
    out.update(_pair_charts(computed, renderer))
    return out


def _pair_charts(computed: Computed, renderer: SvgRenderer | None) -> dict[str, Any]:
    """One point (and one set of bars) per model: means over its per-seed pairs."""
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
    one_seed, seeds = _seed_words(computed.pair_summaries)
    out = {"sighted-blind": views_charts.sighted_blind_scatter(
        scatter, id="sighted-blind", value_title="Macro F1", label_title="Model", renderer=renderer,
        description=(f"Sighted macro F1 against blind macro F1 {seeds}, with the 95% bootstrap intervals of "
                     f"{'those runs' if one_seed else 'the runs at option order seed ' + str(DEFAULT_SEED)}; "
                     "the dashed diagonal is y = x."))}
    if errors:
        out["blind-errors"] = views_charts.blind_error_chart(
            errors, id="blind-errors", source_title="Model", renderer=renderer,
            description=f"The blind arm's wrong answers by the type of distractor chosen, {seeds}.")
    return out


def _seed_words(summaries: list[Any]) -> tuple[bool, str]:
    """How the charts' captions name the option seeds behind each point: the one seed when every
    model was run at a single seed, otherwise the mean (or sum) over each model's seeds."""
    seeds = {pair.option_seed for s in summaries for pair in s.pairs}
    if all(len(s.pairs) == 1 for s in summaries):
        listed = ", ".join(str(x) for x in sorted(seeds))
        return True, f"per model at option seed{'s' if len(seeds) > 1 else ''} {listed} (one run per arm)"
    return False, "per model over its option seeds (means for scores, sums for counts)"


def _category_rows(facts, probes: list[str]) -> list[tuple]:
    rows = []
    for category in CATEGORIES:
        for p in probes:
            at: dict[str, Any] = {"probe": p, "category": category, "metric": "accuracy", "seed": DEFAULT_SEED}
            if K.PROBE_CATEGORY_SEED.key(**at) in facts:
                rows.append((category, PROBE_LABELS[p], facts[K.PROBE_CATEGORY_SEED.key(**at)],
                             facts[K.PROBE_CATEGORY_SEED.low(**at)], facts[K.PROBE_CATEGORY_SEED.high(**at)]))
    return rows


MEASURED = "measured here"
FINDING_MEASURED = (  # (label, fact key): what the options give away, before any model reads the Chinese
    ("Random letter (all items", "leak.random.macro_f1.mean"),
    ("Pick the longest option (all items", "leak.longest_chars.macro_f1.mean"),
    ("Learned option-only probe (test split", "leak.learned_options.test.macro_f1.mean"),
)


def _seeds_label(facts: Any, label: str, key: str) -> str:
    """The label closed with the number of option seeds the mean was taken over: one run per seed
    stands behind the fact, so the count is read from its provenance, never written by hand."""
    seeds = len(facts.provenance[key].runs)
    return f"{label}, {seeds} option seed{'' if seeds == 1 else 's'})"
FINDING_REPORTED = (  # (label, reported figure): what the published probe and the paper state
    ("Published blind probe, Gemini Flash blind (400 items)", "probe.blind.macro_f1"),
    ("Paper: six frontier models sighted, lowest", "paper.task2.macro_f1.min"),
    ("Paper: six frontier models sighted, highest", "paper.task2.macro_f1.max"),
)


def finding_chart(computed: Computed, reported: Any, renderer: SvgRenderer | None = None) -> dict[str, Any]:
    """The front page's one chart: Task 2 macro F1 without the Chinese (measured from the data and
    the probe runs) beside the sighted and blind figures the sources report (not re-run here)."""
    facts = computed.facts
    rows = [(_seeds_label(facts, label, key), facts[key], MEASURED) for label, key in FINDING_MEASURED if key in facts]
    rows += [(label, reported[key].value, f"reported by {reported[key].source.short}")
             for label, key in FINDING_REPORTED if key in reported]
    if not rows:
        return {}
    return {"finding": views_charts.measured_reported_chart(
        rows, id="finding", title="Equivalent Selection without the Chinese, and what the sources report",
        renderer=renderer,
        description="Macro F1 on Task 2. Measured here: model-free rules and a learned reader of the options "
                    "alone, from the data and the runs in this repository. Reported: quoted from the published "
                    "blind probe and the paper, not re-run here.")}
