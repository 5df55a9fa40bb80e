"""The evaluator's workflow (issue 33): pairs that cannot mix, failures that fail, the CLI's
conventions and its feedback. Real behaviour throughout: the CLI through `main`, a loopback
model server for probes, real files and real (small) builds."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.benchmarks.cibuzzbench.dataset import cibuzzbench as cibuzzbench_dataset
from builder.benchmarks.cibuzzbench.interop.importing import convert
from builder.interop.harness import write_imported
from builder.interop.inspect_log import read_inspect
from builder.benchmarks.cibuzzbench.prompts import load_protocols
from builder.cli import main
from builder.pipeline import BuildConfig, build
from builder.runs.selection import Selection
from tests.loopback_server import LoopbackServer, reply, status
from tests.synthetic import synthetic_rows, write_synthetic_csv
from tests.test_build import SMALL_SPEC
from tests.test_interop import CREATED, _tasks, answer, fake_inspect_log, fake_lm_eval
from tests.test_mcq_probe import ITEMS, KEY_ENV, NAME, project  # noqa: F401 (a fixture)
from tests.test_mcq_probe import answer as mcq_answer, probe as mcq_probe

REPO = Path(__file__).resolve().parents[1]
MODEL = "loopmodel"


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    return write_synthetic_csv(folder / "small.csv", synthetic_rows(n=SMALL_SPEC.rows, test=12, seed=3))


@pytest.fixture()
def small_env(small_csv: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`probe` and `import` read CIBUZZBENCH_CSV at the official shape; tests use the small one."""
    real = cibuzzbench_dataset.load_dataset
    monkeypatch.setattr(cibuzzbench_dataset, "load_dataset", lambda path, spec=None: real(path, SMALL_SPEC))
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(small_csv))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return small_csv


def _server() -> LoopbackServer:
    return LoopbackServer(lambda request: reply(answer(request.body["messages"])))


def _probe_pair(url: str, out: Path, sample: str = "50") -> None:
    for condition in ("sighted", "blind"):
        assert main(["probe", "--base-url", url, "--model", MODEL, "--sample", sample, "--quiet",
                     "--condition", condition, "--out", str(out / "{run_id}.jsonl")]) == 0


def _import_harness_pair(dataset_csv: Path, work: Path, runs: Path) -> None:
    """A 20-item sighted and blind pair from lm-eval and from Inspect, imported by the CLI."""
    dataset = cibuzzbench_dataset.load_dataset(dataset_csv)
    protocols = load_protocols()
    tasks = _tasks(dataset, protocols, selection=Selection("sample", None, 20, 0),
                   arms=("t2-sighted", "t2-blind"))
    for task in tasks:
        fake_lm_eval(task, task.records(dataset), work / "lm" / task.name)
        log = work / "inspect" / f"{task.name}.json"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps(fake_inspect_log(task, task.records(dataset))), encoding="utf-8")
    assert main(["import", "lm-eval", str(work / "lm"), "--model", MODEL, "--out", str(runs / "lm-eval")]) == 0
    # The CLI reads Inspect logs through inspect-ai when it is installed, which wants fields the
    # documented-format fixture leaves out; the import's own reader and writer are the CLI's.
    for log in sorted((work / "inspect").glob("*.json")):
        run = convert(read_inspect(log, use_library=False), {"original": dataset}, protocols, CREATED, MODEL)
        write_imported(run, str(runs / "inspect"))


def _site(csv_path: Path, runs: Path, out: Path) -> dict:
    build(BuildConfig(runs, REPO / "content", out, options=cibuzzbench_options(csv_path, SMALL_SPEC)))
    return json.loads((out / "facts.json").read_text(encoding="utf-8"))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_imported_runs_never_pair_or_pool_with_the_probe_pair(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with _server() as server:
        _probe_pair(server.url, runs / "probe")
    alone = _site(small_env, runs, tmp_path / "alone")
    _import_harness_pair(small_env, tmp_path / "work", runs)
    both = _site(small_env, runs, tmp_path / "both")
    capsys.readouterr()

    pairs = sorted({k.split(".")[1] for k in both if k.startswith("pair.")})
    assert len(pairs) == 3  # probe with probe, lm-eval with lm-eval, Inspect with Inspect
    for pid in pairs:
        blind, sighted = pid.split("__vs__")
        assert blind.split("-")[0] == sighted.split("-")[0], pid  # one tool per pair
        assert both[f"pair.{pid}.only_a"] == both[f"pair.{pid}.only_b"] == 0
    # Every figure the probe-only site published is unchanged beside the imports.
    moved = {k: (v, both.get(k)) for k, v in alone.items()
             if k.startswith(("pair.", "paired", "model.")) and both.get(k) != v}
    assert moved == {}
    assert both["paired_models.count"] == alone["paired_models.count"] == 1

    table = _rows(tmp_path / "both" / "tables" / "model-pair-summaries.csv")
    assert sorted((r["Model"], r["n"]) for r in table) == [
        (MODEL, "50"), (f"{MODEL} (inspect_ai import)", "20"), (f"{MODEL} (lm-eval import)", "20")]
    article = (tmp_path / "both" / "article.html").read_text(encoding="utf-8")
    assert "1 model was run sighted and blind on the same items of the original option set, in 3 separate" in article


# ---------------------------------------------------------------- failures fail (item 6)


def test_a_probe_whose_every_item_failed_exits_non_zero_and_is_not_published(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with LoopbackServer(lambda request: status(503)) as server:
        code = main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "4", "--quiet",
                     "--retries", "0", "--out", str(runs / "{run_id}.jsonl")])
    err = capsys.readouterr().err
    assert code == 1
    assert list(runs.glob("*.jsonl")) == []  # nothing where the build reads runs
    aside = runs / "loopmodel-t2-sighted-en-s1111-n4-r0.jsonl.failed"
    assert aside.is_file() and f"moved to {aside}" in err and "no item of loopmodel-t2-sighted-en-s1111-n4-r0" in err
    assert "503" in err  # the first error says why
    with _server() as server:  # the same command, once the endpoint answers, asks every item afresh
        assert main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "4", "--quiet",
                     "--out", str(runs / "{run_id}.jsonl")]) == 0
        assert len(server.requests) == 4
    assert [p.name for p in runs.glob("*.jsonl")] == ["loopmodel-t2-sighted-en-s1111-n4-r0.jsonl"]


def test_a_probe_with_one_answered_item_is_kept(small_env, tmp_path, capsys):
    """Partly failed runs stay (re-ask with --retry-errors): only a run with nothing answered is set aside."""
    runs = tmp_path / "runs"
    calls = []

    def flaky(request):
        calls.append(request)
        return reply("A") if len(calls) == 1 else status(503)

    with LoopbackServer(flaky) as server:
        code = main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "4", "--quiet",
                     "--retries", "0", "--concurrency", "1", "--out", str(runs / "{run_id}.jsonl")])
    assert code == 0 and len(list(runs.glob("*.jsonl"))) == 1 and not list(runs.glob("*.failed"))


def test_build_refuses_a_runs_or_content_folder_that_does_not_exist(tmp_path, capsys):
    for flag in ("--runs", "--content"):
        assert main(["build", flag, str(tmp_path / "nonexistent"), "--out", str(tmp_path / "site")]) == 2
        assert f"{flag}: no such folder: {tmp_path / 'nonexistent'}" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_a_build_prints_its_stages_and_ctrl_c_exits_130_with_one_line(tmp_path):
    """A real SIGINT to a real build, sent once the build says it is loading (the full-size
    synthetic data keeps it busy for seconds after that)."""
    import os
    import signal
    import subprocess
    import sys
    csv_path = write_synthetic_csv(tmp_path / "data.csv")
    env = {**os.environ, "CIBUZZBENCH_CSV": str(csv_path)}
    (tmp_path / "runs").mkdir()
    child = subprocess.Popen([sys.executable, "-m", "builder.cli", "build", "--runs", str(tmp_path / "runs"),
                              "--out", str(tmp_path / "site"), "--force"], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             # a shell that starts its jobs in the background (nohup … &) leaves
                             # SIGINT ignored, and Python keeps it so: restore the default first
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    said = [child.stderr.readline() for _ in range(2)]
    assert said[0].startswith(f"build: reading 0 run file(s) from {tmp_path / 'runs'} [")
    assert said[1].startswith("build: loading CIBuzzBench: its data and 0 run(s) [")
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=300)
    lines = err.splitlines()
    # 130, or (about one run in ten, seen since 2026-12-03, cause not found) the process ends by
    # the SIGINT itself after its one line: a shell reports both as 130, and the line and the
    # absent site below are what a user sees
    assert (child.returncode in (130, -signal.SIGINT), lines[-1]) == (True, "buzzprobe: interrupted"), err
    assert all(line.startswith("build: ") for line in lines[:-1]) and out == ""
    assert not (tmp_path / "site").exists()


# ---------------------------------------------------------------- conventions (item 7)


def test_version_and_help_on_every_option(capsys):
    import argparse
    from builder import __version__
    from builder.cli import _parser
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"buzzprobe {__version__}\n"
    missing = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, f"{path} {name}")
            elif not action.help:
                missing.append(f"{path} {action.option_strings or action.dest}")

    walk(_parser(), "buzzprobe")
    assert missing == []


def test_list_benchmarks_runs_and_models(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with _server() as server:
        _probe_pair(server.url, runs / "m", sample="3")
    (runs / "junk.jsonl").write_text("not json\n")
    capsys.readouterr()
    assert main(["list", "benchmarks", "--json", "--content", str(REPO / "content")]) == 0
    names = {b["name"]: b for b in json.loads(capsys.readouterr().out)}
    assert {"cibuzzbench", "mmlu", "truthfulqa-mc1"} <= names.keys() and names["mmlu"]["kind"] == "spec"
    assert main(["list", "runs", "--runs", str(runs), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r.get("run_id") or r["problem"] for r in listed) == [
        "loopmodel-t2-blind-en-s1111-n3-r0", "loopmodel-t2-sighted-en-s1111-n3-r0",
        "unreadable: Expecting value: line 1 column 1 (char 0)"]
    assert main(["list", "models", "--runs", str(runs)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["model", "runs", "benchmarks"] and table[1].split() == [MODEL, "2", "cibuzzbench"]
    assert main(["list", "runs", "--runs", str(tmp_path / "none")]) == 2


def test_audit_finds_a_shipped_spec_by_name_and_suggests_close_names(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert main(["audit", "mmluu"]) == 2
    err = capsys.readouterr().err
    assert "mmluu: no spec file and no benchmark of that name; did you mean 'mmlu'" in err
    shipped = ", ".join(sorted(p.stem for p in (REPO / "content" / "benchmarks").glob("*.yaml")))
    assert f"Specs in content/benchmarks: {shipped}" in err and "mmlu-pro" in shipped
    from builder.benchmarks.mcq.command import find_spec
    assert find_spec(Path("mmlu")) == Path("content/benchmarks/mmlu.yaml")
    assert find_spec(Path("elsewhere/mmlu.yaml")) == Path("elsewhere/mmlu.yaml")  # a path stays a path


# ---------------------------------------------------------------- feedback (item 5)


def test_probe_ends_with_the_score_and_the_paired_gap_the_site_publishes(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with _server() as server:
        _probe_pair(server.url, runs / "probe", sample="40")
    out = capsys.readouterr().out
    assert "usage {" not in out and "tokens: " in out
    facts = _site(small_env, runs, tmp_path / "site")
    for arm in ("sighted", "blind"):
        run = f"run.{MODEL}-t2-{arm}-en-s1111-n40-r0.accuracy"
        assert (f"accuracy {facts[run]:.1f} (95% interval {facts[run + '.ci95_low']:.1f} to "
                f"{facts[run + '.ci95_high']:.1f})") in out
    blind, sighted = (f"{MODEL}-t2-{arm}-en-s1111-n40-r0" for arm in ("blind", "sighted"))
    gap = f"pair.{blind}__vs__{sighted}.gap.accuracy"
    assert (f"paired gap, sighted {sighted} minus blind {blind}: accuracy {facts[gap]:+.1f} points (95% interval "
            f"{facts[gap + '.ci95_low']:+.1f} to {facts[gap + '.ci95_high']:+.1f})") in out
    assert out.count("paired gap") == 1  # the sighted arm finished first, alone


def test_progress_off_a_terminal_is_whole_lines(small_env, tmp_path, capsys):
    with _server() as server:
        assert main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "20",
                     "--out", str(tmp_path / "{run_id}.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith(f"{MODEL}-t2-sighted")]
    assert lines[0].endswith(": 0/20 items") and lines[-1].endswith(": 20/20 items, errors=0, retries=0")
    assert 3 <= len(lines) <= 12


def test_a_spec_probe_ends_with_its_score_and_gap(project, monkeypatch, capsys):
    """A spec'd benchmark's probe (tests/test_mcq_probe.py's synthetic spec: sighted always right)."""
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(mcq_answer) as server:
        assert mcq_probe(project, server, "--benchmark", NAME, "--condition", "sighted") == 0
        assert mcq_probe(project, server, "--benchmark", NAME, "--condition", "blind") == 0
    out = capsys.readouterr().out
    assert "score: accuracy 100.0 (95% interval 100.0 to 100.0), macro F1 100.0" in out
    blind = float(out.split("-blind-s1111-all.jsonl: complete")[1].split("score: accuracy ")[1].split(" ")[0])
    assert f"minus blind loop-model-{NAME}-blind-s1111-all: accuracy {100 - blind:+.1f} points" in out
    assert f"on {ITEMS} items" in out


def test_a_field_no_record_has_is_one_error_at_the_specs_line(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Q{i}?", "choices": ["a", "b", "c"],
                                        "answer": i % 3}) + "\n" for i in range(40)), encoding="utf-8")
    spec = tmp_path / "typo.yaml"
    spec.write_text(f"name: typo\ntitle: Typo\ndataset_path: {data}\nid: id\ndoc_to_text: questoin\n"
                    "doc_to_choice: choices\ndoc_to_target: answer\n", encoding="utf-8")
    assert main(["audit", str(spec)]) == 2
    err = capsys.readouterr().err
    assert err.count("questoin") == 1 and "[record " not in err
    assert (f"{spec}:5 [doc_to_text]: every one of the 40 records fails it: field 'questoin' is missing; "
            "did you mean 'question'? Fields of the records: answer, choices, id, question") in err
    lines = data.read_text(encoding="utf-8").splitlines()  # a field only some records lack stays per record
    spec.write_text(spec.read_text(encoding="utf-8").replace("questoin", "question"), encoding="utf-8")
    data.write_text("\n".join([lines[0].replace('"question"', '"q"'), *lines[1:]]) + "\n", encoding="utf-8")
    assert main(["audit", str(spec)]) == 2
    assert f"{data}:1 [record 1, doc_to_text]: field 'question' is missing" in capsys.readouterr().err


def test_a_401_before_any_answer_names_no_file_that_does_not_exist(small_env, tmp_path, capsys):
    out = tmp_path / "runs" / "{run_id}.jsonl"
    with LoopbackServer(lambda request: status(401)) as server:
        assert main(["probe", "--base-url", server.url, "--model", MODEL, "--sample", "3", "--quiet",
                     "--out", str(out)]) == 4
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "nothing was written (no item was answered)" in err and "kept in" not in err
    assert not list((tmp_path / "runs").glob("*.jsonl"))


def test_build_reports_as_json(tmp_path, capsys):
    csv_path = write_synthetic_csv(tmp_path / "small.csv", synthetic_rows(n=SMALL_SPEC.rows, test=12, seed=3))
    (tmp_path / "runs").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        real = cibuzzbench_dataset.load_dataset
        patch.setattr(cibuzzbench_dataset, "load_dataset", lambda path, spec=None: real(path, SMALL_SPEC))
        patch.setenv("CIBUZZBENCH_CSV", str(csv_path))
        args = ["build", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "site"), "--json"]
        assert main(args) == 0
        first = json.loads(capsys.readouterr().out)
        assert main(args) == 0
        again = json.loads(capsys.readouterr().out)
    assert first["skipped"] is False and first["runs"] == 0 and first["files"] > 10 and first["facts"] > 100
    assert again["skipped"] is True and again["out"] == str(tmp_path / "site")


def test_probe_json_gives_the_same_figures(small_env, tmp_path, capsys):
    runs = tmp_path / "runs"
    with _server() as server:
        _probe_pair(server.url, runs, sample="30")
        capsys.readouterr()
        args = ["probe", "--base-url", server.url, "--model", MODEL, "--sample", "30", "--quiet", "--json",
                "--condition", "blind", "--out", str(runs / "{run_id}.jsonl")]
        assert main(args) == 0  # already complete: nothing asked, the figures again
    (line,) = capsys.readouterr().out.splitlines()
    result = json.loads(line)
    assert result["run_id"] == f"{MODEL}-t2-blind-en-s1111-n30-r0" and result["complete"] and result["asked"] == 0
    score, (gap,) = result["score"], result["gaps"]
    assert score["items"] == 30 and score["accuracy"]["low"] <= score["accuracy"]["value"] <= score["accuracy"]["high"]
    assert gap["sighted"] == f"{MODEL}-t2-sighted-en-s1111-n30-r0" and set(gap["macro_f1"]) == {"value", "low", "high"}


def test_data_fetch_suggests_the_closest_spec_name(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("BUZZPROBE_SKIP_BENCHMARKS", raising=False)  # conftest leaves the shipped specs out
    assert main(["data", "fetch", "--benchmark", "truthfulqa"]) == 2
    err = capsys.readouterr().err
    assert "no spec named truthfulqa; did you mean 'truthfulqa-mc1'?" in err and "Specs: " in err


def test_ctrl_c_at_a_terminal_ends_the_audit_workers_at_once(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group, audit workers included. They must
    not take it as one failed audit and go on to the next, nor the build wait for them as it
    leaves: it ends them and exits 130 within seconds, leaving no process behind. Cold cache and
    one worker for two specs, so that the worker, had it taken the signal, would go on from
    MMLU-Pro's audit to MMLU's (14,042 items, many seconds) while the main process reads the
    committed runs in workers of its own."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from tests.conftest import SHIPPED_SPECS
    from tests.shared_builds import shared_copy
    env = {**os.environ, "CIBUZZBENCH_CSV": str(write_synthetic_csv(tmp_path / "data.csv")),
           "BUZZPROBE_CACHE": str(tmp_path / "cache"), "BUZZPROBE_WORKERS": "1",
           "BUZZPROBE_DATA_MMLU_PRO": str(shared_copy("mmlu-pro", "BUZZPROBE_DATA_MMLU_PRO")),
           "BUZZPROBE_DATA_MMLU": str(shared_copy("mmlu", "BUZZPROBE_DATA_MMLU")),
           "BUZZPROBE_SKIP_BENCHMARKS": ",".join(s for s in SHIPPED_SPECS if s not in ("mmlu-pro", "mmlu"))}
    child = subprocess.Popen([sys.executable, "-m", "builder.cli", "build", "--out", str(tmp_path / "site"), "--force"],
                             cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert child.stderr.readline().startswith("build: reading ")  # the audits have started
    time.sleep(2)
    os.killpg(child.pid, signal.SIGINT)  # as a terminal sends it: to every process of the job
    sent = time.monotonic()
    _, err = child.communicate(timeout=300)
    waited = time.monotonic() - sent
    assert (child.returncode, err.splitlines()[-1]) == (130, "buzzprobe: interrupted"), err
    assert waited < 8, f"the build took {waited:.1f} s to leave after Ctrl-C"
    with pytest.raises(ProcessLookupError):
        os.killpg(child.pid, 0)  # no worker of the group is left
    assert not (tmp_path / "site").exists()
