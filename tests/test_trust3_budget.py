"""Trust round 3, class 3 (issue 34): one render budget per spec and per page, every template
operation that builds weighed, and the audit bounded at scale (docs/audit.md)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from builder.benchmarks.mcq import fields, load
from builder.benchmarks.mcq.fields import RecordProblem, compile_rule
from builder.core.errors import InputError
from tests.test_hardening import quick_build, refused, small  # noqa: F401 (a fixture)


def write_spec(folder: Path, template: str, records: int = 1000, key: str = "doc_to_text") -> Path:
    """A spec over `records` small records whose `key` is `template` (line 4 of the spec); its data
    is named by BUZZPROBE_DATA_BOMB (set by the autouse fixture), as a user's own copy would be."""
    with (folder / "data.jsonl").open("w", encoding="utf-8") as f:
        for i in range(records):
            f.write(json.dumps({"q": f"q{i}", "c": ["a", "b", "c", "d"], "a": 0}) + "\n")
    rules = {"doc_to_text": "q", "doc_to_choice": "c", "doc_to_target": "a"} | {key: template}
    spec = folder / "bomb.yaml"
    spec.write_text("name: bomb\ndataset_path: data.jsonl\nid: q\n"
                    + "".join(f"{k}: {json.dumps(v)}\n" for k, v in sorted(rules.items(), key=lambda kv: kv[0] != key)),
                    encoding="utf-8")
    return spec


@pytest.fixture(autouse=True)
def bomb_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUZZPROBE_DATA_BOMB", str(tmp_path / "data.jsonl"))


def load_refused(spec: Path) -> str:
    with pytest.raises(InputError) as caught:
        load.load_benchmark(spec)
    return str(caught.value)


# ------------------------------------------------------------------ one budget per spec, not per record

def test_time_is_one_budget_over_every_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each record's render is far under the budget; together they are not (per record, the old
    limit, 1,000 records of this would run for minutes)."""
    monkeypatch.setattr(fields, "SPEC_SECONDS", 0.5)
    monkeypatch.setattr(fields, "SECONDS_PER_RECORD", 0.0)
    slow = "{% for i in range(200) %}{% for j in range(1000) %}{% endfor %}{% endfor %}{{ q }}"
    start = time.monotonic()
    message = load_refused(write_spec(tmp_path, slow))
    assert time.monotonic() - start < 20
    assert "bomb.yaml:4 [doc_to_text]: rendering took longer than 0.5 s (the spec's templates in all" in message
    ran_out_at = int(message.split("ran out at record ")[1].split()[0])
    assert 1 < ran_out_at < 1000  # several records fit, then the shared budget is spent


def test_characters_made_are_one_budget_over_every_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fields, "SPEC_CHARS", 5_000_000)
    monkeypatch.setattr(fields, "CHARS_PER_DATA_BYTE", 0)
    message = load_refused(write_spec(tmp_path, "{{ q ~ 'x' * 900000 }}"))
    assert "bomb.yaml:4 [doc_to_text]: the spec's templates made more than 5,000,000 characters" in message
    assert "ran out at record 2 (data.jsonl:2) of 1,000" in message  # 2.7M a record: made, joined, output


def test_nested_loops_over_1000_records_stop_within_the_budget(tmp_path: Path) -> None:
    """The issue's case with the real budget: 5.5 hours before, seconds now."""
    loops = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{{ q }}"
    start = time.monotonic()
    message = load_refused(write_spec(tmp_path, loops))
    assert time.monotonic() - start < fields.SPEC_SECONDS + 1000 * fields.SECONDS_PER_RECORD + 15
    assert "bomb.yaml:4 [doc_to_text]" in message and "ran out at record 1 " in message


def test_a_legitimate_spec_renders_as_before(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "{{ 'Q: ' ~ q | upper }} {{ '{}/{}'.format(file_record, 2) }} {{ c | join('|') }}", 50)
    items = load.load_benchmark(spec).items
    assert items[3].stem == "Q: Q3 4/2 a|b|c|d"


# ------------------------------------------------------------------ every operation that builds is weighed

DOUBLINGS = "{% set ns = namespace(s=q) %}{% for i in range(28) %}{% set ns.s = ns.s OP ns.s %}{% endfor %}{{ ns.s }}"


@pytest.mark.parametrize("template, fragment", [
    (DOUBLINGS.replace("OP", "~"), "'~' would make"),
    (DOUBLINGS.replace("OP", "+"), "'+' would make"),
    ("{% set ns = namespace(s=[q]) %}{% for i in range(28) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}",
     "'+' would make"),
    ("{{ lipsum(100000) }}", "'lipsum' would make"),
    ("{{ lipsum(1000, false, 1, 100000) }}", "'lipsum' would make"),
    ("{{ ([q * 500000] * 1000) | join }}", "the 'join' filter would make"),
    ("{{ '-'.join([q * 500000] * 1000) }}", "'str.join' would make"),
    ("{{ (q * 400000) | replace('a', q * 1000) }}", "the 'replace' filter would make"),
    ("{{ (q * 400000).replace('a', 'xxxxxxxxxx') }}", "'str.replace' would make"),
    ("{{ ('{0}' * 300000).format(q * 100) }}", "'str.format' would make"),
    ("{{ ('%s' * 300000) | format(*([q * 100] * 300000)) }}", "the 'format' filter would make"),
    ("{{ ('%s' * 300000) % ((q * 100,) * 300000) }}", "'%' would make"),
    ("{{ ('a\\n' * 100000) | indent(q * 100) }}", "the 'indent' filter would make"),
    ("{{ (q * 500000) | wordwrap(1, wrapstring=q * 100) }}", "the 'wordwrap' filter would make"),
    ("{{ ('\\t' * 500000).expandtabs(100) }}", "'str.expandtabs' would make"),
    ("{{ q | batch(10 ** 9, 'x') | list }}", "'batch' asked for more"),
    ("{{ q.ljust(10 ** 9) }}", "'str.ljust' asked for more"),
    ("{{ '%*d' % (10 ** 9, 1) }}", "'%' asked for more"),
])
def test_every_operation_that_builds_is_weighed(template: str, fragment: str) -> None:
    with pytest.raises(RecordProblem, match=re.escape(fragment)):
        with fields.spec_budget(1, 0):
            compile_rule("doc_to_text", template).raw({"q": "ab"})


def test_a_block_capture_is_weighed_and_charged(monkeypatch: pytest.MonkeyPatch) -> None:
    """`{% set %}` capture joins its output out of the render's stream: it is counted too."""
    monkeypatch.setattr(fields, "SPEC_CHARS", 3_000_000)
    monkeypatch.setattr(fields, "CHARS_PER_DATA_BYTE", 0)
    capture = "{% for i in range(10) %}{% set x %}{{ q * 400000 }}{% endset %}{% endfor %}done"
    with pytest.raises(Exception, match="made more than 3,000,000 characters"):
        with fields.spec_budget(1, 0):
            compile_rule("doc_to_text", capture).raw({"q": "ab"})


def test_the_seven_line_spec_of_the_issue_is_refused_in_little_memory(tmp_path: Path) -> None:
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    message = load_refused(write_spec(tmp_path, DOUBLINGS.replace("OP", "~"), 20))
    assert "data.jsonl:1 [record 1, doc_to_text]: template failed: '~' would make" in message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB: was 4.4 GB


# ------------------------------------------------------------------ pages have one budget each too

@pytest.mark.parametrize("body, fragment", [
    (DOUBLINGS.replace("OP", "~").replace("q)", "'ab')"), "'~' would make"),
    ("{{ lipsum(100000) }}", "'lipsum' would make"),
    ("{% for i in range(100) %}{% set x = 'y' * 900000 ~ 'z' * 900000 %}{% endfor %}", "this page made more than 64,000,000"),
])
def test_a_page_is_weighed_the_same(small: Path, body: str, fragment: str) -> None:  # noqa: F811
    from tests.test_hardening import add_page
    add_page(small, "bomb", body)
    refused(quick_build(small), "bomb.md:8", fragment)


# ------------------------------------------------------------------ the audit at scale

def test_more_records_than_the_cap_are_refused_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load, "MAX_RECORDS", 5)
    spec = write_spec(tmp_path, "{{ no_such_field }}", 6)  # a template that would fail on every record
    message = load_refused(spec)
    assert "bomb.yaml:2 [dataset_path]: the data holds 6 records; buzzprobe audits at most 5" in message
    assert "no_such_field" not in message
    monkeypatch.setattr(load, "MAX_RECORDS", 6)
    assert "no_such_field" in load_refused(spec)


def test_cell_draws_match_the_index_bootstrap_in_distribution() -> None:
    """Above CELL_DRAWS_FROM items the bootstrap draws confusion counts: the same intervals as
    drawing items (to sampling noise), the pairing of two predictors kept."""
    from builder.stats import bootstrap
    rng = np.random.default_rng(1)
    n = bootstrap.CELL_DRAWS_FROM + 5000
    g = rng.integers(0, 4, n)
    a = np.where(rng.random(n) < 0.6, g, rng.integers(0, 5, n))
    b = np.where(rng.random(n) < 0.9, a, rng.integers(0, 5, n))  # mostly a's answers: pairing matters
    drawn_before = bootstrap._index_chunks.cache_info().misses
    cells = bootstrap._resampled(g, [a, b], 4, 2000, 7)
    assert bootstrap._index_chunks.cache_info().misses == drawn_before  # no index matrix was drawn
    bootstrap_items = _index_bootstrap(g, a, b)
    for i in range(2):
        for metric in bootstrap.METRICS:
            assert np.allclose(np.quantile(cells[i][metric], [0.025, 0.5, 0.975]),
                               np.quantile(bootstrap_items[i][metric], [0.025, 0.5, 0.975]), atol=0.12)
    diff_cells = np.quantile(cells[0]["accuracy"] - cells[1]["accuracy"], [0.025, 0.975])
    diff_items = np.quantile(bootstrap_items[0]["accuracy"] - bootstrap_items[1]["accuracy"], [0.025, 0.975])
    assert np.allclose(diff_cells, diff_items, atol=0.12)  # unpaired draws: about 1.64 wide, not 0.6


def _index_bootstrap(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[dict[str, np.ndarray]]:
    from builder.stats import bootstrap
    saved = bootstrap.CELL_DRAWS_FROM
    bootstrap.CELL_DRAWS_FROM = len(g) + 1
    try:
        return bootstrap._resampled(g, [a, b], 4, 2000, 7)
    finally:
        bootstrap.CELL_DRAWS_FROM = saved


def test_a_large_audit_samples_the_learned_probe_and_chunks_the_centroid(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    from builder.benchmarks.mcq.analyses import audit
    from builder.ranker import chunked
    from builder.ranker.evaluate import Options
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from mcq_synthetic import write
    data = load.load_benchmark(write(tmp_path, 600, cue_share=0.5))
    monkeypatch.setattr(audit, "LEARNED_ITEMS", 300)
    monkeypatch.setattr(chunked, "CHUNK_ITEMS", 70)
    result = audit.run_audit(data)
    assert result.learned_sample == 300 and result.items == 600
    assert result.probes["learned_options"].items == 300 and len(result.leak.ids) == 300
    assert set(result.leak.ids) < {i.id for i in data.items}
    assert result.as_json()["protocol"]["learned_sample"] == 300
    texts = [i.choices for i in data.items]
    whole = Options.build(texts, [i.gold for i in data.items]).feature("centroid")
    assert np.allclose(chunked.centroid_scores(texts, whole.shape[1]), whole)
    monkeypatch.setattr(audit, "LEARNED_ITEMS", 600)
    assert audit.run_audit(data).learned_sample == 0


def test_a_probe_renders_its_prompts_under_one_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sighted prompt of every item of a run shares one budget, located at the spec's key."""
    from builder.benchmarks.mcq.choice_set import choice_set
    from builder.benchmarks.mcq.probe import plan_spec_run
    from builder.probing.runner import ProbeSettings
    from builder.runs.selection import Selection
    spec = write_spec(tmp_path, "q", 40)
    # ~40 ms an item, 1.6 s for the 40: far past the 0.2 s budget on any machine, under any load
    slow = "{% for i in range(200) %}{% for j in range(3000) %}{% endfor %}{% endfor %}{{ options }}"
    spec.write_text(spec.read_text(encoding="utf-8") + f"sighted: {json.dumps(slow)}\n", encoding="utf-8")
    monkeypatch.setattr(fields, "SPEC_SECONDS", 0.2)
    monkeypatch.setattr(fields, "SECONDS_PER_RECORD", 0.0)
    data = choice_set(load.load_benchmark(spec))
    settings = ProbeSettings("m", "http://127.0.0.1:9", 0.0, None, 8, Selection("all"))
    plan = plan_spec_run(data, "sighted", settings, 1111, str(tmp_path / "runs" / "{run_id}.jsonl"))
    with pytest.raises(InputError) as caught:
        for row_id in plan.row_ids:
            plan.build(row_id)
    assert "bomb.yaml:7 [sighted]: sighted prompt of item q" in str(caught.value)
    assert "rendering took longer than 0.2 s (the spec's prompt templates in all" in str(caught.value)


@pytest.mark.parametrize("template, fragment", [
    ("{{ ('a\\n' * 400000) | indent(100) }}", "the 'indent' filter would make"),
    ("{{ (q.encode() * 10 ** 9) | length }}", "'*' would make"),
    ("{{ (q * 500000).encode().replace('a'.encode(), ('x' * 100).encode()) | length }}", "'str.replace' would make"),
    ("{{ (q * 500000).translate({97: 'x' * 1000}) }}", "'str.translate' would make"),
    ("{{ range(100000) | list | tojson(indent=1000000) }}", "asked for an indent of 1,000,000"),
    ("{{ ([[q]] * 1000000) | sum(start=[]) | length }}", "the 'sum' filter would"),

    ("{{ ([{'a': q * 500000}] * 1000) | join(attribute='a') }}", "the 'join' filter would make"),
])
def test_widths_and_attributes_are_weighed_too(template: str, fragment: str) -> None:
    with pytest.raises(RecordProblem, match=re.escape(fragment)):
        compile_rule("doc_to_text", template).raw({"q": "ab"})


def test_an_audit_out_of_memory_is_a_located_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """300,000 items under a 3.5 GB cap ended in numpy's ArrayMemoryError traceback."""
    from builder.benchmarks.mcq.analyses import audit
    from builder.cli import main

    def too_big(benchmark: object) -> None:
        np.empty(1 << 50, dtype=np.int64)  # numpy refuses it with its ArrayMemoryError
    monkeypatch.setattr(audit, "run_audit", too_big)
    spec = write_spec(tmp_path, "q", 20)
    assert main(["audit", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "bomb.yaml: the audit of 20 items ran out of memory" in err
