"""Loading multiple-choice benchmarks from spec files: the three dataset shapes, Mouse's two
choice tasks as specs, and located validation errors (synthetic fixtures only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mcq.spec import DEFAULT_BLIND, data_env_var, load_spec
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"


def load(name: str):
    return load_benchmark(FIXTURES / f"{name}.yaml", root=REPO)


def write_case(folder: Path, data: str, spec_extra: str = "", *, suffix: str = ".jsonl",
               spec: str | None = None) -> Path:
    """A spec + data file in `folder`; the default spec reads JSONL with list options."""
    (folder / f"data{suffix}").write_text(data, encoding="utf-8")
    text = spec if spec is not None else (
        f"name: case\ndataset_path: {folder / f'data{suffix}'}\ndoc_to_text: q\n"
        "doc_to_choice: choices\ndoc_to_target: answer\n")
    path = folder / "case.yaml"
    path.write_text(text + spec_extra, encoding="utf-8")
    return path


def problems(spec: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_benchmark(spec)
    return [str(p) for p in info.value.problems]


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


# ------------------------------------------------------------------ the three shapes


def test_json_records_with_dict_options_and_one_based_answers() -> None:
    bench = load("dict_options")
    assert len(bench.items) == 8
    first = bench.items[0]
    assert (first.id, first.stem) == ("d1", "Synthetic question 1?")
    assert first.choices == ("alpha", "beta gamma", "delta", "epsilon")  # the object's values in key order
    assert first.gold == 1  # answer 2, 1-based
    assert [i.gold for i in bench.items] == [1, 2, 0, 3, 1, 2, 0, 3]
    assert first.line is None and first.number == 1  # JSON: located by record number


def test_jsonl_with_list_options_text_answers_and_splits() -> None:
    bench = load("list_options")
    assert [i.gold for i in bench.items[:4]] == [0, 1, 2, 3]
    assert all(i.choices[i.gold].endswith("indeed") for i in bench.items)
    assert [i.split for i in bench.items[:3]] == ["test", "train", "train"]
    assert bench.items[2].line == 3


def test_csv_with_letter_columns_and_letter_answers() -> None:
    bench = load("columns")
    assert bench.items[0].choices == ("red", "green", "blue", "yellow")
    assert [i.gold for i in bench.items] == [0, 1, 2, 3, 0, 1, 2, 3]  # "a" is a letter too
    assert bench.items[6].choices[0] == "comma, quoted"
    assert bench.items[0].id == "1" and bench.items[0].line == 2  # no id field: the record number
    assert bench.items[3].category == "animal"


def test_mouse_meaning_selection_as_a_spec() -> None:
    bench = load("mouse_ms")
    assert len(bench.items) == 6
    assert bench.items[0].choices == ("【合成】甲1", "【合成】乙1", "【合成】丙1")
    assert [i.gold for i in bench.items] == [0, 1, 2, 0, 1, 2]
    assert bench.items[0].stem == "【合成】题目01"


def test_mouse_cloze_completion_as_a_spec() -> None:
    bench = load("mouse_cc")
    assert len(bench.items) == 6
    assert bench.items[0].choices == ("【合成】候选A1", "【合成】候选B1", "【合成】候选C1", "【合成】候选D1")
    assert [i.gold for i in bench.items] == [0, 1, 2, 3, 0, 1]
    assert bench.items[1].line == 6  # records span five lines each in the CSV


def test_numeral_and_integer_targets_are_zero_based(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y", "z"], "answer": 2},
                                      {"q": "s", "choices": ["x", "y", "z"], "answer": " 1 "},
                                      {"q": "s", "choices": ["7", "8", "9"], "answer": "0"}))
    assert [i.gold for i in load_benchmark(spec).items] == [2, 1, 0]


def test_text_target_matches_a_choice_or_a_letter(tmp_path: Path) -> None:
    # a letter that is also a choice's text loads when both readings name the same choice (the
    # ones that name two choices are errors: tests/test_leak_validity.py)
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["A", "B", "x"], "answer": "B"},
                                      {"q": "s", "choices": ["x", "y", "z"], "answer": "b"},
                                      {"q": "s", "choices": ["x", "Paris"], "answer": " Paris"}))
    assert [i.gold for i in load_benchmark(spec).items] == [1, 1, 1]


def test_environment_variable_overrides_the_dataset_path(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.jsonl"
    other.write_text(jsonl({"q": "s", "choices": ["x", "y"], "answer": 1}), encoding="utf-8")
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 0}))
    assert data_env_var("my-bench") == "BUZZPROBE_DATA_MY_BENCH"
    loaded = load_spec(spec, environ={"BUZZPROBE_DATA_CASE": str(other)})
    assert loaded.dataset_path == other and loaded.dataset_override == "BUZZPROBE_DATA_CASE"
    assert load_spec(spec, environ={}).dataset_path == tmp_path / "data.jsonl"


def test_default_prompts_and_a_blind_prompt_that_withholds_the_question(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 0}))
    assert load_spec(spec).blind == DEFAULT_BLIND
    bad = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 0}),
                     'blind: "{{ question }} {{ options }}"\nsighted: "{{ stem }}"\n')
    found = problems(bad)
    assert any("blind" in p and "withholds the question" in p for p in found)
    assert any("sighted" in p and "unknown name(s) stem" in p for p in found)
    assert any("sighted" in p and "must show the options" in p for p in found)


# ------------------------------------------------------------------ located errors


def test_target_matching_no_choice_is_located(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": "x"},
                                      {"q": "s", "choices": ["x", "y"], "answer": "w"}))
    (only,) = problems(spec)
    assert f"{tmp_path / 'data.jsonl'}:2 [record 2, doc_to_target]" in only
    assert "'w' matches no choice and is not a letter A-B" in only


def test_target_index_out_of_range_points_to_one_based_templates(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 2}))
    (only,) = problems(spec)
    assert "out of range for 2 choices" in only and "{{ answer - 1 }}" in only


def test_records_without_choices_are_all_reported(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": [], "answer": 0},
                                      {"q": "s", "answer": 0},
                                      {"q": "s", "choices": ["only"], "answer": 0},
                                      {"q": "s", "choices": "x", "answer": 0}))
    found = problems(spec)
    assert len(found) == 4
    assert ":1 [record 1, doc_to_choice]: record has no choices" in found[0]
    assert ":2 [record 2, doc_to_choice]: field 'choices' is missing" in found[1]
    assert "only one choice" in found[2]
    assert "choices must be a list" in found[3]


def test_bad_template_is_located_in_the_spec(tmp_path: Path) -> None:
    spec = write_case(tmp_path, "", spec="name: case\ndataset_path: data.jsonl\ndoc_to_text: q\n"
                      "doc_to_choice: choices\ndoc_to_target: '{{ answer - }}'\n")
    (only,) = problems(spec)
    assert only.startswith(f"{spec}:5 [doc_to_target]: template does not compile")


def test_template_failing_on_a_record_is_located(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 1},
                                      {"q": "s", "choices": ["x", "y"], "answer": "one"}),
                      spec=f"name: case\ndataset_path: {tmp_path / 'data.jsonl'}\ndoc_to_text: '{{{{ stem }}}}'\n"
                           "doc_to_choice: choices\ndoc_to_target: '{{ answer - 1 }}'\n")
    found = problems(spec)
    # It fails on every record alike, so it is one problem at the spec's line (issue 33).
    assert any(":3 [doc_to_text]: every one of the 2 records fails it: template failed" in p
               and "'stem' is undefined" in p for p in found)
    assert not any("[record " in p for p in found)


def test_template_cannot_reach_python_internals(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 0}),
                      spec=f"name: case\ndataset_path: {tmp_path / 'data.jsonl'}\n"
                           "doc_to_text: '{{ q.__class__.__mro__ }}'\ndoc_to_choice: choices\ndoc_to_target: answer\n")
    (only,) = problems(spec)
    assert "[record 1, doc_to_text]" in only and "Python internals" in only


def test_missing_data_file_names_the_spec_and_the_override(tmp_path: Path) -> None:
    spec = tmp_path / "case.yaml"
    spec.write_text(f"name: case\ndataset_path: {tmp_path / 'absent.jsonl'}\ndoc_to_text: q\n"
                    "doc_to_choice: choices\ndoc_to_target: answer\n", encoding="utf-8")
    (only,) = problems(spec)
    assert "absent.jsonl: cannot read the data file" in only and "BUZZPROBE_DATA_CASE" in only


def test_bad_yaml_is_located(tmp_path: Path) -> None:
    spec = tmp_path / "case.yaml"
    spec.write_text("name: case\ndoc_to_choice: [A, B\n", encoding="utf-8")
    (only,) = problems(spec)
    assert only.startswith(f"{spec}:") and "not valid YAML" in only


def test_spec_keys_are_checked_together(tmp_path: Path) -> None:
    spec = tmp_path / "case.yaml"
    spec.write_text("name: Bad Name\ndataset_path: x.txt\ndoc_to_text: q\ndoc_to_choices: c\n"
                    "doc_to_target: answer\nsplit: s\n", encoding="utf-8")
    found = problems(spec)
    assert any(":4 [doc_to_choices]: unknown key" in p for p in found)
    assert any("[doc_to_choice]: required" in p for p in found)
    spec.write_text("name: Bad Name\ndataset_path: x.txt\ndoc_to_text: q\ndoc_to_choice: c\n"
                    "doc_to_target: answer\nsplit: s\n", encoding="utf-8")
    found = problems(spec)
    assert any(":1 [name]: benchmark name 'Bad Name'" in p for p in found)
    assert any(":6 [split]: split, test_split and train_split go together" in p for p in found)
    assert any("[dataset_path]: cannot infer the format from 'x.txt'" in p for p in found)


def test_bad_json_and_repeated_ids_are_located(tmp_path: Path) -> None:
    spec = write_case(tmp_path, jsonl({"q": "s", "choices": ["x", "y"], "answer": 0}) + "{oops\n")
    (only,) = problems(spec)
    assert ":2: not valid JSON" in only
    spec = write_case(tmp_path, jsonl({"id": 7, "q": "s", "choices": ["x", "y"], "answer": 0},
                                      {"id": "7", "q": "s", "choices": ["x", "y"], "answer": 0}), "id: id\n")
    (only,) = problems(spec)
    assert ":2 [record 2, id]: id '7' repeats record 1's" in only


def test_json_without_records_key_explains(tmp_path: Path) -> None:
    spec = write_case(tmp_path, json.dumps({"items": []}), suffix=".json")
    (only,) = problems(spec)
    assert "expected a list of records, found dict" in only and "records" in only


def test_prompts_show_the_shuffled_options_and_the_blind_one_hides_the_stem() -> None:
    from builder.benchmarks.mcq.prompts import render_prompt
    bench = load("columns")
    item = bench.items[0]
    sighted = render_prompt(bench.spec, item, [2, 0, 1, 3], "sighted")
    blind = render_prompt(bench.spec, item, [2, 0, 1, 3], "blind")
    assert "Synthetic question 1?" in sighted and "Synthetic question 1?" not in blind
    for prompt in (sighted, blind):
        assert "A. blue\nB. red\nC. green\nD. yellow" in prompt and "(A, B, C or D)" in prompt


# ------------------------------------------------------------------ several files, nesting, zip (issue 23)

def test_a_glob_of_header_less_csv_files_gives_each_record_its_file_name(tmp_path: Path) -> None:
    bench = load("subjects")
    assert [p.name for p in bench.data.paths] == ["alpha_subject_test.csv", "beta_subject_test.csv"]
    assert len(bench.items) == 8  # 4 rows per file, none taken for a header
    first, fifth = bench.items[0], bench.items[4]
    assert (first.id, first.category, first.line, first.number) == ("alpha_subject-1", "alpha_subject", 1, 1)
    assert (fifth.id, fifth.category, fifth.number, fifth.file.name) == ("beta_subject-1", "beta_subject", 5,
                                                                        "beta_subject_test.csv")
    assert first.stem.startswith("Synthetic question 0 of alph") and len(first.choices) == 4
    listed = FIXTURES / "subjects.yaml"
    text = listed.read_text(encoding="utf-8").replace(
        "dataset_path: tests/fixtures/mcq/subjects/*_test.csv",
        "dataset_path: [tests/fixtures/mcq/subjects/beta_subject_test.csv, tests/fixtures/mcq/subjects/alpha_subject_test.csv]")
    spec = tmp_path / "listed.yaml"
    spec.write_text(text, encoding="utf-8")
    both = load_benchmark(spec, root=REPO)  # a list keeps its order
    assert [i.id for i in both.items] == [i.id for i in bench.items[4:] + bench.items[:4]]
    assert both.data.sha256 != bench.data.sha256 and len(bench.data.sha256) == 64


def test_a_bad_record_in_the_second_file_names_that_file(tmp_path: Path) -> None:
    for name, answer in (("a_test.csv", "A"), ("b_test.csv", "Z")):
        (tmp_path / name).write_text(f"q1,w,x,y,z,A\nq2,w,x,y,z,{answer}\n", encoding="utf-8")
    spec = write_case(tmp_path, "", spec=f"name: case\ndataset_path: {tmp_path}/*_test.csv\n"
                      "csv_columns: [q, A, B, C, D, answer]\ndoc_to_text: q\ndoc_to_choice: [A, B, C, D]\n"
                      "doc_to_target: answer\n")
    (only,) = problems(spec)
    assert only.startswith(f"{tmp_path / 'b_test.csv'}:2 [record 4, doc_to_target]: target 'Z'")


def test_nested_records_see_their_parent_and_keep_varying_option_counts() -> None:
    bench = load("nested")
    assert [i.id for i in bench.items] == ["p0q0", "p0q1", "p1q0", "p1q1", "p1q2", "p2q0", "p2q1", "p2q2", "p2q3"]
    assert bench.items[2].stem.startswith("Synthetic passage 1: placeholder text.\n\nSynthetic question 0")
    assert bench.items[2].category == "p1"
    assert sorted({len(i.choices) for i in bench.items}) == [3, 4]


def test_a_zipped_json_file_is_read_as_its_one_member(tmp_path: Path) -> None:
    import zipfile
    rows = [{"q": f"synthetic {i}", "choices": ["a", "b", "c"], "answer": i % 3} for i in range(6)]
    with zipfile.ZipFile(tmp_path / "data.json.zip", "w") as archive:
        archive.writestr("inner/data.json", json.dumps(rows))
    spec = write_case(tmp_path, "", spec=f"name: case\ndataset_path: {tmp_path / 'data.json.zip'}\n"
                      "doc_to_text: q\ndoc_to_choice: choices\ndoc_to_target: answer\n")
    bench = load_benchmark(spec)
    assert [i.gold for i in bench.items] == [0, 1, 2, 0, 1, 2] and bench.spec.dataset_format == "json"
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as archive:
        archive.writestr("a.json", "[]")
        archive.writestr("b.json", "[]")
    spec = write_case(tmp_path, "", spec=f"name: case\ndataset_path: {tmp_path / 'two.zip'}\ndataset_format: json\n"
                      "doc_to_text: q\ndoc_to_choice: choices\ndoc_to_target: answer\n")
    (only,) = problems(spec)
    assert "must hold exactly one file, found 2" in only


def test_data_dir_and_download_are_validated_and_the_variable_names_the_folder(tmp_path: Path) -> None:
    spec = tmp_path / "case.yaml"
    spec.write_text("name: case\ndata_dir: data/case\ndataset_path: sub/*.csv\ndoc_to_text: q\n"
                    "doc_to_choice: [A, B]\ndoc_to_target: answer\ndownload:\n  url: 'ftp://x/{path}'\n"
                    "  files:\n    ../up.csv: 'aa'\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_spec(spec, root=tmp_path, environ={})
    assert "[download]: url must be an http(s) URL" in str(caught.value)
    spec.write_text(spec.read_text().replace("ftp://x", "https://x"), encoding="utf-8")
    with pytest.raises(InputError, match=r"'\.\./up\.csv' must be a relative path inside data_dir"):
        load_spec(spec, root=tmp_path, environ={})
    spec.write_text(spec.read_text().replace("../up.csv: 'aa'", f"sub/up.csv: '{'a' * 64}'"), encoding="utf-8")
    plain = load_spec(spec, root=tmp_path, environ={})
    assert plain.location.patterns == (tmp_path / "data" / "case" / "sub" / "*.csv",)
    assert plain.location.download.url_of("sub/up.csv") == "https://x/sub/up.csv"
    moved = load_spec(spec, root=tmp_path, environ={"BUZZPROBE_DATA_CASE": str(tmp_path / "elsewhere")})
    assert moved.location.patterns == (tmp_path / "elsewhere" / "sub" / "*.csv",)
    assert moved.dataset_override == "BUZZPROBE_DATA_CASE"
    assert plain.location.missing() == [tmp_path / "data" / "case" / "sub" / "*.csv",
                                        tmp_path / "data" / "case" / "sub" / "up.csv"]


def test_a_specs_files_are_listed_once_per_build_and_afresh_in_the_next(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Within a build (builder.core.build_scope) a spec's data files are globbed and checked once,
    however many stages ask; the next build lists them again, so a file added between builds counts."""
    import glob as glob_module
    from builder.core.build_scope import build_scope
    (tmp_path / "a_test.csv").write_text("q,A,B,answer\n", encoding="utf-8")
    spec = tmp_path / "case.yaml"
    spec.write_text(f"name: case\ndataset_path: {tmp_path}/*_test.csv\ndoc_to_text: q\ndoc_to_choice: [A, B]\n"
                    "doc_to_target: answer\n", encoding="utf-8")
    calls, real = [], glob_module.glob
    monkeypatch.setattr(glob_module, "glob", lambda *a, **k: calls.append(a) or real(*a, **k))
    with build_scope():
        first = [load_spec(spec, root=tmp_path).location.files() for _ in range(3)]
        assert load_spec(spec, root=tmp_path) is load_spec(spec, root=tmp_path)  # the spec read once too
        plain = {"HOME": "/a"}
        assert load_spec(spec, root=tmp_path, environ=plain) is load_spec(spec, root=tmp_path, environ={
            **plain, "KMP_DUPLICATE_LIB_OK": "True"}), "a variable no spec reads does not read it again"
        moved = {**plain, "BUZZPROBE_DATA_CASE": str(tmp_path / "a_test.csv")}
        assert load_spec(spec, root=tmp_path, environ=moved) is not load_spec(spec, root=tmp_path, environ=plain)
    assert len(calls) == 1 and first == [[tmp_path / "a_test.csv"]] * 3
    assert load_spec(spec, root=tmp_path) is not load_spec(spec, root=tmp_path)
    (tmp_path / "b_test.csv").write_text("q,A,B,answer\n", encoding="utf-8")
    with build_scope():
        assert load_spec(spec, root=tmp_path).location.files() == [tmp_path / "a_test.csv", tmp_path / "b_test.csv"]
    assert len(calls) == 2
    load_spec(spec, root=tmp_path).location.files()  # outside a build: listed every time
    assert len(calls) == 3
