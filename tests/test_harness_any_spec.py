"""Any spec'd benchmark both ways through the real harnesses (lm-evaluation-harness 0.4.13,
inspect-ai 0.3.285, the `interop` extra; a failure in CI, skipped locally without them):

- `export lm-eval|inspect --benchmark NAME` writes the spec's sighted and blind tasks; the
  harness runs them against the loopback server; `import lm-eval|inspect` gives back the runs
  `buzzprobe probe --benchmark NAME` makes against the same server, item by item;
- a task buzzprobe did not write (an lm-eval `multiple_choice` task run by its `dummy` model, an
  Inspect `multiple_choice()` task run by `mockllm`, its default `.eval` log) is mapped onto the
  spec with `--benchmark NAME`, by id or by question text, and an unmatched item is a located error;
- without inspect_ai, a zstd `.eval` log is refused with the install and the convert command, and
  that convert command (with its required --output-dir) gives a log the import reads.

All data is SYNTHETIC (tests/test_mcq_probe.py's spec); everything is written to tmp.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.interop.inspect_log import read_inspect
from builder.cli import main
from builder.core.errors import InputError
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer, Request
from tests.test_interop_roundtrip import LM_EVAL_OWN_TASKS, harness_env, imported_and_probed, need, run_tool
from tests.test_mcq_probe import ITEMS, KEY_ENV, NAME, answer, make_project, project, synthetic_records  # noqa: F401 (fixture)

MODEL = "loop-model"
TAG = "synthetic_probe_buzzprobe"


@pytest.fixture()
def env(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The project as the working folder; the harnesses kept off any network."""
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    return harness_env(tmp_path)


def probed(server: LoopbackServer, out: Path) -> dict[str, Path]:
    """What `buzzprobe probe --benchmark` writes for both arms, by run id."""
    for condition in ("sighted", "blind"):
        assert main(["probe", "--benchmark", NAME, "--condition", condition, "--model", MODEL, "--base-url",
                     server.url, "--api-key-env", KEY_ENV, "--quiet", "--out", str(out / "{run_id}.jsonl")]) == 0
    return {p.stem: p for p in out.glob("*.jsonl")}


def assert_same_runs(imported: Path, probes: dict[str, Path], harness: str) -> None:
    runs = sorted(imported.rglob("*.jsonl"))
    assert len(runs) == 2
    for path in runs:
        run, twin = imported_and_probed(path, probes, harness)
        assert len(run.items) == ITEMS
        for a, b in zip(run.items, twin.items):
            assert (a.row_id, a.id, a.letter_map, a.response, a.prediction, a.error) == \
                   (b.row_id, b.id, b.letter_map, b.response, b.prediction, b.error)
    blind = next(read_run(p) for p in runs if "-blind-" in p.name)
    assert len({i.prediction for i in blind.items}) > 1  # answers vary, so equality means something


def assert_same_requests(harness: list[Request], probe: list[Request]) -> None:
    """The harness sent exactly the messages the probe sent (one user message, no system)."""
    key = lambda r: json.dumps(r.body["messages"], ensure_ascii=False)  # noqa: E731
    assert len(harness) == len(probe) == 2 * ITEMS
    assert sorted(map(key, harness)) == sorted(map(key, probe))
    assert [m["role"] for m in harness[0].body["messages"]] == ["user"]


def test_a_spec_round_trips_through_lm_eval(env: dict[str, str], project: Path, tmp_path: Path) -> None:
    need("lm_eval")
    tasks = tmp_path / "tasks"
    assert main(["export", "lm-eval", "--benchmark", NAME, "--out", str(tasks)]) == 0
    assert sorted(p.name for p in tasks.glob("*.yaml")) == ["synthetic_probe_blind_s1111_all.yaml",
                                                           "synthetic_probe_sighted_s1111_all.yaml"]
    blind_items = (tasks / "synthetic_probe_blind_s1111_all.jsonl").read_text(encoding="utf-8")
    assert "Synthetic question" not in blind_items  # the blind task never holds the question
    with LoopbackServer(answer) as server:
        run_tool([*LM_EVAL_OWN_TASKS, "run", "--model", "local-chat-completions",
                  "--model_args", f"model={MODEL},base_url={server.url}/chat/completions,num_concurrent=4",
                  "--tasks", TAG, "--include_path", str(tasks), "--apply_chat_template",
                  "--log_samples", "--output_path", str(tmp_path / "lm-out")], env, tmp_path)
        harness = list(server.requests)
        assert main(["import", "lm-eval", str(tmp_path / "lm-out"), "--out", str(tmp_path / "imported")]) == 0
        assert_same_runs(tmp_path / "imported", probed(server, tmp_path / "probe"), "lm-eval")
        assert_same_requests(harness, server.requests[len(harness):])


@dataclass(frozen=True)
class InspectRun:
    tasks: Path  # what `export inspect --benchmark NAME` wrote (both conditions)
    logs: Path  # the two .eval logs (sighted, blind) of the exported tasks
    requests: list[Request]  # what Inspect sent the loopback server


@pytest.fixture(scope="module")
def inspect_run(tmp_path_factory: pytest.TempPathFactory) -> InspectRun:
    """`inspect eval` of the exported tasks against the loopback server, once: Inspect's start-up is
    most of each test's time, and both tests below only read its logs and requests."""
    need("inspect_ai")
    root = tmp_path_factory.mktemp("inspect-run")
    tasks = root / "tasks"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(make_project(root / "project"))
        assert main(["export", "inspect", "--benchmark", NAME, "--out", str(tasks)]) == 0
    assert (tasks / "synthetic_probe_tasks.py").is_file()
    with LoopbackServer(answer) as server:
        run_tool([sys.executable, "-m", "inspect_ai", "eval", "synthetic_probe_tasks.py",
                  "--model", f"openai-api/loopback/{MODEL}", "--model-base-url", server.url,
                  "--display", "none"], harness_env(root), tasks)  # Inspect's default log format: .eval
    return InspectRun(tasks, root / "logs", list(server.requests))


def test_a_spec_round_trips_through_inspect_eval_logs(env: dict[str, str], project: Path, tmp_path: Path,
                                                      inspect_run: InspectRun) -> None:
    logs = sorted(inspect_run.logs.glob("*.eval"))
    assert len(logs) == 2
    assert main(["import", "inspect", str(inspect_run.logs), "--out", str(tmp_path / "imported")]) == 0
    with LoopbackServer(answer) as server:
        assert_same_runs(tmp_path / "imported", probed(server, tmp_path / "probe"), "inspect")
        assert_same_requests(inspect_run.requests, server.requests)


# A task buzzprobe did not write: the synthetic items as an ordinary lm-eval multiple_choice task.
LM_EVAL_TASK = """task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{stem}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
- metric: acc
"""


def _plain_records() -> dict[str, list[dict]]:
    """The two ordinary tasks' items: `plain_mc`, every item with half of them matched by their
    question text alone (no id); `unmatched_mc`, four items, the third one the spec does not have."""
    mapped = synthetic_records()
    for record in mapped[::2]:
        del record["id"]
    unmatched = synthetic_records()[:4]
    unmatched[2] = {**unmatched[2], "id": "q999", "stem": "A question the spec does not have?"}
    return {"plain_mc": mapped, "unmatched_mc": unmatched}


@pytest.fixture(scope="module")
def plain_samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """lm-eval's own `dummy` model (random log-likelihoods) over both ordinary tasks in one run (a
    run's start-up is most of its 10 s): a real samples file per task, read by the tests below."""
    need("lm_eval")
    root = tmp_path_factory.mktemp("plain-lm-eval")
    env = harness_env(root)
    folder = root / "plain"
    folder.mkdir()
    for task, records in _plain_records().items():
        (folder / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        (folder / f"{task}.yaml").write_text(LM_EVAL_TASK.format(task=task, data=folder / f"{task}.jsonl"),
                                             encoding="utf-8")
    run_tool([*LM_EVAL_OWN_TASKS, "run", "--model", "dummy", "--tasks", "plain_mc,unmatched_mc",
              "--include_path", str(folder), "--log_samples", "--output_path", str(root / "plain-out")], env, root)
    found = {}
    for task in ("plain_mc", "unmatched_mc"):
        (found[task],) = (root / "plain-out").rglob(f"samples_{task}_*.jsonl")
    return found


def test_an_ordinary_lm_eval_task_is_mapped_onto_the_spec(env: dict[str, str], project: Path, tmp_path: Path,
                                                          plain_samples: dict[str, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    samples = plain_samples["plain_mc"]
    before = ["import", "lm-eval", str(samples), "--out", str(tmp_path / "imported")]
    assert main(before) == 2  # bad input, without --benchmark: an unknown task, and what to do
    assert "carries no buzzprobe export metadata" in capsys.readouterr().err
    assert main([*before, "--benchmark", NAME, "--model", "dummy-lm"]) == 0
    assert "mapped onto synthetic-probe: 30 of 30 items; 0 differ" in capsys.readouterr().out
    (path,) = (tmp_path / "imported").rglob("*.jsonl")
    run = read_run(path)
    assert run.header.run_id == f"lm-eval-dummy-lm-{NAME}-plain_mc" and run.complete
    assert run.header.subject["parameters"]["source"].startswith("lm-eval 0.4")
    logged = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    expected = {}
    for line in logged:  # the option with the highest log-likelihood, in the data's own order
        scores = [float(pair[0]) for pair in line["filtered_resps"]]
        expected[f"q{line['doc_id'] + 1}"] = "ABCD"[scores.index(max(scores))]
        assert (expected[f"q{line['doc_id'] + 1}"] == "ABCD"[int(line["target"])]) == (line["acc"] == 1.0)
    assert {i.id: i.prediction for i in run.items} == expected
    assert all(i.letter_map == {"A": 0, "B": 1, "C": 2, "D": 3} for i in run.items)


def test_an_item_no_spec_item_matches_is_a_located_error(env: dict[str, str], project: Path, tmp_path: Path,
                                                         plain_samples: dict[str, Path],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    samples = plain_samples["unmatched_mc"]
    assert main(["import", "lm-eval", str(samples), "--benchmark", NAME, "--out", str(tmp_path / "imported")]) == 2
    err = capsys.readouterr().err
    assert f"{samples}:3 [doc]: no item of synthetic-probe has its id ('q999') or its question " in err
    assert not (tmp_path / "imported").exists()


INSPECT_SCRIPT = """
import json, sys
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

spec = json.loads(sys.argv[1])
samples = [Sample(id=s["id"], input=s["input"], choices=s["choices"], target=s["target"]) for s in spec["samples"]]
usage = ModelUsage(input_tokens=9, output_tokens=2, total_tokens=11)  # else mockllm counts with a download
outputs = [ModelOutput.from_content(model="mockllm/model", content=text).model_copy(update={"usage": usage})
           for text in spec["outputs"]]
task = Task(name="plain_mc", dataset=MemoryDataset(samples), solver=multiple_choice(), scorer=choice())
inspect_eval(task, model=get_model("mockllm/model", custom_outputs=outputs), log_dir=spec["logs"], display="none")
"""


def test_an_ordinary_inspect_eval_log_is_mapped_onto_the_spec(env: dict[str, str], project: Path,
                                                              tmp_path: Path) -> None:
    """Inspect shows the options in its own order here; the answer is read by the option's text."""
    need("inspect_ai")
    rng = random.Random(7)
    samples, outputs, chosen = [], [], {}
    for n, record in enumerate(synthetic_records(), start=1):
        shown = list(record["choices"])
        rng.shuffle(shown)
        letter = "ABCD"[rng.randrange(4)]
        chosen[record["id"]] = shown["ABCD".index(letter)]
        gold = "ABCD"[shown.index(record["choices"][record["answer"]])]
        ident = record["id"] if n % 2 else f"other-{n}"  # half matched by the question text alone
        samples.append({"id": ident, "input": record["stem"], "choices": shown, "target": gold})
        outputs.append(f"ANSWER: {letter}")
    spec = {"samples": samples, "outputs": outputs, "logs": str(tmp_path / "plain-logs")}
    run_tool([sys.executable, "-c", INSPECT_SCRIPT, json.dumps(spec)], env, tmp_path)
    (log,) = (tmp_path / "plain-logs").glob("*.eval")  # the default format: zstd members
    assert main(["import", "inspect", str(log), "--benchmark", NAME, "--out", str(tmp_path / "imported")]) == 0
    (path,) = (tmp_path / "imported").rglob("*.jsonl")
    run = read_run(path)
    by_id = {r["id"]: r for r in synthetic_records()}
    assert run.complete and run.header.subject_name == "model"
    for item in run.items:  # the letter now names the option in the data's own order
        assert by_id[item.id]["choices"][item.letter_map[item.prediction]] == chosen[item.id]


def test_a_zstd_eval_log_without_inspect_ai_names_the_install_and_the_convert_command(
        env: dict[str, str], tmp_path: Path, inspect_run: InspectRun) -> None:
    blind = tmp_path / "tasks"  # the blind arm alone: the very task whose log the shared run wrote
    assert main(["export", "inspect", "--benchmark", NAME, "--condition", "blind", "--out", str(blind)]) == 0
    items = "synthetic_probe_blind_s1111_all.jsonl"
    assert sorted(p.name for p in blind.iterdir()) == [items, "synthetic_probe_tasks.py"]
    assert (blind / items).read_bytes() == (inspect_run.tasks / items).read_bytes()
    (log,) = inspect_run.logs.glob("*_synthetic-probe-blind-s1111-all_*.eval")
    with pytest.raises(InputError) as caught:
        read_inspect(log, use_library=False)
    message = caught.value.problems[0].message
    assert "pip install 'buzzprobe[interop]'" in message
    command = f"inspect log convert --to json --output-dir DIR {log.name}"
    assert command in message
    converted = tmp_path / "converted"
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "log", "convert", "--to", "json", "--output-dir",
                           str(converted), log.name], cwd=log.parent, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    json_log = converted / f"{log.stem}.json"
    output = read_inspect(json_log, use_library=False)
    assert output.task_name == "synthetic_probe_blind_s1111_all" and len(output.samples) == ITEMS
