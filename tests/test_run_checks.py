"""A run is checked against what its own header declares, through `buzzprobe build`: the
items are exactly the declared selection (recomputed), the footer agrees with the items, Task 3
has no blind arm, generation settings are finite numbers, a header-only run is a located error.
A run in progress shows as "n of N" and stays out of headline figures, pairs and the tracker;
a pair whose arms were run with different settings is flagged in facts and on the pages."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.benchmarks.cibuzzbench.analyses.paired import setting_differences
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset, load_dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.core.errors import InputError
from builder.pipeline import BuildConfig, load_stage
from tests.shared_builds import cli_here
from tests.test_build import CONTENT, SMALL_SPEC, inputs, small_build, tree  # noqa: F401 (inputs: a fixture)

SAMPLE = {"selection": "sample", "n": 40, "sample_seed": 0}


def header(dataset: Dataset, rid: str, *, task: str = "equivalent_selection", condition: str = "sighted",
           items: dict[str, Any] | None = None, params: Any = None, kind: str = "model",
           name: str = "check-model") -> dict[str, Any]:
    return {"type": "header", "schema": "buzzprobe.run/1", "run_id": rid, "benchmark": "cibuzzbench",
            "task": task, "condition": condition,
            "subject": {"kind": kind, "name": name,
                        "parameters": {"temperature": 0, "max_tokens": 8} if params is None else params},
            "option_seed": 1111 if task == "equivalent_selection" else None, "items": items or SAMPLE,
            "dataset": {"name": "CIBuzzBench", "variant": "original", "content_sha256": dataset.content_sha256},
            "created": "2026-12-01T00:00:00Z", "tool": {"name": "buzzprobe", "version": "0.1.0"}}


def sample_ids(dataset: Dataset, n: int = 40, seed: int = 0) -> list[int]:
    """The recomputation the reader must do: sorted(Random(seed).sample(sorted row_ids, n))."""
    return sorted(random.Random(seed).sample(sorted(dataset.row_ids()), n))


def item(dataset: Dataset, row_id: int, *, task: str = "equivalent_selection", right: bool = True,
         **extra: Any) -> dict[str, Any]:
    if task != "equivalent_selection":
        return {"type": "item", "row_id": row_id, "prediction": "non-harmful", **extra}
    options = option_sets(dataset, 1111)[row_id]
    letter = options.gold_letter if right else next(x for x in "ABCD" if x != options.gold_letter)
    return {"type": "item", "row_id": row_id, "letter_map": dict(options.letter_map), "prediction": letter, **extra}


def footer(n: int, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {"type": "footer", "items": n, "finished": "2026-12-01T00:05:00Z", "usage_totals": usage or {}}


def write(folder: Path, name: str, records: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def finished(dataset: Dataset, rid: str, ids: list[int] | None = None, **head: Any) -> list[dict[str, Any]]:
    ids = sample_ids(dataset) if ids is None else ids
    task = head.get("task", "equivalent_selection")
    return [header(dataset, rid, **head)] + [item(dataset, r, task=task) for r in ids] + [footer(len(ids))]


def _params(**changes: Any) -> dict[str, Any]:
    return {"temperature": 0, "max_tokens": 8, **changes}


# Each case: the records of one bad run, and what the build's message must contain.
BAD_RUNS = {
    "items are not the declared seeded sample": (
        lambda d: [header(d, "x")] + [item(d, r) for r in sample_ids(d, seed=1)] + [footer(40)],
        [":1 [items]", "outside its declared selection", '"sample_seed": 0']),
    "footer over a partial selection": (
        lambda d: [header(d, "x")] + [item(d, r) for r in sample_ids(d)[:10]] + [footer(10)],
        [":12 [type]", "30 of the 40 declared items are missing"]),
    "footer token totals disagree with the items": (
        lambda d: [header(d, "x")] + [item(d, r, usage={"prompt_tokens": 10}) for r in sample_ids(d)]
        + [footer(40, {"prompt_tokens": 999999})],
        [":42 [usage_totals]", "999999", "'prompt_tokens': 400"]),
    "task 3 run with a blind condition": (
        lambda d: finished(d, "x", task="harmfulness_detection", condition="blind"),
        [":1 [condition]", "no blind condition"]),
    "temperature NaN": (
        lambda d: finished(d, "x", params=_params(temperature=float("nan"))),
        [":1 [subject.parameters.temperature]", "nan is not a finite number"]),
    "top_p Infinity": (
        lambda d: finished(d, "x", params=_params(top_p=float("inf"))),
        [":1 [subject.parameters.top_p]", "not a finite number"]),
    "max_tokens negative": (
        lambda d: finished(d, "x", params=_params(max_tokens=-5)),
        [":1 [subject.parameters.max_tokens]", "-5 is not an integer >= 1"]),
    "temperature a string": (
        lambda d: finished(d, "x", params=_params(temperature="hot")),
        [":1 [subject.parameters.temperature]", "'hot' is not a number"]),
    "parameters not an object": (
        lambda d: finished(d, "x", params=[1, 2]),
        [":1 [subject.parameters]", "expected an object"]),
    "header only (a probe stopped before its first answer)": (
        lambda d: [header(d, "x")],
        [":1 [items]", "no items yet", "resume it"]),
    "header n disagrees with the selection": (
        lambda d: finished(d, "x", ids=d.row_ids("test"), items={"selection": "split", "split": "test", "n": 5}),
        [":1 [items.n]", "header declares n=5", "holds 600 items"]),
    "impossible sample size": (
        lambda d: [header(d, "x", items={"selection": "sample", "n": 0, "sample_seed": 0}), item(d, 1)],
        [":1 [items.n]", "sample size 0 must be between 1 and 3001"]),
    "condition probe with a model subject": (
        lambda d: finished(d, "x", condition="probe"),
        [":1 [condition]", "does not fit subject kind 'model'"]),
    "latency NaN and a token count that is text": (
        lambda d: [header(d, "x")] + [item(d, r, latency_ms=float("nan"), usage={"prompt_tokens": "many"})
                                      for r in sample_ids(d)] + [footer(40)],
        [":2 [latency_ms]", ":2 [usage.prompt_tokens]", "'many'"]),
    "selection all naming a split": (
        lambda d: finished(d, "x", ids=d.row_ids("test"), items={"selection": "all", "split": "test", "n": 600}),
        [":1 [items.split]", "selection 'all' takes no split"]),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_build_refuses_a_run_its_header_does_not_describe(inputs: Path, synthetic_dataset: Dataset,
                                                          case: str) -> None:
    """The build's load stage (pipeline.load_stage) refuses it with its location; the command
    line's exit code and the kept site are test_build's (test_bad_input_fails_the_cli_build...)."""
    records, expected = BAD_RUNS[case]
    path = write(inputs / "runs" / "model", "bad", records(synthetic_dataset))
    with pytest.raises(InputError) as info:
        load_stage(BuildConfig(inputs / "runs", CONTENT, inputs / "site", options=cibuzzbench_options(inputs / "data.csv")))
    message = str(info.value)
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in: {message}"
    assert f"{path.relative_to(inputs)}:" in message


def test_build_accepts_a_run_in_progress_and_a_recomputed_sample(project: Path, synthetic_dataset: Dataset) -> None:
    ids = sample_ids(synthetic_dataset)
    write(project / "runs" / "model", "done", finished(synthetic_dataset, "check-done"))
    write(project / "runs" / "model", "partial",
          [header(synthetic_dataset, "check-partial", condition="blind")] + [item(synthetic_dataset, r) for r in ids[:15]])
    result = cli_here(project, "build")  # in this process: the CLI's own exit codes are test_build's
    assert result.returncode == 0, result.stderr
    facts = json.loads((project / "site" / "facts.json").read_text())
    assert (facts["run.check-done.n"], facts["run.check-done.selected"], facts["run.check-done.complete"]) == (40, 40, 1)
    assert (facts["run.check-partial.n"], facts["run.check-partial.selected"], facts["run.check-partial.complete"]) == (15, 40, 0)
    assert not any(k.startswith("pair.") for k in facts)  # the only possible pair has an arm in progress


# ---------------------------------------------------------------- display (in-process builds)


@pytest.fixture()
def small_dataset(small_inputs: tuple[Path, Path]) -> Dataset:
    return load_dataset(small_inputs[0], SMALL_SPEC)


def _runs_with(small_inputs: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    csv_path, runs = small_inputs
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    return csv_path, copy


def test_run_in_progress_shows_n_of_n_and_stays_out_of_pairs_models_and_tracker(
        small_inputs: tuple[Path, Path], small_dataset: Dataset, tmp_path: Path) -> None:
    csv_path, runs = _runs_with(small_inputs, tmp_path)
    ids = sample_ids(small_dataset, 20)
    items = {"selection": "sample", "n": 20, "sample_seed": 0}
    write(runs / "model", "sighted", finished(small_dataset, "prog-sighted", ids, items=items, name="prog-model"))
    write(runs / "model", "blind", [header(small_dataset, "prog-blind", condition="blind", items=items, name="prog-model")]
          + [item(small_dataset, r, right=False) for r in ids[:7]])
    out = tmp_path / "site"
    small_build((csv_path, runs), out)
    facts = json.loads((out / "facts.json").read_text())
    assert facts["run.prog-blind.complete"] == 0 and facts["run.prog-blind.selected"] == 20
    assert not any("prog-blind" in k for k in facts if k.startswith("pair."))
    assert any(k.startswith("pair.synthetic-demo") for k in facts)  # complete pairs are still there
    all_runs = (out / "runs.html").read_text()  # every benchmark's runs: its coverage column says so
    assert "<td>in progress" in all_runs.split('href="runs/prog-blind.html"')[1].split("</tr>")[0]
    runs_html = (out / "cibuzzbench-runs.html").read_text()  # CIBuzzBench's own detailed table
    row = runs_html.split('href="runs/prog-blind.html"')[1].split("</tr>")[0]
    assert ">7 of 20</td>" in row
    assert "7 of 20" in (out / "tables" / "runs.csv").read_text()
    page = (out / "runs" / "prog-blind.html").read_text()
    assert "no: 7 of 20 items" in page and ">7 of 20</td>" in page
    models = (out / "models.html").read_text()
    pairs = models.split('id="model-pair-summaries"', 1)[1].split("</figure>", 1)[0]
    assert "prog-model" in models and "prog-model" not in pairs  # summarised, but paired with nothing
    blind_rows = [r for r in models.split("<tr>") if 'href="runs/prog-blind.html"' in r]
    assert any("<td>7 of 20</td>" in r for r in blind_rows)  # its CIBuzzBench model row says it is partial
    tracker = (out / "tracker.html").read_text()
    total = len(list(runs.rglob("*.jsonl")))
    assert f"from the {total - 1} complete run(s) (1 still in progress left out)" in tracker


def test_pair_whose_settings_differ_is_flagged_in_facts_and_pages(
        small_inputs: tuple[Path, Path], small_dataset: Dataset, tmp_path: Path) -> None:
    csv_path, runs = _runs_with(small_inputs, tmp_path)
    ids = sample_ids(small_dataset, 20)
    items = {"selection": "sample", "n": 20, "sample_seed": 0}
    sighted = {"temperature": 0, "max_tokens": 8, "protocol": "t2-sighted-en", "protocol_version": 1,
               "prompt_sha256": "a" * 64}
    blind = {"temperature": 0.7, "max_tokens": 8, "protocol": "t2-blind-en", "protocol_version": 1,
             "prompt_sha256": "b" * 64}
    write(runs / "model", "s", finished(small_dataset, "mix-sighted", ids, items=items, name="mix", params=sighted))
    write(runs / "model", "b", finished(small_dataset, "mix-blind", ids, items=items, name="mix", params=blind,
                                        condition="blind"))
    # Another prompt version is another protocol: those arms are never paired (issue 33).
    write(runs / "model", "s2", finished(small_dataset, "v2-sighted", ids, items=items, name="v2", params=sighted))
    write(runs / "model", "b2", finished(small_dataset, "v2-blind", ids, items=items, name="v2", condition="blind",
                                         params={**blind, "temperature": 0, "protocol_version": 2}))
    out = tmp_path / "site"
    small_build((csv_path, runs), out)
    facts = json.loads((out / "facts.json").read_text())
    provenance = json.loads((out / "provenance.json").read_text())
    pid = "pair.mix-blind__vs__mix-sighted"
    assert facts[f"{pid}.settings_differ"] == 1
    assert facts[f"{pid}.differs.temperature"] == 1
    assert f"{pid}.differs.max_tokens" not in facts and f"{pid}.differs.prompt" not in facts
    how = provenance[f"{pid}.settings_differ"]["computation"]
    assert "temperature a 0.7, b 0" in how
    assert not any(k.startswith("pair.v2-") for k in facts)
    assert facts["pair.synthetic-demo-t2-blind-s1111-all__vs__synthetic-demo-t2-sighted-s1111-all.settings_differ"] == 0
    models = (out / "models.html").read_text()
    assert "mix †" in models and "temperature a 0.7, b 0" in models
    article = (out / "article.html").read_text()
    assert "Caution:" in article and "temperature a 0.7, b 0" in article


def test_setting_differences_compare_protocol_families_not_prompt_text(tmp_path: Path, small_dataset: Dataset) -> None:
    ids = sample_ids(small_dataset, 5)
    items = {"selection": "sample", "n": 5, "sample_seed": 0}
    official = {"temperature": 0, "max_tokens": 8, "protocol": "t2-sighted-en", "protocol_version": 1, "prompt_sha256": "a"}
    blind_same = {**official, "protocol": "t2-blind-en", "prompt_sha256": "b"}
    imported = {"temperature": 0.0, "lang": "en"}

    def run(name: str, params: dict[str, Any], condition: str) -> Any:
        return read_run(write(tmp_path, name, finished(small_dataset, name, ids, items=items, params=params,
                                                   condition=condition)))

    sighted = run("s", official, "sighted")
    assert setting_differences(run("b", blind_same, "blind"), sighted) == ()
    diffs = {d.setting: (d.a, d.b) for d in setting_differences(run("b2", blind_same, "blind"), run("i", imported, "sighted"))}
    assert diffs == {"max_tokens": ("8", "not recorded"), "prompt": ("t2-blind-en v1", "not recorded")}


def test_import_refuses_config_settings_that_are_not_numbers(tmp_path: Path, synthetic_csv: Path,
                                                             synthetic_dataset: Dataset,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`buzzprobe import` names config.json and the key (the run would otherwise carry NaN)."""
    from builder.cli import main
    folder = tmp_path / "results" / "task3_harmfulness_detection"
    folder.mkdir(parents=True)
    rows = "".join(f"{r},non-harmful,non-harmful,true,\n" for r in synthetic_dataset.row_ids("test"))
    (folder / "predictions.csv").write_text("row_id,prediction,raw_response,success,error\n" + rows)
    (tmp_path / "results" / "config.json").write_text('{"temperature": NaN, "top_p": "high"}')
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
        code = main(["import", str(tmp_path / "results"), "--model", "m", "--out", str(tmp_path / "runs")])
    assert code == 2 and not (tmp_path / "runs").exists()
    err = capsys.readouterr().err
    assert "config.json [temperature]: nan is not a finite number" in err
    assert "config.json [top_p]: 'high' is not a number >= 0 and <= 1" in err
