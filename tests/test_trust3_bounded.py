"""Issue 34, classes 3 and 6: every file is read within caps (regular files only, bytes,
inflated bytes, lines, line length, time), downloads within the pinned size and a deadline,
JSON Lines split on `\\n` only, and every error path of `import results` and `export` located.

Bombs are made at small scale with the caps lowered (monkeypatch), so each test is fast; the
full-size measurements are bench/bombs_bench.py's. Data is synthetic (tests/fixtures/mcq).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from builder.core import textfiles
from builder.core.errors import InputError
from builder.runs.reader import read_run
from tests.test_mcq_import_results import REFERENCE, RUN, content_dir, outputs, run_import, zipped

REPO = Path(__file__).resolve().parents[1]


def refused(call, *fragments: str) -> str:
    with pytest.raises(InputError) as caught:
        call()
    text = str(caught.value)
    for fragment in fragments:
        assert fragment in text, text
    return text


def import_refused(tmp_path: Path, capsys, path: Path, *fragments: str, fmt: str = "mmlu-pro") -> str:
    """`import results` exits 2 with a located message holding `fragments` (never a traceback)."""
    content_dir(tmp_path)
    assert run_import(tmp_path, path, fmt=fmt) == 2
    err = capsys.readouterr().err
    for fragment in fragments:
        assert fragment in err, err
    return err


# ------------------------------------------------------------------ runs: gzip, blank lines, long lines

def test_a_gzip_run_of_newlines_is_refused_while_it_inflates(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_LINES", 1000)
    monkeypatch.setattr(textfiles, "CHUNK_BYTES", 4096)
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * 10_000_000, 9))  # 10 MB inflated from 10 KB
    inflated = []
    real = textfiles.drain

    def spy(*args, **kwargs):
        data = real(*args, **kwargs)
        inflated.append(len(data))
        return data
    monkeypatch.setattr(textfiles, "drain", spy)
    refused(lambda: read_run(path), f"{path}:1001", "more than 1,000 lines")
    assert inflated == [path.stat().st_size]  # the file was read; its stream never was whole


def test_a_gzip_run_inflating_past_the_byte_cap_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_INPUT_BYTES", 100_000)
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(b" " * 1_000_000))
    refused(lambda: read_run(path), str(path), "larger than 100,000 bytes")


def test_a_plain_run_of_blank_lines_is_refused_before_it_is_split(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_LINES", 1000)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * 5000)
    refused(lambda: read_run(path), f"{path}:1001", "more than 1,000 lines")


def test_a_line_longer_than_the_cap_is_refused_with_its_number(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_LINE_CHARS", 100)
    path = tmp_path / "long.jsonl"
    path.write_text('{"type": "header"}\n' + '"' + "x" * 200 + '"\n', encoding="utf-8")
    refused(lambda: read_run(path), f"{path}:2", "line longer than 100 characters")


def test_a_run_of_many_bad_lines_stops_at_the_problem_cap(tmp_path) -> None:
    """Within the line cap a run can still hold millions of bad lines: each would be a problem
    kept in memory (5 million cost 3.6 GB and 85 s); the reader stops listing at the cap."""
    from builder.runs import reader
    path = tmp_path / "ones.jsonl"
    path.write_text('{"type": "header"}\n' + '{"type": "x"}\n' * 5000, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_run(path)
    problems = caught.value.problems
    assert len(problems) == reader.MAX_PROBLEMS + 1
    assert problems[-1].message == f"stopped reading after {reader.MAX_PROBLEMS} problems"


def test_a_damaged_or_truncated_gzip_run_is_located(tmp_path) -> None:
    path = tmp_path / "cut.jsonl.gz"
    whole = gzip.compress(b'{"type": "header"}\n' * 1000)
    path.write_bytes(whole[: len(whole) // 2])
    refused(lambda: read_run(path), f"{path}:", ": not a readable gzip file", "truncated", "breaks off in this line")
    path.write_bytes(whole[:20] + b"\xff" * 40 + whole[60:])
    refused(lambda: read_run(path), f"{path}:", ": not a readable gzip file")


def test_a_gzip_run_of_two_members_reads_as_gzip_does(tmp_path) -> None:
    from builder.core.archives import gunzip
    raw = gzip.compress(b"one\n") + gzip.compress(b"two\n") + b"\0" * 8
    assert gunzip(tmp_path / "x.gz", raw) == gzip.decompress(raw[:-8]) == b"one\ntwo\n"


def test_the_line_cap_counts_lines_not_bytes(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_LINES", 3)
    assert list(textfiles.numbered_lines("f", "a\nb\n\nc")) == [(1, "a"), (2, "b"), (4, "c")]
    refused(lambda: textfiles.numbered_lines("f", "a\nb\nc\nd\n"), "f:4", "more than 3 lines")
    refused(lambda: textfiles.csv_records(Path("f.csv"), "h\n1\n2\n3\n4\n"), "f.csv:4", "more than 3 lines")
    for text, last in (("", 0), ("\n \n", 0), ("a\n \n", 1), ("a\nb \u2028\n\n", 2), ("x" + " \n" * 100_000, 1)):
        assert textfiles.last_line(text) == last  # as numbered_lines counts, however many blank lines follow


# ------------------------------------------------------------------ regular files only, within caps

def _special_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    return {"a FIFO": fifo, "a device": link}


def test_read_input_refuses_a_file_over_its_cap_before_reading(tmp_path, monkeypatch) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1000)
    reads = []
    monkeypatch.setattr(textfiles, "drain", lambda *a, **k: reads.append(a))
    refused(lambda: textfiles.read_input(path, 999), str(path), "larger than 999 bytes")
    assert reads == []


def test_reading_past_the_deadline_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_READ_SECONDS", -1.0)
    path = tmp_path / "slow"
    path.write_bytes(b"x" * 10)
    refused(lambda: textfiles.read_input(path), str(path), "took more than -1 s")


def test_specs_pages_templates_and_cache_entries_that_are_fifos_or_devices(tmp_path) -> None:
    """Run in a child with a deadline: a regression blocks on the FIFO or fills memory from
    /dev/zero, and the test must fail, not hang."""
    specials = _special_files(tmp_path)
    script = f"""
import sys
from pathlib import Path
from builder.core.errors import InputError
from builder.benchmarks.mcq.spec import load_spec
from builder.core.cachefile import read_sealed
from builder.core.fileio import file_sha256
from builder.core.yamlfile import load_yaml
from builder.site.pages import read_page
from builder.site.environment import make_environment
from builder.site.write import STAMP, is_current, read_stamp
site = Path({str(tmp_path / "site")!r})
site.mkdir()
(site / STAMP).symlink_to({str(specials["a FIFO"])!r})
print("stamp", is_current(site, "x"), read_stamp(site))
for path in {[str(p) for p in specials.values()]!r}:
    print("cache", read_sealed(Path(path), "runs"))
    for call in (load_spec, load_yaml, read_page, file_sha256):
        try:
            call(Path(path))
        except InputError as exc:
            print(call.__name__, exc.problems[0].message)
templates = Path({str(tmp_path / "templates")!r})
templates.mkdir()
(templates / "page.html").symlink_to("/dev/zero")
try:
    make_environment(templates)
except InputError as exc:
    print("template", exc.problems[0].path, exc.problems[0].message)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO), "BUZZPROBE_CACHE_SECRET": str(tmp_path / "s")})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "stamp False None", done.stdout
    assert lines.count("cache None") == 2, done.stdout
    for kind in specials:
        for reader in ("load_spec", "load_yaml", "read_page", "file_sha256"):
            assert f"{reader} cannot read: not a regular file ({kind}); give the path of the file itself" in lines
    assert lines[-1].startswith(f"template {tmp_path / 'templates' / 'page.html'} cannot read: not a regular file")


def test_a_run_file_that_is_a_fifo_is_refused_through_the_run_cache(tmp_path) -> None:
    from builder.runs.cache import RunCache
    fifo = _special_files(tmp_path)["a FIFO"]
    refused(lambda: RunCache(None).run(fifo, lambda raw: read_run(fifo, raw)), str(fifo), "a FIFO")


# ------------------------------------------------------------------ import results: bombs and special files

def test_a_results_zip_bomb_is_refused_before_it_inflates(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_INPUT_BYTES", 200_000)
    path = tmp_path / "model_outputs_bomb_5shots.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model_outputs_bomb_5shots.json", "[" + " " * 1_000_000 + "]")
    assert path.stat().st_size < 10_000
    import_refused(tmp_path, capsys, path, f"{path}!model_outputs_bomb_5shots.json", "refused: it inflates to 1,000,002")


def test_a_results_member_lying_about_its_size_is_cut_while_inflating(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_INPUT_BYTES", 200_000)
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("liar.json", "[" + " " * 1_000_000 + "]")
    size = (1_000_002).to_bytes(4, "little")
    data = path.read_bytes()
    assert data.count(size) == 2
    path.write_bytes(data.replace(size, (1000).to_bytes(4, "little")))
    import_refused(tmp_path, capsys, path, f"{path}!liar.json", "damaged")


@pytest.mark.parametrize("kind", ["a FIFO", "a device"])
def test_import_results_refuses_a_fifo_or_dev_zero(tmp_path, capsys, kind) -> None:
    special = _special_files(tmp_path)[kind]
    import_refused(tmp_path, capsys, special, str(special), f"not a regular file ({kind})")


def _zip_with(tmp_path: Path, patch) -> Path:
    path = zipped(tmp_path, outputs(REFERENCE))
    data = bytearray(path.read_bytes())
    patch(data)
    path.write_bytes(bytes(data))
    return path


def _header_offsets(data: bytearray) -> list[tuple[int, int]]:
    """(offset of the flags field, offset of the method field) of the local and central headers."""
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    return [(local + 6, local + 8), (central + 8, central + 10)]


def test_an_encrypted_results_member_is_located(tmp_path, capsys) -> None:
    def encrypt(data: bytearray) -> None:
        for flags, _ in _header_offsets(data):
            data[flags] |= 0x1
    path = _zip_with(tmp_path, encrypt)
    import_refused(tmp_path, capsys, path, f"{path}!model_outputs_synthetic_5shots.json", "encrypted")


@pytest.mark.parametrize("method", [93, 99, 12])  # zstd and AES (zipfile lacks them), bzip2 said of stored bytes
def test_a_results_member_in_an_unreadable_method_is_located(tmp_path, capsys, method) -> None:
    def recompress(data: bytearray) -> None:
        for _, where in _header_offsets(data):
            data[where:where + 2] = method.to_bytes(2, "little")
    path = _zip_with(tmp_path, recompress)
    import_refused(tmp_path, capsys, path, f"{path}!model_outputs_synthetic_5shots.json", "cannot read")


def test_a_corrupt_results_member_is_located(tmp_path, capsys) -> None:
    path = tmp_path / "model_outputs_x_5shots.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model_outputs_x_5shots.json", json.dumps(outputs(REFERENCE)))
    data = bytearray(path.read_bytes())
    start = data.find(b"PK\x03\x04") + 30 + len("model_outputs_x_5shots.json")
    data[start:start + 40] = b"\xff" * 40  # the deflate stream itself
    path.write_bytes(bytes(data))
    import_refused(tmp_path, capsys, path, f"{path}!model_outputs_x_5shots.json", "damaged")


def test_a_file_that_is_not_a_zip_but_starts_like_one_is_located(tmp_path, capsys) -> None:
    path = _zip_with(tmp_path, lambda data: data.__setitem__(slice(data.find(b"PK\x01\x02"), None), b"\0" * 30))
    err = import_refused(tmp_path, capsys, path, str(path))
    assert "Traceback" not in err


# ------------------------------------------------------------------ import results: records

def _mapped_csv(tmp_path: Path, key: str) -> Path:
    path = tmp_path / "answers.csv"
    rows = [f"{r['question_id']},{'ABCD'[r['answer_index']]},,{r['answer_index']}" for r in REFERENCE]
    rows[2] = rows[2].rsplit(",", 1)[0] + "," + key
    path.write_text("qid,picked,text,key\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("key, says", [("7", "index 7 is not one of the 4 options"),
                                       ("²", "is neither an index, a letter nor an option's text"),
                                       ("9" * 5000, "is neither an index"),
                                       ("-1", "is neither an index")])
def test_a_mapped_gold_out_of_range_or_odd_digits_is_located(tmp_path, capsys, key, says) -> None:
    path = _mapped_csv(tmp_path, key)
    import_refused(tmp_path, capsys, path, f"{path}:4 [element 3, key]", says, fmt="mapped")


def _eee_line(r: dict, **change) -> str:
    record = {"sample_id": str(r["question_id"]),
              "input": {"raw": r["question"], "choices": r["options"], "reference": [r["options"][r["answer_index"]]]},
              "output": {"raw": ["B"]},
              "answer_attribution": [{"extracted_value": "B", "is_terminal": True}]}
    for key, value in change.items():
        if key == "input":
            record["input"] = value
        else:
            record[key] = value
    return json.dumps(record, ensure_ascii=False) + "\n"


def _eee_file(tmp_path: Path, third: str) -> Path:
    path = tmp_path / "samples.jsonl"
    lines = [_eee_line(r) for r in REFERENCE]
    lines[2] = third
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("attribution", [5, "B", {"extracted_value": "B"}, [7]])
def test_an_answer_attribution_that_is_not_a_list_of_objects_is_located(tmp_path, capsys, attribution) -> None:
    path = _eee_file(tmp_path, _eee_line(REFERENCE[2], answer_attribution=attribution))
    import_refused(tmp_path, capsys, path, f"{path}:3 [element 3, answer_attribution]", fmt="eee")


@pytest.mark.parametrize("reference, says", [(["7"], "index 7 is not one of the 4 options"),
                                             (["not an option"], "is neither an index"),
                                             ([3], None), ("B", "expected a list")])
def test_a_reference_without_choices_is_read_against_the_datas(tmp_path, capsys, reference, says) -> None:
    given = {"raw": REFERENCE[2]["question"], "reference": reference}
    path = _eee_file(tmp_path, _eee_line(REFERENCE[2], input=given))
    if says is None:
        content_dir(tmp_path)
        assert run_import(tmp_path, path, fmt="eee") == 0
        return
    import_refused(tmp_path, capsys, path, f"{path}:3 [element 3, input.reference]", says, fmt="eee")


def test_a_record_with_more_options_than_letters_is_located(tmp_path, capsys) -> None:
    records = outputs(REFERENCE)
    records[1]["options"] = [f"option {n}" for n in range(30)]
    path = zipped(tmp_path, records)
    import_refused(tmp_path, capsys, path, "element 2, options]", "30 options", fmt="mmlu-pro")


# ------------------------------------------------------------------ JSON Lines: `\n` only

@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085"])  # valid unescaped in a JSON string
def test_eee_jsonl_holding_line_separators_inside_strings_imports(tmp_path, char) -> None:
    lines = [_eee_line(r) for r in REFERENCE]
    first = json.loads(lines[0])
    first["input"]["raw"] = f"before{char}after"
    lines[0] = json.dumps(first, ensure_ascii=False) + "\n"
    assert char in lines[0]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(lines), encoding="utf-8", newline="\n")
    content_dir(tmp_path)
    assert run_import(tmp_path, path, fmt="eee") == 0
    assert len(read_run(tmp_path / "runs" / RUN).items) == len(REFERENCE)


def test_no_reader_splits_jsonl_with_splitlines() -> None:
    """str.splitlines and bytes.splitlines split inside valid JSON strings (or on a bare \\r);
    the package splits JSON Lines on \\n only (textfiles.numbered_lines)."""
    offenders = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "builder").rglob("*.py"))
                 for n, line in enumerate(p.read_text(encoding="utf-8").split("\n"), start=1)
                 if ".splitlines(" in line and "# not JSON Lines" not in line]
    assert offenders == []


# ------------------------------------------------------------------ downloads: size and deadline

@pytest.fixture
def http():
    from tests.test_fetch import Server
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _endless(piece: bytes, pause: float = 0.0, length: int | None = None):
    """A 200 whose body never ends (until the client hangs up): `piece` every `pause` seconds,
    with a Content-Length of `length` when given (else the body runs to the closed connection)."""
    import time as clock

    def act(h) -> None:
        h.send_response(200)
        if length is not None:
            h.send_header("Content-Length", str(length))
        else:
            h.close_connection = True
        h.end_headers()
        h.wfile.write(b"row_id,")
        try:
            while True:
                h.wfile.write(piece)
                h.wfile.flush()
                clock.sleep(pause)
        except OSError:
            pass  # the client stopped reading: the point
    return act


def _fetch(dest: Path, url: str, **kw):
    from builder.core.download import download
    return download(dest, url, expected_sha256="0" * 64, header=b"row_id,", require_pin=True, sleep=lambda s: None,
                    log=lambda s: None, timeout=5.0, retries=0, **kw)


def test_a_body_longer_than_the_pinned_size_is_stopped_as_it_streams(http, tmp_path) -> None:
    from builder.core.download import FetchError
    url = http.script("/big.csv", _endless(b"x" * 65536))
    dest = tmp_path / "d.csv"
    with pytest.raises(FetchError, match="longer than the 1,000,000 bytes expected"):
        _fetch(dest, url, expected_bytes=1_000_000)
    assert not dest.exists() and list(tmp_path.iterdir()) == []  # nothing half-written is left


def test_without_a_pinned_size_the_readers_cap_bounds_the_body(http, tmp_path, monkeypatch) -> None:
    from builder.core import download as download_mod
    from builder.core.download import FetchError
    monkeypatch.setattr(download_mod, "MAX_INPUT_BYTES", 300_000)
    url = http.script("/big.csv", _endless(b"x" * 65536))
    with pytest.raises(FetchError, match="longer than the 300,000 bytes expected"):
        _fetch(tmp_path / "d.csv", url)


def test_a_stated_length_over_the_pinned_size_is_refused_before_reading(http, tmp_path) -> None:
    from builder.core.download import FetchError
    url = http.script("/big.csv", _endless(b"x" * 65536, length=2**31))
    with pytest.raises(FetchError, match="announces 2,147,483,648 bytes"):
        _fetch(tmp_path / "d.csv", url, expected_bytes=1000)


def test_a_dripping_server_is_stopped_at_the_overall_deadline(http, tmp_path) -> None:
    import time as clock
    from builder.core.download import FetchError
    url = http.script("/drip.csv", _endless(b"x", pause=0.1))
    started = clock.monotonic()
    with pytest.raises(FetchError, match="did not finish within its deadline"):
        _fetch(tmp_path / "d.csv", url, deadline=1.0)  # each byte is well within the 5 s read timeout
    assert clock.monotonic() - started < 4.0


def test_no_retry_is_started_past_the_deadline(http, tmp_path) -> None:
    from builder.core.download import FetchError, download
    from tests.test_fetch import status
    url = http.script("/down.csv", status(503))
    waits: list[float] = []
    with pytest.raises(FetchError, match="gave up after 1 attempts"):
        download(tmp_path / "d.csv", url, expected_sha256="0" * 64, retries=5, backoff=10.0, deadline=5.0,
                 sleep=waits.append, log=lambda s: None)
    assert waits == [] and http.hits == ["/down.csv"]


# ------------------------------------------------------------------ export: located errors

def test_export_into_a_file_or_from_a_folder_is_located(tmp_path, capsys) -> None:
    from builder.cli import main
    content_dir(tmp_path)
    assert run_import(tmp_path, zipped(tmp_path, outputs(REFERENCE))) == 0
    capsys.readouterr()
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["export", "eee", "--run", str(tmp_path / "runs" / RUN), "--out", str(blocker)]) == 2
        err = capsys.readouterr().err
        assert f"{blocker} [--out]: cannot write the export: Not a directory" in err, err
        assert main(["export", "eee", "--run", str(tmp_path / "runs"), "--out", str(tmp_path / "out")]) == 2
        assert "not a regular file (a folder)" in capsys.readouterr().err
    finally:
        os.chdir(cwd)


def test_an_archive_of_too_many_members_is_refused_before_zipfile_lists_them(tmp_path, monkeypatch) -> None:
    from builder.core import archives
    path, many = tmp_path / "many.zip", tmp_path / "many64.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for n in range(60):
            archive.writestr(f"m{n}.json", "[]")
    with zipfile.ZipFile(many, "w") as archive:  # from 65,535 members on, the count is in zip64's end record
        for n in range(65_536):
            archive.writestr(zipfile.ZipInfo(f"{n}"), b"")
    assert archives._declared_members(many.read_bytes()) == 65_536
    monkeypatch.setattr(textfiles, "MAX_MEMBERS", 50)
    with monkeypatch.context() as patched:
        listed = []
        patched.setattr(zipfile, "ZipFile", lambda *a, **k: listed.append(a))
        for archive in (path, many):
            refused(lambda: archives.open_zip(archive, archive.read_bytes()), str(archive), "more than 50 files")
        assert listed == []


def test_a_yaml_or_page_over_the_document_cap_is_refused_unparsed(tmp_path) -> None:
    from builder.core.yamlfile import load_yaml
    from builder.site.pages import read_page
    big = tmp_path / "big.yaml"
    big.write_text("- a\n" * (textfiles.MAX_DOCUMENT_BYTES // 4 + 1), encoding="utf-8")
    refused(lambda: load_yaml(big), str(big), "larger than 1 MiB")
    page = tmp_path / "big.md"
    page.write_text("---\ntitle: x\n---\n" + "x" * textfiles.MAX_DOCUMENT_BYTES, encoding="utf-8")
    refused(lambda: read_page(page), str(page), "larger than 1 MiB")


def _local_model_script():
    import importlib.util
    spec = importlib.util.spec_from_file_location("local_model_script", REPO / "scripts" / "local_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_local_model_fetch_stops_past_its_pinned_size_or_deadline(tmp_path, monkeypatch) -> None:
    script = _local_model_script()
    monkeypatch.setitem(script.MODEL, "size", 3 * 1024)
    endless = (b"x" * 1024 for _ in range(10**9))  # a server that never stops sending
    target = tmp_path / "model.gguf"
    with pytest.raises(script.LocalModelError, match="longer than the pinned 3,072 bytes"):
        script._write_verified(target, script.MODEL["sha256"], endless)
    assert list(tmp_path.iterdir()) == []  # the partial file is gone
    monkeypatch.setattr(script, "DEADLINE_SECONDS", -1)
    with pytest.raises(script.LocalModelError, match="took more than -1 s"):
        script._write_verified(target, "0" * 64, iter([b"x"]))  # an unknown file: no size, still a deadline
    assert list(tmp_path.iterdir()) == []


def test_a_zipped_jsonl_of_newlines_is_refused_while_it_inflates(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(textfiles, "MAX_LINES", 1000)
    monkeypatch.setattr(textfiles, "CHUNK_BYTES", 4096)
    path = tmp_path / "samples.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples.jsonl", "\n" * 1_000_000)
    inflated = []
    real = textfiles.drain

    def spy(*args, **kwargs):
        data = real(*args, **kwargs)
        inflated.append(len(data))
        return data
    monkeypatch.setattr(textfiles, "drain", spy)
    import_refused(tmp_path, capsys, path, f"{path}!samples.jsonl:1001", "more than 1,000 lines", fmt="eee")
    assert path.stat().st_size in inflated and max(inflated) < 100_000  # the member was never inflated whole


def test_a_text_of_more_values_than_the_cap_is_refused_before_parsing(tmp_path, capsys, monkeypatch) -> None:
    """512 MiB of `{},` would parse into 178 million objects (12 GB): the separators are
    counted first (at small scale: the cap lowered to 1,000)."""
    from builder.runs.lines import load_document
    monkeypatch.setattr(textfiles, "MAX_VALUES", 1000)  # the reference data has 144
    results = tmp_path / "model_outputs_x_5shots.json"
    results.write_text("[" + "{}," * 2000 + "{}]", encoding="utf-8")
    import_refused(tmp_path, capsys, results, str(results), "more than 1,000 values")
    run = tmp_path / "run.jsonl"
    run.write_text('{"type": "header", "x": [' + "[]," * 2000 + "[]]}\n", encoding="utf-8")
    refused(lambda: read_run(run), str(run), "more than 1,000 values")
    refused(lambda: load_document("log.json", b"[" + b"0," * 2000 + b"0]"), "log.json", "more than 1,000 values")
    assert load_document("log.json", b"[" + b"0," * 999 + b"0]") == [0] * 1000
