"""No traceback for any input (issue 25, items 7 and 9): hostile numbers, nesting, shapes,
special files and archives met by the spec'd-benchmark loader, the lm-eval, Inspect, official
and Mouse importers; each is a located InputError (exit 2) or read as the data says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
from builder.interop.inspect_log import MAX_MEMBER_BYTES, read_inspect
from builder.interop.lm_eval_log import read_lm_eval
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mouse.table import read_table
from builder.core.errors import InputError
from builder.runs.lines import MAX_ERROR_CHARS
from tests.test_import_official import do_import, t2_path, t2_rows, write_csv
from tests.test_interop import STAMP, _blind, fake_inspect_log, fake_lm_eval, protocols  # noqa: F401 - a fixture
from tests.test_mcq_load import jsonl, write_case

REPO = Path(__file__).resolve().parents[1]
HUGE_INT = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


def refused(call, *fragments: str) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    text = str(caught.value)
    for fragment in fragments:
        assert fragment in text, text
    return caught.value


# ------------------------------------------------------------------ numbers and nesting

@pytest.mark.parametrize("value, fragment", [(HUGE_INT, "5000 digits"), (DEEP, "nested too deeply")],
                         ids=["5000-digit", "100000-deep"])
@pytest.mark.parametrize("shape", ["json", "jsonl"])
def test_spec_data_with_huge_numbers_or_deep_nesting(tmp_path, value, fragment, shape) -> None:
    good = json.dumps({"q": "s", "choices": ["x", "y"], "answer": 0})
    if shape == "json":
        spec = write_case(tmp_path, f'[{good}, {{"q": "s", "choices": ["x", "y"], "answer": {value}}}]',
                          suffix=".json")
    else:
        spec = write_case(tmp_path, f'{good}\n{{"q": "s", "choices": ["x", "y"], "answer": {value}}}\n')
    error = refused(lambda: load_benchmark(spec), fragment)
    if shape == "jsonl":
        assert error.problems[0].line == 2


@pytest.mark.parametrize("value, fragment", [(HUGE_INT, "5000 digits"), (DEEP, "nested too deeply")],
                         ids=["5000-digit", "100000-deep"])
def test_lm_eval_logs_with_huge_numbers_or_deep_nesting(synthetic_dataset, protocols, tmp_path, value,
                                                        fragment) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    samples = fake_lm_eval(task, records, tmp_path)
    lines = samples.read_text(encoding="utf-8").splitlines()
    samples.write_text("\n".join([lines[0], f'{{"doc": {value}}}', *lines[2:]]) + "\n", encoding="utf-8")
    assert refused(lambda: read_lm_eval(samples), fragment).problems[0].line == 2
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = tmp_path / f"results_{STAMP}.json"
    results.write_text(results.read_text(encoding="utf-8").replace('"date": ', f'"junk": {value}, "date": '),
                       encoding="utf-8")
    refused(lambda: read_lm_eval(samples), str(results), fragment)


@pytest.mark.parametrize("use_library", [False, True], ids=["documented-json", "inspect_ai"])
@pytest.mark.parametrize("value", [HUGE_INT, DEEP], ids=["5000-digit", "100000-deep"])
def test_inspect_logs_with_huge_numbers_or_deep_nesting(synthetic_dataset, protocols, tmp_path, value,
                                                        use_library) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    text = json.dumps(fake_inspect_log(task, records))
    path = tmp_path / "log.json"
    path.write_text(text.replace('"samples": [', f'"junk": {value}, "samples": [', 1), encoding="utf-8")
    refused(lambda: read_inspect(path, use_library=use_library), str(path))
    archive = tmp_path / "log.eval"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({"eval": {"task": task.name}}))
        zf.writestr("samples/1_epoch_1.json", f'{{"id": 1, "junk": {value}}}')
    refused(lambda: read_inspect(archive, use_library=False), "samples/1_epoch_1.json")


@pytest.mark.parametrize("value, fragment", [(HUGE_INT, "5000 digits"), (DEEP, "nested too deeply")],
                         ids=["5000-digit", "100000-deep"])
def test_mouse_jsonl_with_huge_numbers_or_deep_nesting(tmp_path, value, fragment) -> None:
    path = tmp_path / "single_choice.jsonl"
    path.write_text(f'{{"id": 1}}\n{{"id": {value}}}\n', encoding="utf-8")
    error = refused(lambda: read_table(path), fragment)
    assert error.problems[0].line == 2


# ------------------------------------------------------------------ shapes and values

@pytest.mark.parametrize("sample", [[1, 2], "text", 7, None], ids=["list", "string", "number", "null"])
def test_an_inspect_sample_that_is_not_an_object(synthetic_dataset, protocols, tmp_path, sample) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records)
    log["samples"][3] = sample
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    refused(lambda: read_inspect(path, use_library=False), "sample 4 is a", "not an object")


def test_inspect_sample_fields_of_the_wrong_type_are_read_as_absent(synthetic_dataset, protocols, tmp_path) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records)
    log["samples"][0].update(metadata=[1], output="x", attachments=[2], epoch=[3])
    log["samples"][1]["input"] = [{"role": "user", "content": [{"text": 5}, {"text": ["x"]}, 7]}, "odd"]
    log["eval"]["packages"] = ["not", "a", "dict"]
    log["eval"]["model_base_url"] = "http://["
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    refused(lambda: read_inspect(path, use_library=False), "epochs")
    log["samples"][0]["epoch"] = 1
    path.write_text(json.dumps(log), encoding="utf-8")
    output = read_inspect(path, use_library=False)
    assert output.endpoint_host == "" and output.samples[0].letter_map is None


@pytest.mark.parametrize("date", [1e20, float("nan"), float("inf"), -5.0, "soon", [1]])
def test_lm_eval_dates_no_calendar_holds(synthetic_dataset, protocols, tmp_path, date) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    samples = fake_lm_eval(task, records, tmp_path)
    results = tmp_path / f"results_{STAMP}.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    data["date"] = date
    results.write_text(json.dumps(data), encoding="utf-8")  # NaN and Infinity as Python writes them
    assert read_lm_eval(samples).created is None  # the import's own time is used


def test_lm_eval_configs_of_the_wrong_type(synthetic_dataset, protocols, tmp_path) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    samples = fake_lm_eval(task, records, tmp_path)
    results = tmp_path / f"results_{STAMP}.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    for configs in ([1], {task.name: {"metadata": [1], "generation_kwargs": "hot"}}):
        data.update(configs=configs, config="x")
        results.write_text(json.dumps(data), encoding="utf-8")
        try:
            read_lm_eval(samples)
        except InputError as exc:
            assert "unknown task" in str(exc)


def test_jsonl_lines_holding_u2028_or_nel_inside_strings_load(tmp_path, synthetic_dataset, protocols) -> None:
    stem = "line\u2028separator, next\x85line, form\x0cfeed, group\x1dsep"
    spec = write_case(tmp_path, json.dumps({"q": stem, "choices": ["x\u2029y", "z"], "answer": 1},
                                           ensure_ascii=False) + "\n")
    (item,) = load_benchmark(spec).items
    assert item.stem == stem and item.choices == ("x\u2029y", "z")
    mouse = tmp_path / "mouse.jsonl"
    mouse.write_text(json.dumps({"id": 1, "text": stem}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_table(mouse).rows[0].cells["text"] == stem
    task, records = _blind(synthetic_dataset, protocols)
    samples = fake_lm_eval(task, records, tmp_path / "lm",
                           edit=lambda i, s: {**s, "resps": [[f"A\u2028{stem}"]]} if i == 0 else s)
    assert read_lm_eval(samples).samples[0].response == f"A\u2028{stem}"


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_and_infinity_are_not_choices(tmp_path, bad) -> None:
    spec = write_case(tmp_path, '{"q": "s", "choices": ["x", %s], "answer": 0}\n' % bad)
    (problem,) = refused(lambda: load_benchmark(spec), "choice B must be text or a finite number").problems
    assert problem.line == 1
    spec = write_case(tmp_path, '{"q": %s, "choices": ["x", "y"], "answer": 0}\n' % bad)
    refused(lambda: load_benchmark(spec), "the text must be text or a finite number")


def test_letter_targets_on_object_choices_follow_the_keys(tmp_path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": {"B": "bee", "A": "ay", "C": "sea"}, "answer": "A"},
                                      {"q": "s", "choices": {"a": "ay", "b": "bee"}, "answer": "b"},
                                      {"q": "s", "choices": ["ay", "bee"], "answer": "B"}))
    assert [(i.choices[i.gold]) for i in load_benchmark(spec).items] == ["ay", "bee", "bee"]
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": {"A": "ay", "B": "bee", "D": "dee"}, "answer": "C"}))
    refused(lambda: load_benchmark(spec), "target 'C' is not one of the choices' keys A, B, D")


# ------------------------------------------------------------------ special files and archives

def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def test_special_files_are_refused_not_read(tmp_path) -> None:
    """A FIFO would block forever and /dev/zero never ends: run in a child with a deadline, so a
    regression fails the test instead of hanging it."""
    fifo_csv, fifo_jsonl = _fifo(tmp_path, "data.csv"), _fifo(tmp_path, "data.jsonl")
    spec = write_case(tmp_path / "", "", suffix=".x")
    spec.write_text(f"name: case\ndataset_path: {fifo_jsonl}\ndoc_to_text: q\ndoc_to_choice: c\n"
                    "doc_to_target: a\n", encoding="utf-8")
    zero_spec = tmp_path / "zero.yaml"
    zero_spec.write_text(spec.read_text(encoding="utf-8").replace(str(fifo_jsonl), "/dev/zero") +
                         "dataset_format: jsonl\n", encoding="utf-8")
    script = f"""
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mouse.table import read_table
from builder.runs.reader import read_run
for call in (lambda: load_dataset("/dev/zero"), lambda: load_dataset({str(fifo_csv)!r}),
             lambda: load_benchmark({str(spec)!r}), lambda: load_benchmark({str(zero_spec)!r}),
             lambda: read_table({str(fifo_jsonl)!r}), lambda: load_dataset({str(tmp_path)!r}),
             lambda: read_run("/dev/zero"), lambda: read_run({str(fifo_jsonl)!r})):
    try:
        call()
    except InputError as exc:
        print(exc.problems[0].message)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 8, done.stdout
    assert [line.split("(")[1].split(")")[0] for line in lines] == ["a device", "a FIFO", "a FIFO",
                                                                    "/proc, /sys, /dev",  # a spec: confined
                                                                    "a FIFO", "a folder", "a device", "a FIFO"]


def test_an_eval_zip_bomb_is_refused_before_it_inflates(synthetic_dataset, protocols, tmp_path) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records)
    archive = tmp_path / "bomb.eval"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        with zf.open("samples/1_epoch_1.json", "w") as member:
            for _ in range(MAX_MEMBER_BYTES // 2**20 + 4):
                member.write(b" " * 2**20)
    assert archive.stat().st_size < 2**20
    for use_library in (False, True):
        refused(lambda: read_inspect(archive, use_library=use_library), "samples/1_epoch_1.json",
                "inflates to", "refused")


def test_an_eval_member_lying_about_its_size_is_cut_while_streaming(synthetic_dataset, protocols, tmp_path) -> None:
    task, records = _blind(synthetic_dataset, protocols)
    log = fake_inspect_log(task, records)
    archive = tmp_path / "liar.eval"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        zf.writestr("samples/1_epoch_1.json", json.dumps(log["samples"][0]) + " " * (MAX_MEMBER_BYTES + 10))
    data = bytearray(archive.read_bytes())
    claimed = (MAX_MEMBER_BYTES + 10 + len(json.dumps(log["samples"][0]))).to_bytes(4, "little")
    small = (1000).to_bytes(4, "little")
    assert data.count(claimed) == 2  # the local header and the central directory say the true size
    archive.write_bytes(bytes(data).replace(claimed, small))
    refused(lambda: read_inspect(archive, use_library=False), "samples/1_epoch_1.json", "damaged", "CRC")


# ------------------------------------------------------------------ imported error texts

def test_imported_error_texts_are_capped(tmp_path, synthetic_dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, d.row_ids("test"))
    rows[2].update(success=False, prediction="", raw_response="", error="upstream said: " + "x" * 120_000)  # under csv's field limit
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    from builder.runs.reader import read_run
    error = read_run(path).items[2].error
    assert error.startswith("upstream said: xxx") and len(error) < MAX_ERROR_CHARS + 60
    assert error.endswith("more characters cut]")
