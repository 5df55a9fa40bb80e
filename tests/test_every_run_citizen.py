"""Every run of every benchmark is a full citizen of the site (issue 35 items 3-5, issue 33 item 2):
its own page with provenance, scores, leak split and a paged item browser (no dataset text), a
row in runs.html and on the models page, per-item CSV and JSONL downloads listed on
downloads.html, and What's new under its source's date. Browser-free: the built files are read.

The synthetic tests use tests/test_mcq_probe.py's SYNTHETIC benchmark (placeholders, no real
items); the last test builds the real site from the committed runs when the data is available."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.mcq.probe import check_spec_place
from builder.cli import main
from builder.core.errors import InputError
from builder.runs.files import run_files
from builder.site.model_names import RULE, is_human_group, model_key
from builder.site.run_catalogue import coverage_label
from tests.loopback_server import LoopbackServer
from tests.shared_builds import raw_header
from tests.test_mcq_probe import ITEMS, KEY_ENV, NAME, answer, build_site, probe, project  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
PAGE_LIMIT = 300_000


def test_model_key_joins_the_spellings_the_rule_names_and_keeps_others_apart() -> None:
    same = [("gpt-4", "GPT4"), ("Meta-Llama-3_1-70B-Instruct", "llama3.1-70b-instruct"),
            ("Llama-2-7b-hf", "llama-2-7b"), ("org/Mistral-7B-v0.1", "mistral-7b-v0_1")]
    for a, b in same:
        assert model_key(a) == model_key(b), (a, b)
    apart = [("gpt-4", "gpt-4o"), ("GPT-3.5-turbo-0613", "gpt-3.5-turbo"), ("llama-2-7b", "llama-2-7b-chat")]
    for a, b in apart:
        assert model_key(a) != model_key(b), (a, b)
    assert is_human_group("humans") and not is_human_group("o1")
    assert "humans" in RULE and "-hf" in RULE  # the page states the rule it applies


def test_every_plugin_that_reads_runs_supplies_their_rows() -> None:
    """The contract's hook: a plug-in with a run format lists its runs for the shared pages."""
    from builder.benchmarks import registered
    from builder.benchmarks.base import Benchmark
    readers = [b for b in registered() if b.run_format_module is not None]
    assert readers and all(type(b).run_rows is not Benchmark.run_rows for b in readers)


def test_a_finished_run_of_part_of_the_items_is_partial_not_in_progress() -> None:
    assert coverage_label(167, 2150, finished=True) == "partial (167 of 2,150 items)"
    assert coverage_label(10, 30, finished=False) == "in progress (10 of 30 items)"
    assert coverage_label(30, 30, finished=True) == "complete"


def test_a_spec_outside_content_may_not_write_into_runs(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.chdir(project)
    shipped = project / "content" / "benchmarks" / f"{NAME}.yaml"
    outside = project / "mine.yaml"
    shutil.copy(shipped, outside)
    check_spec_place(outside, NAME, "runs/{model_slug}/{run_id}.jsonl")  # the same bytes as the shipped spec
    outside.write_text(shipped.read_text() + "# edited\n")
    with pytest.raises(InputError) as caught:
        check_spec_place(outside, NAME, "runs/{model_slug}/{run_id}.jsonl")
    message = str(caught.value)
    assert f"content/benchmarks/{NAME}.yaml" in message and f"--benchmark {NAME}" in message and "--out" in message
    check_spec_place(outside, NAME, "elsewhere/{run_id}.jsonl")  # written where the build does not look
    shipped.unlink()
    with pytest.raises(InputError, match="Add the spec"):
        check_spec_place(outside, NAME, "runs/{run_id}.jsonl")


def _as_partial_import(run: Path, keep: int) -> Path:
    """A probed run rewritten as an import of a file in which people (a human study's pooled
    answers, subject `humans`) answered `keep` items (no footer)."""
    lines = run.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["run_id"] = "imported-part"
    header["subject"] = {"kind": "model", "name": "humans", "parameters": {"protocol": "import-mapped"}}
    header["source"] = {"kind": "import", "format": "mapped", "option_order": "published",
                        "repo": "https://github.com/example/upstream", "commit": "a" * 40, "date": "2020-02-03",
                        "file": "results/part.json", "sha256": "b" * 64}
    header["items"] = {"selection": "all", "n": ITEMS}
    items = [line for line in lines[1:] if json.loads(line)["type"] == "item"][:keep]
    path = run.parent.parent / "imported" / "imported-part.jsonl"
    path.parent.mkdir()
    path.write_text("".join(line + "\n" for line in [json.dumps(header), *items]), encoding="utf-8")
    return path


@pytest.fixture
def site(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """Two option seeds of each arm, and a partial import, built into a site."""
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(answer) as server:
        for condition in ("sighted", "blind"):
            assert probe(project, server, "--benchmark", NAME, "--condition", condition, "--seeds", "1111", "2222") == 0
    sighted = sorted((project / "runs" / "loop-model").glob("*sighted*s1111*.jsonl"))[0]
    _as_partial_import(sighted, 20)
    return build_site(project)


def _run_ids(runs: Path) -> list[str]:
    return sorted(json.loads(p.read_text(encoding="utf-8").splitlines()[0])["run_id"] for p in run_files(runs))


def test_every_spec_run_has_a_page_a_row_and_downloads_without_item_text(project: Path, site: Path) -> None:  # noqa: F811
    ids = _run_ids(project / "runs")
    assert len(ids) == 5
    runs_page = (site / "runs.html").read_text(encoding="utf-8")
    for rid in ids:
        page = (site / "runs" / f"{rid}.html").read_text(encoding="utf-8")
        assert f'href="runs/{rid}.html"' in runs_page
        assert 'id="items"' in page and "Synthetic question" not in page  # ids and letters, never the text
        rows = (site / "downloads" / "runs" / f"{rid}.csv").read_text(encoding="utf-8").splitlines()
        assert rows[0] == "item_id,gold,answer,correct,leak_score" and len(rows) > 1
        first = json.loads((site / "downloads" / "runs" / f"{rid}.jsonl").read_text(encoding="utf-8").splitlines()[0])
        assert set(first) == {"item_id", "gold", "answer", "correct", "leak_score"}
        assert "Synthetic question" not in (site / "downloads" / "runs" / f"{rid}.jsonl").read_text(encoding="utf-8")
    assert runs_page.count("Synthetic probe benchmark") >= len(ids)  # each row names its benchmark (the filter)
    downloads = (site / "downloads.html").read_text(encoding="utf-8")
    assert f"leak/{NAME}.csv" in downloads and all(f"downloads/runs/{rid}.jsonl" in downloads for rid in ids)
    models = (site / "models.html").read_text(encoding="utf-8")
    assert "loop-model" in models and "Which names are one model" in models


def test_a_site_built_by_worker_processes_equals_one_built_in_one(project: Path, site: Path,  # noqa: F811
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the runs, their summaries and the catalogue's item files in forked workers
    (builder.core.workers) changes no byte of the site. Builds in the suite's xdist workers run
    serially (conftest), so this is where the forked paths meet a whole site."""
    from builder.core import workers
    from tests.shared_builds import tree
    pools: list[int] = []
    real_pool = workers.new_pool

    def counted(count: int, context: object = None) -> object:
        pools.append(count)
        return real_pool(count, context)

    monkeypatch.setattr(workers, "new_pool", counted)
    built = {}
    for count in ("0", "2"):
        monkeypatch.setenv(workers.WORKERS_ENV, count)
        shutil.rmtree(project / "cache")  # a cold build: every run read, summarised and paged anew
        built[count] = tree(build_site(project))
        assert len(pools) == (0 if count == "0" else 3), pools  # runs, summaries, item files
    assert built["0"] == built["2"]


def test_a_partial_import_shows_its_provenance_and_is_dated_by_its_source(site: Path) -> None:
    page = (site / "runs" / "imported-part.html").read_text(encoding="utf-8")
    assert "partial (20 of 30 items)" in page and "in progress" not in page and "people <strong>humans" in page
    assert "https://github.com/example/upstream/tree/" + "a" * 40 in page and "results/part.json" in page
    assert "partial (20 of 30 items)" in (site / "runs.html").read_text(encoding="utf-8")
    news = (site / "changelog.html").read_text(encoding="utf-8")
    day = news.split('id="added-2020-02-03"')[1].split("<h2")[0]
    assert 'href="runs/imported-part.html"' in day and "partial (20 of 30 items)" in day


def test_people_are_listed_and_counted_apart_from_the_models(site: Path) -> None:
    """The two sighted model runs are "the 2 models"; the people's run is not among them."""
    models = (site / "models.html").read_text(encoding="utf-8")
    people = models.split('id="people-across"')[1].split("</figure>")[0]
    assert "imported-part" in people and "imported-part" not in models.split('id="people-across"')[0]
    page = (site / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    prose = re.sub(r"<[^>]+>", "", page)
    assert "of the 2 models" in prose and "of the 3 models" not in prose
    assert "Counted apart from the models, not among them: humans (people, 20 items answered)" in prose


def _real_data() -> None:
    """The committed runs need every benchmark's data (the shared copies, named as .ci/run names them)."""
    import os
    missing = [v for v in ("CIBUZZBENCH_CSV", "BUZZPROBE_DATA_MMLU_PRO", "BUZZPROBE_DATA_MMLU", "BUZZPROBE_DATA_CMMLU",
                           "BUZZPROBE_DATA_TRUTHFULQA_MC", "BUZZPROBE_DATA_CHEMBENCH", "BUZZPROBE_DATA_LAWBENCH")
               if not os.environ.get(v)]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must set {', '.join(missing)}: the committed runs need their data")
        pytest.skip(f"real data not named ({', '.join(missing)})")


def test_every_committed_run_has_a_page_and_a_row_and_no_page_is_over_300_kb(request: pytest.FixtureRequest) -> None:
    """The real site from runs/, the shipped specs included (conftest.shipped_site): every run
    once, each page under 300 KB (long tables and item browsers paged)."""
    _real_data()
    out = request.getfixturevalue("shipped_site")  # built after the check: it needs the same data
    listed = "".join(p.read_text(encoding="utf-8") for p in out.glob("runs*.html"))  # runs.html and its parts
    for path in run_files(REPO / "runs"):
        rid = raw_header(path)["run_id"]
        assert (out / "runs" / f"{rid}.html").is_file(), rid
        assert re.search(rf'href="runs/{re.escape(rid)}\.html"', listed), f"{rid} has no row in runs.html"
    sizes = {str(p.relative_to(out)): p.stat().st_size for p in out.rglob("*.html")}
    assert max(sizes.values()) <= PAGE_LIMIT, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
