"""facts.json and provenance.json are written without the json module's encoder (for speed at
1,000 runs); they must stay exactly what `json.dumps` writes."""

from __future__ import annotations

import json
import random

from builder.core.facts import FactTable
from builder.site.data_files import facts_json, provenance_json


def _table() -> FactTable:
    rng = random.Random(7)
    facts = FactTable()
    runs = [f"run-{i}-模型-\"q\"\\" for i in range(5)]
    values = [0, -0.0, 1e-300, 1e300, 12345678901234567890, -3, 0.1 + 0.2, 2.5, float(10**16)]
    for i in range(400):
        key = rng.choice(["a.", "é.", "k\u2028.", "q\".", "z\t."]) + str(i)
        facts.add(key, rng.choice(values) if i % 3 else rng.uniform(-100, 100),
                  rng.choice(["mean, over seeds: \"x\"", "模型 ≤ 5%", ""]), tuple(rng.sample(runs, rng.randint(0, 3))))
    return facts


def test_facts_json_is_what_json_dumps_writes():
    facts = _table()
    expected = json.dumps(facts.as_json(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    assert facts_json(facts) == expected.encode("utf-8")
    assert facts_json(FactTable()) == (json.dumps({}, indent=1) + "\n").encode()


def test_provenance_json_is_one_compact_entry_per_line():
    facts = _table()
    entries = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
               for k, v in facts.provenance_json().items()]
    assert provenance_json(facts) == ("{\n" + ",\n".join(entries) + "\n}\n").encode("utf-8")
    assert json.loads(provenance_json(facts)) == facts.provenance_json()
