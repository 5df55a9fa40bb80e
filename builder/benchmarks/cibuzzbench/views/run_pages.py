"""One page per run: header, scores with intervals, confusion, categories and an item browser.

Dataset text is shipped once per site (assets/items.js) and each run page embeds
only its own compact per-item answers, so pages stay small however many runs exist.
Everything is inserted into the page as text by the browser script, never as HTML.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from jinja2 import Environment

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import SOURCES
from builder.site import views as v
from builder.site.environment import plain_cell
from builder.site.scriptjson import script_json
from builder.site.tables_csv import FULL_PRECISION, table_csv

if TYPE_CHECKING:
    from builder.site.render import SiteInputs

SOURCE_CODES = {"literal": "L", "cultural": "C", "pragmatic": "P", "correct": "G"}


def items_asset(variant: str) -> str:
    """One item-text file per dataset variant: a variant's runs must show its own options."""
    return "assets/items.js" if variant == "original" else f"assets/items-{variant}.js"


def dataset_items_js(dataset: Dataset) -> bytes:
    """row_id -> [term, category, split, harmful label, literal, cultural, pragmatic, gold]."""
    frame = dataset.frame
    columns = ["term_zh", "category_label", "split", "harmful_label"] + [column for _, column in SOURCES]
    items = {str(int(row_id)): list(values) for row_id, values in zip(frame.index, frame[columns].itertuples(index=False))}
    return b"window.BUZZ_ITEMS=" + str(script_json(items, strict=False)).encode("utf-8") + b";\n"


def run_items(score: RunScore) -> list[list[Any]]:
    """Compact rows: [row_id, option codes in letter order, prediction, gold, response, error]."""
    rows = []
    for item, gold in zip(score.run.items, score.gold):
        order = "".join(SOURCE_CODES[item.letter_map[letter]] for letter in "ABCD") if item.letter_map else ""
        rows.append([item.row_id, order, item.prediction, gold, item.response, item.error])
    return rows


def render_run_pages(env: Environment, inputs: "SiteInputs", common: dict[str, Any]) -> dict[str, bytes]:
    cells = v.FactCells(inputs.computed.facts)
    datasets = {"original": inputs.dataset, **inputs.variants}
    used = {s.run.header.variant for s in inputs.computed.scores.values()} | {"original"}
    files = {items_asset(v): dataset_items_js(datasets[v]) for v in sorted(used)}
    template = env.get_template("run.html")
    for rid, score in inputs.computed.scores.items():
        tables = [v.run_metrics_table(cells, score), v.run_labels_table(score), v.run_confusion_table(score),
                  v.run_category_table(cells, score)]
        html = template.render(
            **common, root="../", slug="runs", title=f"Run {rid}",
            description=f"Scores, confusion matrix, categories and items of run {rid}.",
            header=score.run.header, footer=score.run.footer, score=score, tables=tables,
            selected=inputs.computed.facts[K.RUN_SELECTED.key(run_id=rid)],
            header_json=json.dumps(score.run.header.to_json(), ensure_ascii=False, indent=1, sort_keys=True),
            items_json=script_json({"task": score.run.header.task, "items": run_items(score)}, strict=False),
            items_asset=items_asset(score.run.header.variant))
        files[f"runs/{rid}.html"] = html.encode("utf-8")
        files.update(tables_as_csv(tables))
    return files


def _rounded(c: v.Cell) -> object:
    """A CSV cell as the page shows it: rounded, and "n of N" while a run is in progress."""
    if not c.numeric:
        return c.text
    shown = plain_cell(c.value, c.kind, c.digits)
    return f"{shown} of {c.of:g}" if c.of is not None else shown


def tables_as_csv(tables: list[v.Table]) -> dict[str, bytes]:
    """The download behind each table's CSV link, rounded as the page shows it, and its
    full-precision twin under tables/full/."""
    files = {}
    for t in tables:
        files[f"tables/{t.id}.csv"] = table_csv(t.columns, [[_rounded(c) for c in row] for row in t.rows])
        files[f"{FULL_PRECISION}{t.id}.csv"] = table_csv(t.columns, [[c.export for c in row] for row in t.rows])
    return files
