"""The spec keys for files as benchmarks release them (issue 31): `filter`, multi-answer
targets, `options_from_text`, `split` as a template, TSV and `delimiter`, a `labels` file and
`nested` parallel lists. Every data file here is written in its upstream layout with made-up
text (never a copy of a real set's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.benchmarks.mcq.analyses.audit import run_audit
from builder.benchmarks.mcq.analyses.findings import examine
from builder.benchmarks.mcq.answers import exact_set_correct
from builder.benchmarks.mcq.choice_set import choice_set
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import InputError


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def spec_file(folder: Path, body: str, name: str = "case") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\n" + body, encoding="utf-8")
    return path


def problems(spec: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_benchmark(spec)
    return [str(p) for p in info.value.problems]


def spec_problems(spec: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_spec(spec)
    return [str(p) for p in info.value.problems]


def findings(bench) -> dict:  # type: ignore[no-untyped-def]
    return examine(bench)[1].by_name()


# ------------------------------------------------------------------ filter and multi-answer records


def _gaokao_like(folder: Path, n: int = 12) -> Path:
    """GAOKAO-Bench's layout: options inside the question, `answer` a list of letters (one or several)."""
    rows = []
    for i in range(n):
        answer = ["A", "C"] if i % 4 == 0 else ["ABCD"[i % 4]]
        rows.append({"index": i, "year": "2020", "category": "（新课标）", "score": 6,
                     "question": f"第{i}题：关于虚构的装置，下列说法正确的是（　　）\nA．装置甲{i}\nB．装置乙较长的说明"
                                 f"\nC．装置丙{i * 3}\nD．装置丁",
                     "answer": answer, "analysis": "略"})
    path = folder / "Physics_MCQs.json"
    path.write_text(json.dumps({"keywords": "物理", "example": rows}, ensure_ascii=False), encoding="utf-8")
    return path


def test_multi_answer_records_are_kept_as_sets_and_left_out_of_the_probes(tmp_path: Path) -> None:
    data = _gaokao_like(tmp_path)
    spec = spec_file(tmp_path, f"dataset_path: {data}\nrecords: example\nid: index\noptions_from_text: question\n"
                               "doc_to_target: answer\n")
    bench = load_benchmark(spec)
    assert len(bench.items) == 12  # nothing refused
    multi = [i for i in bench.items if i.multiple_answers]
    assert [i.id for i in multi] == ["0", "4", "8"]
    assert multi[0].answers == frozenset({0, 2}) and multi[0].golds == (0, 2)
    single = bench.items[1]
    assert single.answers == frozenset({1}) and single.golds == () and single.gold == 1
    found = findings(bench)["multiple_answers"]
    assert (found.rule, found.count, [e.id for e in found.examples]) == ("excluded", 3, ["0", "4", "8"])
    assert sorted(choice_set(bench).items) == [i.number for i in bench.items if not i.multiple_answers]
    assert exact_set_correct(multi[0].answers, {0, 2}) and not exact_set_correct(multi[0].answers, {0})
    assert not exact_set_correct(multi[0].answers, {0, 1, 2})


def test_a_target_template_rendering_a_list_literal_is_a_set(tmp_path: Path) -> None:
    """ChemBench's layout: examples[0].target_scores maps each option's text to 1 (correct) or 0."""
    folder = tmp_path / "chem"
    folder.mkdir()
    for i, scores in enumerate(({"H2": 1, "O2": 0, "N2": 1}, {"He": 0, "Ne": 1, "Ar": 0})):
        (folder / f"q{i}.json").write_text(json.dumps({"name": f"q{i}", "examples": [
            {"input": f"Which gases, case {i}?", "target_scores": scores}]}), encoding="utf-8")
    spec = spec_file(tmp_path, f"dataset_path: {folder}/*.json\nrecords: examples\n"
                               "id: '{{ file_stem }}-{{ file_record }}'\ndoc_to_text: input\n"
                               "doc_to_choice: '{{ target_scores.keys() | list }}'\n"
                               "doc_to_target: \"[{% for k, v in target_scores.items() if v %}"
                               "{{ k | tojson }}, {% endfor %}]\"\n")
    bench = load_benchmark(spec)
    assert [(i.id, i.choices, i.answers) for i in bench.items] == [
        ("q0-1", ("H2", "O2", "N2"), frozenset({0, 2})), ("q1-1", ("He", "Ne", "Ar"), frozenset({1}))]
    assert bench.items[1].golds == () and bench.items[1].gold == 1  # one correct option: an ordinary item


def test_an_empty_or_unreadable_list_target_is_located(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"q": "x?", "choices": ["a", "b"], "answer": []},
                          {"q": "y?", "choices": ["a", "b"], "answer": ["a", "z"]}), encoding="utf-8")
    found = problems(spec_file(tmp_path, f"dataset_path: {data}\ndoc_to_text: q\ndoc_to_choice: choices\n"
                                         "doc_to_target: answer\n"))
    assert any("d.jsonl:1 [record 1, doc_to_target]" in p and "empty list" in p for p in found)
    assert any("d.jsonl:2 [record 2, doc_to_target]" in p and "'z'" in p for p in found)


def test_filter_skips_records_and_counts_them_with_examples(tmp_path: Path) -> None:
    data = _gaokao_like(tmp_path)
    spec = spec_file(tmp_path, f"dataset_path: {data}\nrecords: example\nid: index\noptions_from_text: question\n"
                               "doc_to_target: '{{ answer[0] }}'\nfilter: '{{ answer | length == 1 }}'\n")
    bench = load_benchmark(spec)
    assert len(bench.items) == 9 and not any(i.multiple_answers for i in bench.items)
    assert [(s.id, s.number) for s in bench.filtered] == [("0", 1), ("4", 5), ("8", 9)]
    found = findings(bench)
    assert (found["filtered_records"].rule, found["filtered_records"].count) == ("excluded", 3)
    assert [e.id for e in found["filtered_records"].examples] == ["0", "4", "8"]
    assert "multiple_answers" not in found  # listed only where it occurs
    assert run_audit(bench).findings.by_name()["filtered_records"].count == 3


def test_filter_must_be_a_template_and_a_failing_one_is_located(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"q": "x?", "choices": ["a", "b"], "answer": 0}), encoding="utf-8")
    base = f"dataset_path: {data}\ndoc_to_text: q\ndoc_to_choice: choices\ndoc_to_target: answer\n"
    bad = spec_problems(spec_file(tmp_path, base + "filter: keep\n"))
    assert any("[filter]" in p and "must be a template" in p for p in bad)
    failing = problems(spec_file(tmp_path, base + "filter: '{{ missing_field > 1 }}'\n"))
    assert any("d.jsonl:1 [record 1, filter]" in p for p in failing)
    everything = problems(spec_file(tmp_path, base + "filter: '{{ false }}'\n"))
    assert any("skipped all 1 records" in p for p in everything)


def test_specs_without_the_new_keys_list_no_new_findings(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl(*({"q": f"q{i}?", "choices": ["a", "b"], "answer": i % 2} for i in range(6))),
                    encoding="utf-8")
    bench = load_benchmark(spec_file(tmp_path, f"dataset_path: {data}\ndoc_to_text: q\ndoc_to_choice: choices\n"
                                               "doc_to_target: answer\n"))
    assert list(findings(bench)) == ["varying_choice_counts", "gold_duplicated", "duplicate_choices",
                                     "empty_choices", "lettered_choices", "shared_option_sets"]


# ------------------------------------------------------------------ options inside the question


def _one(tmp_path: Path, question: str, answer: str = "B", extra: str = "", from_text: str = "question") -> object:
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"id": "1", "question": question, "answer": answer}), encoding="utf-8")
    spec = spec_file(tmp_path, f"dataset_path: {data}\nid: id\noptions_from_text: {from_text}\n"
                               f"doc_to_target: answer\n{extra}")
    return load_benchmark(spec).items[0]


@pytest.mark.parametrize("question, stem, options", [
    # LawBench: A:…;B:…;C:…;D:… after the question, no space
    ("根据虚构的条例，下列说法正确的是？A:甲应赔偿;B:乙应赔偿;C:双方均不赔偿;D:由法院裁量。",  # the closing 。 is not D's
     "根据虚构的条例，下列说法正确的是？", ("甲应赔偿", "乙应赔偿", "双方均不赔偿", "由法院裁量")),
    # GAOKAO: full-width dots, one option a line
    ("关于虚构的实验，正确的是（　　）\nA．甲组较快\nB．乙组较快\nC．一样快\nD．无法判断",
     "关于虚构的实验，正确的是（　　）", ("甲组较快", "乙组较快", "一样快", "无法判断")),
    # AGIEval / English: (A) prefixes
    ("Which made-up planet is largest? (A) Zorb (B) Quill (C) Mennet (D) Ystra",
     "Which made-up planet is largest?", ("Zorb", "Quill", "Mennet", "Ystra")),
    # a full stop every option has is theirs
    ("Pick one. A. one. B. two. C. three.", "Pick one.", ("one.", "two.", "three.")),
    ("选哪个？A:甲。;B:乙。;C:丙。;D:丁。。", "选哪个？", ("甲。", "乙。", "丙。", "丁。")),
    # A. B. C. on one line, a stray "A." in the stem and initials inside an option
    ("In part A. of the made-up survey, who wrote it? A. J. K. Smith B. R. Jones C. the panel D. nobody",
     "In part A. of the made-up survey, who wrote it?", ("J. K. Smith", "R. Jones", "the panel", "nobody")),
])
def test_common_layouts_split_into_a_stem_and_lettered_options(tmp_path: Path, question: str, stem: str,
                                                                options: tuple[str, ...]) -> None:
    item = _one(tmp_path, question)
    assert (item.stem, item.choices, item.gold) == (stem, options, 1)
    assert item.option_letters == ("A", "B", "C", "D")[:len(options)]


def test_out_of_order_and_missing_letters_are_kept_and_counted(tmp_path: Path) -> None:
    """LogiQA-zh writes some items' letters A, C, B, D: the target letter names the option after it."""
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"id": "1", "question": "虚构题一？A．甲 C．丙 B．乙 D．丁", "answer": "B"},
                          {"id": "2", "question": "虚构题二？A．甲 B．乙 D．丁", "answer": "D"},
                          {"id": "3", "question": "虚构题三？A．甲 B．乙 C．丙 D．丁", "answer": "C"}),
                    encoding="utf-8")
    bench = load_benchmark(spec_file(tmp_path, f"dataset_path: {data}\nid: id\noptions_from_text: question\n"
                                               "doc_to_target: answer\n"))
    first, second, third = bench.items
    assert (first.choices, first.gold) == (("甲", "丙", "乙", "丁"), 2)  # "B" is the option written after B
    assert (second.choices, second.gold, second.option_letters) == (("甲", "乙", "丁"), 2, ("A", "B", "D"))
    assert third.gold == 2
    found = findings(bench)["option_letters"]
    assert (found.rule, found.count, [e.id for e in found.examples]) == ("kept", 2, ["1", "2"])


def test_a_pattern_splits_any_other_layout(tmp_path: Path) -> None:
    item = _one(tmp_path, "Made-up question? [a] first [b] second [c] third", "b",
                from_text="{field: question, pattern: '\\[([a-d])\\]'}")
    assert (item.stem, item.choices, item.gold) == ("Made-up question?", ("first", "second", "third"), 1)


def test_explicit_doc_to_text_and_doc_to_choice_win_over_the_split(tmp_path: Path) -> None:
    item = _one(tmp_path, "Q? A. x B. y", "A", "doc_to_text: '{{ id }}: {{ question }}'\n")
    assert (item.stem, item.choices) == ("1: Q? A. x B. y", ("x", "y"))


def test_too_few_options_and_bad_keys_are_located(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"id": "1", "question": "no options at all", "answer": "A"}), encoding="utf-8")
    found = problems(spec_file(tmp_path, f"dataset_path: {data}\noptions_from_text: question\n"
                                         "doc_to_target: answer\n"))
    assert any("d.jsonl:1 [record 1, options_from_text]" in p and "holds 0 lettered option(s)" in p
               and "filter" in p for p in found)
    bad = spec_problems(spec_file(tmp_path, f"dataset_path: {data}\ndoc_to_target: answer\n"
                                            "options_from_text: {field: question, pattern: '[A-D]\\.'}\n"))
    assert any("[options_from_text]" in p and "group capturing the letter" in p for p in bad)
    missing = spec_problems(spec_file(tmp_path, f"dataset_path: {data}\ndoc_to_target: answer\n"))
    assert any("[doc_to_text]" in p and "options_from_text" in p for p in missing)
    assert any("[doc_to_choice]" in p for p in missing)


# ------------------------------------------------------------------ split files, TSV, label files, parallel lists


def test_split_as_a_template_reads_train_and_test_from_their_file_names(tmp_path: Path) -> None:
    """ARC's layout: ARC-Challenge-Train.jsonl and ARC-Challenge-Test.jsonl, the split only in the name."""
    for part, n in (("Train", 3), ("Test", 2)):
        (tmp_path / f"ARC-Challenge-{part}.jsonl").write_text(jsonl(*(
            {"id": f"{part}_{i}", "question": {"stem": f"Made-up {part} question {i}?",
                                               "choices": [{"text": t, "label": lab} for t, lab in
                                                           (("rock", "A"), ("paper", "B"), ("scissors", "C"))]},
             "answerKey": "ABC"[i % 3]} for i in range(n))), encoding="utf-8")
    body = (f"dataset_path: {tmp_path}/ARC-Challenge-*.jsonl\nid: id\ndoc_to_text: '{{{{ question.stem }}}}'\n"
            "doc_to_choice: \"{{ question.choices | map(attribute='text') | list }}\"\ndoc_to_target: answerKey\n"
            "test_split: Test\ntrain_split: Train\n")
    bench = load_benchmark(spec_file(tmp_path, body + "split: \"{{ file_stem.split('-')[-1] }}\"\n"))
    assert [(i.id, i.split) for i in bench.items] == [("Test_0", "Test"), ("Test_1", "Test"), ("Train_0", "Train"),
                                                      ("Train_1", "Train"), ("Train_2", "Train")]
    named = load_benchmark(spec_file(tmp_path, body.replace("Test\n", "ARC-Challenge-Test\n").replace(
        "Train\n", "ARC-Challenge-Train\n") + "split: file_stem\n"))  # a field name falls back to the file's names
    assert named.items[0].split == "ARC-Challenge-Test"


def test_tsv_and_a_delimiter(tmp_path: Path) -> None:
    """CODAH's full_data.tsv: no header; category, question, four candidate endings, the 0-based answer."""
    rows = [("o", f"A made-up person {i} opens the door.", "They walk in.", "They eat it.", "It sings.",
             "The door flies.", str(i % 4)) for i in range(3)]
    (tmp_path / "full_data.tsv").write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    columns = "csv_columns: [category, question, a, b, c, d, answer]\n"
    body = "doc_to_text: question\ndoc_to_choice: [a, b, c, d]\ndoc_to_target: answer\ncategory: category\n"
    bench = load_benchmark(spec_file(tmp_path, f"dataset_path: {tmp_path}/full_data.tsv\n" + columns + body))
    assert bench.spec.dataset_format == "tsv" and len(bench.items) == 3
    assert (bench.items[1].stem, bench.items[1].choices[0], bench.items[1].gold, bench.items[1].line) == (
        "A made-up person 1 opens the door.", "They walk in.", 1, 2)
    (tmp_path / "pipes.txt").write_text("".join("|".join(r) + "\n" for r in rows), encoding="utf-8")
    piped = load_benchmark(spec_file(tmp_path, f"dataset_path: {tmp_path}/pipes.txt\ndataset_format: csv\n"
                                               "delimiter: '|'\n" + columns + body))
    assert [i.choices for i in piped.items] == [i.choices for i in bench.items]
    bad = spec_problems(spec_file(tmp_path, f"dataset_path: {tmp_path}/pipes.txt\ndataset_format: jsonl\n"
                                            "delimiter: '||'\n" + body))
    assert any("[delimiter]" in p and "only a table" in p for p in bad)
    bad = spec_problems(spec_file(tmp_path, f"dataset_path: {tmp_path}/pipes.txt\ndataset_format: csv\n"
                                            "delimiter: '||'\n" + columns + body))
    assert any("[delimiter]" in p and "one character" in p for p in bad)


def test_labels_in_their_own_file(tmp_path: Path) -> None:
    """PIQA: dev.jsonl (goal, sol1, sol2) and dev-labels.lst, one 0/1 a line."""
    (tmp_path / "dev.jsonl").write_text(jsonl(*({"id": f"p{i}", "goal": f"To do made-up task {i}",
                                                 "sol1": "use a spoon", "sol2": "use a fork"} for i in range(4))),
                                        encoding="utf-8")
    (tmp_path / "dev-labels.lst").write_text("0\n1\n1\n0\n", encoding="utf-8")
    body = ("dataset_path: {dir}/dev.jsonl\nid: id\ndoc_to_text: goal\ndoc_to_choice: [sol1, sol2]\n"
            "doc_to_target: label\nlabels: {{path: dev-labels.lst, field: label}}\n")
    bench = load_benchmark(spec_file(tmp_path, body.format(dir=tmp_path)))
    assert [i.gold for i in bench.items] == [0, 1, 1, 0]  # the path is beside the data file
    alone = load_benchmark(spec_file(tmp_path, "dataset_path: dev.jsonl\nid: id\ndoc_to_text: goal\n"
                                               "doc_to_choice: [sol1, sol2]\ndoc_to_target: label\n"
                                               "labels: {path: dev-labels.lst, field: label}\n"), root=tmp_path)
    assert len(alone.items) == 4
    (tmp_path / "dev-labels.lst").write_text("0\n1\n1\n", encoding="utf-8")
    found = problems(spec_file(tmp_path, body.format(dir=tmp_path)))
    assert any("dev-labels.lst:4 [labels]" in p and "3 lines for 4 records" in p for p in found)
    bad = spec_problems(spec_file(tmp_path, body.format(dir=tmp_path).replace(", field: label", "")))
    assert any("[labels]" in p and "{path: FILE, field: NAME}" in p for p in bad)


def test_the_labels_file_enters_the_data_hash(tmp_path: Path) -> None:
    (tmp_path / "dev.jsonl").write_text(jsonl({"goal": "g", "sol1": "a", "sol2": "b"}), encoding="utf-8")
    (tmp_path / "labels.lst").write_text("0\n", encoding="utf-8")
    spec = spec_file(tmp_path, f"dataset_path: {tmp_path}/dev.jsonl\ndoc_to_text: goal\ndoc_to_choice: [sol1, sol2]"
                               "\ndoc_to_target: label\nlabels: {path: labels.lst, field: label}\n")
    before = load_benchmark(spec).data.sha256
    (tmp_path / "labels.lst").write_text("1\n", encoding="utf-8")
    after = load_benchmark(spec)
    assert after.data.sha256 != before and after.items[0].gold == 1


def test_nested_parallel_lists_give_one_item_per_position(tmp_path: Path) -> None:
    """GAOKAO English reading: one passage, its questions, options and answers in parallel lists."""
    doc = {"passage": "A made-up passage about a lighthouse.", "questions": ["Who?", "Where?", "When?"],
           "options": [["a", "b"], ["c", "d"], ["e", "f"]], "answer": ["B", "A", "B"]}
    (tmp_path / "reading.jsonl").write_text(jsonl(doc, {**doc, "answer": ["A"]}), encoding="utf-8")
    body = (f"dataset_path: {tmp_path}/reading.jsonl\nnested: [questions, options, answer]\n"
            "doc_to_text: '{{ parent.passage }} {{ questions }}'\ndoc_to_choice: options\ndoc_to_target: answer\n")
    found = problems(spec_file(tmp_path, body))
    assert any("reading.jsonl:2 [record 2]" in p and "questions: 3, options: 3, answer: 1" in p for p in found)
    (tmp_path / "reading.jsonl").write_text(jsonl(doc), encoding="utf-8")
    bench = load_benchmark(spec_file(tmp_path, body))
    assert [(i.stem, i.choices, i.gold) for i in bench.items] == [
        ("A made-up passage about a lighthouse. Who?", ("a", "b"), 1),
        ("A made-up passage about a lighthouse. Where?", ("c", "d"), 0),
        ("A made-up passage about a lighthouse. When?", ("e", "f"), 1)]
    bad = spec_problems(spec_file(tmp_path, body.replace("[questions, options, answer]", "[questions, questions]")))
    assert any("[nested]" in p and "distinct keys" in p for p in bad)


# ------------------------------------------------------------------ every key documented, from the code


def test_the_spec_key_table_in_docs_is_generated_from_the_code() -> None:
    from builder.benchmarks.mcq import spec_keys
    from builder.benchmarks.mcq.spec import KEYS
    current = spec_keys.DOC.read_text(encoding="utf-8")
    assert current == spec_keys.document(current), "docs/audit.md's key table is stale: run `make spec-doc`"
    table = spec_keys.keys_table()
    assert all(f"| `{key}` |" in table for key in KEYS) and "| `results` |" in table


def test_a_key_without_a_meaning_fails_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.mcq import spec_keys
    monkeypatch.setattr(spec_keys, "KEYS", (*spec_keys.KEYS, "brand_new_key"))
    with pytest.raises(KeyError, match="brand_new_key"):
        spec_keys.keys_table()
    current = spec_keys.DOC.read_text(encoding="utf-8")
    monkeypatch.setattr(spec_keys, "MEANINGS", {**spec_keys.MEANINGS, "brand_new_key": "new"})
    assert spec_keys.document(current) != current  # a new key makes the committed page stale


def test_a_labels_file_outside_the_readable_folders_is_refused(tmp_path: Path) -> None:
    inside = tmp_path / "spec"
    inside.mkdir()
    (inside / "dev.jsonl").write_text(jsonl({"goal": "g", "sol1": "a", "sol2": "b"}), encoding="utf-8")
    (tmp_path / "secret.lst").write_text("0\n", encoding="utf-8")
    spec = spec_file(inside, f"dataset_path: {inside}/dev.jsonl\ndoc_to_text: goal\ndoc_to_choice: [sol1, sol2]\n"
                             "doc_to_target: label\nlabels: {path: ../secret.lst, field: label}\n")
    found = spec_problems(spec)
    assert any("[labels]" in p and "outside the folders data may be read from" in p for p in found)


def test_a_catastrophic_pattern_is_a_located_error_not_a_hang(tmp_path: Path) -> None:
    """A spec's own pattern is untrusted: nested repetition on a long record would run for hours
    under Python's `re`; under the `regex` engine's timeout it is refused on its first record."""
    import time
    data = tmp_path / "d.jsonl"
    data.write_text(jsonl({"id": "1", "question": "a" * 40 + "!", "answer": "A"}), encoding="utf-8")
    started = time.monotonic()
    found = problems(spec_file(tmp_path, f"dataset_path: {data}\ndoc_to_target: answer\n"
                                         "options_from_text: {field: question, pattern: '(a|aa)+([A-D])$'}\n"))
    assert time.monotonic() - started < 10
    assert any("d.jsonl:1 [record 1, options_from_text]" in p and "took over" in p for p in found)


def test_a_relative_path_is_found_beside_the_spec_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    """Issue 31 item 7: a spec and its data travel together; a path not beside the spec still
    means the repository (the shipped specs' data/...)."""
    specs, elsewhere = tmp_path / "specs", tmp_path / "elsewhere"
    specs.mkdir()
    elsewhere.mkdir()
    (specs / "d.jsonl").write_text(jsonl({"id": "1", "q": "Made-up?", "c": ["x", "y"], "a": 0}), encoding="utf-8")
    spec = specs / "bench.yaml"
    spec.write_text("name: bench\ndataset_path: d.jsonl\nid: id\ndoc_to_text: q\ndoc_to_choice: c\n"
                    "doc_to_target: a\n", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    assert load_benchmark(spec, root=elsewhere).items[0].choices == ("x", "y")
    (elsewhere / "data").mkdir()
    (elsewhere / "data" / "r.jsonl").write_text(jsonl({"id": "1", "q": "Q?", "c": ["p", "q"], "a": 1}),
                                                 encoding="utf-8")
    spec.write_text(spec.read_text(encoding="utf-8").replace("dataset_path: d.jsonl", "dataset_path: data/r.jsonl"),
                    encoding="utf-8")
    assert load_benchmark(spec, root=elsewhere).items[0].gold == 1  # not beside the spec: the repository's
