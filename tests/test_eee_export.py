"""`buzzprobe export eee`: a run as Every Eval Ever's aggregate log and instance sidecar,
checked by the real `every-eval-ever` package's validator. It needs Python >= 3.12, so it
lives in a virtualenv of its own (`make eee-venv` -> .venv-eee, or BUZZPROBE_EEE_PYTHON);
CI creates it and fails rather than skips without it. Data: the SYNTHETIC fixture reference
for a spec'd run; the committed local-model runs of CIBuzzBench over the real CSV."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from builder.cli import main
from builder.runs.reader import read_run
from tests.test_mcq_import_results import REFERENCE, RUN, content_dir, outputs, run_import, zipped

REPO = Path(__file__).resolve().parents[1]
EEE_PYTHON = Path(os.environ.get("BUZZPROBE_EEE_PYTHON", REPO / ".venv-eee" / "bin" / "python"))


def exported(tmp_path: Path) -> tuple[Path, Path]:
    content_dir(tmp_path)
    records = outputs(REFERENCE)
    del records[3]
    assert run_import(tmp_path, zipped(tmp_path, records)) == 0
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["export", "eee", "--run", str(tmp_path / "runs" / RUN), "--out", str(tmp_path / "eee"),
                     "--developer", "synthetic-lab"]) == 0
    finally:
        os.chdir(cwd)
    (aggregate,) = (tmp_path / "eee").rglob("*.json")
    (samples,) = (tmp_path / "eee").rglob("*_samples.jsonl")
    return aggregate, samples


def test_the_export_carries_the_runs_scores_and_items(tmp_path: Path) -> None:
    aggregate, samples = exported(tmp_path)
    log = json.loads(aggregate.read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    run = read_run(tmp_path / "runs" / RUN)
    assert len(lines) == len(run.items) == log["detailed_evaluation_results"]["total_rows"]
    strict = sum(line["evaluation"]["is_correct"] for line in lines) / len(lines)
    assert log["evaluation_results"][0]["score_details"]["score"] == strict
    assert {line["sample_id"] for line in lines} == {i.id for i in run.items}
    assert aggregate.relative_to(tmp_path / "eee").parts[:3] == ("data", "synthetic-results", "synthetic-lab")


def validator() -> Path:
    """every-eval-ever's environment: required in CI, skipped elsewhere when absent."""
    if not EEE_PYTHON.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no every-eval-ever environment at {EEE_PYTHON}: run `make eee-venv`")
        pytest.skip("every-eval-ever's environment is absent (make eee-venv)")
    return EEE_PYTHON


def validate(out: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    """The package's own validator over `files`, by their datastore paths under `out`."""
    return subprocess.run([str(validator()), "-m", "every_eval_ever", "validate", "--format", "json",
                           *(str(f.relative_to(out)) for f in files)], cwd=out, capture_output=True, text=True,
                          timeout=300)


def assert_valid(out: Path, *files: Path) -> None:
    done = validate(out, *files)
    assert done.returncode == 0, done.stdout + done.stderr
    reports = json.loads(done.stdout)
    assert [r["valid"] for r in reports] == [True] * len(files)
    assert not any(r["errors"] or r["warnings"] for r in reports), reports


def test_the_every_eval_ever_validator_accepts_the_export(tmp_path: Path) -> None:
    validator()
    aggregate, samples = exported(tmp_path)
    out = tmp_path / "eee"
    assert_valid(out, aggregate, samples)
    broken = json.loads(aggregate.read_text(encoding="utf-8"))
    broken["detailed_evaluation_results"]["total_rows"] += 1  # the validator must notice a disagreement
    aggregate.write_text(json.dumps(broken), encoding="utf-8")
    assert validate(out, aggregate).returncode != 0


LOCAL = REPO / "runs" / "qwen2_5-coder-1_5b-instruct-q4_k_m"
T2_SIGHTED = LOCAL / "qwen2_5-coder-1_5b-instruct-q4_k_m-t2-sighted-en-s1111-n400-r0.jsonl"
T2_BLIND_GOLD_POOL = LOCAL / "qwen2_5-coder-1_5b-instruct-q4_k_m-t2-blind-en-s1111-n400-r0-gold_pool.jsonl"
T3 = LOCAL / "qwen2_5-coder-1_5b-instruct-q4_k_m-t3-sighted-en-test.jsonl"


def export_cli(run: Path, out: Path, *extra: str) -> tuple[Path, Path]:
    """`buzzprobe export eee` of one run into an empty `out`: its aggregate and sidecar."""
    assert main(["export", "eee", "--run", str(run), "--out", str(out), *extra]) == 0
    (aggregate,) = out.rglob("*.json")
    (samples,) = out.rglob("*_samples.jsonl")
    return aggregate, samples


@pytest.fixture
def at_repo(real_csv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed runs, content/ (protocols) and the real CSV, as `buzzprobe` run in the checkout."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(real_csv))


@pytest.mark.parametrize("path", [T2_SIGHTED, T2_BLIND_GOLD_POOL, T3], ids=["t2-sighted", "t2-blind-gold_pool", "t3"])
def test_a_committed_cibuzzbench_run_round_trips_through_the_validator(at_repo: None, tmp_path: Path,
                                                                       path: Path) -> None:
    """Every answered item is an instance as the model saw it; the aggregate's accuracy and macro
    F1 are the site's (score_run, what the build's facts read), and scikit-learn over the
    sidecar's own gold and answers gives them again; the validator accepts both files."""
    from sklearn.metrics import accuracy_score, f1_score
    from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    from builder.benchmarks.cibuzzbench.tasks import labels_for
    validator()
    aggregate, samples = export_cli(path, tmp_path, "--developer", "qwen")
    assert_valid(tmp_path, aggregate, samples)
    run = read_run(path)
    dataset = load_dataset(os.environ["CIBUZZBENCH_CSV"])
    if run.header.variant != "original":
        dataset = derive_variants(dataset, [run.header.variant])[run.header.variant]
    site = score_run(run, dataset)
    log = json.loads(aggregate.read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(run.items) == log["detailed_evaluation_results"]["total_rows"]
    assert [line["sample_id"] for line in lines] == [str(i.row_id) for i in run.items]
    scores = {r["metric_config"]["metric_id"]: r["score_details"] for r in log["evaluation_results"]}
    assert scores["accuracy"]["score"] == site.report.accuracy and scores["macro_f1"]["score"] == site.report.macro_f1
    interval = scores["macro_f1"]["uncertainty"]["confidence_interval"]
    assert (interval["lower"], interval["upper"]) == (site.intervals["macro_f1"].low, site.intervals["macro_f1"].high)
    gold = [line["input"]["reference"][0] for line in lines]
    said = [line["answer_attribution"][0]["extracted_value"] for line in lines]
    labels = list(labels_for(run.header.task))
    assert scores["macro_f1"]["score"] == pytest.approx(100 * f1_score(gold, said, labels=labels, average="macro",
                                                                       zero_division=0))
    assert scores["accuracy"]["score"] == pytest.approx(100 * accuracy_score(gold, said))
    assert [line["evaluation"]["is_correct"] for line in lines] == [g == p for g, p in zip(gold, said)]
    first, terms = lines[0], dataset.column("term_zh")
    assert first["output"]["raw"] == [run.items[0].response]
    if run.header.condition == "blind":
        assert terms[run.items[0].row_id] not in first["input"]["raw"]  # the blind arm never saw the term
    else:
        assert terms[run.items[0].row_id] in first["input"]["raw"]
    if run.header.task == "equivalent_selection":
        shown = dict(zip("ABCD", first["input"]["choices"]))
        assert all(f"{letter}. {text}" in first["input"]["raw"] for letter, text in shown.items())
    else:
        assert "harmful_f1" in scores


def test_a_model_free_probe_exports_under_buzzprobe(at_repo: None, tmp_path: Path) -> None:
    """A probe saw only the options (no prompt, no response); its developer is buzzprobe."""
    aggregate, samples = export_cli(REPO / "runs" / "probes" / "probe-longest_chars-t2-s1111-all.jsonl", tmp_path)
    assert aggregate.relative_to(tmp_path).parts[:4] == ("data", "cibuzzbench", "buzzprobe", "longest_chars")
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3001 and {line["input"]["raw"] for line in lines} == {""}
    assert all(len(line["input"]["choices"]) == 4 and line["output"]["raw"] == [] for line in lines)


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *fragments: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_export_errors_are_located(at_repo: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    out = str(tmp_path / "eee")
    missing = tmp_path / "nope.jsonl"
    refused(capsys, ["export", "eee", "--out", out], "--run: required for `export eee`")
    refused(capsys, ["export", "eee", "--run", str(missing), "--out", out], f"{missing}: cannot read run")
    refused(capsys, ["export", "eee", "--run", str(T2_SIGHTED), "--out", str(REPO / "tmp-eee")],
            "must not go into the repository")
    other = tmp_path / "other.jsonl"
    lines = T2_SIGHTED.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["dataset"]["content_sha256"] = "0" * 64
    other.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    refused(capsys, ["export", "eee", "--run", str(other), "--out", out],
            f"{other}:1 [dataset.content_sha256]: run was made on different data")
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(tmp_path / "gone.csv"))
    refused(capsys, ["export", "eee", "--run", str(T2_SIGHTED), "--out", out],
            f"{tmp_path / 'gone.csv'} [CIBUZZBENCH_CSV]")
    mouse = tmp_path / "mouse-x-td.jsonl"
    mouse.write_text(json.dumps({
        "type": "header", "schema": "buzzprobe.run/1", "run_id": "mouse-x-td", "benchmark": "mouse", "task": "td",
        "condition": "sighted", "subject": {"kind": "model", "name": "x"}, "option_seed": None,
        "dataset": {"file": "main_eval", "content_sha256": "0" * 64}, "source": {"kind": "probe"},
        "items": {"selection": "all", "n": 1}, "created": "2026-01-01T00:00:00Z", "tool": {}}) + "\n"
        + json.dumps({"type": "item", "row_id": 0, "raw": "1", "parsed": 1}) + "\n", encoding="utf-8")
    refused(capsys, ["export", "eee", "--run", str(mouse), "--out", out],
            f"{mouse}:1 [benchmark]: runs of Mouse cannot be exported to Every Eval Ever yet")
    assert not (tmp_path / "eee").exists() and not (REPO / "tmp-eee").exists()


def test_a_line_break_inside_a_text_keeps_the_instance_on_one_line(tmp_path: Path) -> None:
    """JSON leaves U+0085, U+2028 and U+2029 unescaped, but the validator's line reader ends a
    line there (MMLU-Pro's questions hold U+0085): the sidecar escapes them, same values."""
    from builder.runs.eee import Evaluation, Instance, Metric, write_evaluation
    text = "first\x85second\u2028third\u2029fourth 法拉利"
    one = Instance("0", text, "A", "A", True, "as given", ("a\x85b", "c", "d", "e"), text)
    evaluation = Evaluation("line_breaks", {"dataset_name": "synthetic", "source_type": "other"}, [one],
                            [Metric("accuracy", "accuracy", "share right", 1.0)])
    aggregate, samples = write_evaluation(read_run(T3), evaluation, tmp_path, "qwen")
    lines = samples.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["input"]["raw"] == text == json.loads(lines[0])["output"]["raw"][0]
    assert_valid(tmp_path, aggregate, samples)


def test_an_imported_official_run_with_failed_requests_exports(tmp_path: Path, synthetic_csv: Path,
                                                               synthetic_dataset: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`buzzprobe import`'s runs export too: a failed request is an instance with its error,
    no response and a wrong answer (the site counts it wrong), and the validator accepts it."""
    from tests.test_import_official import do_import, split_ids, t2_path, t2_rows, write_csv
    rows = t2_rows(synthetic_dataset, 1111, split_ids(synthetic_dataset))
    rows[3].update(prediction="", raw_response="", success=False, predicted_letter="", latency_sec="",
                   usage_json="{}", error="HTTP 429: rate limited")
    write_csv(t2_path(tmp_path / "results", 1111), rows)
    (path,) = do_import(tmp_path / "results", synthetic_dataset, tmp_path / "runs")
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    aggregate, samples = export_cli(path, tmp_path / "eee", "--developer", "google")
    assert_valid(tmp_path / "eee", aggregate, samples)
    lines = {line["sample_id"]: line for line in map(json.loads, samples.read_text(encoding="utf-8").splitlines())}
    failed = lines[str(rows[3]["row_id"])]
    assert failed["error"] == "HTTP 429: rate limited" and failed["output"]["raw"] == []
    assert failed["evaluation"]["is_correct"] is False and failed["answer_attribution"][0]["extracted_value"] == ""
    assert len(lines) == len(read_run(path).items) == 600
