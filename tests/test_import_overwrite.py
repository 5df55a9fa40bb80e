"""Importers never replace a run silently (issue 25, item 6): every importer goes through
builder.runs.overwrite.check_overwrite; `export` refuses any buzzprobe checkout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from builder.cli import main
from builder.core.errors import InputError
from builder.runs.overwrite import check_overwrite
from builder.runs.reader import read_run
from tests.test_import_official import do_import, t2_path, t2_rows, write_csv
from tests.test_interop import _blind, fake_lm_eval, protocols  # noqa: F401 - a fixture
from tests.test_mouse_cli import FIXTURES

REPO = Path(__file__).resolve().parents[1]


def test_official_reimport_same_is_untouched_different_is_refused_force_replaces(tmp_path, synthetic_dataset):
    d = synthetic_dataset
    root, out = tmp_path / "results", tmp_path / "runs"
    rows = t2_rows(d, 1111, d.row_ids("test"))
    write_csv(t2_path(root, 1111), rows)
    (path,) = do_import(root, d, out)
    before = path.read_bytes()
    assert do_import(root, d, out) == [path] and path.read_bytes() == before  # same answers: left alone
    for row in rows[3:10]:
        row["raw_response"] = row["prediction"] = next(x for x in "ABCD" if x != row["prediction"])
    write_csv(t2_path(root, 1111), rows)
    with pytest.raises(InputError) as caught:
        do_import(root, d, out)
    (problem,) = caught.value.problems
    assert problem.path == str(path) and "--force" in problem.message
    assert f"answers differ for 7 item(s): {rows[3]['row_id']}, " in problem.message and " …" in problem.message
    assert path.read_bytes() == before
    from builder.benchmarks.cibuzzbench.official_import import import_official
    import_official(root, d, model="Gemini-3.1/Flash", out_dir=out, created="2026-12-02T00:00:00Z", force=True)
    assert read_run(path).items[3].prediction == rows[3]["prediction"]


def test_lm_eval_import_refuses_a_different_run_on_the_command_line(synthetic_csv, synthetic_dataset, protocols,
                                                                   tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    task, records = _blind(synthetic_dataset, protocols)
    logs = tmp_path / "out" / "Loop__Model-7B"
    samples = fake_lm_eval(task, records, logs)
    args = ["import", "lm-eval", str(tmp_path / "out"), "--out", str(tmp_path / "runs")]
    assert main(args) == 0
    (written,) = (tmp_path / "runs").glob("*.jsonl")
    assert main(args) == 0 and "unchanged" in capsys.readouterr().out
    samples.write_text(samples.read_text(encoding="utf-8").replace('"resps": [["A"]]', '"resps": [["B"]]', 1),
                       encoding="utf-8")
    before = written.read_bytes()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{written}: a different run is already there (answers differ for 1 item(s)" in err and "--force" in err
    assert written.read_bytes() == before
    assert main([*args, "--force"]) == 0 and written.read_bytes() != before


def test_mouse_import_refuses_a_different_run(tmp_path, capsys):
    outputs = sorted((FIXTURES / "outputs").glob("*.csv"))
    args = ["mouse", "import", *map(str, outputs), "--model", "m", "--out", str(tmp_path / "runs")]
    assert main([*args, "--temperature", "0"]) == 0
    assert main([*args, "--temperature", "0"]) == 0 and capsys.readouterr().out.count("unchanged") == 6
    assert main([*args, "--temperature", "0.7"]) == 2
    err = capsys.readouterr().err
    assert err.count("a different run is already there (header subject)") == 6
    assert main([*args, "--temperature", "0.7", "--force"]) == 0


def test_a_file_that_is_not_a_run_is_not_replaced(tmp_path, synthetic_dataset):
    d = synthetic_dataset
    root, out = tmp_path / "results", tmp_path / "runs"
    write_csv(t2_path(root, 1111), t2_rows(d, 1111, d.row_ids("test")))
    (path,) = do_import(root, d, tmp_path / "first")
    run = read_run(path)
    target = out / path.name
    out.mkdir()
    target.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(InputError, match="the existing file is not a readable run"):
        check_overwrite(target, run.header, run.items, run.footer)
    assert check_overwrite(target, run.header, run.items, run.footer, force=True) is False
    shutil.copy(path, target)
    assert check_overwrite(target, run.header, run.items, run.footer) is True


def test_export_refuses_any_checkout_not_only_the_installed_one(synthetic_csv, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    clone = tmp_path / "my-clone"
    clone.mkdir()
    shutil.copy(REPO / "pyproject.toml", clone / "pyproject.toml")
    assert main(["export", "lm-eval", "--out", str(clone / "data" / "exported"), "--arms", "t3"]) == 2
    assert f"a buzzprobe checkout at {clone}" in capsys.readouterr().err
    assert not (clone / "data").exists()
    worktree = tmp_path / "tree"
    subprocess.run(["git", "init", "-q", str(worktree)], check=True)
    (worktree / "builder").mkdir()
    (worktree / "builder" / "cli.py").write_text("", encoding="utf-8")
    assert main(["export", "lm-eval", "--out", str(worktree), "--arms", "t3"]) == 2
    assert main(["export", "lm-eval", "--out", str(tmp_path / "elsewhere"), "--arms", "t3", "--sample", "3"]) == 0


def test_a_run_imported_with_warnings_is_marked_and_left_out_of_aggregates(synthetic_dataset, protocols, tmp_path):
    """Issue 25 item 5: not only its own page says so; the runs table marks it, and the model
    summaries, model-runs table, pairs and the tracker's run measure leave it out."""
    from dataclasses import replace

    from builder.benchmarks.cibuzzbench.compute import compute
    from builder.benchmarks.cibuzzbench.interop.importing import convert
    from builder.interop.lm_eval_log import read_lm_eval
    from builder.benchmarks.cibuzzbench.measures import run_metric_measure
    from builder.benchmarks.cibuzzbench.views.tables import FactCells, model_runs_table, runs_table
    task, records = _blind(synthetic_dataset, protocols)
    clean = convert(read_lm_eval(fake_lm_eval(task, records, tmp_path / "a")), {"original": synthetic_dataset},
                    protocols, "2026-12-01T00:00:00Z")
    parameters = {**clean.header.subject["parameters"], "import_warnings": ["exported with protocol v0"]}
    warned = replace(clean, header=replace(clean.header, run_id=clean.header.run_id + "-w",
                                           subject={**clean.header.subject, "name": "Other/Model",
                                                    "parameters": parameters}))
    assert clean.in_aggregates and not warned.in_aggregates and warned.complete
    computed = compute(synthetic_dataset, [clean, warned])
    assert [m.members[0].run_id for m in computed.models] == [clean.header.run_id]
    evidence = run_metric_measure(computed.scores.values())(task="equivalent_selection", condition="blind")
    assert [e.detail for e in evidence] == [clean.header.run_id]
    cells = FactCells(computed.facts)
    shown = {row[0].text: row[1].text for row in runs_table(cells, computed.scores).rows}
    assert shown[warned.header.run_id] == "Other/Model ⚠ imported with 1 warning"
    assert shown[clean.header.run_id] == clean.header.subject_label
    table = model_runs_table(cells, computed.scores)
    listed = [row[table.columns.index("Run")].text for row in table.rows]
    assert listed == [clean.header.run_id]
