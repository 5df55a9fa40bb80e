"""`buzzprobe import results`: published per-item results -> a run of a spec'd benchmark.

Data: the SYNTHETIC reference in tests/fixtures/mcq/results_reference.* (results files are
built from it here, in MMLU-Pro's, Every Eval Ever's and a mapped CSV shape); the real MMLU-Pro
output files in ../shared/data/mmlu-pro/ (required in CI)."""

from __future__ import annotations

import copy
import csv
import json
import os
import random
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from builder.benchmarks.mcq.loading import load_specs
from builder.benchmarks.mcq.results import upstream
from builder.cli import main
from builder.runs.reader import read_run

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"
REFERENCE = json.loads((FIXTURES / "results_reference.json").read_text(encoding="utf-8"))
SHARED = REPO.parent / "shared" / "data" / "mmlu-pro" / "outputs"


def content_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "content" / "benchmarks"
    folder.mkdir(parents=True, exist_ok=True)
    text = (FIXTURES / "results_reference.yaml").read_text(encoding="utf-8")
    shutil.copy(FIXTURES / "results_reference.json", folder)  # beside the spec: a folder it may read
    (folder / "synthetic-results.yaml").write_text(
        text.replace("dataset_path: tests/fixtures/mcq/", f"dataset_path: {folder}/"), encoding="utf-8")
    return tmp_path / "content"


def outputs(records: list) -> list:
    """MMLU-Pro-shaped output records: the reference's fields plus a response and `pred`."""
    out = []
    for n, r in enumerate(records):
        r = copy.deepcopy(r)
        letter = "ABCD"[(r["answer_index"] + (n % 3 == 0)) % 4]
        r["model_outputs"] = f"Let's think step by step. The answer is ({letter})." if n % 5 else "No letter here."
        r["pred"] = None
        out.append(r)
    return out


def zipped(tmp_path: Path, records: list, name: str = "model_outputs_synthetic_5shots") -> Path:
    path = tmp_path / f"{name}.zip"
    member = zipfile.ZipInfo(f"{name}.json", date_time=(2026, 1, 1, 0, 0, 0))  # the same records, the same bytes:
    member.external_attr = 0o600 << 16  # a clock time would differ when two zips straddle its 2-second step
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, json.dumps(records))
    return path


def run_import(tmp_path: Path, results: Path, *extra: str, fmt: str = "mmlu-pro") -> int:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return main(["import", "results", str(results), "--benchmark", "synthetic-results", "--model", "Synth 7B",
                     "--format", fmt, "--out", str(tmp_path / "runs"), *extra])
    finally:
        os.chdir(cwd)


RUN = "synth-7b-synthetic-results-pub.jsonl.gz"


def test_upstream_extraction_follows_its_three_regexes() -> None:
    assert upstream.extract("so the answer is (C). Then answer is B") == "C"
    assert upstream.extract("Answer: D\nlater Answer: E") == "D"
    assert upstream.extract("first A\nthen maybe B or so") == "B"  # the last standalone letter
    assert upstream.extract("nothing here at all") is None
    assert upstream.extract("I cannot tell.") == "I"  # the last regex reads the pronoun as option I
    assert upstream.extract("answer is (K)") is None  # K is no option letter of the script


def test_official_letters_draw_like_the_script_run_on_one_file() -> None:
    texts = ["The answer is (B)", "no idea", "Answer: C", "nothing"]
    random.seed(upstream.SEED)  # the script: one global seed, the level-1 pass draws first
    for text in texts:
        if re.search(r"answer is \(?([A-J])\)?", text) is None:
            random.choice(list("ABCDEFGHIJ"))
    expected = ["B", random.choice(list("ABCDEFGHIJ")), "C", random.choice(list("ABCDEFGHIJ"))]
    assert upstream.official_letters(texts) == expected


def test_an_mmlu_pro_zip_becomes_a_partial_run_with_its_own_gold(tmp_path: Path, capsys) -> None:
    records = outputs(REFERENCE)
    records[2]["options"][1] = "changed option"  # another revision of item 103: other options and gold
    records[2]["answer_index"], records[2]["answer"] = 1, "B"
    del records[5]  # item 106 is missing
    records.insert(4, "total")  # not a record
    content = content_dir(tmp_path)
    assert run_import(tmp_path, zipped(tmp_path, records)) == 0
    out, err = capsys.readouterr()
    assert "element 5 (str 'total')" in err and "11 of 12 items (partial); 1 differ" in out
    run = read_run(tmp_path / "runs" / RUN)
    assert run.footer is None and len(run.items) == 11 and run.header.option_seed is None
    assert run.header.source["sha256"] and run.header.source["revision"]["items_differ"] == 1
    changed = next(i for i in run.items if i.id == "103")
    assert changed.revision["differs"] == ["options", "gold"] and changed.revision["gold"] == 1
    assert all(i.response is None and len(i.response_sha256) == 16 for i in run.items)
    raw = (tmp_path / "runs" / RUN).read_bytes()
    assert b"Synthetic question" not in raw and b"step by step" not in raw
    (loaded,) = load_specs(content, tmp_path / "cache", [run])
    from builder.benchmarks.mcq.gold import gold_letters
    gold, pred = gold_letters(run, loaded)
    by_id = {r["question_id"]: r for r in records if isinstance(r, dict)}
    expected = ["ABCD"[by_id[int(i.id)]["answer_index"]] for i in sorted(run.items, key=lambda i: i.row_id)]
    assert gold == expected  # scored against the file's own gold, item 103 too
    assert pred.count("") == sum(1 for r in by_id.values() if "answer is" not in r["model_outputs"])


def test_unknown_and_repeated_ids_are_refused_with_their_place(tmp_path: Path, capsys) -> None:
    records = outputs(REFERENCE)
    records[3]["question_id"] = 999
    records.append(copy.deepcopy(records[0]))
    content_dir(tmp_path)
    assert run_import(tmp_path, zipped(tmp_path, records)) == 2
    err = capsys.readouterr().err
    assert "!model_outputs_synthetic_5shots.json [element 4, id]: id '999' is not an item of synthetic-results" in err
    assert "[element 13, id]: id '101' again (first at element 1): a duplicate is refused" in err
    assert not (tmp_path / "runs").exists()


def test_a_different_run_is_not_overwritten_without_force(tmp_path: Path, capsys) -> None:
    content_dir(tmp_path)
    records = outputs(REFERENCE)
    assert run_import(tmp_path, zipped(tmp_path, records)) == 0
    assert run_import(tmp_path, zipped(tmp_path, records)) == 0
    assert "unchanged" in capsys.readouterr().out
    records[0]["model_outputs"] = "The answer is (A)"
    assert run_import(tmp_path, zipped(tmp_path, records)) == 2
    err = capsys.readouterr().err
    assert "an existing run with different content: header source.sha256: " in err
    assert "item(s) differ (row_id 1, " in err  # item 1 and those whose random draw moved with it
    assert run_import(tmp_path, zipped(tmp_path, records), "--force") == 0
    assert read_run(tmp_path / "runs" / RUN).items[0].prediction == "A"


def test_a_mapped_csv_and_an_eee_file_are_imported(tmp_path: Path) -> None:
    content_dir(tmp_path)
    path = tmp_path / "answers.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qid", "picked", "text", "key"])
        for r in REFERENCE:
            writer.writerow([r["question_id"], "ABCD"[r["answer_index"]], "", r["answer_index"]])
    assert run_import(tmp_path, path, fmt="mapped") == 0
    run = read_run(tmp_path / "runs" / RUN)
    assert run.footer is not None and all(i.official is None for i in run.items)
    assert run.header.source["scoring"] == "given"
    eee = tmp_path / "samples.jsonl"
    eee.write_text("".join(json.dumps({
        "sample_id": str(r["question_id"]), "input": {"raw": r["question"], "choices": r["options"],
                                                     "reference": [r["options"][r["answer_index"]]]},
        "output": {"raw": ["B"]}, "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": "B",
                                                          "extraction_method": "exact", "is_terminal": True}],
        "evaluation": {"score": 0.0, "is_correct": False}}) + "\n" for r in REFERENCE), encoding="utf-8")
    assert run_import(tmp_path, eee, "--force", fmt="eee") == 0
    run = read_run(tmp_path / "runs" / RUN)
    assert {i.prediction for i in run.items} == {"B"} and run.header.source["revision"]["items_differ"] == 0


@pytest.mark.skipif(not SHARED.is_dir() and os.environ.get("CI") != "true", reason="real MMLU-Pro outputs absent")
def test_a_real_mmlu_pro_file_against_another_files_revision(tmp_path: Path) -> None:
    """Reference: the questions embedded in Jamba 1.5 Large's file; imported: Llama-3.1-8B's, made
    on another revision (both 12,032 records)."""
    with zipfile.ZipFile(SHARED / "model_outputs_jamba-1.5-large_5shots.zip") as archive:
        reference = json.loads(archive.read(archive.namelist()[0]))
    data = tmp_path / "reference.json"
    data.write_text(json.dumps([{k: r[k] for k in ("question_id", "question", "options", "answer_index", "category")}
                                for r in reference]), encoding="utf-8")
    folder = tmp_path / "content" / "benchmarks"
    folder.mkdir(parents=True)
    (folder / "mmlu-pro-test.yaml").write_text(f"name: mmlu-pro-test\ndataset_path: {data}\nid: question_id\n"
                                               "doc_to_text: question\ndoc_to_choice: options\n"
                                               "doc_to_target: answer_index\ntarget_kind: index\ncategory: category\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["import", "results", str(SHARED / "model_outputs_Meta-Llama-3_1-8B_5shots.zip"), "--benchmark",
                     "mmlu-pro-test", "--model", "Llama 3.1 8B", "--out", "runs"])
    finally:
        os.chdir(cwd)
    assert code == 0
    (path,) = (tmp_path / "runs").glob("*.jsonl.gz")
    run = read_run(path)
    with zipfile.ZipFile(SHARED / "model_outputs_Meta-Llama-3_1-8B_5shots.zip") as archive:
        theirs = {r["question_id"]: r for r in json.loads(archive.read(archive.namelist()[0]))}
    ours = {r["question_id"]: r for r in reference}
    # the file's gold is its letter (the upstream scores against it; one item's index disagrees)
    differ = {str(q) for q, r in theirs.items() if (r["question"], r["options"], r["answer"]) !=
              (ours[q]["question"], ours[q]["options"], "ABCDEFGHIJ"[ours[q]["answer_index"]])}
    imported = {i.id for i in run.items}
    assert differ and {i.id for i in run.items if i.revision} == differ & imported
    assert path.stat().st_size < 600_000  # hashes and letters, no text: compact


SCRIPT_SECOND = re.compile(r".*[aA]nswer:\s*([A-J])")  # the upstream script's patterns, verbatim
SCRIPT_FINAL = re.compile(r"\b[A-J]\b(?!.*\b[A-J]\b)", re.DOTALL)


def script_extract(text: str) -> str | None:
    found = re.search(r"answer is \(?([A-J])\)?", text) or SCRIPT_SECOND.search(text)
    if found:
        return found.group(1)
    found = SCRIPT_FINAL.search(text)
    return found.group(0) if found else None


@pytest.mark.parametrize("text", [
    "x Answer: B and answer: C\nAnswer: D", "first line\nno Answer: E here answer:\n\n F\nAnswer: G",
    "answer:A answer: B", "Answer:\nC", "A, B, or C? Maybe D.", "AB CD", "(J) then I", "", "answer: K only",
    "The answer is (E) but Answer: F",
])
def test_the_linear_extraction_equals_the_scripts_regexes(text: str) -> None:
    assert upstream.extract(text) == script_extract(text)


def test_a_damaged_compressed_run_is_refused_by_name(tmp_path: Path) -> None:
    from builder.core.errors import InputError
    content_dir(tmp_path)
    assert run_import(tmp_path, zipped(tmp_path, outputs(REFERENCE))) == 0
    path = tmp_path / "runs" / RUN
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert f"{path}:" in str(caught.value) and "not a readable gzip file" in str(caught.value)
    assert caught.value.problems[0].line is not None  # where the damage starts


def test_the_stratified_gap_interval_covers_its_estimate_and_follows_the_data() -> None:
    import numpy as np
    from builder.stats.split_gap import stratified_gap
    rng = np.random.default_rng(0)
    strata = np.repeat([0, 1, 2], 200)
    solvable = rng.random(600) < np.where(strata == 0, 0.7, 0.2)
    right = rng.random(600) < np.where(solvable, 0.8, 0.4)
    gap, low, high = stratified_gap(right, solvable, strata, resamples=300)
    assert low < gap < high and low > 0  # solvable items answered better, clearly
    flat, flat_low, flat_high = stratified_gap(rng.random(600) < 0.5, solvable, strata, resamples=300)
    assert flat_low < 0 < flat_high  # no difference: the interval straddles zero
