"""`buzzprobe export eee`: a run as Every Eval Ever's aggregate log and instance sidecar,
checked by the real `every-eval-ever` package's validator. It needs Python >= 3.12, so it
lives in a virtualenv of its own (`make eee-venv` -> .venv-eee, or BUZZPROBE_EEE_PYTHON);
CI creates it and fails rather than skips without it. Data: the SYNTHETIC fixture reference."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

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


def test_the_every_eval_ever_validator_accepts_the_export(tmp_path: Path) -> None:
    if not EEE_PYTHON.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no every-eval-ever environment at {EEE_PYTHON}: run `make eee-venv`")
        pytest.skip("every-eval-ever's environment is absent (make eee-venv)")
    aggregate, samples = exported(tmp_path)
    out = tmp_path / "eee"
    done = subprocess.run([str(EEE_PYTHON), "-m", "every_eval_ever", "validate", "--format", "json",
                           str(aggregate.relative_to(out)), str(samples.relative_to(out))],
                          cwd=out, capture_output=True, text=True, timeout=300)
    reports = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r["valid"] for r in reports] == [True, True] and not any(r["errors"] or r["warnings"] for r in reports)
    broken = json.loads(aggregate.read_text(encoding="utf-8"))
    broken["detailed_evaluation_results"]["total_rows"] += 1  # the validator must notice a disagreement
    aggregate.write_text(json.dumps(broken), encoding="utf-8")
    again = subprocess.run([str(EEE_PYTHON), "-m", "every_eval_ever", "validate", "--format", "json",
                            str(aggregate.relative_to(out))], cwd=out, capture_output=True, text=True, timeout=300)
    assert again.returncode != 0
