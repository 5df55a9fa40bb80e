"""Assemble the site's files in memory; the writer puts them on disk atomically."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from builder import __version__
from builder.compute import Computed
from builder.dataset.cibuzzbench import Dataset
from builder.probes.generate import OPTION_PROBES
from builder.render import views as v
from builder.render.environment import make_environment

Files = dict[str, bytes]


@dataclass(frozen=True)
class SiteInputs:
    dataset: Dataset
    computed: Computed
    content_dir: Path


def render_site(inputs: SiteInputs) -> Files:
    env = make_environment(inputs.content_dir / "templates")
    facts = inputs.computed.facts
    cells = v.FactCells(facts)
    probes = [p.name for p in OPTION_PROBES if f"leak.{p.name}.macro_f1.mean" in facts]
    dataset_tables = _dataset_tables(cells, probes)
    runs_table = v.runs_table(cells, inputs.computed.scores)
    common = {
        "facts": facts.values, "version": __version__,
        "dataset": {"file_sha256": inputs.dataset.file_sha256, "content_sha256": inputs.dataset.content_sha256},
        "provenance": facts.provenance,
    }
    files: Files = {
        "index.html": _page(env, "index.html", common, root="", title="buzzprobe", runs=runs_table,
                            has_probes=bool(probes)),
        "dataset.html": _page(env, "dataset.html", common, root="", title="Dataset and leakage",
                              tables=dataset_tables),
        "facts.json": _json(facts.as_json()),
        "provenance.json": _json_lines_object(facts.provenance_json()),
        "style.css": (inputs.content_dir / "static" / "style.css").read_bytes(),
    }
    for table in [*dataset_tables.values(), runs_table]:
        files[f"tables/{table.id}.csv"] = table_csv(table)
    return files


def _dataset_tables(cells: v.FactCells, probes: list[str]) -> dict[str, v.Table]:
    tables = [v.composition_table(cells), v.category_table(cells), v.longest_table(cells),
              v.length_table(cells, "all"), v.length_table(cells, "test"), v.audit_table(cells)]
    if probes:
        tables += [v.heuristic_table(cells, probes, "all"), v.heuristic_table(cells, probes, "test"),
                   v.heuristic_interval_table(cells, probes, "all", 1111),
                   v.heuristic_interval_table(cells, probes, "test", 1111)]
    if "harm.always_non_harmful.macro_f1" in cells.facts:
        tables.append(v.harm_table(cells))
    return {t.id: t for t in tables}


def _page(env, template: str, common: dict, **context) -> bytes:
    return env.get_template(template).render(**common, **context).encode("utf-8")


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _json_lines_object(data: dict[str, object]) -> bytes:
    """A JSON object with one entry per line: small, and diffs stay readable."""
    entries = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
               for k, v in sorted(data.items())]
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")


def table_csv(table: v.Table) -> bytes:
    """CSV with full-precision numbers (the page rounds, the download does not)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([repr(c.value) if c.numeric else c.text for c in row])
    return out.getvalue().encode("utf-8")
