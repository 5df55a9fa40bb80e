"""The shelf: the committed specs of real benchmarks (content/benchmarks/), their data fetch
and the located error when a copy is missing. Real-data tests read the shared copies
(`../shared/data/<name>`, or BUZZPROBE_DATA_<NAME>) and fail rather than skip in CI."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from builder.benchmarks.mcq.fetch import fetch_spec, fetch_specs
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mcq.loading import load_specs
from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import DownloadError, InputError
from tests.shared_builds import shared_copy, unpacked_copy  # noqa: F401 (other tests import them from here)
from tests.test_fetch import Server, ok

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "content" / "benchmarks"


def shipped(name: str, monkeypatch: pytest.MonkeyPatch, folder: str | None = None):
    """The committed spec of `name`, reading the shared copy (`../shared/data/<folder>`)."""
    variable = load_spec(SPECS / f"{name}.yaml", root=REPO, environ={}).env_var
    monkeypatch.setenv(variable, str(shared_copy(folder or name, variable)))
    return load_benchmark(SPECS / f"{name}.yaml", root=REPO)


# ------------------------------------------------------------------ fetch (loopback HTTP)

@pytest.fixture
def server():
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


BODY = b'{"q": "synthetic question", "choices": ["a", "bb", "ccc"], "answer": 1}\n' * 6


def pinned_spec(tmp_path: Path, url: str, digest: str) -> Path:
    spec = tmp_path / "pinned.yaml"
    spec.write_text(f"name: pinned\ndata_dir: {tmp_path / 'data'}\ndataset_path: sub/items.jsonl\n"
                    f"download:\n  url: '{url}'\n  files:\n    sub/items.jsonl: '{digest}'\n"
                    "doc_to_text: q\ndoc_to_choice: choices\ndoc_to_target: answer\n", encoding="utf-8")
    return spec


def test_fetch_downloads_the_pinned_file_and_keeps_a_verified_copy(server: Server, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUZZPROBE_DATA_PINNED", raising=False)
    server.script("/up/items.jsonl", ok(BODY))
    spec = load_spec(pinned_spec(tmp_path, server.url("/up/{name}"), hashlib.sha256(BODY).hexdigest()))
    logs: list[str] = []
    assert fetch_spec(spec, logs.append) == [tmp_path / "data" / "sub" / "items.jsonl"]
    assert (tmp_path / "data" / "sub" / "items.jsonl").read_bytes() == BODY
    fetch_spec(spec, logs.append)  # present with the pinned sha256: not downloaded again
    assert server.hits == ["/up/items.jsonl"]
    assert len(load_benchmark(spec.path).items) == 6


def test_fetch_refuses_a_file_whose_sha256_differs(server: Server, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUZZPROBE_DATA_PINNED", raising=False)
    server.script("/up/sub/items.jsonl", ok(BODY))
    spec = load_spec(pinned_spec(tmp_path, server.url("/up/{path}"), "0" * 64))
    with pytest.raises(DownloadError, match="differs from the pinned 0000"):
        fetch_spec(spec, lambda _: None)
    assert not (tmp_path / "data" / "sub" / "items.jsonl").exists()


def test_a_local_copy_is_used_without_download_and_a_missing_one_is_located(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://example.invalid/pinned/{path}"
    content = tmp_path / "content" / "benchmarks"
    content.mkdir(parents=True)
    pinned_spec(content, url, hashlib.sha256(BODY).hexdigest()).rename(content / "pinned.yaml")
    monkeypatch.delenv("BUZZPROBE_DATA_PINNED", raising=False)
    with pytest.raises(InputError) as caught:
        load_specs(tmp_path / "content", tmp_path / "cache", [])
    text = str(caught.value)
    assert f"{content / 'pinned.yaml'}:3 [dataset_path]: the data file of 'pinned' is missing: " \
           f"{content / 'data' / 'sub' / 'items.jsonl'}" in text
    assert "BUZZPROBE_DATA_PINNED" in text and "upstream: https://example.invalid/pinned/sub/items.jsonl" in text
    copy = tmp_path / "copy" / "sub"
    copy.mkdir(parents=True)
    (copy / "items.jsonl").write_bytes(BODY)
    monkeypatch.setenv("BUZZPROBE_DATA_PINNED", str(tmp_path / "copy"))
    assert fetch_specs(tmp_path / "content", ["pinned"], lambda _: None) == [copy / "items.jsonl"]
    with pytest.raises(InputError, match="no spec named nope"):
        fetch_specs(tmp_path / "content", ["nope"], lambda _: None)


def test_every_shipped_spec_pins_its_files_and_names_its_revision_source() -> None:
    for path in sorted(SPECS.glob("*.yaml")):
        spec = load_spec(path, root=REPO, environ={})
        assert spec.location.download is not None or spec.location.env_var == "CIBUZZBENCH_CSV", path
        if spec.location.download is not None:
            assert "/{path}" in spec.location.download.url or "/{name}" in spec.location.download.url
            assert spec.location.root.parent == REPO / "data"  # data/ is git-ignored
            page, commit = spec.location.download.source()
            assert commit is not None and page.endswith(f"/tree/{commit}") and commit in spec.location.download.url


def test_skipped_benchmarks_are_left_out_of_the_build_list(tmp_path: Path) -> None:
    from builder.benchmarks.mcq.spec import spec_files
    (tmp_path / "benchmarks").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "benchmarks" / f"{name}.yaml").write_text("name: x\n", encoding="utf-8")
    assert [p.stem for p in spec_files(tmp_path, environ={})] == ["a", "b", "c"]
    assert [p.stem for p in spec_files(tmp_path, environ={"BUZZPROBE_SKIP_BENCHMARKS": "a, c"})] == ["b"]


# ------------------------------------------------------------------ MMLU-Pro (real data)

def test_mmlu_pro_reads_the_reference_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    """The jamba-1.5-large file: complete (12,032) in the newest revision of the 29 (the
    2024-09-06 corrections), 3-10 options, its bytes the pinned ones."""
    bench = shipped("mmlu-pro", monkeypatch)
    (relative, digest), = bench.spec.location.download.files
    assert hashlib.sha256(bench.data.path.read_bytes()).hexdigest() == digest
    assert len(bench.items) == 12_032 and len({i.id for i in bench.items}) == 12_032
    counts = sorted({len(i.choices) for i in bench.items})
    assert (counts[0], counts[-1]) == (3, 10)
    assert len({i.category for i in bench.items}) == 14
    assert bench.spec.revision and "2024-09-06" in bench.spec.revision
    manifest = (shared_copy("mmlu-pro", "BUZZPROBE_DATA_MMLU_PRO") / "MANIFEST.tsv").read_text(encoding="utf-8")
    assert f"{Path(relative).name}\t{digest}" in manifest


# ------------------------------------------------------------------ MMLU, CMMLU, TruthfulQA MC1 (real data)

@pytest.mark.parametrize("name, folder, items, subjects", [("mmlu", "mmlu", 14_042, 57), ("cmmlu", "cmmlu", 11_582, 67)])
def test_subject_files_load_whole_with_the_subject_from_the_file_name(name: str, folder: str, items: int,
                                                                      subjects: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    bench = shipped(name, monkeypatch, folder)
    assert len(bench.items) == items and len(bench.data.paths) == subjects
    assert len({i.category for i in bench.items}) == subjects
    assert {len(i.choices) for i in bench.items} == {4}
    pinned = dict(bench.spec.location.download.files)
    assert len(pinned) == subjects
    sums = dict(line.split()[::-1] for line in (shared_copy(folder, bench.spec.env_var) / "SHA256SUMS")
                .read_text(encoding="utf-8").splitlines())
    assert all(sums[path] == digest for path, digest in pinned.items())
    first = bench.items[0]
    assert first.id == f"{first.category}-1" and first.file.name.startswith(first.category)


def test_truthfulqa_mc1_keeps_every_item_with_2_to_13_options(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = shipped("truthfulqa-mc1", monkeypatch, "truthfulqa-mc")
    counts = {len(i.choices) for i in bench.items}
    assert len(bench.items) == 817 and (min(counts), max(counts)) == (2, 13)
    assert all(i.gold == 0 for i in bench.items)  # the file lists the true answer first (README)


# ------------------------------------------------------------------ the index (synthetic fixtures)

def test_the_index_sorts_by_gain_and_words_its_prose_by_the_numbers(tmp_path: Path) -> None:
    from builder.benchmarks.mcq.analyses.index import NO_CUE, RULES, compute_index
    from builder.ranker.cues import GROUPS
    from builder.benchmarks.mcq.analyses.compute import compute_spec
    from builder.core.facts import FactTable
    fixtures = REPO / "tests" / "fixtures" / "mcq"
    folder = tmp_path / "content" / "benchmarks"
    folder.mkdir(parents=True)
    for name in ("list_options", "columns", "nested"):
        text = (fixtures / f"{name}.yaml").read_text(encoding="utf-8").replace("dataset_path: tests/",
                                                                                 f"dataset_path: {REPO}/tests/")
        bench = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("name:"))
        (folder / f"{bench}.yaml").write_text(text, encoding="utf-8")
    facts = FactTable()
    specs = [compute_spec(one, facts) for one in load_specs(tmp_path / "content", tmp_path / "cache", [])]
    index = compute_index(specs, facts, "benchmarks")
    gains = [facts[f"mcq.{r.name}.index.learned.gain"] for r in index.rows]
    assert gains == sorted(gains, reverse=True) and len(index.rows) == 3
    nested = next(r for r in index.rows if r.name == "synthetic-nested")
    assert nested.options == "3–4" and nested.href == "benchmarks/synthetic-nested.html"
    audit = next(s for s in specs if s.name == "synthetic-nested").loaded.audit
    assert facts["mcq.synthetic-nested.index.learned_chance"] == pytest.approx(audit.learned_chance)
    for r in index.rows:
        rule = facts[f"mcq.{r.name}.audit.shuffled.{r.rule}.accuracy"]
        assert rule == max(facts[f"mcq.{r.name}.audit.shuffled.{p}.accuracy"] for p in RULES)
        assert r.cue in (*GROUPS, NO_CUE)
    above = sum(facts[f"mcq.{r.name}.index.learned.gain.ci95_low"] > 0 for r in index.rows)
    assert facts["mcq.index.above_chance"] == above
    assert index.prose["above"] == ("all" if above == 3 else "none" if above == 0 else "some")
    assert index.prose["top"] is index.rows[0] and index.prose["bottom"] is index.rows[-1]
    wins = [r.name for r in index.rows if facts[f"mcq.{r.name}.index.rule.gain"] >
            facts[f"mcq.{r.name}.index.learned.gain"]]
    assert [r.name for r in index.prose["rule_wins"]] == wins and facts["mcq.index.rule_wins"] == len(wins)


# ------------------------------------------------------------------ the shipped site (real data)

def test_the_site_indexes_every_shipped_benchmark(shipped_site: Path) -> None:
    """What `make site` builds (conftest.shipped_site): the committed content and runs (the 29
    imported MMLU-Pro runs among them) with every shipped spec reading its shared copy: one index
    row per spec, each linked to its page, sorted by the learned probe's gain, and the MMLU-Pro
    page's leak split for every imported model."""
    out = shipped_site
    names = sorted(p.stem for p in SPECS.glob("*.yaml"))
    imported = sorted((REPO / "runs" / "mmlu-pro").glob("*.jsonl.gz"))
    split = (out / "tables" / "mcq-mmlu-pro-leak-split.csv").read_text(encoding="utf-8").splitlines()
    assert len(imported) == 29 and len(split) == 1 + len(imported)  # every imported model, split by leak
    assert split[0].startswith("model,items,coverage,accuracy_strict,accuracy_official,solvable_items")
    facts = json.loads((out / "facts.json").read_text(encoding="utf-8"))
    index = (out / "benchmarks.html").read_text(encoding="utf-8")
    assert facts["mcq.index.benchmarks"] == len(names) == 7
    table = index[index.index('id="mcq-index"'):]  # the prose above links the first and the last too
    positions = [table.index(f'href="benchmarks/{name}.html"') for name in names]
    order = [n for _, n in sorted(zip(positions, names))]
    gains = [facts[f"mcq.{n}.index.learned.gain"] for n in order]
    assert gains == sorted(gains, reverse=True)
    assert all((out / "benchmarks" / f"{n}.html").is_file() for n in names)
    assert facts["mcq.mmlu-pro.chance"] == pytest.approx(facts["mcq.mmlu-pro.index.learned_chance"], abs=0.1)
    assert "mcq.mmlu-pro.audit.shuffled.random.macro_f1" not in facts  # k varies: accuracy only
    assert "mcq.mmlu.audit.shuffled.random.macro_f1" in facts
    assert "TIGER-AI-Lab/MMLU-Pro at commit f418b116db00" in index  # the footer names each pinned source
    heavy = {p.relative_to(out).as_posix(): p.stat().st_size for p in out.rglob("*.html") if p.stat().st_size > 300_000}
    assert heavy == {}  # every page <= 300 KB (issue 24), the MMLU-Pro page's 29 models included
    _check_frontier_facts(facts, [p.name.removesuffix(".jsonl.gz") for p in imported],
                          (out / "benchmarks" / "mmlu-pro.html").read_text(encoding="utf-8"))
    _check_adjusted_split(facts, [p.name.removesuffix(".jsonl.gz") for p in imported], out)


def _check_adjusted_split(facts: dict[str, float], run_ids: list[str], out: Path) -> None:
    """Every MMLU-Pro model's adjusted gap is the Mantel–Haenszel pool of its rows in the strata
    download (category x source, a row per stratum), and the page's first sentence reads it."""
    import csv
    rows: dict[str, list[dict[str, str]]] = {}
    with open(out / "leak" / "mmlu-pro-strata.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            rows.setdefault(row["run"], []).append(row)
    assert sorted(rows) == sorted(run_ids)
    sources = {r["stratum"].rsplit(" / ", 1)[1] for rs in rows.values() for r in rs}
    assert sources == {"ori_mmlu", "stemez", "theoremQA", "scibench"}
    for rid in run_ids:
        pooled = [(float(r["weight"]), float(r["gap"])) for r in rows[rid] if r["gap"]]
        mh = sum(w * g for w, g in pooled) / sum(w for w, _ in pooled)
        assert facts[f"mcq.mmlu-pro.run.{rid}.leak_split.gap_adjusted"] == pytest.approx(mh, abs=1e-4)
        assert f"mcq.mmlu-pro.run.{rid}.leak_split.modal_options.gap_adjusted" in facts  # 10 options: 9,982 items
    page = (out / "benchmarks" / "mmlu-pro.html").read_text(encoding="utf-8")
    above = sum(facts[f"mcq.mmlu-pro.run.{r}.leak_split.gap_adjusted.ci95_low"] > 0 for r in run_ids)
    assert facts["mcq.mmlu-pro.leak_split.adjusted.above_zero"] == above
    assert "Compared within the same category × source (Mantel–Haenszel), " in page
    disagree = facts["mcq.mmlu-pro.leak_split.adjusted.disagree"]
    assert ("For every model the crude gap" in page) == (disagree == 0)


def _check_frontier_facts(facts: dict[str, float], run_ids: list[str], page: str) -> None:
    """The committed MMLU-Pro runs wired through: tie groups in strict-accuracy order, the
    reconciliation of every statement in content/reconciliation/mmlu-pro.yaml, Kendall's tau."""
    from scipy.stats import kendalltau
    from builder.core.yamlfile import load_mapping
    run = "mcq.mmlu-pro.run.{}.{}".format
    # Ranked: the runs that answered at least 99% of the items (rankings.FULL_SHARE), on the items
    # they all answered; a partial run is set aside with no tie group (DeepSeek-Coder-V2's 86%).
    ranked = [r for r in run_ids if facts[run(r, "coverage")] >= 99]
    assert ranked and [r for r in run_ids if run(r, "tie_group") in facts] == ranked
    groups = sorted(facts[run(r, "tie_group")] for r in ranked)
    assert groups[0] == 1 and all(b - a in (0, 1) for a, b in zip(groups, groups[1:]))
    tie_p = [facts[run(r, "tie_p")] for r in ranked if run(r, "tie_p") in facts]
    assert len(tie_p) == len(ranked) - 1 and sum(p < 0.05 for p in tie_p) == groups[-1] - 1
    assert 1 < groups[-1] < len(ranked)
    statements = load_mapping(REPO / "content" / "reconciliation" / "mmlu-pro.yaml")[0]["statements"]
    matched = [facts[f"mcq.mmlu-pro.reconcile.{s['id']}.matches"] for s in statements
               if f"mcq.mmlu-pro.reconcile.{s['id']}.matches" in facts]
    assert len(matched) == facts["mcq.mmlu-pro.reconcile.recomputed.count"] > 0
    assert facts["mcq.mmlu-pro.reconcile.matches.count"] == sum(matched)
    assert facts["mcq.mmlu-pro.reconcile.differs.count"] == len(matched) - sum(matched)
    assert 'id="mcq-mmlu-pro-reconcile"' in page
    assert 0.9 < facts["mcq.mmlu-pro.leak_split.kendall_tau"] <= 1  # on the ranked runs' common items
    ranks = {scope: {r: facts[run(r, f"leak_split.{scope}.rank")] for r in ranked} for scope in ("all", "rest")}
    assert all(sorted(ranks[scope].values()) == list(range(1, len(ranked) + 1)) for scope in ranks)
    assert not any(run(r, "leak_split.all.rank") in facts for r in run_ids if r not in ranked)
    moved = sum(ranks["all"][r] != ranks["rest"][r] for r in ranked)
    assert facts["mcq.mmlu-pro.leak_split.rank_changes"] == moved
    above = sum(facts[run(r, "leak_split.gap.ci95_low")] > 0 for r in run_ids)
    assert facts["mcq.mmlu-pro.leak_split.gap_above_zero"] == above
    adjusted = sum(facts[run(r, "leak_split.gap_adjusted.ci95_low")] > 0 for r in run_ids)
    expected = (f"every one of the {len(run_ids)} models is more accurate" if adjusted == len(run_ids) else
                f"of the {len(run_ids)} models are more accurate")
    assert expected in page and f"{moved} of the {len(ranked)} ranked models (runs answering at least 99%" in page
