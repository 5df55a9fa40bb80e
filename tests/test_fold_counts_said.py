"""Every sentence about folds names the folds a fit used, not the target (group_folds drops a
fold a large group leaves empty): the CIBuzzBench learned probe's inner CV, CIBuzzBench's leak
score facts and the spec'd benchmarks' leak facts. Made-up option texts only."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from builder.benchmarks.cibuzzbench.analyses import leak_split
from builder.benchmarks.cibuzzbench.fact_keys import SECTIONS
from builder.benchmarks.cibuzzbench.probes.learned import parameters
from builder.benchmarks.cibuzzbench.views import tables
from builder.benchmarks.mcq.analyses.audit import run_audit
from builder.benchmarks.mcq.analyses.compute import _learned
from builder.benchmarks.mcq.command import audit_table
from builder.benchmarks.mcq.load import load_benchmark
from builder.core.facts import FactTable
from builder.ranker.choice import choose_evaluate
from builder.ranker.evaluate import Options, fit_evaluate, folds, folds_label, inner_splits
from builder.ranker.leak import leak_scores

WORDS = "alpha beta gamma delta eps zeta eta theta iota kappa lambda mu".split()


def _texts(n: int) -> list[list[str]]:
    rng = random.Random(0)
    phrase = lambda k: " ".join(rng.choice(WORDS) for _ in range(k))  # noqa: E731
    return [[f"gold {phrase(rng.randint(3, 6))}", phrase(rng.randint(1, 3)), phrase(rng.randint(1, 3)),
             phrase(rng.randint(1, 2))] for _ in range(n)]


def test_the_inner_cv_says_the_folds_each_fit_used() -> None:
    """Two ties of 12 and 10 of 30 items: one fit's training items leave the penalty's inner CV
    two folds, and the probe's recorded settings say so."""
    ties = ["a" if i < 12 else "b" if i < 22 else None for i in range(30)]
    options = Options.build(_texts(30), [0] * 30, ties)
    evaluation = fit_evaluate(options)
    groups = options.item_groups()
    assert evaluation.inner_folds == tuple(len(inner_splits(groups[train])[1]) for train, _ in folds(groups))
    assert min(evaluation.inner_folds) == 2 and max(evaluation.inner_folds) == 3
    said = parameters(evaluation.evaluation, folds=evaluation.folds, inner=evaluation.inner_folds)
    assert said["alpha_selection"].startswith("2- to 3-fold inner CV")
    assert parameters("train→test", inner=(3,))["alpha_selection"].startswith("3-fold inner CV")


def test_leak_facts_name_the_folds_of_the_fit() -> None:
    """30 of 40 items sharing one option set (one group) leave the cross-fitting three folds:
    the leak scores record it, and CIBuzzBench's and a spec'd benchmark's leak facts say 3-fold."""
    texts = _texts(10) + [_texts(1)[0]] * 30
    three = leak_scores(texts, [0] * 40, [str(i) for i in range(40)])
    assert three.folds == 3
    assert leak_scores(_texts(40), [0] * 40, [str(i) for i in range(40)]).folds == 5
    facts = FactTable()
    leak_split._add_leak_facts(facts, three, ("run",))
    assert "3-fold cross-fitted" in facts.provenance["leak_score.items"].computation
    facts = FactTable()
    audit = SimpleNamespace(learned_evaluation="3-fold CV", learned_folds=3, ablation=(), leak=three)
    _learned(audit, facts, "toy")  # type: ignore[arg-type]
    assert all("3-fold cross-fitted" in p.computation for p in facts.provenance.values())


def test_the_published_models_choice_records_its_inner_folds() -> None:
    """The same ties: the choice among the ranker, the regression and the rules (builder.ranker.choice)
    makes its inner folds with inner_splits, as the penalty does, and records each fit's count."""
    ties = ["a" if i < 12 else "b" if i < 22 else None for i in range(30)]
    options = Options.build(_texts(30), [0] * 30, ties)
    groups = options.item_groups()
    crossed = choose_evaluate(options).evaluation
    assert crossed.inner_folds == tuple(len(inner_splits(groups[train])[1]) for train, _ in folds(groups))
    assert folds_label(crossed.inner_folds) == "2- to 3-fold"
    train, test = np.arange(22, 30), np.arange(22)
    assert choose_evaluate(options, train, test).evaluation.inner_folds == (len(inner_splits(groups[train])[1]),)


def test_the_audit_says_the_inner_folds_its_choice_used(tmp_path: Path) -> None:
    """A spec'd benchmark whose 30 items hold two shared option sets of 12 and 10 (the ties above):
    `buzzprobe audit` names the inner CV's folds as used, not the INNER_FOLDS target."""
    rng = random.Random(7)
    shared = lambda i: rng.sample(WORDS[:4] if i < 12 else WORDS[4:8], 4)  # noqa: E731
    rows = [{"id": f"r{i}", "q": f"synthetic {i}", "answer": rng.randrange(4),
             "choices": shared(i) if i < 22 else [f"opt{i}-{j}-{'x' * rng.randint(1, 9)}" for j in range(4)]}
            for i in range(30)]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = tmp_path / "case.yaml"
    spec.write_text(f"name: case\ndataset_path: {tmp_path / 'data.jsonl'}\nid: id\ndoc_to_text: q\n"
                    "doc_to_choice: choices\ndoc_to_target: answer\n", encoding="utf-8")
    audit = run_audit(load_benchmark(spec))
    assert len(audit.learned_inner_folds) == audit.learned_folds and min(audit.learned_inner_folds) < 3
    assert f"model chosen per fit by {folds_label(audit.learned_inner_folds)} inner CV" in audit_table(audit)


def test_cibuzzbench_texts_say_the_cross_validation_folds_as_run() -> None:
    """The option-sets table's note names the folds the learned probes' CV runs recorded (a range
    when they differ); the fact reference states the rule, never a bare 5-fold."""
    def run(name: str, parameters: dict) -> SimpleNamespace:
        header = SimpleNamespace(condition="probe", subject_name=name, subject={"name": name, "parameters": parameters})
        return SimpleNamespace(run=SimpleNamespace(header=header))

    scores = [run("learned_lengths", {"folds": 3}), run("learned_options", {"folds": 5}),
              run("learned_options", {"trained_on": "train"}), run("longest_chars", {})]
    probes = ["longest_chars", "learned_lengths", "learned_options"]
    assert tables.cv_folds(scores, probes) == (3, 5)  # type: ignore[arg-type]
    note = tables.option_sets_table(tables.FactCells(FactTable()), probes, "all", (3, 5)).note
    assert "scored by 3- to 5-fold cross-validation" in note
    assert "scored by 3-fold cross-validation" in tables.option_sets_table(
        tables.FactCells(FactTable()), probes, "all", (3, 3)).note
    section = next(s for s in SECTIONS if s.title == "Model-free probes")
    assert "5-fold" not in section.intro and "fewer when a group holds over a fifth" in section.intro


def test_the_design_docs_state_the_inner_fold_rule_not_a_target() -> None:
    """docs/ranker.md and docs/gold-pool.md describe the inner CV as the code applies it
    (evaluate.inner_splits: 3 folds, fewer when a group is large), never as a flat 3-fold."""
    docs = Path(__file__).resolve().parents[1] / "docs"
    for name in ("ranker.md", "gold-pool.md"):
        text = " ".join((docs / name).read_text(encoding="utf-8").split())
        assert "3-fold inner" not in text, name
        assert "3 folds of whole" in text and "fewer when a group holds more than a third of them" in text, name
