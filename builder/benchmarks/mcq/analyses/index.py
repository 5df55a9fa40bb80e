"""The artifact index (`benchmarks.html`): one row per spec'd benchmark, CIBuzzBench included
through its own spec, comparing how much the options alone give away.

Per benchmark: the strongest rule (a model-free probe that is not learned and not random: the
position prior, the length rules, the centroid), the learned option-only probe, both as
accuracy on the seeded shuffles (mean over seeds; interval of seed 1111), each one's gain over
chance (the mean of 1/k over the items it answered: varying k has no single chance), the share
of items option-solvable and the top cue family. Rows are sorted by the learned probe's gain.
Every number is a fact; the sentences' wording is chosen here, by the numbers.

Option-solvable is the share of audited items whose gold the 5-fold cross-fitted ranker scores
strictly highest (builder.ranker.leak); the top cue family is the one whose removal costs the
learned probe most in the drop-one ablation, named only when that drop's interval excludes 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.compute import Computed
from builder.core.facts import FactTable
from builder.ranker.evaluate import FOLDS

RULES: tuple[str, ...] = ("position_prior", "longest_chars", "shortest_chars", "longest_words", "centroid")
LEARNED = "learned_options"
NO_CUE = "none: no drop excludes 0"


@dataclass(frozen=True)
class Row:
    name: str
    title: str
    href: str
    options: str  # "4", or "3–10" when the number varies
    shuffle: str  # the seeded shuffles' recipe as code (Audit.shuffle_recipe)
    rule: str  # the strongest rule's probe name
    cue: str  # the top cue family
    model: str  # the learned probe's model, as most of its fits chose it (builder.ranker.choice)
    gain: float  # the learned probe's gain over chance (sorting only: the page reads the fact)
    folds: int = FOLDS  # the cross-fitting's folds (Audit.learned_folds): fewer when one group is large


@dataclass(frozen=True)
class Index:
    rows: tuple[Row, ...]  # by gain, largest first (ties: by name)
    prose: dict[str, Any]  # what the sentences say, chosen by the numbers


@dataclass(frozen=True)
class Shelf:
    """The plug-in's computed state: each spec's, and the index over them."""

    specs: list[Computed]
    index: Index


def compute_index(computed: Sequence[Computed], facts: FactTable, page_dir: str) -> Index:
    rows = [_row(c, facts, page_dir) for c in computed]
    rows.sort(key=lambda r: (-r.gain, r.name))
    return Index(tuple(rows), _prose(rows, facts) if rows else {})


def _row(c: Computed, facts: FactTable, page_dir: str) -> Row:
    audit, bench = c.loaded.audit, c.name
    shuffled = audit.probes
    rule = max(RULES, key=lambda p: (shuffled[p].accuracy.mean, p == "position_prior"))  # ties: not the prior
    learned = shuffled[LEARNED].accuracy
    for which, score, chance in (("rule", shuffled[rule].accuracy, audit.chance),
                                 ("learned", learned, audit.learned_chance)):
        what = (f"{'the strongest rule (' + rule + ')' if which == 'rule' else 'the learned option-only probe'}: "
                "accuracy on the seeded shuffles minus chance (the mean of 100/k over the items it answered); "
                "interval: seed 1111's bootstrap interval less the same chance")
        values = {"bench": bench, "probe": which}
        facts.add(K.INDEX_GAIN.key(**values), score.mean - chance, what)
        facts.add(K.INDEX_GAIN.low(**values), score.ci95_low - chance, what)
        facts.add(K.INDEX_GAIN.high(**values), score.ci95_high - chance, what)
    facts.add(K.LEARNED_CHANCE.key(bench=bench), audit.learned_chance,
              "mean of 100/k over the items the learned probe answered")
    facts.add(K.SOLVABLE.key(bench=bench), audit.solvable, "% of the audited items option-solvable: the "
              f"{audit.learned_folds}-fold cross-fitted learned probe scores the gold strictly highest")
    facts.add(K.LEARNED_ITEMS.key(bench=bench), shuffled[LEARNED].items, "items the learned probe answered (the test "
              f"split when the spec has splits, else every audited item under {audit.learned_folds}-fold "
              "cross-validation)")
    low, high = audit.options_range
    return Row(bench, c.loaded.benchmark.spec.title, f"{page_dir}/{bench}.html", str(low) if low == high else
               f"{low}–{high}", audit.shuffle_recipe, rule, top_cue(audit.ablation), chosen_model(audit),
               learned.mean - audit.learned_chance, audit.learned_folds)


def chosen_model(audit: Any) -> str:
    """`ranker α=1`, or `ranker α=1 (4 of 5 fits; also rule longest_chars)` when the fits differ."""
    chosen = audit.learned_choice
    agree = sum(label == audit.learned_model for label in chosen)
    if agree == len(chosen):
        return audit.learned_model
    others = ", ".join(dict.fromkeys(label for label in chosen if label != audit.learned_model))
    return f"{audit.learned_model} ({agree} of {len(chosen)} fits; also {others})"


def top_cue(ablation: Sequence[Any]) -> str:
    """The cue family the learned probe loses most without (the ablation is sorted by drop), if
    that drop is distinguishable from 0 (its paired bootstrap interval lies above 0)."""
    return ablation[0].group if ablation and ablation[0].ci95_low > 0 else NO_CUE


def _prose(rows: list[Row], facts: FactTable) -> dict[str, Any]:
    """Which benchmark leads and trails, how many sit above chance, and where a rule still
    beats the learned probe: the template words each case as chosen here."""
    n = len(rows)
    above = [r for r in rows if facts[K.INDEX_GAIN.low(bench=r.name, probe="learned")] > 0]
    rule_wins = [r for r in rows if facts[K.INDEX_GAIN.key(bench=r.name, probe="rule")] >
                 facts[K.INDEX_GAIN.key(bench=r.name, probe="learned")]]
    facts.add(K.INDEX_COUNT.key(count="benchmarks"), n, "benchmarks on the index")
    facts.add(K.INDEX_COUNT.key(count="above_chance"), len(above),
              "benchmarks whose learned probe's 95% interval lies above chance")
    facts.add(K.INDEX_COUNT.key(count="rule_wins"), len(rule_wins),
              "benchmarks where the strongest rule gains more over chance than the learned probe")
    return {"top": rows[0], "bottom": rows[-1] if n > 1 else None,
            "above": "all" if len(above) == n else "none" if not above else "some",
            "rule_wins": rule_wins}
