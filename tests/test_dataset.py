"""The CIBuzzBench loader: shape, hashing and every kind of bad input.

Fixtures are synthetic (tests/synthetic.py); the real CSV is only read through the
`real_dataset` / `real_csv` fixtures, and only counts and hashes of it appear here.
"""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pandas as pd
import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import (
    CATEGORIES,
    COLUMNS,
    MAX_PROBLEMS,
    OFFICIAL_SPEC,
    Dataset,
    DatasetSpec,
    content_hash,
    load_dataset,
)
from builder.core.errors import InputError, Problem
from tests.synthetic import csv_text, synthetic_rows

REAL_SHA256 = "4b6b3fac65dd85183addc2bb6438ffb36776371d791d0c5a11f72f2d18bc60b0"

# A small file: 10 rows, 3 of them test. Data row i sits on line i + 2 (line 1 is the header).
SMALL_N, SMALL_TEST = 10, 3
SMALL_SPEC = DatasetSpec(rows=SMALL_N, split_counts={"train": SMALL_N - SMALL_TEST, "test": SMALL_TEST})


def small_rows() -> list[dict[str, str]]:
    return synthetic_rows(SMALL_N, SMALL_TEST, seed=3)


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def write_rows(path: Path, rows: list[dict[str, str]], **kwargs) -> Path:
    return write_text(path, csv_text(rows, **kwargs))


def load_error(path: Path, spec: DatasetSpec = SMALL_SPEC) -> InputError:
    with pytest.raises(InputError) as info:
        load_dataset(path, spec)
    return info.value


def only(err: InputError, *, field: str | None = None, line: int | None = None,
         contains: str = "") -> list[Problem]:
    return [p for p in err.problems
            if (field is None or p.field == field) and (line is None or p.line == line) and contains in p.message]


def assert_names_file(err: InputError, path: Path) -> None:
    assert all(p.path == str(path) for p in err.problems)
    assert str(path) in str(err)


def line_of(row_index: int) -> int:
    return row_index + 2


# --------------------------------------------------------------------------- valid input


def test_synthetic_full_size_loads(synthetic_csv: Path, synthetic_dataset: Dataset) -> None:
    ds = synthetic_dataset
    assert ds.rows == 3001 == OFFICIAL_SPEC.rows
    assert ds.path == synthetic_csv
    frame = ds.frame
    assert list(frame.columns) == list(COLUMNS)
    assert frame["split"].value_counts().to_dict() == {"train": 2401, "test": 600}
    assert list(frame.index) == list(range(3001))
    assert list(frame["row_id"]) == list(range(3001))
    assert frame.index.name is None
    assert pd.api.types.is_integer_dtype(frame["row_id"])
    for column in COLUMNS[1:]:
        assert pd.api.types.is_string_dtype(frame[column]), column
        assert all(isinstance(v, str) for v in frame[column]), column
    assert set(frame["category_label"]) == set(CATEGORIES)
    assert ds.file_sha256 == hashlib.sha256(synthetic_csv.read_bytes()).hexdigest()
    assert len(ds.content_sha256) == 64 and ds.content_sha256 != ds.file_sha256


def test_loaded_cells_round_trip_the_source_rows(synthetic_dataset: Dataset) -> None:
    source = synthetic_rows()
    frame = synthetic_dataset.frame
    for i in (0, 1, 777, 3000):
        for column in COLUMNS:
            assert str(frame.loc[i, column]) == source[i][column]
    assert synthetic_dataset.column("term_zh")[42] == source[42]["term_zh"]
    test_ids = synthetic_dataset.row_ids("test")
    assert len(test_ids) == 600 and test_ids == sorted(test_ids)
    assert all(source[i]["split"] == "test" for i in test_ids)
    assert len(synthetic_dataset.row_ids()) == 3001


def test_small_spec_loads(tmp_path: Path) -> None:
    ds = load_dataset(write_rows(tmp_path / "s.csv", small_rows()), SMALL_SPEC)
    assert ds.rows == SMALL_N
    assert (ds.frame["split"] == "test").sum() == SMALL_TEST


def test_small_file_fails_official_spec(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "s.csv", small_rows())
    err = load_error(path, OFFICIAL_SPEC)
    assert only(err, contains="expected 3001 data rows, found 10")


def test_quoted_multiline_cell_is_kept_and_later_line_numbers_stay_right(tmp_path: Path) -> None:
    rows = small_rows()
    rows[2]["meaning_en"] = "first line\nsecond line, with a comma"
    rows[5]["category_label"] = "Nope"
    err = load_error(write_rows(tmp_path / "m.csv", rows))
    # row 2 spans lines 4-5, so row 5 starts on line 8 rather than line 7
    bad = only(err, field="category_label")
    assert [p.line for p in bad] == [8]
    rows[5]["category_label"] = CATEGORIES[0]
    ds = load_dataset(write_rows(tmp_path / "m2.csv", rows), SMALL_SPEC)
    assert ds.frame.loc[2, "meaning_en"] == "first line\nsecond line, with a comma"


def test_blank_lines_between_records_are_skipped(tmp_path: Path) -> None:
    lines = csv_text(small_rows()).split("\r\n")
    lines.insert(3, "")
    ds = load_dataset(write_text(tmp_path / "b.csv", "\r\n".join(lines)), SMALL_SPEC)
    assert ds.rows == SMALL_N


# --------------------------------------------------------------------------- hashing


def test_content_hash_ignores_line_endings_bom_and_quoting(tmp_path: Path) -> None:
    rows = small_rows()
    crlf = load_dataset(write_rows(tmp_path / "crlf.csv", rows, newline="\r\n"), SMALL_SPEC)
    lf = load_dataset(write_rows(tmp_path / "lf.csv", rows, newline="\n"), SMALL_SPEC)
    bom_path = tmp_path / "bom.csv"
    bom_path.write_bytes(b"\xef\xbb\xbf" + csv_text(rows).encode("utf-8"))
    bom = load_dataset(bom_path, SMALL_SPEC)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    writer.writeheader()
    writer.writerows(rows)
    quoted = load_dataset(write_text(tmp_path / "quoted.csv", out.getvalue()), SMALL_SPEC)

    assert crlf.content_sha256 == lf.content_sha256 == bom.content_sha256 == quoted.content_sha256
    assert len({crlf.file_sha256, lf.file_sha256, bom.file_sha256, quoted.file_sha256}) == 4
    assert crlf.frame.equals(lf.frame) and crlf.frame.equals(bom.frame)
    # the BOM is not glued onto the first column name
    assert list(bom.frame.columns) == list(COLUMNS)


def test_content_hash_changes_with_one_cell(tmp_path: Path) -> None:
    rows = small_rows()
    base = load_dataset(write_rows(tmp_path / "a.csv", rows), SMALL_SPEC)
    rows[7]["distractor_literal_en"] += "!"
    changed = load_dataset(write_rows(tmp_path / "b.csv", rows), SMALL_SPEC)
    assert changed.content_sha256 != base.content_sha256
    assert changed.file_sha256 != base.file_sha256


def test_content_hash_is_over_canonical_column_order(tmp_path: Path) -> None:
    rows = small_rows()
    permuted = tuple(reversed(COLUMNS))
    a = load_dataset(write_rows(tmp_path / "a.csv", rows), SMALL_SPEC)
    b = load_dataset(write_rows(tmp_path / "b.csv", rows, columns=permuted), SMALL_SPEC)
    assert list(b.frame.columns) == list(COLUMNS)
    assert a.content_sha256 == b.content_sha256
    assert a.frame.equals(b.frame)


def test_content_hash_function_is_cell_sensitive() -> None:
    row = [str(v) for v in small_rows()[0].values()]
    assert content_hash([row]) == content_hash([list(row)])
    assert content_hash([row]) != content_hash([row[:-1] + [row[-1] + " "]])
    # cell boundaries matter: moving text between adjacent cells changes the hash
    moved = row[:3] + [row[3] + row[4][:1], row[4][1:]] + row[5:]
    assert content_hash([row]) != content_hash([moved])


# --------------------------------------------------------------------------- header problems


def test_missing_column(tmp_path: Path) -> None:
    columns = tuple(c for c in COLUMNS if c != "meaning_en")
    path = write_rows(tmp_path / "miss.csv", small_rows(), columns=columns)
    err = load_error(path)
    assert_names_file(err, path)
    assert len(err.problems) == 1
    p = err.problems[0]
    assert (p.line, p.field) == (1, "meaning_en") and "missing" in p.message
    assert f"{path}:1 [meaning_en]" in str(err)


def test_unknown_extra_column(tmp_path: Path) -> None:
    rows = [dict(r, notes="x") for r in small_rows()]
    path = write_rows(tmp_path / "extra.csv", rows, columns=COLUMNS + ("notes",))
    err = load_error(path)
    assert_names_file(err, path)
    assert [(p.line, p.field) for p in err.problems] == [(1, "notes")]
    assert "unknown column" in err.problems[0].message


def test_duplicated_column(tmp_path: Path) -> None:
    header = ",".join(COLUMNS + ("split",))
    body = csv_text(small_rows()).split("\r\n", 1)[1]
    path = write_text(tmp_path / "dup.csv", header + "\r\n" + body)
    err = load_error(path)
    assert_names_file(err, path)
    dup = only(err, field="split", line=1, contains="more than once")
    assert len(dup) == 1


def test_header_problems_are_all_listed(tmp_path: Path) -> None:
    columns = tuple(c for c in COLUMNS if c not in ("term_zh", "harmful_label")) + ("extra",)
    rows = [dict(r, extra="x") for r in small_rows()]
    err = load_error(write_rows(tmp_path / "h.csv", rows, columns=columns))
    assert {(p.field, "missing" in p.message) for p in err.problems} == {
        ("term_zh", True), ("harmful_label", True), ("extra", False)}
    assert str(err).startswith("3 problem(s) in input:")


# --------------------------------------------------------------------------- shape problems


def test_wrong_row_count_official_spec(tmp_path: Path) -> None:
    rows = synthetic_rows()[:-1]
    path = write_rows(tmp_path / "short.csv", rows)
    err = load_error(path, OFFICIAL_SPEC)
    assert_names_file(err, path)
    assert only(err, contains="expected 3001 data rows, found 3000")
    # the dropped last row's split is now one short
    dropped_split = synthetic_rows()[-1]["split"]
    assert only(err, field="split", contains=f"{dropped_split!r} rows, found")


def test_wrong_row_count_small_spec(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "s.csv", small_rows())
    err = load_error(path, DatasetSpec(rows=11, split_counts={"train": 7, "test": 3}))
    assert [str(p) for p in err.problems] == [f"{path}: expected 11 data rows, found 10"]


def test_header_only_file(tmp_path: Path) -> None:
    path = write_text(tmp_path / "h.csv", ",".join(COLUMNS) + "\r\n")
    err = load_error(path)
    assert only(err, contains=f"expected {SMALL_N} data rows, found 0")
    assert len(only(err, field="split")) == 2


def test_wrong_split_counts(tmp_path: Path) -> None:
    rows = small_rows()
    first_test = next(i for i, r in enumerate(rows) if r["split"] == "test")
    rows[first_test]["split"] = "train"
    path = write_rows(tmp_path / "split.csv", rows)
    err = load_error(path)
    assert_names_file(err, path)
    messages = sorted(p.message for p in err.problems)
    assert messages == ["expected 3 'test' rows, found 2", "expected 7 'train' rows, found 8"]
    assert all(p.field == "split" for p in err.problems)


# --------------------------------------------------------------------------- cell problems


@pytest.mark.parametrize(("column", "value"), [
    ("harmful_label", "toxic"),
    ("harmful_label", "Harmful"),  # labels are case-sensitive
    ("category_label", "Meme"),
    ("category_label", "slang"),
    ("split", "dev"),
])
def test_unknown_label(tmp_path: Path, column: str, value: str) -> None:
    rows = small_rows()
    rows[4][column] = value
    path = write_rows(tmp_path / "lab.csv", rows)
    err = load_error(path)
    assert_names_file(err, path)
    bad = only(err, field=column, line=line_of(4), contains="unknown label")
    assert len(bad) == 1
    assert repr(value) in bad[0].message
    assert f"{path}:{line_of(4)} [{column}]" in str(err)
    if column == "split":
        # the row is still counted, so split totals are off as well
        assert only(err, field="split", line=None, contains="rows, found")


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
@pytest.mark.parametrize("column", ["term_zh", "equivalent_en", "distractor_pragmatic_neighbor_en",
                                    "harmful_label", "row_id"])
def test_empty_or_whitespace_cell(tmp_path: Path, column: str, blank: str) -> None:
    rows = small_rows()
    rows[6][column] = blank
    path = write_rows(tmp_path / "empty.csv", rows)
    err = load_error(path)
    assert_names_file(err, path)
    hits = only(err, field=column, line=line_of(6), contains="empty cell")
    assert len(hits) == 1
    # an empty label is reported once, as empty, not also as an unknown label
    assert not only(err, field=column, line=line_of(6), contains="unknown label")


@pytest.mark.parametrize("bad_id", ["7", "03", "3.0", " 3", "-3", "x"])
def test_non_contiguous_row_id(tmp_path: Path, bad_id: str) -> None:
    rows = small_rows()
    rows[3]["row_id"] = bad_id
    path = write_rows(tmp_path / "ids.csv", rows)
    err = load_error(path)
    assert_names_file(err, path)
    assert len(err.problems) == 1
    p = err.problems[0]
    assert (p.line, p.field) == (line_of(3), "row_id")
    assert repr(bad_id) in p.message and "expected 3" in p.message


def test_duplicated_row_id(tmp_path: Path) -> None:
    rows = small_rows()
    rows[5]["row_id"] = "4"
    err = load_error(write_rows(tmp_path / "dup.csv", rows))
    assert [(p.line, p.field) for p in err.problems] == [(line_of(5), "row_id")]


def test_row_ids_starting_at_one(tmp_path: Path) -> None:
    rows = small_rows()
    for i, r in enumerate(rows):
        r["row_id"] = str(i + 1)
    err = load_error(write_rows(tmp_path / "one.csv", rows))
    assert len(err.problems) == SMALL_N
    assert all(p.field == "row_id" for p in err.problems)
    assert err.problems[0].line == 2 and "expected 0" in err.problems[0].message


@pytest.mark.parametrize("change", ["extra", "missing"])
def test_row_with_wrong_number_of_fields(tmp_path: Path, change: str) -> None:
    lines = csv_text(small_rows()).split("\r\n")
    target = line_of(2) - 1  # index into lines
    lines[target] = lines[target] + ",surplus" if change == "extra" else lines[target].rsplit(",", 1)[0]
    path = write_text(tmp_path / "fields.csv", "\r\n".join(lines))
    err = load_error(path)
    assert_names_file(err, path)
    found = 12 if change == "extra" else 10
    hits = only(err, line=line_of(2), contains=f"expected 11 fields, found {found}")
    assert len(hits) == 1
    assert only(err, contains=f"expected {SMALL_N} data rows, found {SMALL_N - 1}")


def test_wrong_field_count_does_not_cascade_into_row_id_problems(tmp_path: Path) -> None:
    lines = csv_text(small_rows()).split("\r\n")
    lines[line_of(2) - 1] += ",surplus"
    err = load_error(write_text(tmp_path / "fields.csv", "\r\n".join(lines)))
    assert only(err, field="row_id") == []


def test_stray_quote_is_reported_at_its_line(tmp_path: Path) -> None:
    lines = csv_text(small_rows()).split("\r\n")
    lines[line_of(4) - 1] = lines[line_of(4) - 1].replace(",gold", ',"gold', 1)
    path = write_text(tmp_path / "quote.csv", "\r\n".join(lines))
    err = load_error(path)
    assert only(err, line=line_of(4), contains="expected 11 fields")


# --------------------------------------------------------------------------- encoding, empty, missing


@pytest.mark.parametrize(("newline", "row_index"), [("\r\n", 2), ("\n", 5), ("\r\n", 9)])
def test_non_utf8_byte_reports_its_line(tmp_path: Path, newline: str, row_index: int) -> None:
    data = csv_text(small_rows(), newline=newline).encode("utf-8")
    lines = data.split(newline.encode())
    lines[row_index + 1] = lines[row_index + 1][:6] + b"\xff" + lines[row_index + 1][6:]
    path = tmp_path / "latin.csv"
    path.write_bytes(newline.encode().join(lines))
    err = load_error(path)
    assert_names_file(err, path)
    assert len(err.problems) == 1
    p = err.problems[0]
    assert p.line == line_of(row_index)
    assert "UTF-8" in p.message and "0xff" in p.message


def test_non_utf8_in_header(tmp_path: Path) -> None:
    path = tmp_path / "hdr.csv"
    path.write_bytes("row_id,split,term_zh".encode() + b"\xe9" + csv_text(small_rows()).encode()[20:])
    err = load_error(path)
    assert err.problems[0].line == 1 and "UTF-8" in err.problems[0].message


def test_latin1_encoded_file(tmp_path: Path) -> None:
    rows = small_rows()
    for i, r in enumerate(rows):
        r["term_zh"] = f"caf\u00e9 {i}"
        r["explanation_zh"] = f"na\u00efve {i}"
    path = tmp_path / "latin1.csv"
    path.write_bytes(csv_text(rows).encode("latin-1"))
    err = load_error(path)
    assert err.problems[0].line == line_of(0)


@pytest.mark.parametrize("content", [b"", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    err = load_error(path)
    assert_names_file(err, path)
    assert len(err.problems) == 1 and "empty" in err.problems[0].message
    assert err.problems[0].line == 1


def test_nonexistent_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "missing.csv"
    err = load_error(path)
    assert_names_file(err, path)
    assert "cannot read" in err.problems[0].message
    assert err.problems[0].line is None


def test_directory_instead_of_file(tmp_path: Path) -> None:
    err = load_error(tmp_path)
    assert "cannot read" in err.problems[0].message and err.problems[0].path == str(tmp_path)


# --------------------------------------------------------------------------- several problems


def test_all_problems_listed_in_one_error(tmp_path: Path) -> None:
    rows = small_rows()
    rows[1]["harmful_label"] = "toxic"
    rows[6]["harmful_label"] = "maybe"
    rows[3]["term_zh"] = " "
    rows = rows[:-1]  # one row short
    path = write_rows(tmp_path / "many.csv", rows)
    err = load_error(path)
    assert_names_file(err, path)
    assert [p.line for p in only(err, field="harmful_label", contains="unknown label")] == [line_of(1), line_of(6)]
    assert only(err, field="term_zh", line=line_of(3), contains="empty cell")
    assert only(err, contains=f"expected {SMALL_N} data rows, found {SMALL_N - 1}")
    text = str(err)
    assert text.startswith(f"{len(err.problems)} problem(s) in input:")
    for needle in (f":{line_of(1)} [harmful_label]", f":{line_of(6)} [harmful_label]", "'toxic'", "'maybe'",
                   f":{line_of(3)} [term_zh]", "data rows"):
        assert needle in text


def test_problem_list_is_capped(tmp_path: Path) -> None:
    rows = synthetic_rows()
    for r in rows:
        r["category_label"] = "Meme"
    err = load_error(write_rows(tmp_path / "cap.csv", rows), OFFICIAL_SPEC)
    assert len(err.problems) == MAX_PROBLEMS + 1
    assert err.problems[MAX_PROBLEMS - 1].line == line_of(MAX_PROBLEMS - 1)
    assert err.problems[-1].message == f"{3001 - MAX_PROBLEMS} further problem(s) not listed"
    # the rendered message is shortened again for the terminal
    assert f"... and {MAX_PROBLEMS + 1 - 50} more problem(s)" in str(err)


# --------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_dataset_shape(real_dataset: Dataset) -> None:
    ds = real_dataset
    assert ds.rows == 3001
    assert ds.file_sha256 == REAL_SHA256
    assert ds.frame["split"].value_counts().to_dict() == {"train": 2401, "test": 600}
    assert set(ds.frame["category_label"]) == set(CATEGORIES)
    assert set(ds.frame["harmful_label"]) == {"harmful", "non-harmful"}
    assert list(ds.frame.index) == list(range(3001))
    for column in COLUMNS[1:]:
        assert ds.frame[column].str.strip().str.len().min() > 0, column


@pytest.mark.realdata
def test_real_dataset_content_hash_survives_lf_conversion(real_csv: Path, real_dataset: Dataset,
                                                          tmp_path: Path) -> None:
    raw = real_csv.read_bytes()
    assert raw.count(b"\n") == 3002  # header + 3001 rows, no line breaks inside cells
    assert raw.count(b"\r\n") >= 3000  # CRLF (the stored copy has one bare LF line ending)
    converted = tmp_path / "lf.csv"
    converted.write_bytes(raw.replace(b"\r\n", b"\n"))
    lf = load_dataset(converted)
    assert lf.file_sha256 != real_dataset.file_sha256
    assert lf.content_sha256 == real_dataset.content_sha256
    with_bom = tmp_path / "bom.csv"
    with_bom.write_bytes(b"\xef\xbb\xbf" + raw)
    assert load_dataset(with_bom).content_sha256 == real_dataset.content_sha256


def test_bytes_read_again_are_not_checked_again_but_each_load_gets_its_own_frame(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """parse_dataset keeps what valid bytes parsed to, per spec: the same bytes again are the same
    dataset under their own path without a second check, a frame changed by one caller is not
    another's, and changed bytes or another spec are checked afresh."""
    from builder.benchmarks.cibuzzbench.dataset import cibuzzbench
    path = write_rows(tmp_path / "a.csv", small_rows())
    first = load_dataset(path, SMALL_SPEC)
    checks, real = [], cibuzzbench._validate
    monkeypatch.setattr(cibuzzbench, "_validate", lambda *args: checks.append(args) or real(*args))
    copy = tmp_path / "b.csv"
    copy.write_bytes(path.read_bytes())
    again = load_dataset(copy, SMALL_SPEC)
    assert not checks and again.path == copy and again.file_sha256 == first.file_sha256
    assert again.content_sha256 == first.content_sha256 and again.frame.equals(first.frame)
    again.frame.loc[0, "term_zh"] = "changed"
    assert load_dataset(path, SMALL_SPEC).frame.loc[0, "term_zh"] == first.frame.loc[0, "term_zh"] != "changed"
    monkeypatch.undo()
    assert "expected 11 data rows" in str(load_error(path, DatasetSpec(rows=11, split_counts=SMALL_SPEC.split_counts)))
    rows = small_rows()
    rows[4]["split"] = "dev"
    assert "unknown label" in str(load_error(write_rows(path, rows)))
