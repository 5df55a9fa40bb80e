"""Importing official CIBuzzBench evaluation outputs: synthetic official-format folders built
in tmp from the synthetic dataset (gold letters derived from our own official shuffle)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
from builder.benchmarks.cibuzzbench.compute import add_run_facts
from builder.core.facts import FactTable
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, Dataset
from builder.benchmarks.cibuzzbench.dataset.options import LETTERS, OptionSet, option_sets
from builder.core.errors import InputError, Problem
from builder.benchmarks.cibuzzbench.official_import import (
    SOURCE_ALIASES,
    SOURCE_NOTE,
    TASK2_DIR,
    TASK3_DIR,
    import_official,
)
from builder.core.names import slug
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.run_checks import validate_run

CREATED = "2026-12-01T00:00:00Z"
MODEL = "Gemini-3.1/Flash"
OFFICIAL_NAME = {"literal": "distractor_literal", "cultural": "distractor_cultural_mismatch",
                 "pragmatic": "distractor_pragmatic_neighbor", "correct": "correct"}
TRICKY = 'The answer is "B",\nbecause — 答案 B, really\r\n  '
T2_TAIL = ("prompt_hash", "prediction", "raw_response", "reasoning_content", "finish_reason",
           "latency_sec", "usage_json", "response_id", "success", "error", "predicted_letter", "is_correct")


# ---------------------------------------------------------------- building official folders


def dataset_row(dataset: Dataset, row_id: int) -> dict[str, Any]:
    """The dataset columns the official script copies into every output row."""
    key = dataset.content_sha256
    if key not in _ROWS:
        _ROWS[key] = dataset.frame[list(COLUMNS)].to_dict("index")
    return dict(_ROWS[key][row_id])


_ROWS: dict[str, dict[int, dict[str, Any]]] = {}


def official_t2_row(dataset: Dataset, options: OptionSet, letter: str) -> dict[str, Any]:
    """One row as the official script writes it: dataset columns, options, call results."""
    row = dataset_row(dataset, options.row_id)
    row["options_text"] = options.as_prompt_lines()
    row["gold_letter"] = options.gold_letter
    for o in options.options:
        row[f"option_{o.letter}_source"] = OFFICIAL_NAME[o.source]
        row[f"option_{o.letter}_text"] = o.text
    row.update(prompt_hash="abc", prediction=letter, raw_response=f" {letter}.", reasoning_content="",
               finish_reason="stop", latency_sec="0.25", usage_json=json.dumps({"prompt_tokens": 80,
               "completion_tokens": 2, "details": {"cached": 0}}), response_id="r1", success=True,
               error="", predicted_letter=letter, is_correct=letter == options.gold_letter)
    return row


def default_letter(options: OptionSet) -> str:
    """Right on two items in three, the literal distractor otherwise."""
    wanted = "literal" if options.row_id % 3 == 0 else "correct"
    return next(o.letter for o in options.options if o.source == wanted)


def t2_rows(dataset: Dataset, seed: int, ids: list[int] | None = None,
            choose: Callable[[OptionSet], str] = default_letter) -> list[dict[str, Any]]:
    sets = option_sets(dataset, seed)
    return [official_t2_row(dataset, sets[r], choose(sets[r])) for r in (ids if ids is not None else dataset.row_ids())]


def t3_rows(dataset: Dataset, ids: list[int] | None = None) -> list[dict[str, Any]]:
    harm = dataset.column("harmful_label")
    rows = []
    for r in ids if ids is not None else dataset.row_ids():
        row = dataset_row(dataset, r)
        label = "non-harmful" if r % 4 else harm[r]
        row.update(prompt_hash="h", prediction=label, raw_response=label, success=True, error="",
                   predicted_label=label, is_correct=label == harm[r])
        rows.append(row)
    return rows


def write_csv(path: Path, rows: list[dict[str, Any]], columns: list[str] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = columns or list(rows[0])
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def split_ids(dataset: Dataset) -> list[int]:
    """The 600-row test split: a valid selection, five times quicker than all rows."""
    return dataset.row_ids("test")


def line_of(rows: list[dict[str, Any]], index: int) -> int:
    """CSV line on which record `index` starts: options_text and responses span lines."""
    return 2 + index + sum(str(v).count("\n") for row in rows[:index] for v in row.values())


def t2_path(root: Path, seed: int) -> Path:
    return root / TASK2_DIR / f"seed_{seed}" / "predictions.csv"


def t3_path(root: Path) -> Path:
    return root / TASK3_DIR / "predictions.csv"


def do_import(root: Path, dataset: Dataset, out: Path) -> list[Path]:
    return [path for path, _ in import_official(root, dataset, model=MODEL, out_dir=out, created=CREATED)]


def rejected(root: Path, dataset: Dataset, out: Path) -> list[Problem]:
    with pytest.raises(InputError) as info:
        do_import(root, dataset, out)
    assert not out.exists() or not list(out.iterdir()), "nothing may be written when a file is bad"
    return info.value.problems


def read_valid(path: Path, dataset: Dataset) -> Run:
    run = read_run(path)
    validate_run(run, dataset)
    return run


# ---------------------------------------------------------------- good imports


def test_good_import_validates(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root, out = tmp_path / "results", tmp_path / "runs"
    write_csv(t2_path(root, 2222), t2_rows(d, 2222))
    write_csv(t2_path(root, 1111), t2_rows(d, 1111))
    write_csv(t3_path(root), t3_rows(d))
    (root / TASK2_DIR / "metrics_mean_std.json").write_text("{}", encoding="utf-8")  # ignored
    paths = do_import(root, d, out)
    assert [p.name for p in paths] == ["official-gemini-3_1-flash-t2-s1111-all.jsonl",
                                       "official-gemini-3_1-flash-t2-s2222-all.jsonl",
                                       "official-gemini-3_1-flash-t3-all.jsonl"]
    for path, seed in zip(paths, (1111, 2222, None)):
        run = read_valid(path, d)
        h = run.header
        assert (h.condition, h.option_seed, h.items) == ("sighted", seed, {"selection": "all", "n": d.rows})
        assert h.subject == {"kind": "model", "name": MODEL, "parameters": {"source": SOURCE_NOTE}}
        assert h.created == CREATED and h.dataset["content_sha256"] == d.content_sha256
        assert run.footer is not None and run.footer.items == d.rows
    t2 = read_run(paths[0])
    sets = option_sets(d, 1111)
    assert [i.prediction for i in t2.items] == [default_letter(sets[r]) for r in d.row_ids()]
    assert all(i.letter_map == sets[i.row_id].letter_map for i in t2.items)
    assert t2.items[0].latency_ms == 250.0
    assert t2.items[0].usage == {"prompt_tokens": 80, "completion_tokens": 2}  # nested counts dropped
    assert t2.footer is not None and t2.footer.usage_totals["prompt_tokens"] == 80 * d.rows
    score = score_run(t2, d)
    right = sum(r % 3 != 0 for r in d.row_ids())
    assert score.report.accuracy == pytest.approx(100 * right / d.rows)


def test_raw_response_kept_verbatim(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[5]["raw_response"] = TRICKY
    rows[5]["prediction"] = "B"  # what the official parser reads in it
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    assert read_run(path).items[5].response == TRICKY


def test_test_split_selection(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), t2_rows(d, 1111, d.row_ids("test")))
    write_csv(t3_path(root), t3_rows(d, d.row_ids("test")))
    paths = do_import(root, d, tmp_path / "runs")
    for path in paths:
        run = read_valid(path, d)
        assert run.header.items == {"selection": "split", "split": "test", "n": 600}
        assert run.header.run_id.endswith("-test")


def test_partial_selection_without_config_is_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), t2_rows(d, 1111, list(range(50))))  # --max_samples 50, config.json lost
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert problem.path == str(t2_path(root, 1111))
    assert "50 of 3001 rows" in problem.message and "config.json" in problem.message


def official_output(out_dir: Path, dataset: Dataset, *, split: str = "all", max_samples: int = 0,
                    seeds: tuple[int, ...] = (1111,), model: str = "flash", lang: str = "en") -> Path:
    """What `evaluate_api.py --split S --max_samples N --option_seeds ...` leaves on disk:
    <out_dir>/<model>/<lang>/config.json and one predictions file per task and seed, over the
    rows of split S in file order, cut to the first N when N > 0."""
    ids = sorted(dataset.row_ids(None if split == "all" else split))
    ids = ids[:max_samples] if max_samples > 0 else ids
    root = out_dir / model / lang
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps({
        "model": model, "base_url": "http://127.0.0.1:1/v1", "prompt_language": lang, "split": split,
        "tasks": ["equivalent", "harmfulness"], "temperature": 0.0, "top_p": None,
        "option_seeds": list(seeds), "num_examples": len(ids)}, indent=2), encoding="utf-8")
    for seed in seeds:
        write_csv(t2_path(root, seed), t2_rows(dataset, seed, ids))
    write_csv(t3_path(root), t3_rows(dataset, ids))
    return root


@pytest.mark.parametrize("split, tag, header_split", [("all", "first50", None), ("test", "test-first50", "test"),
                                                      ("train", "train-first50", "train")])
def test_max_samples_output_is_imported_as_first_n(tmp_path: Path, synthetic_dataset: Dataset, split: str,
                                                   tag: str, header_split: str | None) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split=split, max_samples=50, seeds=(1111, 2222))
    paths = do_import(root, d, tmp_path / "runs")
    name = slug(MODEL)
    assert [p.name for p in paths] == [f"official-{name}-t2-s1111-{tag}.jsonl", f"official-{name}-t2-s2222-{tag}.jsonl",
                                       f"official-{name}-t3-{tag}.jsonl"]
    expected = sorted(d.row_ids(header_split))[:50]
    for path in paths:
        run = read_valid(path, d)
        want = {"selection": "first", "n": 50, **({"split": header_split} if header_split else {})}
        assert run.header.items == want
        assert run.row_ids == expected
        assert run.header.subject["parameters"]["lang"] == "en"


def test_max_samples_as_large_as_the_split_is_the_split(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split="test", max_samples=5000)
    for path in do_import(root, d, tmp_path / "runs"):
        assert read_valid(path, d).header.items == {"selection": "split", "split": "test", "n": 600}


def test_rows_that_are_not_the_first_n_are_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split="test", max_samples=50)
    first = sorted(d.row_ids("test"))
    rows = t2_rows(d, 1111, first[1:51])  # shifted by one: 50 rows, but not the first 50
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.path, problem.line, problem.field) == (str(t2_path(root, 1111)), line_of(rows, 49), "row_id")
    assert f"row_id {first[50]} is not among the first 50 rows of the test split" in problem.message


def test_row_count_must_match_config(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split="test", max_samples=50)
    write_csv(t3_path(root), t3_rows(d, sorted(d.row_ids("test"))[:40]))  # a truncated file
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert problem.path == str(t3_path(root)) and "40 rows" in problem.message and "num_examples=50" in problem.message


@pytest.mark.parametrize("field, value", [("split", "dev"), ("num_examples", 0), ("num_examples", "50")])
def test_bad_config_is_rejected(tmp_path: Path, synthetic_dataset: Dataset, field: str, value: Any) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split="test", max_samples=50)
    config = json.loads((root / "config.json").read_text(encoding="utf-8"))
    (root / "config.json").write_text(json.dumps({**config, field: value}), encoding="utf-8")
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.path, problem.field) == (str(root / "config.json"), field)


def test_model_folder_names_its_language_folders(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = official_output(tmp_path / "api_eval", d, split="test", max_samples=50)
    (problem,) = rejected(root.parent, d, tmp_path / "runs")
    assert "<model> folder" in problem.message and str(root) in problem.message


def test_failed_rows_are_kept_as_errors(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    for i in (3, 4):
        rows[i].update(prediction="", raw_response="", success=False, predicted_letter="",
                       latency_sec="", usage_json="{}")
    rows[3]["error"] = "HTTP 429: rate limited"
    rows[4]["prediction"] = "A"  # a failed call never has a prediction, whatever the column says
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    run = read_valid(path, d)
    assert len(run.items) == 600
    failed = {i.row_id: i for i in run.items if i.error is not None}
    first, second = rows[3]["row_id"], rows[4]["row_id"]
    assert set(failed) == {first, second}
    assert failed[first].error == "HTTP 429: rate limited" and failed[second].error
    assert all(i.prediction == "" and i.response is None and i.latency_ms is None for i in failed.values())
    assert score_run(run, d).report.unparsed == 2  # both count as wrong answers
    facts = FactTable()
    add_run_facts(facts, score_run(run, d), len(run.items))
    rid = run.header.run_id
    assert (facts[f"run.{rid}.failed"], facts[f"run.{rid}.unparsed"]) == (2, 0)  # failed, not unparsed


def test_unparsed_and_failed_are_counted_apart(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[3].update(prediction="", raw_response="", success=False, error="HTTP 500")
    for i in (7, 8, 9):
        rows[i].update(prediction="", raw_response="I am not sure")
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    facts = FactTable()
    add_run_facts(facts, score_run(read_valid(path, d), d), 50)
    rid = path.stem
    assert (facts[f"run.{rid}.failed"], facts[f"run.{rid}.unparsed"]) == (1, 3)


def test_task3_import(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t3_rows(d)
    rows[7].update(prediction="", raw_response="I cannot say", predicted_label="")
    root = tmp_path / "results"
    write_csv(t3_path(root), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    run = read_valid(path, d)
    assert run.header.task == "harmfulness_detection" and run.header.option_seed is None
    assert run.items[7].prediction == "" and run.items[7].response == "I cannot say"
    assert all(i.letter_map is None for i in run.items)
    harm = d.column("harmful_label")
    assert [i.prediction for i in run.items][:4] == [harm[0], "non-harmful", "non-harmful", "non-harmful"]


def test_task3_gold_label_column_is_checked(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t3_rows(d)
    harm = d.column("harmful_label")
    for r in rows:
        r["gold_label"] = harm[r["row_id"]]
    rows[9]["gold_label"] = "harmful" if harm[9] == "non-harmful" else "non-harmful"
    root = tmp_path / "results"
    write_csv(t3_path(root), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.line, problem.field) == (11, "gold_label")


def test_config_parameters_and_language(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = tmp_path / "results"
    write_csv(t3_path(root), t3_rows(d))
    (root / "config.json").write_text(json.dumps({"model": "x", "prompt_language": "zh", "temperature": 0.4,
                                                  "top_p": None, "split": "all"}), encoding="utf-8")
    (path,) = do_import(root, d, tmp_path / "runs")
    run = read_valid(path, d)
    assert run.header.run_id == "official-gemini-3_1-flash-zh-t3-all"
    assert run.header.subject["parameters"] == {"source": SOURCE_NOTE, "lang": "zh",
                                                "temperature": 0.4, "top_p": None}


@pytest.mark.parametrize("spelling", ["ours", "columns", "upper"])
def test_source_spellings_accepted(tmp_path: Path, synthetic_dataset: Dataset, spelling: str) -> None:
    d = synthetic_dataset
    names = {"ours": {s: s for s in OFFICIAL_NAME},
             "columns": {"literal": "distractor_literal_en", "cultural": "distractor_cultural_mismatch_en",
                         "pragmatic": "distractor_pragmatic_neighbor_en", "correct": "gold"},
             "upper": {s: OFFICIAL_NAME[s].upper() for s in OFFICIAL_NAME}}[spelling]
    rows = t2_rows(d, 1111, split_ids(d))
    sets = option_sets(d, 1111)
    for row in rows:
        for letter in LETTERS:
            row[f"option_{letter}_source"] = names[sets[row["row_id"]].letter_map[letter]]
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    read_valid(path, d)


def test_alias_table_maps_onto_our_sources() -> None:
    assert set(SOURCE_ALIASES.values()) == {"literal", "cultural", "pragmatic", "correct"}
    assert all(SOURCE_ALIASES[v] == k for k, v in OFFICIAL_NAME.items())


def test_extra_columns_are_ignored(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    for row in rows:
        row["something_new"] = "whatever"
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, tmp_path / "runs")
    read_valid(path, d)


# ---------------------------------------------------------------- rejections


def test_wrong_gold_letter_names_file_line_field(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[2]["raw_response"] = rows[2]["prediction"] + "\nextra\nlines"  # row 10's record starts 2 lines later
    gold = rows[10]["gold_letter"]
    rows[10]["gold_letter"] = next(letter for letter in LETTERS if letter != gold)
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert problem.path == str(t2_path(root, 1111))
    assert (problem.line, problem.field) == (line_of(rows, 10), "gold_letter")
    assert problem.line == 2 + 10 * 4 + 2  # 4 lines per record (options_text), +2 from row 2
    assert "seed 1111" in problem.message and repr(gold) in problem.message


def test_gold_letters_of_another_seed_are_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), t2_rows(d, 2222))  # files swapped between seed folders
    problems = rejected(root, d, tmp_path / "runs")
    assert {p.field for p in problems} >= {"gold_letter", "option_A_source"}
    assert len(problems) > 1000  # every mismatch is reported, not just the first


def test_wrong_source_map_is_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[4]["option_B_source"], rows[4]["option_C_source"] = rows[4]["option_C_source"], rows[4]["option_B_source"]
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    problems = rejected(root, d, tmp_path / "runs")
    line = line_of(rows, 4)
    assert {(p.line, p.field) for p in problems} == {(line, "option_B_source"), (line, "option_C_source")}


def test_unknown_source_spelling_is_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[0]["option_D_source"] = "decoy"
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.line, problem.field) == (2, "option_D_source") and "unknown option source" in problem.message


@pytest.mark.parametrize("value", ["3001", "-1", "x", ""])
def test_unknown_row_id_is_rejected(tmp_path: Path, synthetic_dataset: Dataset, value: str) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows.append({**rows[0], "row_id": value})
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.line, problem.field) == (line_of(rows, 600), "row_id")


def test_duplicate_row_id_is_rejected(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows.append(dict(rows[7]))
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.line, problem.field) == (line_of(rows, 600), "row_id") and "duplicate" in problem.message


@pytest.mark.parametrize("column", ["gold_letter", "option_C_source", "success", "raw_response", "row_id"])
def test_missing_column_is_rejected(tmp_path: Path, synthetic_dataset: Dataset, column: str) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, d.row_ids("test"))
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows, [c for c in rows[0] if c != column])
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.path, problem.line, problem.field) == (str(t2_path(root, 1111)), 1, column)


def test_task3_needs_no_option_columns(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    rows = t3_rows(d)
    root = tmp_path / "results"
    write_csv(t3_path(root), rows, ["row_id", "prediction", "raw_response", "success", "error"])
    (path,) = do_import(root, d, tmp_path / "runs")
    read_valid(path, d)


@pytest.mark.parametrize("field, value", [("prediction", "E"), ("prediction", "b"), ("success", "maybe"),
                                          ("latency_sec", "fast"), ("usage_json", "{bad"),
                                          ("term_zh", "别的词")])
def test_bad_cell_is_rejected(tmp_path: Path, synthetic_dataset: Dataset, field: str, value: str) -> None:
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[20][field] = value
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert (problem.line, problem.field) == (line_of(rows, 20), field)


def test_one_bad_file_blocks_every_write(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), t2_rows(d, 1111, split_ids(d)))
    bad = t3_rows(d, split_ids(d))
    bad[0]["prediction"] = "toxic"
    write_csv(t3_path(root), bad)
    (problem,) = rejected(root, d, tmp_path / "runs")
    assert problem.path == str(t3_path(root)) and problem.field == "prediction"


def test_layout_problems(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    d = synthetic_dataset
    out = tmp_path / "runs"
    assert "does not exist" in rejected(tmp_path / "missing", d, out)[0].message
    (tmp_path / "empty").mkdir()
    assert "no task2_equivalent_selection" in rejected(tmp_path / "empty", d, out)[0].message
    (tmp_path / "odd" / TASK2_DIR / "seed_x").mkdir(parents=True)
    assert "seed_<integer>" in rejected(tmp_path / "odd", d, out)[0].message
    (tmp_path / "nofile" / TASK2_DIR / "seed_1111").mkdir(parents=True)
    assert "no predictions.csv" in rejected(tmp_path / "nofile", d, out)[0].message
    write_csv(t3_path(tmp_path / "header-only"), [], ["row_id", "prediction", "raw_response", "success", "error"])
    assert "no rows" in rejected(tmp_path / "header-only", d, out)[0].message


def test_model_name_must_give_a_run_id(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    assert slug("GPT-5.5 (2026/09)") == "gpt-5_5-2026-09"
    assert slug("//").startswith("m-")  # nothing usable left: a short hash of the name, never a path
    with pytest.raises(InputError, match="cannot be empty"):
        import_official(tmp_path, synthetic_dataset, model=" ", out_dir=tmp_path / "runs", created=CREATED)


def test_a_prediction_the_raw_response_does_not_support_is_refused(tmp_path: Path, synthetic_dataset: Dataset) -> None:
    """Issue 25 item 5: the raw response is re-parsed with the official parser."""
    d = synthetic_dataset
    rows = t2_rows(d, 1111, split_ids(d))
    rows[4].update(raw_response="I am not sure.", prediction=rows[4]["gold_letter"])
    rows[6].update(raw_response="Definitely C.", prediction="A" if rows[6]["prediction"] != "A" else "B")
    root = tmp_path / "results"
    write_csv(t2_path(root, 1111), rows)
    first, second = rejected(root, d, tmp_path / "runs")
    assert (first.line, first.field) == (line_of(rows, 4), "prediction")
    assert f"prediction {rows[4]['gold_letter']!r} is not what the official parser reads in raw_response ('', " \
           "from 'I am not sure.')" in first.message
    assert "('C', from 'Definitely C.')" in second.message
    t3 = t3_rows(d, d.row_ids("test"))
    t3[0].update(raw_response="No idea", prediction="harmful")
    write_csv(t3_path(tmp_path / "t3"), t3)
    (problem,) = rejected(tmp_path / "t3", d, tmp_path / "runs3")
    assert "reads in raw_response ('', from 'No idea')" in problem.message
