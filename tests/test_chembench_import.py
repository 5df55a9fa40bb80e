"""ChemBench's published per-question reports read as the upstream lays them out and scored as
it scores them: letters mapped to options by text, several golds as an exact set
(builder/benchmarks/mcq/results/chembench.py)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from builder.benchmarks.mcq.results import chembench as C
from builder.core.errors import InputError
from tests.test_shelf import shared_copy, unpacked_copy


def _question(options: dict[str, int]) -> C.Question:
    return C.Question("t-q-q", "t", tuple(options), frozenset(i for i, o in enumerate(options) if options[o]))


def _report(letters, shown, verdict=None) -> C.Report:
    return C.Report("t-q-q", "here", tuple(letters) if letters is not None else None,
                    tuple(zip("ABCDEFGH", shown)), verdict)


@pytest.mark.parametrize("data, prompt", [
    ("\\ce{[Fe(OH2)6]^{3+}}", "[Fe(OH2)6]3+"),
    ("$1.50\\cdot 10^{23}$", "1.50E23"),
    ("[START_SMILES]CC(=O)O[END_SMILES]", "CC(=O)O"),
    ("\\pu{550 MHz}", "\\pu550 MHz}"),
])
def test_an_option_is_known_by_its_text_as_the_prompt_strips_it(data, prompt):
    assert C.option_key(data) == C.option_key(prompt)


def test_letters_follow_the_order_the_model_saw():
    question = _question({"water": 1, "\\ce{NaCl}": 0, "ethanol": 0})
    shown = ["ethanol", "NaCl", "water"]  # the prompt's order differs from the data's
    assert C.letter_map(question, _report(["C"], shown)) == {"A": 2, "B": 1, "C": 0}
    assert C.correct(question, _report(["C"], shown)) == 1
    assert C.correct(question, _report(["A"], shown)) == 0


def test_several_golds_are_an_exact_set():
    question = _question({"a": 1, "b": 0, "c": 1, "d": 0})
    shown = ["a", "b", "c", "d"]
    assert C.correct(question, _report(["A", "C"], shown)) == 1
    assert C.correct(question, _report(["C", "A"], shown)) == 1
    assert C.correct(question, _report(["A"], shown)) == 0  # one gold short
    assert C.correct(question, _report(["A", "B", "C"], shown)) == 0  # one too many
    assert C.correct(question, _report(None, shown)) == 0  # nothing parsed
    assert C.correct(question, _report(["E"], shown)) == 0  # a letter not shown


def test_a_numeric_question_keeps_the_report_verdict():
    numeric = C.Question("t-n-n", "t", (), frozenset())
    assert C.correct(numeric, _report(None, [], verdict=1)) == 1
    assert C.correct(numeric, _report(None, [], verdict=0)) == 0


def _clone(root: Path) -> Path:
    data = root / C.ROOT / "data" / "topic"
    data.mkdir(parents=True)
    (data / "q1.json").write_text(json.dumps({"name": "one", "examples": [
        {"input": "x", "target_scores": {"yes": 1, "no": 0}}]}), encoding="utf-8")
    (data / "q2.json").write_text(json.dumps({"name": "two", "examples": [{"input": "y", "target": "3"}]}),
                                  encoding="utf-8")
    reports = root / C.ROOT / "reports" / "m"
    (reports / "reports" / "uuid").mkdir(parents=True)
    (reports / "m.json").write_text(json.dumps({"fraction_correct": 0.5, "model_scores": [
        {"question_name": "topic-q1-one", "all_correct": 1}, {"question_name": "topic-q2-two", "all_correct": 0}]}))
    prompt = "Question: x\n\nOptions:\nA. no\nB. yes\n\nAnswer"
    (reports / "reports" / "uuid" / "topic-q1-one.json").write_text(json.dumps([
        {"name": "topic-q1-one", "prompt": prompt, "parsed_output": ["B"]}]))
    (reports / "reports" / "uuid" / "topic-q2-two.json").write_text(json.dumps([
        {"name": "topic-q2-two", "prompt": "Question: y", "parsed_output": 4.0}]))
    return root


def _zipped(root: Path, below: str, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as z:
        for f in sorted((root / C.ROOT / below).rglob("*.json")):
            z.write(f, str(f.relative_to(root)))
    return target


def test_a_clone_and_the_zips_read_the_same(tmp_path):
    root = _clone(tmp_path / "clone")
    for questions, reports in ((root, root), (_zipped(root, "data", tmp_path / "data.zip"),
                                              _zipped(root, "reports/m", tmp_path / "m.zip"))):
        found = C.read_questions(questions)
        assert sorted(found) == ["topic-q1-one", "topic-q2-two"]
        read, fraction = C.read_reports(reports, "m")
        assert fraction == 0.5
        assert [C.correct(found[k], read[k]) for k in sorted(found)] == [1, 0]


def test_a_broken_question_file_is_located(tmp_path):
    root = _clone(tmp_path)
    (root / C.ROOT / "data" / "topic" / "q3.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="q3.json"):
        C.read_questions(root)


@pytest.fixture(scope="module")
def questions() -> dict[str, C.Question]:
    """The shared data.zip's 2,788 questions, read once: three tests read the same file (frozen items)."""
    return C.read_questions(shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH") / "data.zip")


@pytest.fixture(scope="module")
def gpt4o_reports() -> tuple[dict[str, C.Report], float]:
    """gpt-4o's published reports, read once: two tests read the same zip (frozen reports)."""
    return C.read_reports(shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH") / "reports" / "gpt-4o.zip", "gpt-4o")


def test_the_published_reports_reproduce_the_paper(questions, gpt4o_reports):
    """Per question, the recomputed verdict is the report's own `all_correct` on every
    multiple-choice item; over all 2,788 questions the accuracy is the paper's table's."""
    shared = shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH")
    assert len(questions) == 2788 and sum(bool(q.options) for q in questions.values()) == 2544
    assert sum(len(q.golds) > 1 for q in questions.values()) == 394  # and one with two half-scored options
    assert questions["pubchem_data-pictograms_271-GHS_pictograms"].topic == "safety"
    for system, table in (("o1", 0.64), ("gpt-4o", 0.61), ("claude3.5", 0.63)):
        reports, fraction = gpt4o_reports if system == "gpt-4o" else \
            C.read_reports(shared / "reports" / f"{system}.zip", system)
        verdicts = {k: C.correct(questions[k], reports[k]) for k in questions}
        assert all(verdicts[k] == reports[k].all_correct for k in questions if questions[k].options), system
        accuracy = sum(verdicts.values()) / len(verdicts)
        assert accuracy == pytest.approx(fraction) and round(accuracy, 2) == table


def test_the_chemists_answers_are_scored_the_same_way(questions):
    """The chemists' 5,042 answers on 236 questions; the recomputed verdict equals the chemists'
    own summaries on every multiple-choice answer they list but 15, where the summary's verdict
    contradicts the report's letters and targets (an upstream inconsistency, reported)."""
    shared = shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH")
    answers, fractions = C.read_human_reports(shared / "reports" / "humans.zip")
    assert len(answers) == 5042 and len(fractions) == 40
    listed = [a for a in answers if questions[a.report.key].options and a.report.all_correct is not None]
    differ = [a for a in listed if C.correct(questions[a.report.key], a.report) != a.report.all_correct]
    assert len(differ) == 15
    assert len(C.pooled(questions, answers)) == 236


# ------------------------------------------------------------------ the spec and `import results --format chembench`

@pytest.fixture(scope="module")
def unpacked(tmp_path_factory) -> Path:
    """The shared data.zip unpacked (it keeps the upstream's paths: a clone's layout); the shared
    copy itself where it is already unpacked the same way (CI's .ci/run, `make chembench-data`)."""
    shared = shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH")
    return unpacked_copy(shared, tmp_path_factory.mktemp("chembench"))


@pytest.fixture(scope="module")
def spec_data(unpacked: Path):
    """The shipped spec read from the unpacked copy, once for the module (2,788 files: seconds)."""
    from builder.benchmarks.mcq.load import load_benchmark
    from tests.test_shelf import SPECS, REPO
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BUZZPROBE_DATA_CHEMBENCH", str(unpacked))
        return load_benchmark(SPECS / "chembench.yaml", root=REPO)


def _spec(monkeypatch, unpacked: Path, spec_data):
    """The spec's items, with the copy named for what the test runs next (an import reads it)."""
    monkeypatch.setenv("BUZZPROBE_DATA_CHEMBENCH", str(unpacked))
    return spec_data


def test_the_spec_reads_every_question_and_keeps_several_golds_as_sets(monkeypatch, unpacked, spec_data,
                                                                       questions):
    bench = _spec(monkeypatch, unpacked, spec_data)
    assert len(bench.items) == 2544 and len(bench.filtered) == 244  # the numeric ones, as a finding
    assert sum(i.multiple_answers for i in bench.items) == 394
    assert {len(i.choices) for i in bench.items} >= {2, 16}
    by_id = {i.id: i for i in bench.items}
    from builder.benchmarks.mcq.results.chembench_import import spec_ids
    for key, q in questions.items():
        (found,) = spec_ids(key, set(by_id) | {s.id for s in bench.filtered})
        if q.options:
            assert by_id[found].choices == q.options and by_id[found].answers == q.golds


def _imported(tmp_path, shared: Path, system: str):
    from builder.cli import main
    from builder.runs.reader import read_run
    assert main(["import", "results", str(shared / "reports" / f"{system}.zip"), "--benchmark", "chembench",
                 "--format", "chembench", "--model", system, "--out", str(tmp_path)]) == 0
    return read_run(next(tmp_path.glob("*.jsonl.gz")))


def test_a_system_run_holds_the_single_gold_items_scored_as_the_upstream(monkeypatch, unpacked, spec_data, tmp_path,
                                                                         capsys, gpt4o_reports):
    """The run's letters (data order) agree with the report's own verdict on every item it holds;
    the numeric and several-gold questions are left out and said so."""
    shared = shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH")
    bench = _spec(monkeypatch, unpacked, spec_data)
    run = _imported(tmp_path, shared, "gpt-4o")
    err = capsys.readouterr().err
    assert "244 report(s) of questions the spec's filter skips" in err and "394 item(s) the audit leaves out" in err
    assert len(run.items) == 2150 and run.footer is not None and run.header.source["scoring"] == "upstream-chembench"
    reports, fraction = gpt4o_reports
    every = run.header.source["upstream_all"]  # over all 2,788 questions: the paper's overall accuracy
    assert every["questions"] == 2788 and every["correct"] / every["questions"] == pytest.approx(fraction)
    by_id = {i.id: i for i in bench.items}
    for item in run.items:
        right = item.prediction != "" and item.letter_map[item.prediction] == by_id[item.id].gold
        key = next(k for k in reports if k.startswith(item.id + "-"))
        assert int(right) == reports[key].all_correct, item.id


def test_the_chemists_are_a_partial_run_of_their_own(monkeypatch, unpacked, spec_data, tmp_path, capsys):
    shared = shared_copy("chembench", "BUZZPROBE_DATA_CHEMBENCH")
    _spec(monkeypatch, unpacked, spec_data)
    run = _imported(tmp_path, shared, "humans")
    assert run.header.subject["name"] == "humans" and run.footer is None  # partial: no footer
    assert "upstream_all" not in run.header.source
    assert len(run.items) == 167 and "167 of 2,150 items (partial)" in capsys.readouterr().out


def test_a_malformed_summary_row_is_located(tmp_path):
    root = _clone(tmp_path)
    summary = root / C.ROOT / "reports" / "m" / "m.json"
    summary.write_text(json.dumps({"fraction_correct": 0.5, "model_scores": [
        {"question_name": "topic-q1-one", "all_correct": 1}, {"question_name": "topic-q2-two"}]}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        C.read_reports(root, "m")
    assert "m.json" in str(caught.value) and "model_scores[2]" in str(caught.value)
