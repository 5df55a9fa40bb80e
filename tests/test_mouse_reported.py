"""Published Mouse tables (content/mouse): loading, checks that catch transcription slips,
scale series, groups, human vs model CC, and their FactTable entries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.benchmarks.mouse.analyses.metrics import BootstrapOptions, score_rc, score_td, tr_from_scores
from builder.benchmarks.mouse.analyses.reported_figures import add_reported_facts
from builder.benchmarks.mouse.analyses.score_facts import add_class_facts, add_rc_facts, add_tr_facts
from builder.benchmarks.mouse.reported import DEFAULT_DIR, load_reported, parse_size

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "mouse"


@pytest.fixture(scope="module")
def reported():
    return load_reported()


def test_tables_load(reported):
    assert len(reported.models) == 14
    assert reported.main.table == 3 and reported.mcc.table == 4 and reported.human_cc.table == 6
    assert reported.main.value("Doubao-Seed-1.8", "ms_acc") == 0.94
    assert reported.mcc.value("Qwen3-0.6B", "ms") == -0.233
    assert reported.source.arxiv == "2604.15841"
    assert "Table" not in reported.source.citation() and reported.source.citation().startswith("Dianqing Lin et al.")
    assert set(reported.main.columns) == {"tr_sem_acc", "tr_perfect_rate", "rc_bal_acc", "rc_macro_f1", "ir_bal_acc",
                                          "ir_macro_f1", "td_acc", "td_f1", "ms_acc", "cc_acc"}


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared Mouse tables not on this machine")
def test_copies_equal_the_shared_transcriptions():
    for name in ("reported_table3_main.csv", "reported_table4_mcc.csv", "reported_table6_human_cc.csv"):
        assert (DEFAULT_DIR / name).read_bytes() == (SHARED / name).read_bytes()


@pytest.mark.parametrize("model, family, size", [
    ("Qwen3-0.6B", "Qwen3", 0.6), ("Qwen3-1.7B", "Qwen3", 1.7), ("Qwen3-32B", "Qwen3", 32.0),
    ("Qwen3-Max", "Qwen3", None), ("Ministral-3-14B", "Ministral-3", 14.0), ("Ministral-3-14B", "Qwen3", None),
    ("Mistral-Large-3", "Mistral", None), ("DeepSeek-V3.2", "DeepSeek", None), ("Qwen3-8b", "Qwen3", None),
])
def test_parse_size(model, family, size):
    assert parse_size(model, family) == size


def test_qwen3_scale_series(reported):
    series = reported.qwen3_scale_series()
    assert [(p.model, p.size_b) for p in series] == [
        ("Qwen3-0.6B", 0.6), ("Qwen3-1.7B", 1.7), ("Qwen3-4B", 4.0), ("Qwen3-8B", 8.0),
        ("Qwen3-14B", 14.0), ("Qwen3-32B", 32.0)]
    assert series[0].main["tr_sem_acc"] == 0.041 and series[-1].mcc["td"] == 0.243
    assert [p.size_b for p in reported.scale_series("Ministral-3")] == [3.0, 8.0, 14.0]


def test_groups(reported):
    assert reported.groups["commercial"] == ("DeepSeek-V3.2", "Doubao-Seed-1.8", "Qwen3-Max", "GPT5.2",
                                             "Mistral-Large-3")
    assert reported.group_of("Qwen3-Max") == "commercial" and reported.group_of("Ministral-3-3B") == "local"
    assert sorted(m for g in reported.groups.values() for m in g) == sorted(reported.models)
    with pytest.raises(KeyError):
        reported.group_of("GPT-4")


def test_human_vs_model_cc(reported):
    people, models = reported.human_vs_model_cc()
    assert people == {"FP": 0.95, "UFP": 0.64}
    assert models == {"DeepSeek-V3.2": 0.53, "Doubao-Seed-1.8": 0.78, "Qwen3-Max": 0.67, "GPT5.2": 0.56}
    assert all(reported.main.value(m, "cc_acc") == v for m, v in models.items())


# ------------------------------------------------------------------ checks on tampered copies

@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "mouse"
    shutil.copytree(DEFAULT_DIR, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("file, old, new, line, field, message", [
    ("reported_table3_main.csv", "0.494,0.449", "1.494,0.449", 2, "tr_sem_acc", "outside [0, 1]"),
    ("reported_table3_main.csv", "0.494,0.449", "0.494,-0.1", 2, "tr_perfect_rate", "outside [0, 1]"),
    ("reported_table3_main.csv", "0.494,0.449", "0.494,n/a", 2, "tr_perfect_rate", "not a number"),
    ("reported_table3_main.csv", "Qwen3-14B,", "Qwen3-32B,", 8, "model", "duplicate model"),
    ("reported_table3_main.csv", "Qwen3-14B,", " Qwen3-14B,", 8, "model", "surrounding spaces"),
    ("reported_table4_mcc.csv", "-0.233", "-1.233", 12, "ms", "outside [-1, 1]"),
    ("reported_table4_mcc.csv", "GPT5.2,", "GPT-5.2,", 5, "model", "not in Table 3"),
    ("reported_table6_human_cc.csv", "GPT5.2,0.560", "GPT5.2,0.650", 7, "cc_acc", "differs from Table 3"),
    ("reported_table6_human_cc.csv", "(FP),0.950", "(FP),1.950", 2, "cc_acc", "outside"),
    ("reported_table6_human_cc.csv", "GPT5.2,", "Claude,", 7, "participant", "neither a listed human group"),
    ("reported_table3_main.csv", "model,tr_sem_acc", "name,tr_sem_acc", 1, None, "header must be"),
    ("reported.yaml", "schema: buzzprobe.mouse-reported/1", "schema: x", 5, "schema", "schema must be"),
    ("reported.yaml", "range: [0, 1]", "range: [0]", 21, "tables.main.range", "range must be"),
    ("reported.yaml", "commercial: [DeepSeek-V3.2,", "commercial: [DeepSeek-V3,", 66, "groups.commercial",
     "not a Table 3 model"),
    ("reported.yaml", "local: [Qwen3-32B,", "local: [Qwen3-Max, Qwen3-32B,", 67, "groups.local", "already in group"),
    ("reported.yaml", "local: [Qwen3-32B, ", "local: [", 65, "groups", "'Qwen3-32B' is in no group"),
    ("reported.yaml", "families: [Qwen3, Ministral-3]", "families: [Qwen3, Llama]", 71, "families", "fewer than two"),
    ("reported.yaml", 'arxiv: "2604.15841"', "arxiv: 2604.15841", 11, "source.arxiv", "not a non-empty str"),
])
def test_transcription_slips_are_caught(copy, file, old, new, line, field, message):
    edit(copy / file, old, new)
    with pytest.raises(InputError) as exc:
        load_reported(copy)
    found = [(p.path, p.line, p.field, p.message) for p in exc.value.problems]
    assert any(path.endswith(file) and l == line and f == field and message in m for path, l, f, m in found), found


def test_missing_row_in_mcc_table(copy):
    path = copy / "reported_table4_mcc.csv"
    path.write_text("".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
                            if not line.startswith("Qwen3-8B,")), encoding="utf-8")
    with pytest.raises(InputError, match="no row for Table 3 model 'Qwen3-8B'"):
        load_reported(copy)


# ------------------------------------------------------------------ facts

def test_reported_facts(reported):
    facts = FactTable()
    add_reported_facts(facts, reported)
    assert len(facts.values) == 14 * 10 + 14 * 7 + 6
    assert facts["mouse.reported.main.qwen3-0_6b.tr_sem_acc"] == 0.041
    assert facts["mouse.reported.human_cc.fp.cc_acc"] == 0.95
    assert "Table 4" in facts.provenance["mouse.reported.mcc.gpt5_2.td"].computation


def test_measured_facts():
    facts = FactTable()
    boot = BootstrapOptions(100, seed=1)
    add_class_facts(facts, "mouse.run.x.td", score_td([0, 1, 1, 0], [0, 1, None, 1], boot=boot), ("x",))
    add_rc_facts(facts, "mouse.run.x.rc", score_rc({c: [0, 1, 1] for c in ("homophonic", "semantic", "visual")},
                                                   {c: [0, 1, 0] for c in ("homophonic", "semantic", "visual")},
                                                   boot=boot))
    add_tr_facts(facts, "mouse.run.x.tr", tr_from_scores([2, 1, 0], boot=boot))
    assert facts["mouse.run.x.td.unparsed"] == 1
    assert facts["mouse.run.x.td.accuracy"] == 0.5
    assert "mouse.run.x.td.f1.1.ci95_low" in facts
    assert facts["mouse.run.x.rc.semantic.balanced_accuracy"] == 0.75
    assert facts["mouse.run.x.tr.semantic_accuracy"] == 0.5
    assert facts.provenance["mouse.run.x.td.mcc"].runs == ("x",)
