"""One page per run: header, scores with intervals, confusion, categories and an item browser.

Dataset text is shipped once per site (assets/items.js) and each run page embeds
only its own compact per-item answers, so pages stay small however many runs exist.
Everything is inserted into the page as text by the browser script, never as HTML.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jinja2 import Environment

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import GOLD, SOURCES
from builder.benchmarks.cibuzzbench.probes.generate import probe_rule
from builder.benchmarks.cibuzzbench.views import tables as v
from builder.benchmarks.cibuzzbench.wording import selection_label
from builder.runs.cache import datasets_key
from builder.site.incremental import Kept, context_key, filled, keepable, reusable_context
from builder.site.scriptjson import script_json
from builder.site.tables import tables_as_csv

if TYPE_CHECKING:
    from builder.runs.cache import RunCache
    from builder.benchmarks.cibuzzbench.compute import Computed

def _run_key(cache: "RunCache | None", computed: "Computed", run_id: str) -> str:
    """The cache key of a run's content ("" when the cache did not load it)."""
    return (cache.key(computed.scores[run_id].run) or "") if cache is not None else ""


SOURCE_CODES = {"literal": "L", "cultural": "C", "pragmatic": "P", "correct": "G"}
OTHER_GOLD = "another item's gold"
# What the item browser writes after each option: a lower-case code is a slot whose distractor a
# gold-pool variant replaced with another item's gold (its text is still read from that slot).
SLOT_LABELS = {"L": "literal", "C": "cultural", "P": "pragmatic", "G": "gold",
               "l": OTHER_GOLD, "c": OTHER_GOLD, "p": OTHER_GOLD}


def items_asset(variant: str) -> str:
    """One item-text file per dataset variant: a variant's runs must show its own options."""
    return "assets/items.js" if variant == "original" else f"assets/items-{variant}.js"


def dataset_items_js(dataset: Dataset) -> bytes:
    """row_id -> [term, category, split, harmful label, literal, cultural, pragmatic, gold]."""
    frame = dataset.frame
    columns = ["term_zh", "category_label", "split", "harmful_label"] + [column for _, column in SOURCES]
    rows = zip(frame.index.tolist(), zip(*(frame[c].tolist() for c in columns)))  # lists: fast to iterate
    items = {str(int(row_id)): list(values) for row_id, values in rows}
    return b"window.BUZZ_ITEMS=" + str(script_json(items, strict=False)).encode("utf-8") + b";\n"


def replaced_slots(variant: Dataset, original: Dataset) -> dict[int, frozenset[str]]:
    """row_id -> the distractor slots whose text the variant changed (on a gold pool: every slot
    that holds another item's gold; a slot kept at the tolerance cap keeps its distractor)."""
    changed: dict[int, set[str]] = {}
    for kind, column in SOURCES:
        if kind == GOLD:
            continue
        ours, theirs = variant.frame[column], original.frame[column].reindex(variant.frame.index)
        for row_id in variant.frame.index[(ours != theirs).to_numpy(dtype=bool)].tolist():
            changed.setdefault(row_id, set()).add(kind)
    return {row_id: frozenset(kinds) for row_id, kinds in changed.items()}


def run_items(score: RunScore, replaced: Mapping[int, frozenset[str]] | None = None,
              effects: Mapping[int, str] | None = None) -> list[list[Any]]:
    """Compact rows: [row_id, option codes in letter order, prediction, gold, response, error,
    effect of seeing the term on this item ("fixed", "broken" or "", when the run has a pair)];
    a slot in `replaced` gets its code in lower case (SLOT_LABELS)."""
    rows = []
    for item, gold in zip(score.run.items, score.gold):
        swapped = (replaced or {}).get(item.row_id, frozenset())
        order = "".join(SOURCE_CODES[source].lower() if source in swapped else SOURCE_CODES[source]
                        for source in (item.letter_map[letter] for letter in "ABCD")) if item.letter_map else ""
        rows.append([item.row_id, order, item.prediction, gold, item.response, item.error,
                     (effects or {}).get(item.row_id, "")])
    return rows


@dataclass(frozen=True)
class Partner:
    """The other arm of a run's sighted/blind pair (same model, items, option seed and set)."""

    run_id: str
    condition: str
    effects: dict[int, str]  # row_id -> "fixed" (blind wrong, sighted right) / "broken" (the reverse)


def partners(computed: "Computed") -> dict[str, Partner]:
    """Each paired run's partner, with the items seeing the term fixed and broke, counted the
    way the paired analysis counts them (a right answer is the gold letter)."""
    out = {}
    for pair in computed.pairs:
        blind, sighted = computed.scores[pair.run_a], computed.scores[pair.run_b]
        right_blind, right_sighted = _right(blind), _right(sighted)
        effects = {row: ("fixed" if right_sighted[row] else "broken")
                   for row in right_blind.keys() & right_sighted.keys() if right_blind[row] != right_sighted[row]}
        out[pair.run_a] = Partner(pair.run_b, sighted.run.header.condition, effects)
        out[pair.run_b] = Partner(pair.run_a, blind.run.header.condition, effects)
    return out


def _right(score: RunScore) -> dict[int, bool]:
    return {item.row_id: item.prediction == gold for item, gold in zip(score.run.items, score.gold)}


def prompt_of(header: Any, protocols: Mapping[str, Any]) -> Any:
    """The protocol whose exact text the run recorded (its id and sha256 both match), or None."""
    parameters = header.subject.get("parameters") or {}
    protocol = protocols.get(str(parameters.get("protocol", "")))
    return protocol if protocol is not None and protocol.sha256 == parameters.get("prompt_sha256") else None


def render_run_pages(env: Environment, computed: "Computed", datasets: Mapping[str, Dataset],
                     common: Mapping[str, Any], cache: "RunCache | None" = None,
                     protocols: Mapping[str, Any] | None = None) -> dict[str, bytes]:
    """`datasets`: every dataset variant by name ("original" too). With a `cache`, a run's page
    and tables rendered by an earlier build are reused (builder/site/incremental.py)."""
    cells = v.FactCells(computed.facts)
    used = {s.run.header.variant for s in computed.scores.values()} | {"original"}
    files = {items_asset(v): dataset_items_js(datasets[v]) for v in sorted(used)}
    template = env.get_template("run.html")
    name = f"page:{datasets_key(datasets)}:{context_key(common, env)}"
    replaced = {v: replaced_slots(datasets[v], datasets["original"]) for v in sorted(used) if v != "original"}
    paired = partners(computed)
    for rid, score in computed.scores.items():
        partner = paired.get(rid)

        def render(rid: str = rid, score: RunScore = score, partner: Partner | None = partner) -> Kept:
            tables = [v.run_metrics_table(cells, score), v.run_labels_table(score), v.run_confusion_table(score),
                      v.run_category_table(cells, score)]
            html = template.render(
                **reusable_context(common, f"run.{rid}."), root="../", slug="runs", title=f"Run {rid}",
                description=f"Scores, confusion matrix, categories and items of run {rid}.",
                header=score.run.header, footer=score.run.footer, score=score, tables=tables,
                items_label=selection_label(score.run.header.items),
                selected=computed.facts[K.RUN_SELECTED.key(run_id=rid)],
                header_json=json.dumps(score.run.header.to_json(), ensure_ascii=False, indent=1, sort_keys=True),
                items_json=script_json({"task": score.run.header.task, "slots": SLOT_LABELS, "paired": partner is not None,
                                        "items": run_items(score, replaced.get(score.run.header.variant),
                                                           partner.effects if partner else None)}, strict=False),
                items_asset=items_asset(score.run.header.variant), partner=partner,
                protocol=prompt_of(score.run.header, protocols or {}),
                rule=probe_rule(score.run.header.subject) if score.run.header.subject.get("kind") == "probe" else "")
            return keepable({f"runs/{rid}.html": html.encode("utf-8"), **tables_as_csv(tables)})
        # The page also shows its partner's answers: kept under the partner's content as well.
        partner_key = _run_key(cache, computed, partner.run_id) if partner is not None else ""
        if cache is None or (partner is not None and not partner_key):
            page = render()
        else:
            page = cache.derived(score.run, f"{name}:pair:{partner.run_id}:{partner_key}" if partner else name, render)
        files.update(filled(page, common))
    return files
