"""Trust round 3, class 2 (issue 34): a spec reads data only inside the repository, its own
folder and the copy the user names (its variable, or `--data`); errors quote a record only as a
short escaped excerpt and never print a secret variable's value; and every CSV reader refuses a
header that repeats a column name.

Every attack runs against a fake key and a fake secret in temporary folders, never a real one;
the attacks on /proc, /dev/zero and FIFOs run the CLI in a child process with a deadline, so a
regression that reads one fails the test instead of hanging it (and /proc/self/environ is the
child's, which holds the fake secret); the others run it in this process (`quick`), with the same
folder, home and secret."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.core.errors import InputError, Problem
from builder.core.redact import excerpt, scrub
from tests.shared_builds import cli_in_process

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"
KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
SECRET = "sk-test-0123456789abcdefSECRET"  # the fake value of OPENAI_API_KEY in every child
BODY = "".join(json.dumps({"q": f"question {n}?", "choices": [f"a{n}", f"bb{n}", f"ccc{n}"], "answer": n % 3}) + "\n"
               for n in range(12))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository-like folder (where buzzprobe runs) with content/benchmarks/ and data/, beside
    a fake home with a fake key and a folder outside both."""
    root = tmp_path / "repo"
    (root / "content" / "benchmarks").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data" / "items.jsonl").write_text(BODY, encoding="utf-8")
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "home" / ".ssh" / "id_rsa").write_text(KEY_TEXT, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "items.jsonl").write_text(BODY, encoding="utf-8")
    return root


def write_spec(repo: Path, location: str, fmt: str = "jsonl", name: str = "leak") -> Path:
    """A spec whose data location (dataset_path, data_dir, dataset_env lines) is `location`."""
    spec = repo / "content" / "benchmarks" / f"{name}.yaml"
    spec.write_text(f"name: {name}\n{location}\ndataset_format: {fmt}\ndoc_to_text: q\ndoc_to_choice: choices\n"
                    "doc_to_target: answer\n", encoding="utf-8")
    return spec


def cli(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`buzzprobe ARGS` run in `repo` with a fake home and a fake API key, at most 60 s."""
    environ = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(repo.parent / "home"), "OPENAI_API_KEY": SECRET,
               **(env or {})}
    return subprocess.run([sys.executable, "-m", "builder.cli", *args], cwd=repo, capture_output=True, text=True,
                          timeout=60, env=environ)


def quick(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`cli` in this process (the same folder, fake home and fake key): for attacks that cannot hang."""
    return cli_in_process(repo, *args, env={"HOME": str(repo.parent / "home"), "OPENAI_API_KEY": SECRET, **(env or {})})


def assert_refused(done: subprocess.CompletedProcess[str], spec: Path, line: int, field: str, why: str) -> None:
    """Exit 2, one located problem naming the spec's line and field, and nothing secret said."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert re.search(rf"{re.escape(str(spec.relative_to(spec.parents[2])))}:{line} \[{field}\]: .*{why}", done.stderr), \
        done.stderr
    assert "PRIVATE KEY" not in done.stderr + done.stdout and "b3BlbnNz" not in done.stderr + done.stdout
    assert SECRET not in done.stderr + done.stdout and "Traceback" not in done.stderr


# ------------------------------------------------------------------ paths out of the confinement

ATTACKS = {
    "home": ("dataset_path: ~/.ssh/id_rsa", "csv", "outside the folders"),
    "absolute": ("dataset_path: {elsewhere}/items.jsonl", "jsonl", "outside the folders"),
    "dot-dot": ("dataset_path: ../../../elsewhere/items.jsonl", "jsonl", "outside the folders"),
    "proc": ("dataset_path: /proc/self/environ", "csv", r"system file \(/proc, /sys, /dev\)"),
    "dev-zero": ("dataset_path: /dev/zero", "jsonl", r"system file \(/proc, /sys, /dev\)"),
    "hidden": ("dataset_path: .env", "csv", "hidden file or folder"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_spec_naming_a_file_outside_its_folders_is_refused_at_its_line(repo: Path, attack: str) -> None:
    location, fmt, why = ATTACKS[attack]
    (repo / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n", encoding="utf-8")
    spec = write_spec(repo, location.format(elsewhere=repo.parent / "elsewhere"), fmt)
    run = cli if attack in ("proc", "dev-zero") else quick  # a system file: in a child with a deadline
    assert_refused(run(repo, "audit", str(spec.relative_to(repo))), spec, 2, "dataset_path", why)


def test_a_symlink_out_of_the_repository_is_refused_named_or_globbed(repo: Path) -> None:
    (repo / "data" / "key.csv").symlink_to(repo.parent / "home" / ".ssh" / "id_rsa")
    spec = write_spec(repo, "dataset_path: data/key.csv", "csv")
    assert_refused(quick(repo, "audit", str(spec)), spec, 2, "dataset_path", "outside the folders")
    spec = write_spec(repo, "dataset_path: data/*.csv", "csv")  # the pattern is inside; its match is not
    assert_refused(quick(repo, "audit", str(spec)), spec, 2, "dataset_path", "outside the folders")


def test_a_fifo_inside_the_repository_is_refused_not_opened(repo: Path) -> None:
    os.mkfifo(repo / "data" / "items.csv")
    spec = write_spec(repo, "dataset_path: data/items.csv", "csv")
    assert_refused(cli(repo, "audit", str(spec)), spec, 2, "dataset_path", r"not a regular file \(a FIFO\)")


def test_data_dir_outside_the_repository_is_refused_before_data_fetch_writes_there(repo: Path) -> None:
    spec = write_spec(repo, f"data_dir: {repo.parent / 'elsewhere'}\ndataset_path: items.jsonl")
    assert_refused(quick(repo, "audit", str(spec)), spec, 2, "data_dir", "outside the folders")
    assert_refused(quick(repo, "data", "fetch", "--benchmark", "leak"), spec, 2, "data_dir", "outside the folders")


def test_a_spec_cannot_choose_which_variable_names_its_copy(repo: Path) -> None:
    """`dataset_env: OPENAI_API_KEY` would make the key's value the data path (and echo it in the
    missing-file error); `HOME` would make the home folder an allowed root."""
    for variable in ("OPENAI_API_KEY", "HOME"):
        spec = write_spec(repo, f"dataset_env: {variable}\ndataset_path: .ssh/id_rsa", "csv")
        assert_refused(quick(repo, "audit", str(spec)), spec, 2, "dataset_env", "buzzprobe's data variables")


# ------------------------------------------------------------------ what the user names is read

def test_a_copy_named_on_the_command_line_or_by_the_variable_is_read(repo: Path) -> None:
    spec = write_spec(repo, "dataset_path: data/absent.jsonl")
    outside = repo.parent / "elsewhere" / "items.jsonl"
    done = quick(repo, "audit", str(spec), "--data", str(outside), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["items"] == 12
    done = quick(repo, "audit", str(spec), "--json", env={"BUZZPROBE_DATA_LEAK": str(outside)})
    assert done.returncode == 0, done.stderr
    folder = write_spec(repo, "data_dir: data/none\ndataset_path: items.jsonl", name="folder")
    done = quick(repo, "audit", str(folder), "--data", str(outside.parent), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["items"] == 12, done.stderr


def test_data_in_the_repository_and_beside_the_spec_is_read(repo: Path, tmp_path: Path) -> None:
    assert quick(repo, "audit", str(write_spec(repo, "dataset_path: data/items.jsonl"))).returncode == 0
    beside = tmp_path / "specs"  # a spec outside the repository reads its own folder
    beside.mkdir()
    (beside / "items.jsonl").write_text(BODY, encoding="utf-8")
    spec = beside / "mine.yaml"
    spec.write_text(f"name: mine\ndataset_path: {beside / 'items.jsonl'}\ndoc_to_text: q\ndoc_to_choice: choices\n"
                    "doc_to_target: answer\n", encoding="utf-8")
    assert quick(repo, "audit", str(spec)).returncode == 0


def test_even_a_named_copy_is_never_a_system_file_or_a_fifo(repo: Path) -> None:
    spec = write_spec(repo, "dataset_path: data/items.jsonl")
    os.mkfifo(repo.parent / "fifo.jsonl")
    for given, why in (("/dev/zero", "system file"), (str(repo.parent / "fifo.jsonl"), "not a regular file")):
        done = cli(repo, "audit", str(spec), "--data", given)
        assert done.returncode == 2 and why in done.stderr and "Traceback" not in done.stderr, done.stderr


# ------------------------------------------------------------------ a build publishes nothing

def test_a_build_with_a_leaking_spec_fails_and_publishes_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.cibuzzbench.build_options import options
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec
    from builder.pipeline import BuildConfig, build
    from tests.synthetic import synthetic_rows, write_synthetic_csv
    csv_path = write_synthetic_csv(repo / "cibuzzbench.csv", synthetic_rows(n=60, test=12, seed=3))
    shutil.rmtree(repo / "content")
    shutil.copytree(REPO / "content", repo / "content")  # the shipped specs are skipped (conftest)
    monkeypatch.setenv("HOME", str(repo.parent / "home"))
    monkeypatch.chdir(repo)
    spec = repo / "content" / "benchmarks" / "leak.yaml"
    spec.write_text("name: leak\ndataset_path: ~/.ssh/id_rsa\ndataset_format: csv\nid: a\ndoc_to_text: a\n"
                    "doc_to_choice: \"{{ [a, a ~ 'x'] }}\"\ndoc_to_target: \"{{ 0 }}\"\n", encoding="utf-8")
    out = repo / "site"
    with pytest.raises(InputError) as caught:
        build(BuildConfig(options=options(csv_path, DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})),
                          runs_dir=repo / "runs", content_dir=repo / "content", out=out, charts=False,
                          cache_dir=repo / "cache", force=True))
    assert [(p.path, p.line, p.field) for p in caught.value.problems] == [(str(spec), 2, "dataset_path")]
    assert "PRIVATE KEY" not in str(caught.value) and not out.exists()


# ------------------------------------------------------------------ what an error may quote

def test_an_error_quotes_a_short_escaped_excerpt_and_never_a_secret_value(repo: Path) -> None:
    """A record holding the API key's value and a long text: the template's error and the
    target's are excerpts, scrubbed of the value, control characters escaped."""
    long = "x\x00" * 5_000
    (repo / "data" / "bad.jsonl").write_text(json.dumps({"q": SECRET, "choices": ["a", "b"], "answer": long}) + "\n"
                                             + json.dumps({"q": "q", "choices": ["a", "b"], "answer": 0}) + "\n",
                                             encoding="utf-8")
    spec = write_spec(repo, "dataset_path: data/bad.jsonl")
    spec.write_text(spec.read_text(encoding="utf-8").replace("doc_to_text: q", "doc_to_text: \"{{ {}[q] }}\""),
                    encoding="utf-8")
    done = quick(repo, "audit", str(spec))
    assert done.returncode == 2
    assert "[record 1, doc_to_text]: template failed" in done.stderr and "<$OPENAI_API_KEY>" in done.stderr
    assert "[record 1, doc_to_target]" not in done.stderr  # one problem per record: the first rule that fails
    assert SECRET not in done.stderr and SECRET[:12] not in done.stderr
    spec.write_text(spec.read_text(encoding="utf-8").replace("\"{{ {}[q] }}\"", "q"), encoding="utf-8")
    done = quick(repo, "audit", str(spec))
    line = next(t for t in done.stderr.splitlines() if "doc_to_target" in t)
    assert "'x\\x00x\\x00" in line and "… (10,000 characters)" in line and len(line) < 400 and "\x00" not in line


def test_excerpt_and_scrub_cut_escape_and_hide(monkeypatch: pytest.MonkeyPatch) -> None:
    environ = {"MY_TOKEN": "tok-123456", "HOME": "/home/me", "PIN_KEY": "12"}
    assert scrub("a tok-123456 b /home/me 12", environ) == "a <$MY_TOKEN> b /home/me 12"
    assert excerpt("a\nb") == "'a\\nb'" and excerpt("y" * 100, 10) == "'yyyyyyyyyy'… (100 characters)"
    monkeypatch.setenv("TEST_SECRET_X", "hunter2-value")
    assert str(Problem("f.csv", "bad hunter2-value")) == "f.csv: bad <$TEST_SECRET_X>"
    assert excerpt("hunter2-value" * 10, 20) == "'<$TEST_SECRET_X><$TE'… (160 characters)"  # scrubbed, then cut
    assert len(str(Problem("f", "z" * 50_000))) < 2_100  # the backstop for any message


# ------------------------------------------------------------------ repeated column names

def _csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _refused(call, path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as caught:
        call()
    found = [p for p in caught.value.problems if "duplicate column" in p.message]
    assert found and found[0].path == str(path) and found[0].line == 1, caught.value


def test_a_mapped_results_csv_with_a_repeated_column_is_refused(tmp_path: Path) -> None:
    """`qid,picked,picked` took the last `picked` (the gold) and published 100%."""
    from tests.test_mcq_import_results import REFERENCE, content_dir, run_import
    content_dir(tmp_path)
    path = _csv(tmp_path / "answers.csv", [["qid", "picked", "picked"]] +
                [[str(r["question_id"]), "A", "ABCD"[r["answer_index"]]] for r in REFERENCE])
    assert run_import(tmp_path, path, fmt="mapped") == 2
    assert not (tmp_path / "runs").exists()


def test_every_csv_reader_refuses_a_repeated_column(tmp_path: Path) -> None:
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, load_dataset
    from builder.benchmarks.cibuzzbench.official_import import _read_rows
    from builder.benchmarks.mcq.load import load_benchmark
    from builder.benchmarks.mcq.results.sources import read_source
    from builder.benchmarks.mouse.reported import _read_csv
    from builder.benchmarks.mouse.table import read_table
    from builder.core.textfiles import csv_records
    path = _csv(tmp_path / "dup.csv", [["q", "a", " a"], ["x", "1", "2"]])
    _refused(lambda: csv_records(path, path.read_text(encoding="utf-8")), path)
    _refused(lambda: read_source(path, "mapped"), path)
    _refused(lambda: read_table(path), path)
    _refused(lambda: _read_rows(path, ("q",)), path)
    problems: list[Problem] = []
    _read_csv(path, "q", ("a",), 0.0, 1.0, problems)
    assert problems and "duplicate column" in problems[0].message and problems[0].line == 1
    cib = _csv(tmp_path / "cib.csv", [[*COLUMNS, "split"], ["0"] * (len(COLUMNS) + 1)])
    _refused(lambda: load_dataset(cib), cib)
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: dup\ndataset_path: {path}\ndoc_to_text: q\ndoc_to_choice: [a, a]\ndoc_to_target: a\n",
                    encoding="utf-8")
    _refused(lambda: load_benchmark(spec), path)


def test_every_csv_reader_in_builder_goes_through_the_check() -> None:
    """A new `csv.reader` over an input file must refuse repeated names too: each module that makes
    one calls repeated_columns (textfiles.csv_records does, for every reader built on it)."""
    for module in sorted((REPO / "builder").rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        if re.search(r"csv\.(reader|DictReader)\(|read_csv\(", text):
            assert "repeated_columns(" in text, module


def test_a_reported_table_outside_its_folder_is_refused_without_quoting_it(tmp_path: Path) -> None:
    """content/mouse/reported.yaml names each table's file: a path out of the folder (or a symlink
    out) is refused at its `file` line, and a wrong header is quoted as an excerpt only."""
    from builder.benchmarks.mouse.reported import load_reported
    folder = tmp_path / "mouse"
    shutil.copytree(REPO / "content" / "mouse", folder)
    (tmp_path / "id_rsa").write_text(KEY_TEXT, encoding="utf-8")
    meta = folder / "reported.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace("file: reported_table3_main.csv", "file: ../id_rsa"),
                    encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_reported(folder)
    assert [(p.line, p.field) for p in caught.value.problems] == [(17, "tables.main.file")]
    assert "outside the folders" in str(caught.value) and "PRIVATE KEY" not in str(caught.value)
    (folder / "reported_table4_mcc.csv").write_text("x" * 500 + ",y\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_reported(folder)
    assert "'xxxxx" in str(caught.value) and "… (502 characters)" in str(caught.value)
