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

from builder.pipeline import BuildConfig, build
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec, load_dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
from builder.benchmarks.cibuzzbench.probes.heuristics import longest_chars
from builder.runs.schema import Footer, Header, Item
from builder.runs.writer import write_run
from builder.site.write import STAMP
from tests.synthetic import synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
GOLDEN = REPO / "tests" / "golden" / "site"
CREATED = "2026-01-01T00:00:00Z"
SMALL_SPEC = DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})
GOLDEN_SEEDS = ("s1111", "s2222")


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


UNGOLDEN = (STAMP, "assets/vega-bundle.js")


def content_tree(root: Path) -> dict[str, bytes]:
    """The published files, less the build stamp (it hashes the code) and the vendored
    chart bundle (checked against its generator in test_chart_bundle_is_shipped)."""
    return {k: v for k, v in tree(root).items() if k not in UNGOLDEN}


def write_synthetic_model_pair(dataset, folder: Path, seed: int = 1111, name: str = "synthetic-demo") -> None:
    """A SYNTHETIC blind/sighted pair (no model was run): sighted is right on most items,
    blind picks the longest option, so every paired view has something to show."""
    sets = option_sets(dataset, seed)
    ids = dataset.row_ids()
    for condition in ("blind", "sighted"):
        header = Header(
            run_id=f"{name}-t2-{condition}-s{seed}-all", benchmark="cibuzzbench", task="equivalent_selection",
            condition=condition, subject={"kind": "model", "name": name, "parameters": {"synthetic": True}},
            option_seed=seed, items={"selection": "all", "n": len(ids)},
            dataset={"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
            created=CREATED, tool={"name": "buzzprobe-tests", "version": "0"})
        items = []
        for row_id in ids:
            options = sets[row_id]
            if condition == "sighted":
                letter = options.gold_letter if row_id % 5 else longest_chars(options)
            else:
                letter = longest_chars(options) if row_id % 7 else ""
            items.append(Item(row_id=row_id, prediction=letter, response=f" {letter or '??'}",
                              letter_map=options.letter_map))
        write_run(folder / f"{header.run_id}.jsonl", header, items, Footer(len(items), CREATED, {}))


@pytest.fixture(scope="module")
def small_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A 60-row synthetic dataset and a subset of its probe runs (seeds 1111, 2222)."""
    root = tmp_path_factory.mktemp("small")
    csv_path = write_synthetic_csv(root / "small.csv", synthetic_rows(n=60, test=12, seed=3))
    every = root / "every"
    generate_probe_runs(load_dataset(csv_path, SMALL_SPEC), every, CREATED)
    runs = root / "runs" / "probes"
    runs.mkdir(parents=True)
    for path in every.glob("*.jsonl"):
        if "-t3-" in path.name or any(f"-{s}-" in path.name for s in GOLDEN_SEEDS):
            shutil.copy(path, runs / path.name)
    write_synthetic_model_pair(load_dataset(csv_path, SMALL_SPEC), root / "runs" / "synthetic")
    return csv_path, root / "runs"


def small_build(small_inputs: tuple[Path, Path], out: Path, **kwargs) -> object:
    csv_path, runs = small_inputs
    return build(BuildConfig(csv_path, runs, kwargs.pop("content", CONTENT), out, spec=SMALL_SPEC, **kwargs))


def test_site_matches_golden(small_inputs, tmp_path):
    out = tmp_path / "site"
    small_build(small_inputs, out)
    built = content_tree(out)
    if os.environ.get("BUZZPROBE_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN, ignore=shutil.ignore_patterns(STAMP, "vega-bundle.js"))
    golden = tree(GOLDEN)
    assert sorted(built) == sorted(golden), "set of site files changed (BUZZPROBE_UPDATE_GOLDEN=1 to accept)"
    for name in golden:
        assert built[name] == golden[name], f"{name} differs from golden (BUZZPROBE_UPDATE_GOLDEN=1 to accept)"


def test_chart_bundle_is_shipped(small_inputs, tmp_path):
    """The site ships the bundle made for this vl-convert version (generation itself is
    tested in test_charts; here the build's content-hash cache must hand back the same bytes)."""
    from builder.pipeline import _cached_bundle
    from builder.site.chart_bundle import bundle_version
    out = tmp_path / "site"
    small_build(small_inputs, out)
    shipped = (out / "assets" / "vega-bundle.js").read_bytes()
    assert shipped.startswith(f"/*! buzzprobe charts: {bundle_version()}.".encode())
    assert shipped == _cached_bundle(Path(os.environ["BUZZPROBE_CACHE"]))


def test_build_is_deterministic(small_inputs, tmp_path):
    small_build(small_inputs, tmp_path / "a")
    small_build(small_inputs, tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_no_change_rebuild_is_skipped_and_changes_are_seen(small_inputs, tmp_path):
    out = tmp_path / "site"
    first = small_build(small_inputs, out)
    assert not first.skipped
    assert small_build(small_inputs, out).skipped
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "static" / "style.css").write_text("body { color: red; }\n")
    again = small_build(small_inputs, out, content=content)
    assert not again.skipped
    assert (out / "assets" / "style.css").read_text() == "body { color: red; }\n"


def test_facts_json_has_required_keys_on_a_scale_of_100(small_inputs, tmp_path):
    out = tmp_path / "site"
    small_build(small_inputs, out)
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


def test_pages_link_relatively_and_load_nothing_remote(small_inputs, tmp_path):
    out = tmp_path / "site"
    small_build(small_inputs, out)
    pages = list(out.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        html = page.read_text()
        assert not re.search(r'\bsrc="(https?:)?//', html), page.name
        assert not re.search(r'<link[^>]+href="(https?:)?//', html), page.name
        assert 'href="/' not in html and 'src="/' not in html, page.name
        external = re.findall(r'<a [^>]*href="https?://[^"]*"[^>]*>', html)
        assert all('rel="external"' in a for a in external), external


def test_render_failure_leaves_previous_site(small_inputs, tmp_path):
    out = tmp_path / "site"
    small_build(small_inputs, out)
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


def test_write_failure_midway_leaves_previous_site(small_inputs, tmp_path, monkeypatch):
    import builder.site.write as write
    out = tmp_path / "site"
    small_build(small_inputs, out)
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


# --- bad input through the real command line -------------------------------------------


@pytest.fixture(scope="module")
def every_run(tmp_path_factory, synthetic_dataset) -> Path:
    every = tmp_path_factory.mktemp("every")
    generate_probe_runs(synthetic_dataset, every, CREATED)
    return every


@pytest.fixture(scope="module")
def built_project(tmp_path_factory, synthetic_csv, every_run) -> Path:
    """A working folder with a full-size synthetic CSV, a few runs and a site built by the CLI."""
    work = tmp_path_factory.mktemp("project") / "work"
    work.mkdir()
    shutil.copy(synthetic_csv, work / "data.csv")
    (work / "runs").mkdir()
    for name in ("probe-longest_chars-t2-s1111-test.jsonl", "probe-always_non_harmful-t3-test.jsonl"):
        shutil.copy(every_run / name, work / "runs" / name)
    result = cli(work, "build")
    assert result.returncode == 0, result.stderr
    return work


@pytest.fixture()
def project(tmp_path, built_project) -> Path:
    """A private copy of the built project, for a test to break."""
    work = tmp_path / "work"
    shutil.copytree(built_project, work, symlinks=True)
    return work


def cli(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CIBUZZBENCH_CSV": str(work / "data.csv")}
    return subprocess.run([sys.executable, "-m", "builder.cli", *args, "--content", str(CONTENT)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)


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
def test_bad_input_fails_with_location_and_keeps_site(project, case):
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
    build(BuildConfig(csv_path, subset, CONTENT, out, spec=SMALL_SPEC))
    assert (out / "article.html").exists() and (out / "tracker.html").exists()


def test_one_baselines_box_that_every_random_letter_mention_links_to(small_inputs, tmp_path):
    """The random letter has one home (metric × items × option seed) and the pages link to it."""
    import csv as csv_module
    out = tmp_path / "site"
    small_build(small_inputs, out, charts=False)
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
