"""Data files stage: what the site offers besides its pages — facts.json, provenance.json, every
table as CSV and every chart as CSV, SVG and PNG — encoded byte for byte, deterministically."""

from __future__ import annotations

import json

from builder.core.facts import FactTable
from builder.site.chart_png import chart_png
from builder.site.environment import plain_datum
from builder.site.prepare import Files, Merged, SiteInputs
from builder.site.svg_file import standalone_svg
from builder.site.tables import tables_as_csv
from builder.site.tables_csv import FULL_PRECISION, table_csv


def data_files(inputs: SiteInputs, merged: Merged) -> Files:
    facts = inputs.facts
    files: Files = {
        "facts.json": facts_json(facts),
        "provenance.json": provenance_json(facts),
    }
    files.update(tables_as_csv(list(merged.tables.values())))
    for chart in merged.charts.values():
        files[f"tables/chart-{chart.id}.csv"] = table_csv(chart.columns, [[plain_datum(x) for x in row] for row in chart.rows])
        files[f"tables/chart-{chart.id}.svg"] = standalone_svg(chart.svg)
        files[f"tables/chart-{chart.id}.png"] = chart_png(files[f"tables/chart-{chart.id}.svg"], inputs.cache_dir)
        files[f"{FULL_PRECISION}chart-{chart.id}.csv"] = table_csv(chart.columns, chart.rows)
    return files


_KEY = json.encoder.encode_basestring  # json's string encoder with ensure_ascii=False


def facts_json(facts: FactTable) -> bytes:
    """`json.dumps(facts.as_json(), indent=1, ensure_ascii=False, sort_keys=True)`, byte for
    byte, written directly: a fact is a finite int or float, which json writes as its repr,
    and json's indenting encoder is pure Python (about 0.3 s at 1,000 runs)."""
    if not facts.values:
        return b"{}\n"
    entries = [f" {_KEY(k)}: {(float.__repr__ if isinstance(v, float) else int.__repr__)(v)}"
               for k, v in sorted(facts.values.items())]
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")


def provenance_json(facts: FactTable) -> bytes:
    """A JSON object with one entry per line (small, and diffs stay readable): each fact's
    computation and runs, as `json.dumps(entry, ensure_ascii=False, separators=(",", ":"))`
    writes them; a run list many facts share is encoded once."""
    runs_text: dict[tuple[str, ...], str] = {}
    entries = []
    for key, p in sorted(facts.provenance.items()):
        runs = runs_text.get(p.runs)
        if runs is None:
            runs = runs_text[p.runs] = ",".join(map(_KEY, p.runs))
        entries.append(f'{_KEY(key)}:{{"computation":{_KEY(p.computation)},"runs":[{runs}]}}')
    return ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")
