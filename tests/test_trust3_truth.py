"""Issue 34, classes 4 and 5: numbers the evidence does not support, lost or corrupted state.

Each case is the attack as a user or a pull request would make it, in the real formats (runs
written by the importer or the probe, caches written by the build's own cache code): an
imported run whose gold was moved to the model's answer, Every Eval Ever records with no
answer, a run or prediction dated after the build, a user's folder named like a build's
leftover, a cache entry copied between kinds, a probe whose every request failed, a damaged
compressed run.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.benchmarks.mcq.loading import load_specs
from builder.benchmarks.mcq.results.revision import delta_sha256
from builder.core.build_date import future_problem, latest_moment
from builder.core.cachefile import read_sealed, write_sealed
from builder.core.errors import InputError
from builder.runs.reader import read_run
from builder.site.write import MARKER, leftovers, write_site
from tests.loopback_server import LoopbackServer, status
from tests.test_hardening import (RUN, build, edit_run_lines, probe, project, quick_build,  # noqa: F401 (fixtures)
                                  quick_load, refused, small, with_header)
from tests.test_mcq_import_results import REFERENCE, RUN as IMPORTED, content_dir, outputs, run_import, zipped


# ------------------------------------------------------------ 4. gold checked against the data

def _imported(tmp_path: Path) -> tuple[Path, Path]:
    """An honest import of the synthetic reference (content folder, run file)."""
    content = content_dir(tmp_path)
    assert run_import(tmp_path, zipped(tmp_path, outputs(REFERENCE))) == 0
    return content, tmp_path / "runs" / IMPORTED


def _rewrite(path: Path, change: Any) -> None:
    """Edit a compressed run's lines as JSON (header first) and write it back as the importer does."""
    lines = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]
    change(lines[0], [line for line in lines if line["type"] == "item"])
    path.write_bytes(gzip.compress("".join(json.dumps(line) + "\n" for line in lines).encode("utf-8"), mtime=0))


def _sha(item_id: str, gold: int) -> str:
    """The hash an honest import records for the reference's question and options with `gold`."""
    reference = next(r for r in REFERENCE if str(r["question_id"]) == item_id)
    text = json.dumps([reference["question"], reference["options"], gold], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _gold_to_answer(parts: list[str]) -> Any:
    """Every answered item's gold moved to the model's own letter, saying `parts` differ (with
    the hash an honest import would record: the forger's best effort)."""
    def change(header: dict[str, Any], items: list[dict[str, Any]]) -> None:
        for item in items:
            if item["prediction"]:
                gold = "ABCD".index(item["prediction"])
                item["revision"] = {"differs": parts, "k": 4, "gold": gold, "sha256": _sha(item["id"], gold)}
    return change


def _declare(header: dict[str, Any], items: list[dict[str, Any]]) -> None:
    """What a forger must also do: count and hash the differing items in the header."""
    differing = [(i["id"], i["revision"]) for i in items if i.get("revision")]
    header["source"]["revision"] = {"items_differ": len(differing), "delta_sha256": delta_sha256(differing)}


def _problems(content: Path, path: Path, tmp_path: Path) -> list[str]:
    try:
        load_specs(content, tmp_path / "cache", [read_run(path)])
    except InputError as exc:
        return [str(p) for p in exc.problems]
    return []


def test_a_gold_moved_to_the_models_answer_is_refused_unless_declared(tmp_path: Path) -> None:
    """Before: the run loaded and scored 100.0 against its own golds (honestly 25.0)."""
    content, path = _imported(tmp_path)
    assert _problems(content, path, tmp_path) == []
    _rewrite(path, _gold_to_answer(["gold"]))
    found = _problems(content, path, tmp_path)
    assert len(found) == 1 and f"{path}:1 [source.revision]: declares" in found[0], found
    assert "every item that differs from the data must be counted and hashed" in found[0]


def test_a_gold_hidden_behind_another_declared_difference_is_refused(tmp_path: Path) -> None:
    content, path = _imported(tmp_path)

    def hidden(header: dict[str, Any], items: list[dict[str, Any]]) -> None:
        _gold_to_answer(["question"])(header, items)
        _declare(header, items)
    _rewrite(path, hidden)
    found = _problems(content, path, tmp_path)
    assert found and all("[revision.gold]: gold " in p and "must be declared" in p for p in found), found
    assert any(f"{path}:" in p for p in found)


def test_a_gold_declared_as_different_is_kept_and_counted(tmp_path: Path) -> None:
    """An honest revision difference stays what it was: declared in the header, scored against the
    file's own gold, counted on the page (the 29 committed MMLU-Pro runs carry 1 to 48 such items)."""
    content, path = _imported(tmp_path)

    def declared(header: dict[str, Any], items: list[dict[str, Any]]) -> None:
        item = next(i for i in items if i["prediction"])
        gold = "ABCD".index(item["prediction"])
        item["revision"] = {"differs": ["gold"], "k": 4, "gold": gold, "sha256": _sha(item["id"], gold)}
        _declare(header, items)
    _rewrite(path, declared)
    assert _problems(content, path, tmp_path) == []

    def other_text(header: dict[str, Any], items: list[dict[str, Any]]) -> None:
        next(i for i in items if i.get("revision"))["revision"]["sha256"] = hashlib.sha256(b"other").hexdigest()
        _declare(header, items)
    _rewrite(path, other_text)
    assert any("[revision.sha256]" in p for p in _problems(content, path, tmp_path))


def _eee(tmp_path: Path, answered: int) -> Path:
    """Every Eval Ever instance lines; only the first `answered` have an output and an extracted answer."""
    path = tmp_path / "samples.jsonl"
    lines = []
    for n, r in enumerate(REFERENCE):
        record: dict[str, Any] = {"sample_id": str(r["question_id"]), "input": {
            "raw": r["question"], "choices": r["options"], "reference": [r["options"][r["answer_index"]]]}}
        if n < answered:
            record["output"] = {"raw": ["B"]}
            record["answer_attribution"] = [{"turn_idx": 0, "source": "output.raw", "extracted_value": "B",
                                             "extraction_method": "exact", "is_terminal": True}]
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_eee_records_without_an_answer_are_unanswered_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: 12 records with no output and no attribution imported as "12 of 12 items"."""
    content_dir(tmp_path)
    assert run_import(tmp_path, _eee(tmp_path, 0), fmt="eee") == 2
    err = capsys.readouterr().err
    assert "samples.jsonl:1 [element 1]: none of the 12 record(s) holds an answer" in err
    assert not (tmp_path / "runs").exists()
    assert run_import(tmp_path, _eee(tmp_path, 3), fmt="eee") == 0
    out, err = capsys.readouterr()
    assert "3 of 12 items (partial)" in out and "9 record(s) hold no answer (unanswered)" in out
    assert "9 record(s) hold no answer" in err and "line 4" in err
    run = read_run(tmp_path / "runs" / IMPORTED)
    assert len(run.items) == 3 and run.footer is None
    assert run.header.source["unanswered"] == 9 and run.header.source["records"] == 12


# ------------------------------------------------------------ 4. nothing dated after the build

def test_a_run_dated_after_the_build_is_refused(small: Path) -> None:
    """Before: a run created 9999-12-31 built and headed What's new."""
    edit_run_lines(small, with_header(created="9999-12-31T00:00:00Z"))
    refused(quick_load(small), f"{RUN}:1 [created]: 9999-12-31T00:00:00Z is after this build")


def test_a_finished_stamp_after_the_build_or_no_moment_is_refused(small: Path) -> None:
    def finished(lines: list[str]) -> None:
        footer = json.loads(lines[-2])  # the last is the empty text after the final newline
        footer["finished"] = "9999-01-01T00:00:00Z"
        lines[-2] = json.dumps(footer)
    edit_run_lines(small, finished)
    refused(quick_load(small), "[finished]: 9999-01-01T00:00:00Z is after this build")
    assert future_problem("yesterday", latest_moment()) is not None
    assert future_problem("2026-01-01T00:00:00Z", latest_moment()) is None


def _predictions(tmp_path: Path, registered: str, deadline: str) -> Path:
    path = tmp_path / "predictions.yaml"
    path.write_text(f"""predictions:
  - id: p
    claim: c
    source: s
    registered: {registered}
    deadline: {deadline}
    supported_when:
      - {{measure: m, op: ">", threshold: 0}}
""", encoding="utf-8")
    return path


@pytest.mark.parametrize("registered, deadline, fragment", [
    ("9999-12-31", "9999-12-30", "is after its own deadline 9999-12-30"),
    ("9999-12-31", "null", "is after this build"),
    ("2026-06-01", "2026-05-01", "registered 2026-06-01 is after its own deadline 2026-05-01"),
])
def test_a_prediction_registered_after_its_deadline_or_the_build_is_refused(tmp_path: Path, registered: str,
                                                                           deadline: str, fragment: str) -> None:
    """Before: registered 9999-12-31 with a deadline a day earlier was judged "open"."""
    from builder.claims.loading import load_predictions
    path = _predictions(tmp_path, registered, deadline)
    with pytest.raises(InputError) as caught:
        load_predictions(path, {"m"}, None, latest_moment().date())
    assert f"{path}:5 [predictions[0].registered]" in str(caught.value) and fragment in str(caught.value)
    assert load_predictions(_predictions(tmp_path, "2026-01-01", "2026-06-30"), {"m"}, None, latest_moment().date())


# ------------------------------------------------------------ 5. the writer removes only its own

def test_a_users_folder_named_like_a_leftover_survives_the_build(tmp_path: Path) -> None:
    """Before: `build --out X/report` deleted X/.report.new-drafts/ without a word."""
    out = tmp_path / "X" / "report"
    drafts = tmp_path / "X" / ".report.new-drafts"
    old = tmp_path / "X" / ".report.old-notes"
    for folder in (drafts, old):
        folder.mkdir(parents=True)
        (folder / "mine.md").write_text("keep me", encoding="utf-8")
    (old / MARKER).symlink_to(tmp_path / "elsewhere")  # a link is no marker
    killed = tmp_path / "X" / ".report.new-abc123"  # what a killed build leaves: marked
    killed.mkdir()
    (killed / MARKER).write_bytes(b"")  # a marker must hold the build's own text
    write_site({"index.html": b"one"}, out, "1")
    write_site({"index.html": b"two"}, out, "2")
    assert (drafts / "mine.md").read_text(encoding="utf-8") == "keep me"
    assert (old / "mine.md").read_text(encoding="utf-8") == "keep me"
    assert killed.exists()
    assert leftovers(out) == [] and not (out / MARKER).exists()
    assert sorted(p.name for p in out.parent.iterdir()) == [".report.new-abc123", ".report.new-drafts",
                                                           ".report.old-notes", "report"]


# ------------------------------------------------------------ 5. cache entries sealed with their kind

def test_a_sealed_entry_is_read_only_as_the_kind_that_wrote_it(tmp_path: Path) -> None:
    items, kept = tmp_path / "mcq-items" / "spec-key.pickle", tmp_path / "mcq-kept" / "spec-key.pickle"
    items.parent.mkdir()
    kept.parent.mkdir()
    write_sealed(items, b"items of the spec", "mcq-items")
    shutil.copy(items, kept)
    assert read_sealed(items, "mcq-items") == b"items of the spec"
    assert read_sealed(kept, "mcq-kept") is None
    assert read_sealed(items, "runs") is None and read_sealed(items, "chart") is None


def test_an_items_entry_copied_over_the_kept_entry_is_rebuilt(tmp_path: Path) -> None:
    """Before: the copy passed its seal (file name only) and `isinstance(value, tuple)`; the
    next build crashed reading it as record numbers."""
    from bench.mcq_synthetic import write as write_synthetic
    from builder.benchmarks.mcq.analyses.audit_cache import cached_benchmark, cached_choice_set
    from builder.benchmarks.mcq.choice_set import choice_set
    spec = write_synthetic(tmp_path / "spec", 40)
    cache = tmp_path / "cache"
    benchmark = cached_benchmark(spec, cache)
    fresh = sorted(cached_choice_set(benchmark, cache).items)
    (entry,) = (cache / "mcq-items").glob("*.pickle")
    (target,) = (cache / "mcq-kept").glob("*.pickle")
    assert entry.name == target.name  # the two kinds name an entry alike
    shutil.copy(entry, target)
    assert sorted(cached_choice_set(cached_benchmark(spec, cache), cache).items) == fresh
    assert sorted(choice_set(benchmark).items) == fresh


# ------------------------------------------------------------ 5. a run with no answered item

def test_a_probe_whose_every_request_failed_is_set_aside_not_scored(project: Path) -> None:
    """Before: the build published the model at 0.0 [0.0, 0.0]. The probe now exits 1 and moves
    such a run aside (`.failed`); a user who copies it back into runs/ gets it set aside by the build."""
    with LoopbackServer(lambda req: status(500)) as server:
        assert probe(project, server, "--out", "runs/{run_id}.jsonl").returncode == 1
    (failed,) = [p for p in (project / "runs").glob("*.jsonl.failed") if p.name.startswith("m-")]
    path = failed.with_name(failed.name.removesuffix(".failed"))
    failed.rename(path)
    run = read_run(path)
    assert run.items and all(i.error for i in run.items)
    result = build(project)
    assert result.returncode == 0, result.stderr
    site = project / "site"
    rid = run.header.run_id
    assert not (site / "runs" / f"{rid}.html").exists()
    assert rid not in (site / "facts.json").read_text(encoding="utf-8")
    changelog = (site / "changelog.html").read_text(encoding="utf-8")
    assert "Set aside, not scored:" in changelog and f"<code>{rid}</code> (no answered item: all 3 of its" in changelog


# ------------------------------------------------------------ 5. every run error names file and line

def test_a_damaged_compressed_run_names_its_file_and_line(tmp_path: Path) -> None:
    from builder.runs.load import read_store
    _, path = _imported(tmp_path)
    import zlib
    raw = path.read_bytes()
    cut = raw[: len(raw) * 2 // 3]
    path.write_bytes(cut)
    # The line it breaks off in: the one after the last whole line the cut stream still gives
    # (where deflate's blocks fall depends on the bytes, so it is read here, not assumed)
    readable = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut)
    (problem,) = read_store(tmp_path / "runs").problems
    assert problem.path == str(path) and problem.line == readable.count(b"\n") + 1
    assert "not a readable gzip file" in problem.message and "breaks off in this line" in problem.message


def test_a_mapped_csv_row_with_empty_answer_cells_is_unanswered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CSV cannot say "null": an empty prediction and response is no answer, not an unparsed one."""
    content_dir(tmp_path)
    path = tmp_path / "answers.csv"
    rows = [f"{r['question_id']},{'ABCD'[r['answer_index']] if n < 4 else ''},,{r['answer_index']}\n"
            for n, r in enumerate(REFERENCE)]
    path.write_text("qid,picked,text,key\n" + "".join(rows), encoding="utf-8")
    assert run_import(tmp_path, path, fmt="mapped") == 0
    assert "4 of 12 items (partial)" in capsys.readouterr().out
    run = read_run(tmp_path / "runs" / IMPORTED)
    assert run.header.source["unanswered"] == 8 and {i.prediction for i in run.items} != {""}
