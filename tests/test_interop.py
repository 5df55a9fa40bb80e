"""Export to and import from lm-evaluation-harness and Inspect, without the libraries: outputs
are written here in their documented formats (tests/test_interop_roundtrip.py runs the real
harnesses). Everything is synthetic and written to tmp."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import yaml

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.cli import main
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec, load_dataset
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.interop.export import ExportRequest, export_inspect, export_lm_eval, plan_exports
from builder.benchmarks.cibuzzbench.interop.importing import convert
from builder.interop.harness import write_imported
from builder.interop.inspect_log import read_inspect
from builder.interop.lm_eval_log import read_lm_eval
from builder.benchmarks.cibuzzbench.prompts import prompt_builder
from builder.benchmarks.cibuzzbench.prompts import load_protocols
from builder.runs.selection import Selection
from builder.runs.reader import read_run
from tests.synthetic import synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
STAMP = "2026-11-30T12-00-00.000001"
CREATED = "2026-11-30T12:00:00Z"
ARMS = ("t2-sighted", "t2-blind", "t3")


@pytest.fixture(scope="module")
def protocols():
    return load_protocols()


def _tasks(dataset, protocols, selection=Selection("sample", None, 40, 3), arms=ARMS, seeds=(1111,)):
    return plan_exports(ExportRequest(arms, "en", seeds, "original", selection), protocols, dataset)


def answer(messages: list[dict]) -> str:
    """A deterministic mix of answers: letters, a bracketed letter, prose and labels."""
    text = messages[-1]["content"]
    pick = sum(map(ord, text)) % 6
    if "Options:" in text:
        return ["A", "B", " (C)", "D.", "I cannot tell", "d"][pick]
    return ["harmful", "non-harmful", "Non-harmful.", "unsure", "harmful", "safe"][pick]


def fake_lm_eval(task, records: list[dict], out: Path, *, edit=None) -> Path:
    """What `lm-eval run ... --log_samples` writes for one task (0.4.13's layout)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for doc_id, doc in enumerate(records):
        messages = [{"role": "system", "content": doc["system"]}, {"role": "user", "content": doc["user"]}]
        sample = {"doc_id": doc_id, "doc": dict(doc), "target": doc["target"],
                  "arguments": {"gen_args_0": {"arg_0": json.dumps(messages, ensure_ascii=False),
                                               "arg_1": {"until": [], "max_gen_toks": 8, "temperature": 0.0}}},
                  "resps": [[answer(messages)]], "filtered_resps": [answer(messages)], "filter": "none"}
        if edit:
            sample = edit(doc_id, sample)
        if sample is not None:
            lines.append(json.dumps(sample, ensure_ascii=False))
    path = out / f"samples_{task.name}_{STAMP}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = {"configs": {task.name: {"task": task.name, "metadata": {"version": 1, "buzzprobe": task.metadata()}}},
               "config": {"model": "local-chat-completions",
                          "model_args": "model=Loop/Model-7B,base_url=http://127.0.0.1:9/v1/chat/completions"},
               "lm_eval_version": "0.4.13", "date": 1796040000.5}
    (out / f"results_{STAMP}.json").write_text(json.dumps(results), encoding="utf-8")
    return path


def test_export_lm_eval_writes_exact_protocol_messages(synthetic_dataset, protocols, tmp_path):
    tasks = _tasks(synthetic_dataset, protocols)
    written = export_lm_eval(tasks, synthetic_dataset, tmp_path)
    assert [t.name for t in tasks] == ["cibuzzbench_t2_sighted_en_s1111_n40_r3", "cibuzzbench_t2_blind_en_s1111_n40_r3",
                                       "cibuzzbench_t3_sighted_en_n40_r3"]
    assert len(written) == 6
    for task in tasks:
        config = yaml.safe_load((tmp_path / f"{task.name}.yaml").read_text(encoding="utf-8"))
        assert config["task"] == task.name and config["output_type"] == "generate_until"
        assert config["generation_kwargs"]["until"] == [] and config["generation_kwargs"]["max_gen_toks"] == 8
        assert config["metadata"]["buzzprobe"]["prompt_sha256"] == task.protocol.sha256
        items = Path(config["dataset_kwargs"]["data_files"]["test"])
        assert items.parent == tmp_path.resolve()
        records = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
        build_prompt = prompt_builder(synthetic_dataset, task.protocol, task.seed)
        assert [r["row_id"] for r in records] == task.selection.row_ids(synthetic_dataset)
        for record in records:
            prompt = build_prompt(record["row_id"])
            assert [record["system"], record["user"]] == [m["content"] for m in prompt.messages]
            assert record.get("letter_map") == prompt.letter_map
    blind = tmp_path / "cibuzzbench_t2_blind_en_s1111_n40_r3.jsonl"
    assert "合成词" not in blind.read_text(encoding="utf-8")  # the blind arm never shows the term


def test_export_inspect_writes_a_task_per_export(synthetic_dataset, protocols, tmp_path):
    tasks = _tasks(synthetic_dataset, protocols, seeds=(1111, 2222))
    export_inspect(tasks, synthetic_dataset, tmp_path)
    source = (tmp_path / "cibuzzbench_tasks.py").read_text(encoding="utf-8")
    compile(source, "cibuzzbench_tasks.py", "exec")
    for task in tasks:
        assert f"@task\ndef {task.name}() -> Task:" in source
        assert (tmp_path / f"{task.name}.jsonl").is_file()
    assert len(tasks) == 5  # two seeds for each Task 2 arm, one Task 3


def test_export_cli_refuses_the_repository_and_names_unused_protocols(synthetic_csv, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    assert main(["export", "lm-eval", "--out", str(REPO / "exported")]) == 2
    assert not (REPO / "exported").exists()
    assert "must not go into the repository" in capsys.readouterr().err
    assert main(["export", "inspect", "--out", str(tmp_path), "--arms", "t3", "--protocol", "t2-blind-en"]) == 2
    assert "t2-blind-en serve none of the exported arms" in capsys.readouterr().err
    assert main(["export", "inspect", "--out", str(tmp_path), "--arms", "t2-blind", "--protocol", "t2-blind-en",
                 "--sample", "5"]) == 0
    assert (tmp_path / "cibuzzbench_t2_blind_en_s1111_n5_r0_t2_blind_en.jsonl").is_file()


def _import_lm_eval(dataset, protocols, task, path):
    return convert(read_lm_eval(path), {"original": dataset}, protocols, "2026-12-01T00:00:00Z")


def test_lm_eval_import_reparses_with_the_official_parser(synthetic_dataset, protocols, tmp_path):
    for task in _tasks(synthetic_dataset, protocols):
        records = task.records(synthetic_dataset)
        run = _import_lm_eval(synthetic_dataset, protocols, task, fake_lm_eval(task, records, tmp_path / task.name))
        build_prompt = prompt_builder(synthetic_dataset, task.protocol, task.seed)
        assert [i.row_id for i in run.items] == [r["row_id"] for r in records]
        for item in run.items:
            prompt = build_prompt(item.row_id)
            assert item.response == answer(prompt.messages)
            assert item.prediction == prompt.parse(item.response)
            assert item.letter_map == prompt.letter_map
        h = run.header
        assert h.run_id == f"lm-eval-loop-model-7b-{task.name.split('_', 1)[1].replace('_', '-')}"
        assert h.subject["name"] == "Loop/Model-7B" and h.created == "2026-11-30T12:00:00Z"
        assert h.subject["parameters"]["endpoint_host"] == "127.0.0.1"
        assert h.subject["parameters"]["prompt_sha256"] == task.protocol.sha256
        assert "import_warnings" not in h.subject["parameters"]
        assert h.items == {"selection": "sample", "n": 40, "sample_seed": 3}
    predictions = {i.prediction for i in run.items}
    assert "" in predictions and len(predictions) > 2  # the mix really exercises the parser


def _blind(dataset, protocols):
    task = _tasks(dataset, protocols, arms=("t2-blind",))[0]
    return task, task.records(dataset)


def test_unknown_task_is_refused(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)
    path = fake_lm_eval(task, records, tmp_path)
    results = tmp_path / f"results_{STAMP}.json"
    data = json.loads(results.read_text())
    del data["configs"][task.name]["metadata"]["buzzprobe"]
    results.write_text(json.dumps(data))
    with pytest.raises(InputError, match=f"unknown task '{task.name}': it carries no buzzprobe export metadata"):
        _import_lm_eval(synthetic_dataset, protocols, task, path)


def test_letters_that_disagree_with_the_shuffle_are_located(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)

    def swap(doc_id, sample):
        if doc_id == 4:
            lm = sample["doc"]["letter_map"]
            sample["doc"]["letter_map"] = {"A": lm["B"], "B": lm["A"], "C": lm["C"], "D": lm["D"]}
        return sample
    path = fake_lm_eval(task, records, tmp_path, edit=swap)
    with pytest.raises(InputError) as caught:
        _import_lm_eval(synthetic_dataset, protocols, task, path)
    located = {(p.line, p.field) for p in caught.value.problems}
    assert (5, "doc.letter_map.A") in located and (5, "doc.letter_map.B") in located
    assert all(p.line == 5 for p in caught.value.problems)
    assert "differs from the official shuffle for seed 1111" in str(caught.value)


def test_missing_items_are_refused(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)
    path = fake_lm_eval(task, records, tmp_path, edit=lambda i, s: None if i >= 30 else s)  # like --limit 30
    with pytest.raises(InputError, match=r"10 of the task's 40 items are missing \(row_ids "):
        _import_lm_eval(synthetic_dataset, protocols, task, path)


def test_missing_letter_map_and_bad_row_id_are_located(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)

    def damage(doc_id, sample):
        if doc_id == 0:
            del sample["doc"]["letter_map"]
        if doc_id == 1:
            sample["doc"]["row_id"] = "x"
        return sample
    with pytest.raises(InputError) as caught:
        _import_lm_eval(synthetic_dataset, protocols, task, fake_lm_eval(task, records, tmp_path, edit=damage))
    located = {(p.line, p.field) for p in caught.value.problems}
    assert {(1, "doc.letter_map"), (2, "doc.row_id")} <= located


def test_other_prompt_hash_or_text_is_a_warning_recorded_in_the_run(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)
    path = fake_lm_eval(task, records, tmp_path)
    results = tmp_path / f"results_{STAMP}.json"
    data = json.loads(results.read_text())
    data["configs"][task.name]["metadata"]["buzzprobe"]["prompt_sha256"] = "0" * 64
    results.write_text(json.dumps(data))

    def reword(doc_id, sample):
        if doc_id == 2:
            sample["arguments"]["gen_args_0"]["arg_0"] = sample["arguments"]["gen_args_0"]["arg_0"].replace(
                "Answer with only", "Reply with only")
        return sample
    fake_lm_eval(task, records, tmp_path, edit=reword)
    results.write_text(json.dumps(data))
    run = _import_lm_eval(synthetic_dataset, protocols, task, path)
    warnings = run.header.subject["parameters"]["import_warnings"]
    assert len(warnings) == 2
    assert "prompt sha256 000000000000…" in warnings[0] and "not comparable" in warnings[0]
    assert "the prompt sent for 1 item(s) differs" in warnings[1] and f"row_id {records[2]['row_id']}" in warnings[1]
    written = write_imported(run, str(tmp_path / "runs"))
    assert read_run(written).header.subject["parameters"]["import_warnings"] == warnings


def test_cli_imports_lm_eval_and_keeps_the_official_form(synthetic_csv, synthetic_dataset, protocols, tmp_path,
                                                        monkeypatch, capsys):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    task, records = _blind(synthetic_dataset, protocols)
    fake_lm_eval(task, records, tmp_path / "out" / "Loop__Model-7B")
    assert main(["import", "lm-eval", str(tmp_path / "out"), "--out", str(tmp_path / "runs" / "{model_slug}")]) == 0
    written = tmp_path / "runs" / "loop-model-7b" / "lm-eval-loop-model-7b-t2-blind-en-s1111-n40-r3.jsonl"
    assert len(read_run(written).items) == 40
    assert main(["import", str(tmp_path / "official")]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["import", "mystery", str(tmp_path)]) == 2
    assert "no importer called" in capsys.readouterr().err


# ------------------------------------------------------------------ Inspect, documented format


def fake_inspect_log(task, records: list[dict], *, error_on: int | None = None) -> dict:
    """An Inspect EvalLog as JSON (the fields the import reads, as inspect_ai 0.3.285 writes them)."""
    samples = []
    for index, r in enumerate(records):
        messages = [{"role": "system", "content": r["system"], "source": "input"},
                    {"role": "user", "content": [{"type": "text", "text": r["user"]}], "source": "input"}]
        completion = answer([{"content": r["user"]}])
        sample = {"id": r["row_id"], "epoch": 1, "input": messages, "target": r["target"],
                  "metadata": {k: r[k] for k in ("row_id", "letter_map") if k in r},
                  "output": {"completion": completion, "time": 0.25,
                             "usage": {"input_tokens": 50, "output_tokens": 1, "total_tokens": 51}}}
        if index == error_on:
            sample["error"] = {"message": "RateLimitError: too many requests", "traceback": "..."}
        samples.append(sample)
    return {"version": 2, "status": "success",
            "eval": {"task": task.name, "created": "2026-11-30T12:31:09+00:00", "model": "openai-api/loopback/loopmodel",
                     "model_base_url": "http://127.0.0.1:8080/v1", "metadata": {"buzzprobe": task.metadata()},
                     "packages": {"inspect_ai": "0.3.285"}, "model_generate_config": {"temperature": None}},
            "plan": {"config": {"max_tokens": 8, "temperature": 0.0}}, "samples": samples}


def test_inspect_json_and_eval_logs_read_without_the_library(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records, error_on=3)
    as_json = tmp_path / "log.json"
    as_json.write_text(json.dumps(log), encoding="utf-8")
    as_eval = tmp_path / "log.eval"
    with zipfile.ZipFile(as_eval, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for s in log["samples"]:
            archive.writestr(f"samples/{s['id']}_epoch_1.json", json.dumps(s))
    runs = [convert(read_inspect(p, use_library=False), {"original": synthetic_dataset}, protocols, CREATED)
            for p in (as_json, as_eval)]
    assert runs[0].items == runs[1].items and runs[0].header == runs[1].header
    run = runs[0]
    assert run.header.run_id == "inspect-loopmodel-t2-blind-en-s1111-n40-r3" and run.header.created == "2026-11-30T12:31:09Z"
    errored = run.items[sorted(range(len(records)), key=lambda i: records[i]["row_id"]).index(3)]
    assert errored.error == "RateLimitError: too many requests" and errored.prediction == ""
    ok = [i for i in run.items if i.error is None]
    assert ok[0].usage == {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51} and ok[0].latency_ms == 250.0
    assert "import_warnings" not in run.header.subject["parameters"]  # list-of-parts content is the same text


def test_inspect_log_with_epochs_or_foreign_task_is_refused(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records)
    log["samples"].append({**log["samples"][0], "epoch": 2})
    path = tmp_path / "epochs.json"
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"epochs \[1, 2\]"):
        read_inspect(path, use_library=False)
    log = fake_inspect_log(task, records)
    log["eval"]["task"] = "mmlu"
    log["eval"]["metadata"] = None
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match="unknown task 'mmlu'"):
        convert(read_inspect(path, use_library=False), {"original": synthetic_dataset}, protocols, CREATED)


# ------------------------------------------------------------------ the run page


def test_run_page_shows_import_warnings(protocols, tmp_path):
    spec = DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})
    csv_path = write_synthetic_csv(tmp_path / "small.csv", synthetic_rows(n=60, test=12, seed=3))
    dataset = load_dataset(csv_path, spec)
    task = _tasks(dataset, protocols, selection=Selection("all"), arms=("t3",))[0]
    log = fake_inspect_log(task, task.records(dataset))
    log["eval"]["metadata"]["buzzprobe"]["protocol_version"] = 0
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    run = convert(read_inspect(path, use_library=False), {"original": dataset}, protocols, CREATED)
    write_imported(run, str(tmp_path / "runs"))
    out = tmp_path / "site"
    build(BuildConfig(tmp_path / "runs", REPO / "content", out, options=cibuzzbench_options(csv_path, spec)))
    page = (out / "runs" / f"{run.header.run_id}.html").read_text(encoding="utf-8")
    assert 'id="import-warnings"' in page and "Imported with 1 warning:" in page
    assert "exported with protocol t3-sighted-en v0" in page
    assert "<dt>Imported from</dt><dd>inspect_ai 0.3.285 log</dd>" in page


def test_gold_pool_variant_round_trips_through_the_documented_format(synthetic_dataset, protocols, tmp_path):
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    datasets = {"original": synthetic_dataset, **derive_variants(synthetic_dataset)}
    pool = datasets["gold_pool"]
    task = plan_exports(ExportRequest(("t2-sighted",), "en", (2222,), "gold_pool", Selection("sample", "test", 12, 1)),
                        protocols, pool)[0]
    assert task.name == "cibuzzbench_t2_sighted_en_s2222_test_n12_r1_gold_pool"
    path = fake_lm_eval(task, task.records(pool), tmp_path)
    run = convert(read_lm_eval(path), datasets, protocols, CREATED)
    assert run.header.dataset == {"name": "CIBuzzBench", "variant": "gold_pool", "content_sha256": pool.content_sha256}
    assert run.header.run_id == "lm-eval-loop-model-7b-t2-sighted-en-s2222-test-n12-r1-gold_pool"
    with pytest.raises(InputError, match="exported from different data"):
        convert(read_lm_eval(path), {"original": synthetic_dataset, "gold_pool": synthetic_dataset}, protocols, CREATED)


def test_error_text_never_carries_dataset_text_into_a_run(synthetic_dataset, protocols, tmp_path):
    """Inspect's error message quotes the request; a run file must not copy the prompt."""
    task = _tasks(synthetic_dataset, protocols, arms=("t3",))[0]
    records = task.records(synthetic_dataset)
    log = fake_inspect_log(task, records)
    request = json.dumps({"messages": [{"role": "user", "content": records[0]["user"]}]}, indent=2)  # \\u-escaped
    log["samples"][0]["error"] = {"message": f"ModelGenerateError('\nRequest:\n{request}\n\n"
                                             "BadRequestError('Error code: 400 - bad request')')"}
    term = synthetic_dataset.column("term_zh")[records[1]["row_id"]]
    log["samples"][1]["error"] = {"message": f"upstream refused {term}"}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    run = convert(read_inspect(path, use_library=False), {"original": synthetic_dataset}, protocols, CREATED)
    errors = {i.row_id: i.error for i in run.items if i.error}
    assert errors == {records[0]["row_id"]: "ModelGenerateError: BadRequestError('Error code: 400 - bad request')",
                      records[1]["row_id"]: "request failed (the harness's error text quoted the prompt and is not kept)"}


def test_options_shown_in_another_order_are_refused_not_warned(synthetic_dataset, protocols, tmp_path):
    task, records = _blind(synthetic_dataset, protocols)

    def reorder(doc_id, sample):
        if doc_id == 6:
            args = sample["arguments"]["gen_args_0"]
            messages = json.loads(args["arg_0"])
            block, tail = messages[1]["content"].split("\n\n")  # "Options:\nA. …\nD. …", the instruction
            lines = block.split("\n")
            texts = [line[3:] for line in lines[1:]]
            shown = [f"{letter}. {text}" for letter, text in zip("ABCD", texts[1:] + texts[:1])]
            messages[1]["content"] = "\n\n".join(["\n".join([lines[0], *shown]), tail])
            args["arg_0"] = json.dumps(messages, ensure_ascii=False)
        return sample
    with pytest.raises(InputError) as caught:
        _import_lm_eval(synthetic_dataset, protocols, task, fake_lm_eval(task, records, tmp_path, edit=reorder))
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (7, "arguments.gen_args_0.arg_0")
    assert "not the official shuffle for seed 1111" in problem.message


def test_two_outputs_of_one_task_are_not_imported_over_each_other(synthetic_csv, synthetic_dataset, protocols,
                                                                  tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    task, records = _blind(synthetic_dataset, protocols)
    first = fake_lm_eval(task, records, tmp_path / "out")
    (tmp_path / "out" / "again").mkdir()
    for path in (first, tmp_path / "out" / f"results_{STAMP}.json"):
        (tmp_path / "out" / "again" / path.name).write_bytes(path.read_bytes())
    assert main(["import", "lm-eval", str(tmp_path / "out"), "--out", str(tmp_path / "runs")]) == 2
    assert "gives run lm-eval-loop-model-7b-t2-blind-en-s1111-n40-r3 again" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
