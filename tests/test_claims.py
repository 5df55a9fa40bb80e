"""The claims engine: conditions, aggregates, prediction and statement verdicts, YAML loading."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from builder.claims.engine import (
    Condition, Evidence, MeasureRegistry, Prediction, Statement, evaluate, judge_prediction, judge_statement,
)
from builder.claims.loading import load_predictions, load_statements
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]


def registry(**series: list[float]) -> MeasureRegistry:
    reg = MeasureRegistry()
    for name, values in series.items():
        reg.register(name, lambda values=values: [Evidence(f"e{i}", v) for i, v in enumerate(values)])
    return reg


def cond(measure: str, aggregate: str, op: str, threshold: float) -> Condition:
    return Condition(measure, {}, aggregate, op, threshold)


@pytest.mark.parametrize("aggregate, op, threshold, expected, value", [
    ("all", "<", 40, False, None), ("all", "<", 70, True, None), ("any", ">=", 65, True, None),
    ("any", ">", 65, False, None), ("min", ">", 30, True, 35.0), ("max", "<", 60, False, 65.0),
    ("mean", "==", 50, True, 50.0), ("count", ">=", 3, True, 3.0),
])
def test_aggregates(aggregate, op, threshold, expected, value):
    result = evaluate(cond("s", aggregate, op, threshold), registry(s=[35.0, 50.0, 65.0]))
    assert result.holds is expected
    assert result.value == value
    assert [e.value for e in result.evidence] == [35.0, 50.0, 65.0]


def test_no_evidence_is_neither_true_nor_false():
    result = evaluate(cond("s", "max", "<", 40), registry(s=[]))
    assert result.holds is None and result.evidence == ()


def prediction(supported, refuted, deadline=dt.date(2027, 6, 30)) -> Prediction:
    return Prediction("p", "claim", "src", dt.date(2026, 9, 22), deadline, tuple(supported), tuple(refuted))


def test_prediction_statuses():
    today = dt.date(2026, 12, 1)
    reg = registry(low=[30.0, 35.0], high=[70.0], none=[])
    supported = [cond("low", "max", "<", 40)]
    assert judge_prediction(prediction(supported, [cond("none", "any", ">=", 65)]), reg, today).status == "supported"
    # refutation wins over support
    assert judge_prediction(prediction(supported, [cond("high", "any", ">=", 65)]), reg, today).status == "refuted"
    # no evidence before the deadline: open; after it: expired
    open_one = prediction([cond("none", "max", "<", 40)], [cond("none", "any", ">=", 65)])
    assert judge_prediction(open_one, reg, today).status == "open"
    assert judge_prediction(open_one, reg, dt.date(2027, 7, 1)).status == "expired"
    assert judge_prediction(open_one, reg, dt.date(2027, 6, 30)).status == "open"  # the deadline day itself counts
    # partial support is not support
    partial = prediction([cond("low", "max", "<", 40), cond("none", "min", ">", 30)], [])
    assert judge_prediction(partial, reg, today).status == "open"
    # no deadline never expires
    assert judge_prediction(prediction([cond("none", "max", "<", 1)], [], deadline=None), reg,
                            dt.date(2099, 1, 1)).status == "open"


def test_statement_verdicts():
    reg = registry(a=[1.0, 2.0], b=[])
    holds = Statement("s", "c", "src", (cond("a", "max", "==", 2),))
    fails = Statement("s", "c", "src", (cond("a", "max", "==", 2), cond("a", "min", ">", 1)))
    unknown = Statement("s", "c", "src", (cond("b", "max", "==", 2),))
    assert judge_statement(holds, reg).status == "holds"
    assert judge_statement(fails, reg).status == "does not hold"
    assert judge_statement(unknown, reg).status == "no evidence"


def test_unknown_measure_is_an_error_at_evaluation():
    with pytest.raises(KeyError, match="unknown measure"):
        evaluate(cond("missing", "max", "<", 1), registry())


def test_project_predictions_load_with_the_build_measures():
    predictions = load_predictions(REPO / "content" / "predictions.yaml", {"run_metric", "pair_metric", "fact", "above_chance"})
    ids = [p.id for p in predictions]
    assert ids == ["gold-pool-collapse", "frontier-blind-near-80"]
    first = predictions[0]
    assert first.deadline == dt.date(2027, 6, 30)
    assert [c.threshold for c in first.supported_when] == [40.0, 30.0]
    assert first.refuted_when[0].threshold == 65.0


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(text)
    return path


def test_bad_prediction_file_names_fields(tmp_path):
    path = write(tmp_path, """
predictions:
  - id: x
    claim: something
    source: somewhere
    registered: not-a-date
    supported_when:
      - {measure: nope, aggregate: most, op: "~", threshold: high}
""")
    with pytest.raises(InputError) as info:
        load_predictions(path, {"run_metric"})
    text = str(info.value)
    for fragment in ("predictions[0].registered", "expected a date"):
        assert fragment in text
    path = write(tmp_path, """
predictions:
  - {id: x, claim: c, source: s, registered: 2026-01-01,
     supported_when: [{measure: nope, aggregate: most, op: "~", threshold: high}]}
""")
    with pytest.raises(InputError) as info:
        load_predictions(path, {"run_metric"})
    text = str(info.value)
    for fragment in ("supported_when[0].measure", "supported_when[0].aggregate", "supported_when[0].op",
                     "supported_when[0].threshold", "unknown measure 'nope'"):
        assert fragment in text, fragment


def test_duplicate_ids_and_missing_text(tmp_path):
    path = write(tmp_path, """
claims:
  - {id: a, claim: c, source: s, holds_when: []}
  - {id: a, claim: c, source: s, holds_when: []}
  - {id: b, source: s, holds_when: []}
""")
    with pytest.raises(InputError) as info:
        load_statements(path, set())
    assert "'a' is used twice" in str(info.value) and "claims[2].claim" in str(info.value)


def test_invalid_yaml_reports_line(tmp_path):
    path = write(tmp_path, "predictions:\n  - id: [unclosed\n")
    with pytest.raises(InputError) as info:
        load_predictions(path, set())
    assert "not valid YAML" in str(info.value)


def labelled(**series: dict[str, list[float]]) -> MeasureRegistry:
    """Measures whose evidence is labelled by subject, as run and pair measures are."""
    reg = MeasureRegistry()
    for name, by_subject in series.items():
        reg.register(name, lambda by_subject=by_subject: [
            Evidence(subject, v) for subject, values in by_subject.items() for v in values])
    return reg


def test_a_named_population_waits_for_every_named_subject():
    from builder.claims.engine import Population
    today = dt.date(2026, 12, 1)
    both = Population("GPT-5.5 and Gemini 3.1 Pro", ("gpt-5\\.5", "gemini-3\\.1-pro"))
    near_80 = [cond("blind", "min", ">=", 75)]
    under_70 = [cond("blind", "any", "<", 70)]
    # Only one of the two named models (and a small local model that is not named) has runs:
    # nothing may be decided, and the local model's evidence is shown as excluded.
    reg = labelled(blind={"GPT-5.5": [80.0], "qwen2.5-coder-1.5b": [27.0]})
    verdict = judge_prediction(Prediction("p", "c", "s", today, None, tuple(near_80), tuple(under_70), "", both),
                               reg, today)
    assert verdict.status == "open"
    assert verdict.supported[0].missing == ("gemini-3\\.1-pro",) and verdict.supported[0].holds is None
    assert [e.label for e in verdict.supported[0].excluded] == ["qwen2.5-coder-1.5b"]
    # Without the population, the 1.5B model alone would have refuted a claim about two others.
    bare = Prediction("p", "c", "s", today, None, tuple(near_80), tuple(under_70))
    assert judge_prediction(bare, reg, today).status == "refuted"
    # With both named models present, the claim is judged on them alone.
    reg = labelled(blind={"GPT-5.5": [80.0], "Gemini-3.1-Pro": [78.0], "qwen2.5-coder-1.5b": [27.0]})
    verdict = judge_prediction(Prediction("p", "c", "s", today, None, tuple(near_80), tuple(under_70), "", both),
                               reg, today)
    assert verdict.status == "supported" and verdict.supported[0].value == 78.0


def test_a_qualifying_population_counts_only_subjects_that_qualify():
    from builder.claims.engine import Population
    today = dt.date(2026, 12, 1)
    capable = Population("sighted >= 55", qualify=cond("sighted", "mean", ">=", 55))
    reg = labelled(sighted={"frontier": [86.0, 88.0], "small": [27.0]},
                   gap={"frontier": [35.0], "small": [1.0]})
    gap_above_30 = Prediction("p", "c", "s", today, None, (cond("gap", "min", ">", 30),), (), "", capable)
    verdict = judge_prediction(gap_above_30, reg, today)
    assert verdict.status == "supported"
    assert [e.label for e in verdict.supported[0].excluded] == ["small"]
    # Flip the data: the capable model's gap falls to 5, and the status follows it.
    reg = labelled(sighted={"frontier": [86.0], "small": [27.0]}, gap={"frontier": [5.0], "small": [40.0]})
    assert judge_prediction(gap_above_30, reg, today).status == "open"


@pytest.mark.parametrize("entry, measures, expected", [
    ('population: {subjects: ["gpt-5(("]}', {"run_metric"}, ("population.subjects[0]", "regular expression")),
    ('premise: {measure: above_chance, op: "~", threshold: 0}', {"above_chance"}, ("premise.op", "premise.text")),
])
def test_population_and_premise_yaml_are_validated(tmp_path: Path, entry, measures, expected):
    path = tmp_path / "predictions.yaml"
    path.write_text(f"""predictions:
  - id: p
    claim: c
    source: s
    registered: 2026-09-22
    {entry}
    supported_when: []
""", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_predictions(path, measures)
    assert all(text in str(caught.value) for text in expected)


def test_the_shipped_predictions_name_their_populations():
    predictions = {p.id: p for p in load_predictions(REPO / "content" / "predictions.yaml",
                                                     {"run_metric", "pair_metric", "fact", "above_chance"})}
    assert predictions["frontier-blind-near-80"].population.subjects == ("gpt-5\\.5", "gemini-3\\.1-pro")
    # Prediction 1 is about "a blind model", any model (the article names none): no population.
    assert predictions["gold-pool-collapse"].population is None


def test_a_premise_keeps_uninformative_subjects_out_and_lists_them():
    from builder.claims.engine import Premise
    today = dt.date(2026, 12, 1)
    exploits = Premise("blind on the original set above chance", cond("original_blind_margin", "all", ">", 0))
    under_40 = Prediction("p", "c", "s", today, None, (cond("pool_blind", "max", "<", 40),),
                          (cond("pool_blind", "any", ">=", 65),), "", None, exploits)
    # The small model collapses on the pool but never read the original options: no evidence.
    reg = labelled(original_blind_margin={"small": [-0.7]}, pool_blind={"small": [18.9]})
    verdict = judge_prediction(under_40, reg, today)
    assert verdict.status == "open"
    assert [(c.subject, c.informative) for c in verdict.premise_checks] == [("small", False)]
    assert [e.label for e in verdict.supported[0].uninformative] == ["small"] and verdict.supported[0].holds is None
    # A model above chance on the original options counts: its collapse supports the claim ...
    reg = labelled(original_blind_margin={"small": [-0.7], "capable": [45.0]},
                   pool_blind={"small": [18.9], "capable": [30.0]})
    verdict = judge_prediction(under_40, reg, today)
    assert verdict.status == "supported" and verdict.supported[0].value == 30.0
    assert [c.subject for c in verdict.uninformative] == ["small"]
    # ... and a subject with no original-set run at all cannot meet the premise either.
    reg = labelled(original_blind_margin={}, pool_blind={"unknown": [70.0]})
    verdict = judge_prediction(under_40, reg, today)
    assert verdict.status == "open" and verdict.uninformative[0].evidence == ()


# ----------------------------------------------------------- the shipped tracker on real runs
LOCAL_MODEL = REPO / "runs" / "qwen2_5-coder-1_5b-instruct-q4_k_m"


def _verdicts(real_dataset, variants, folder: Path) -> dict:
    """The shipped predictions judged on the runs of `folder`, as a build judges them."""
    from builder.benchmarks.cibuzzbench.compute import compute
    from builder.benchmarks.cibuzzbench.measures import register_run_measures
    from builder.benchmarks.cibuzzbench.run_checks import validate_runs
    from builder.runs.reader import read_run
    runs = validate_runs([read_run(p) for p in sorted(folder.glob("*.jsonl"))], {"original": real_dataset, **variants})
    computed = compute(real_dataset, runs, variants)
    reg = MeasureRegistry()
    register_run_measures(reg, computed.scores.values(), computed.facts, computed.pair_triples())
    predictions = load_predictions(REPO / "content" / "predictions.yaml", set(reg.measures), reg)
    return {p.id: judge_prediction(p, reg, dt.date(2026, 12, 1)) for p in predictions}


def _simulated_model(source: Path, out: Path, name: str, right: dict[tuple[str, str], int]) -> None:
    """Copies of the local model's Task 2 runs under another name, answering the gold on
    `right[(condition, variant)]` percent of the items (chosen by row id) and a fixed wrong
    letter otherwise: a model whose informativeness the test decides."""
    import json
    for path in sorted(source.glob("*-t2-*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        header = lines[0]
        share = right[(header["condition"], header["dataset"].get("variant", "original"))]
        header["run_id"] = header["run_id"].replace(LOCAL_MODEL.name.replace("_", "-"), name).replace(
            LOCAL_MODEL.name, name)
        header["subject"]["name"] = name
        for item in lines[1:-1]:
            gold = next(k for k, v in item["letter_map"].items() if v == "correct")
            wrong = next(k for k in "ABCD" if k != gold)
            item["prediction"] = item["response"] = gold if (item["row_id"] * 37) % 100 < share else wrong
        (out / f"{header['run_id']}.jsonl").write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def real_variants(real_dataset):
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    return derive_variants(real_dataset)


def test_the_committed_runs_leave_prediction_1_open_with_the_local_model_not_informative(
        real_dataset, real_variants, tmp_path):
    for path in LOCAL_MODEL.glob("*.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    verdict = _verdicts(real_dataset, real_variants, tmp_path)["gold-pool-collapse"]
    # Its gold-pool collapse alone would support the prediction; its blind arm at chance on the
    # original options makes that collapse no evidence.
    assert verdict.status == "open"
    (check,) = verdict.uninformative
    assert check.subject == "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M" and check.evidence[0].value <= 0
    assert "random letter's 95% interval" in check.evidence[0].note
    assert "400-item sample drawn with seed 0, option order seed 1111" in check.evidence[0].note
    assert all(r.evidence == () and r.uninformative for r in verdict.supported)


@pytest.mark.parametrize("pool_blind, status", [(25, "supported"), (80, "refuted")])
def test_an_informative_model_decides_prediction_1(real_dataset, real_variants, tmp_path, pool_blind, status):
    """A simulated model that reads the original options (76% blind, as the article's did)
    decides the prediction by its gold-pool runs, whichever way they go."""
    for path in LOCAL_MODEL.glob("*.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    _simulated_model(LOCAL_MODEL, tmp_path, "simulated-exploiter",
                     {("blind", "original"): 76, ("sighted", "original"): 86,
                      ("blind", "gold_pool"): pool_blind, ("sighted", "gold_pool"): 86})
    verdict = _verdicts(real_dataset, real_variants, tmp_path)["gold-pool-collapse"]
    assert verdict.status == status
    informative = {c.subject: c.informative for c in verdict.premise_checks}
    assert informative == {"simulated-exploiter": True, "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M": False}
    assert [e.label for e in verdict.refuted[0].evidence] == ["simulated-exploiter"]
