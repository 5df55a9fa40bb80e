"""Whole-site tests: golden output, determinism, no-change skip, and bad input that
must fail the build with a located error while leaving the previous site intact."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build, load_stage
from builder.core.errors import InputError
from builder.site.write import STAMP
from tests.shared_builds import (  # noqa: F401 (re-exported: other tests import them from here)
    CONTENT, CREATED, REPO, SMALL_SPEC, cli, own_copy, small_build, tree, write_synthetic_model_pair)

GOLDEN = REPO / "tests" / "golden" / "site"
UNGOLDEN = (STAMP, "assets/vega-bundle.js")


def content_tree(root: Path) -> dict[str, bytes]:
    """The published files, less the build stamp (it hashes the code) and the vendored
    chart bundle (checked against its generator in test_chart_bundle_is_shipped)."""
    return {k: v for k, v in tree(root).items() if k not in UNGOLDEN}


def test_site_matches_golden(small_site):
    out = small_site
    built = content_tree(out)
    if os.environ.get("BUZZPROBE_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN, ignore=shutil.ignore_patterns(STAMP, "vega-bundle.js"))
    golden = tree(GOLDEN)
    assert sorted(built) == sorted(golden), "set of site files changed (BUZZPROBE_UPDATE_GOLDEN=1 to accept)"
    for name in golden:
        assert built[name] == golden[name], f"{name} differs from golden (BUZZPROBE_UPDATE_GOLDEN=1 to accept)"


def test_chart_bundle_is_shipped(small_site):
    """The site ships the bundle made for this vl-convert version (generation itself is
    tested in test_charts; here the build's content-hash cache must hand back the same bytes)."""
    from builder.pipeline import _cached_bundle
    from builder.site.chart_bundle import bundle_version
    out = small_site
    shipped = (out / "assets" / "vega-bundle.js").read_bytes()
    assert shipped.startswith(f"/*! buzzprobe charts: {bundle_version()}.".encode())
    assert shipped == _cached_bundle(Path(os.environ["BUZZPROBE_CACHE"]))


def test_build_is_deterministic(small_inputs, small_site, tmp_path):
    """A second build of the shared site's inputs, byte for byte (stamp included)."""
    small_build(small_inputs, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(small_site)


def test_no_change_rebuild_is_skipped_and_changes_are_seen(small_inputs, small_site, tmp_path):
    out = own_copy(small_site, tmp_path / "site")  # what a first build of these inputs left
    assert small_build(small_inputs, out).skipped
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "static" / "style.css").write_text("body { color: red; }\n")
    again = small_build(small_inputs, out, content=content)
    assert not again.skipped
    assert (out / "assets" / "style.css").read_text() == "body { color: red; }\n"


def test_facts_json_has_required_keys_on_a_scale_of_100(small_site):
    out = small_site
    facts = json.loads((out / "facts.json").read_text())
    assert facts["dataset.rows"] == 60 and facts["dataset.test"] == 12
    assert facts["dataset.harmful"] + facts["dataset.non_harmful"] == 60
    for key in ("leak.longest_chars.macro_f1.seed_1111", "leak.random.macro_f1.mean",
                "leak.gold_strictly_longest.share", "audit.distractor_is_other_gold.share",
                "harm.always_non_harmful.f1.non_harmful", "harm.always_non_harmful.f1.harmful"):
        assert 0 <= facts[key] <= 100, key
    assert facts["harm.always_non_harmful.f1.harmful"] == 0
    provenance = json.loads((out / "provenance.json").read_text())
    assert set(provenance) == set(facts)
    assert provenance["leak.longest_chars.macro_f1.mean"]["runs"] == [
        "probe-longest_chars-t2-s1111-all", "probe-longest_chars-t2-s2222-all"]


def test_pages_link_relatively_and_load_nothing_remote(small_site):
    out = small_site
    pages = list(out.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        html = page.read_text()
        assert not re.search(r'\bsrc="(https?:)?//', html), page.name
        assert not re.search(r'<link[^>]+href="(https?:)?//', html), page.name
        assert 'href="/' not in html and 'src="/' not in html, page.name
        external = re.findall(r'<a [^>]*href="https?://[^"]*"[^>]*>', html)
        assert all('rel="external"' in a for a in external), external


def test_render_failure_leaves_previous_site(small_inputs, small_site, tmp_path):
    out = own_copy(small_site, tmp_path / "site")
    before = tree(out)
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    page = content / "pages" / "dataset.md"
    lines = page.read_text().split("\n")
    lines.insert(9, 'Oops: {{ fact("no.such.fact") }}')  # becomes line 10 of the file
    page.write_text("\n".join(lines))
    with pytest.raises(InputError) as info:
        small_build(small_inputs, out, content=content)
    assert f"{page}:10" in str(info.value) and "no.such.fact" in str(info.value)
    assert tree(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


def test_write_failure_midway_leaves_previous_site(small_inputs, small_site, tmp_path, monkeypatch):
    import builder.site.write as write
    out = own_copy(small_site, tmp_path / "site")
    before = tree(out)
    calls = {"n": 0}
    real = write._write_file

    def flaky(root, name, data):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full (simulated)")
        real(root, name, data)

    monkeypatch.setattr(write, "_write_file", flaky)
    monkeypatch.setattr(write, "_link_unchanged", lambda *args: False)  # else unchanged files are only linked
    with pytest.raises(OSError, match="disk full"):
        small_build(small_inputs, out, force=True)
    assert tree(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


# --- bad input: refused by the load stage, with its location -------------------------


@pytest.fixture()
def inputs(tmp_path, synthetic_csv, every_run) -> Path:
    """A user's folder: the full-size synthetic CSV and two of its runs, for a test to break."""
    work = tmp_path / "work"
    (work / "runs").mkdir(parents=True)
    shutil.copy(synthetic_csv, work / "data.csv")
    for name in ("probe-longest_chars-t2-s1111-test.jsonl", "probe-always_non_harmful-t3-test.jsonl"):
        shutil.copy(every_run / name, work / "runs" / name)
    return work


def edit_csv(work: Path, transform) -> None:
    path = work / "data.csv"
    path.write_bytes(transform(path.read_bytes()))


def edit_run(work: Path, transform, name: str = "probe-longest_chars-t2-s1111-test.jsonl") -> None:
    path = work / "runs" / name
    path.write_bytes(transform(path.read_bytes()))


def _replace_line(data: bytes, index: int, new: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[index] = new
    return b"\n".join(lines)


def _item(data: bytes, index: int) -> dict:
    return json.loads(data.split(b"\n")[index])


def _with_item(data: bytes, index: int, **changes) -> bytes:
    item = _item(data, index)
    item.update(changes)
    return _replace_line(data, index, json.dumps(item).encode())


BAD_INPUTS = {
    "csv missing column": (
        lambda w: edit_csv(w, lambda b: b.replace(b",category_label", b",category", 1)),
        ["data.csv:1", "[category_label]", "missing"]),
    "csv wrong row count": (
        lambda w: edit_csv(w, lambda b: b"\r\n".join(b.split(b"\r\n")[:-3]) + b"\r\n"),
        ["data.csv", "expected 3001 data rows, found 2999"]),
    "csv unknown label": (
        lambda w: edit_csv(w, lambda b: b.replace(b",non-harmful,", b",kinda-harmful,", 1)),
        ["data.csv:", "[harmful_label]", "kinda-harmful"]),
    "csv not utf-8": (
        lambda w: edit_csv(w, lambda b: b.replace("合成解释5,".encode(), b"\xff\xfe,", 1)),
        ["data.csv:7", "not valid UTF-8"]),
    "run truncated last line": (
        lambda w: edit_run(w, lambda b: b[: b.rstrip(b"\n").rfind(b"\n") + 25]),
        ["probe-longest_chars-t2-s1111-test.jsonl:", "truncated"]),
    "run line not json": (
        lambda w: edit_run(w, lambda b: _replace_line(b, 5, b"{not json")),
        ["probe-longest_chars-t2-s1111-test.jsonl:6", "not valid JSON"]),
    "run unknown row_id": (
        lambda w: edit_run(w, lambda b: _with_item(b, 3, row_id=99999)),
        ["probe-longest_chars-t2-s1111-test.jsonl:4", "[row_id]", "unknown row_id 99999"]),
    "run duplicate row_id": (
        lambda w: edit_run(w, lambda b: _with_item(b, 4, row_id=_item(b, 3)["row_id"])),
        ["probe-longest_chars-t2-s1111-test.jsonl:5", "[row_id]", "first seen on line 4"]),
    "run header sha256": (
        lambda w: edit_run(w, lambda b: b.replace(b'"content_sha256":"', b'"content_sha256":"0', 1)),
        ["probe-longest_chars-t2-s1111-test.jsonl:1", "[dataset.content_sha256]"]),
    "run letter map": (
        lambda w: edit_run(w, lambda b: _with_item(b, 2, letter_map={"A": "correct", "B": "literal",
                                                                    "C": "cultural", "D": "pragmatic"}
                                                   if _item(b, 2)["letter_map"]["A"] != "correct" else
                                                   {"A": "literal", "B": "correct", "C": "cultural", "D": "pragmatic"})),
        ["probe-longest_chars-t2-s1111-test.jsonl:3", "[letter_map]", "official shuffle for seed 1111"]),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_refused_with_its_location(inputs, case):
    """The load stage, as the build runs it on the CSV the CLI would find (CIBUZZBENCH_CSV)."""
    breaker, expected = BAD_INPUTS[case]
    breaker(inputs)
    with pytest.raises(InputError) as info:
        load_stage(BuildConfig(inputs / "runs", CONTENT, inputs / "site", options=cibuzzbench_options(inputs / "data.csv")))
    for fragment in expected:
        assert fragment in str(info.value), f"{fragment!r} not in: {info.value}"


@pytest.mark.parametrize("case", ["csv not utf-8", "run line not json"])
def test_bad_input_fails_the_cli_build_with_location_and_keeps_site(project, case):
    """Through the real command line: exit 2, the located message and no traceback, and the
    previous site untouched (one dataset and one run case; the rest are the stage's)."""
    breaker, expected = BAD_INPUTS[case]
    before = tree(project / "site")
    breaker(project)
    result = cli(project, "build")
    assert result.returncode == 2, (result.stdout, result.stderr)
    for fragment in expected:
        assert fragment in result.stderr, f"{fragment!r} not in: {result.stderr}"
    assert "Traceback" not in result.stderr
    assert tree(project / "site") == before
    assert sorted(p.name for p in project.iterdir()) == ["data.csv", "runs", "site"]


def test_cli_reports_missing_dataset(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CIBUZZBENCH_CSV"}
    result = subprocess.run([sys.executable, "-m", "builder.cli", "build"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "make data" in result.stderr and "CIBUZZBENCH_CSV" in result.stderr


def test_tracker_status_follows_the_runs(small_inputs, tmp_path):
    """A prediction over the synthetic pair: its status and evidence come from the runs."""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "predictions.yaml").write_text("""
predictions:
  - id: demo-supported
    claim: The synthetic model's blind arm stays under 60 macro F1 and its gap exceeds 20 points.
    source: test
    registered: 2025-01-01
    deadline: 2030-01-01
    supported_when:
      - {measure: run_metric, params: {condition: blind, subject: synthetic, kind: model}, aggregate: max, op: "<", threshold: 60}
      - {measure: pair_metric, params: {subject: synthetic}, aggregate: min, op: ">", threshold: 20}
    refuted_when:
      - {measure: run_metric, params: {condition: blind, subject: synthetic, kind: model}, aggregate: any, op: ">=", threshold: 90}
  - id: demo-refuted
    claim: The synthetic model scores under 50 sighted.
    source: test
    registered: 2025-01-01
    deadline: 2030-01-01
    supported_when: []
    refuted_when:
      - {measure: run_metric, params: {condition: sighted, subject: synthetic}, aggregate: min, op: ">=", threshold: 50}
  - id: demo-expired
    claim: A gold-pool run will exist.
    source: test
    registered: 2025-01-01
    deadline: 2025-06-30
    supported_when:
      - {measure: run_metric, params: {variant: gold_pool}, aggregate: count, op: ">=", threshold: 1}
""")
    out = tmp_path / "site"
    small_build(small_inputs, out, content=content)
    html = (out / "tracker.html").read_text()
    sections = {pid: html.split(f'id="prediction-{pid}"')[1].split("</section>")[0]
                for pid in ("demo-supported", "demo-refuted", "demo-expired")}
    assert "badge-supported" in sections["demo-supported"]
    assert 'href="runs/synthetic-demo-t2-blind-s1111-all.html"' in sections["demo-supported"]
    assert "badge-refuted" in sections["demo-refuted"]
    assert "badge-expired" in sections["demo-expired"] and "no evidence yet" in sections["demo-expired"]


@pytest.mark.parametrize("keep", ["nothing", "one seed, all items only"])
def test_site_builds_with_few_or_no_runs(small_inputs, tmp_path, keep):
    """Pages must not assume which runs exist: every figure they quote is guarded."""
    csv_path, runs = small_inputs
    subset = tmp_path / "runs"
    subset.mkdir()
    if keep != "nothing":
        for path in (runs / "probes").glob("*-s1111-all.jsonl"):
            shutil.copy(path, subset / path.name)
    out = tmp_path / "site"
    build(BuildConfig(subset, CONTENT, out, options=cibuzzbench_options(csv_path, SMALL_SPEC)))
    assert (out / "article.html").exists() and (out / "tracker.html").exists()


def test_one_baselines_box_that_every_random_letter_mention_links_to(small_site):
    """The random letter has one home (metric × items × option seed) and the pages link to it."""
    import csv as csv_module
    out = small_site
    dataset = (out / "dataset.html").read_text(encoding="utf-8")
    assert 'id="baselines"' in dataset and 'id="baselines-box"' in dataset
    rows = list(csv_module.reader((out / "tables" / "baselines-box.csv").read_text(encoding="utf-8").splitlines()))
    assert rows[0][:4] == ["Baseline", "Task", "Items", "Option seed"]
    seeds = {(r[0], r[2], r[3]) for r in rows[1:]}
    for items in ("all items", "the test split"):
        assert ("Uniform random letter", items, "option order seed 1111") in seeds
        assert ("Uniform random letter", items, "mean over the 5 official option seeds") in seeds
    # The synthetic pair's two runs share their items and letter order, so they share one chance line.
    assert ("Uniform random letter, on the items of 2 model runs", "all items", "option order seed 1111") in seeds
    facts = json.loads((out / "facts.json").read_text())
    line = next(r for r in rows if r[0].startswith("Uniform random letter, on the items"))
    assert float(line[4]) == pytest.approx(facts["run.synthetic-demo-t2-blind-s1111-all.chance.accuracy"], abs=0.005)
    for page in ("article.html", "tracker.html", "faq.html"):
        assert 'href="dataset.html#baselines"' in (out / page).read_text(encoding="utf-8"), page
