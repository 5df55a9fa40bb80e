"""Every Eval Ever both ways: `export eee` then `import eee` gives back the very run (condition,
option seed, letter map, items, answers and scores) for a blind and a sighted run of CIBuzzBench
and of a spec'd benchmark, byte for byte; a blind export never carries the withheld question
(`input.raw` is what the model saw); the export says what the validator will flag and how to run
it; an edited file is a located error. Runs are probed here against the loopback server, on
SYNTHETIC data (the CIBuzzBench fixture CSV, tests/test_mcq_probe.py's spec); the validator
(`make eee-venv`) is run where its environment exists and required in CI (test_eee_export.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from builder.cli import main
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer, reply
from tests.test_eee_export import assert_valid, validate, validator
from tests.test_interop import answer as cibuzzbench_answer
from tests.test_mcq_probe import KEY_ENV, NAME, answer, project, synthetic_records  # noqa: F401 (fixture)

REPO = Path(__file__).resolve().parents[1]
MODEL = "loop-model"


def exported(run: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[Path, Path, str]:
    """`export eee` of one run: its aggregate, its sidecar and what it said on stderr."""
    assert main(["export", "eee", "--run", str(run), "--out", str(out), *extra]) == 0
    (aggregate,) = out.rglob("*.json")
    (samples,) = out.rglob("*_samples.jsonl")
    return aggregate, samples, capsys.readouterr().err


def assert_round_trip(run: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    """Export, import into an empty folder: the same run file, byte for byte. Returns the instances."""
    aggregate, samples, _ = exported(run, out / "eee", capsys, "--developer", "synthetic-lab")
    assert main(["import", "eee", str(aggregate), "--out", str(out / "back")]) == 0
    (back,) = (out / "back").glob("*.jsonl")
    assert back.read_bytes() == run.read_bytes()
    original, again = read_run(run), read_run(back)
    assert again.header == original.header and again.items == original.items and again.footer == original.footer
    assert f"wrote {back} ({original.header.condition}, {len(original.items)} items)" in capsys.readouterr().out
    if validator_present():
        assert_valid(out / "eee", aggregate, samples)
    return [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]


def validator_present() -> bool:
    try:
        validator()
    except pytest.skip.Exception:
        return False
    return True


@pytest.fixture()
def cibuzzbench_runs(synthetic_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A blind and a sighted Task 2 run of 40 synthetic items, probed as a user would."""
    monkeypatch.chdir(REPO)  # content/protocols, as `buzzprobe` run in the checkout
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LoopbackServer(lambda request: reply(cibuzzbench_answer(request.body["messages"]))) as server:
        for condition in ("blind", "sighted"):
            assert main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "40", "--quiet",
                         "--condition", condition, "--out", str(tmp_path / "runs" / f"{condition}.jsonl")]) == 0
    return {c: tmp_path / "runs" / f"{c}.jsonl" for c in ("blind", "sighted")}


@pytest.mark.parametrize("condition", ["blind", "sighted"])
def test_a_cibuzzbench_run_comes_back_the_same(cibuzzbench_runs: dict[str, Path], synthetic_dataset, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str], condition: str) -> None:
    run = read_run(cibuzzbench_runs[condition])
    assert run.header.condition == condition and run.header.option_seed == 1111
    assert any(item.letter_map != {"A": "correct", "B": "literal", "C": "pragmatic", "D": "cultural"}
               for item in run.items)  # the shuffle's letter maps: an identity map would not come back equal
    lines = assert_round_trip(cibuzzbench_runs[condition], tmp_path / "out", capsys)
    terms = synthetic_dataset.column("term_zh")
    for line in lines:
        shown = terms[int(line["sample_id"])] in line["input"]["raw"]
        assert shown == (condition == "sighted")  # the blind arm's instances never hold the term


def probe_spec(server: LoopbackServer, condition: str, out: Path) -> Path:
    assert main(["probe", "--benchmark", NAME, "--condition", condition, "--model", MODEL, "--base-url", server.url,
                 "--api-key-env", KEY_ENV, "--quiet", "--concurrency", "3", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("condition", ["blind", "sighted"])
def test_a_spec_run_comes_back_the_same_and_blind_never_holds_the_question(
        project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        condition: str) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(answer) as server:
        run = probe_spec(server, condition, tmp_path / "runs" / f"{condition}.jsonl")
    lines = assert_round_trip(run, tmp_path / "out", capsys)
    stems = {r["id"]: r["stem"] for r in synthetic_records()}
    for line in lines:
        raw = line["input"]["raw"]
        assert (stems[line["sample_id"]] in raw) == (condition == "sighted")
        assert all(choice in raw for choice in line["input"]["choices"])  # the options, as shown
    carried = [json.loads(line["metadata"]["buzzprobe_item"]) for line in lines]
    assert carried == [item.to_json() for item in read_run(run).items]  # in the run's own order


def test_the_export_warns_what_the_validator_flags_and_shows_its_command(
        cibuzzbench_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aggregate, samples, err = exported(cibuzzbench_runs["blind"], tmp_path / "unknown", capsys)
    assert "warning: model_info.developer is 'unknown'" in err and "not merge-ready" in err
    assert "--developer NAME" in err
    relative = [str(p.relative_to(tmp_path / "unknown")) for p in (aggregate, samples)]
    assert f"validate: cd {tmp_path / 'unknown'} && python -m every_eval_ever validate {' '.join(relative)}" in err
    if validator_present():  # the validator says what the warning foretold
        done = validate(tmp_path / "unknown", aggregate, samples)
        reports = json.loads(done.stdout)
        assert any("developer must be known" in str(w) for r in reports for w in r["warnings"])
    _, _, err = exported(cibuzzbench_runs["blind"], tmp_path / "known", capsys, "--developer", "synthetic-lab")
    assert "warning" not in err and "validate: cd" in err


def test_an_edited_export_is_a_located_error_and_nothing_is_written(
        cibuzzbench_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aggregate, samples, _ = exported(cibuzzbench_runs["blind"], tmp_path / "eee", capsys, "--developer", "lab")
    log = json.loads(aggregate.read_text(encoding="utf-8"))
    log["source_metadata"]["additional_details"]["condition"] = "sighted"  # a blind run passed off as sighted
    aggregate.write_text(json.dumps(log), encoding="utf-8")
    assert main(["import", "eee", str(aggregate), "--out", str(tmp_path / "back")]) == 2
    assert f"{aggregate} [source_metadata.additional_details.condition]: condition 'sighted' is not the carried " \
           "run's 'blind'" in capsys.readouterr().err

    aggregate, samples, _ = exported(cibuzzbench_runs["sighted"], tmp_path / "eee2", capsys, "--developer", "lab")
    lines = samples.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["evaluation"]["is_correct"] = not first["evaluation"]["is_correct"]  # a score edited in both files
    lines[0] = json.dumps(first, ensure_ascii=False)
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = json.loads(aggregate.read_text(encoding="utf-8"))
    log["detailed_evaluation_results"]["checksum"] = hashlib.sha256(samples.read_bytes()).hexdigest()
    aggregate.write_text(json.dumps(log), encoding="utf-8")
    assert main(["import", "eee", str(aggregate), "--out", str(tmp_path / "back")]) == 2
    assert f"{samples}:1 [evaluation.is_correct]:" in capsys.readouterr().err
    assert not (tmp_path / "back").exists()


def test_an_every_eval_ever_file_from_elsewhere_is_sent_to_import_results(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema_version": "0.3.0", "source_metadata": {"source_name": "elsewhere"}}),
                     encoding="utf-8")
    assert main(["import", "eee", str(other)]) == 2
    assert "not an export of `buzzprobe export eee`" in capsys.readouterr().err
