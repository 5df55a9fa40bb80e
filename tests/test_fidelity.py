"""The published probe's figures against the site's: statements file, comparison facts, table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.analyses.fidelity import add_article_fidelity_facts
from builder.claims.fidelity import check_fact_keys, evaluate
from builder.claims.figure_statements import load_figure_statements
from builder.core.reported import ReportedTable, load_reported
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.benchmarks.cibuzzbench.views.fidelity_view import fidelity_tables
from builder.site.fidelity_table import NO_REASON, NOT_RECOMPUTABLE, UNAVAILABLE
from builder.site.tables import FactCells

REPO = Path(__file__).resolve().parents[1]
REPORTED = """\
sources:
  probe: {title: A probe, short: the probe, date: 2026-09-22}
figures:
  seed_score: {value: 41.39, unit: F1, what: score, source: probe}
  share: {value: 2.80, unit: "%", what: share, source: probe}
  fixes: {value: 54, unit: items, what: fixes, source: probe}
  breaks: {value: 14, unit: items, what: breaks, source: probe}
  p: {value: 1.1e-06, unit: p, what: p, source: probe}
  model_only: {value: 76.50, unit: "%", what: accuracy, source: probe}
"""
STATEMENTS = """\
statements:
  - id: seed
    figure: seed_score
    where: The score at one seed.
    fact: leak.seed
    context: [{fact: leak.mean, label: mean over seeds}]
    reason: It is the mean.
  - id: share
    figure: share
    where: The share.
    fact: audit.share
    note: Case-insensitive.
  - id: mcnemar
    figure: p
    where: The p-value.
    derive: mcnemar(r("fixes"), r("breaks"))
  - {id: accuracy, figure: model_only, where: Accuracy.}
"""


def reported_table(tmp_path: Path) -> ReportedTable:
    path = tmp_path / "reported.yaml"
    path.write_text(REPORTED, encoding="utf-8")
    return load_reported(path)


def statements_file(tmp_path: Path, text: str = STATEMENTS) -> Path:
    path = tmp_path / "article-figures.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def facts_with(seed: float, share: float) -> FactTable:
    facts = FactTable()
    facts.add("leak.seed", seed, "score at seed 1111", ("run-a",))
    facts.add("leak.mean", 41.39, "mean over seeds")
    facts.add("audit.share", share, "case-insensitive share")
    return facts


def compared(tmp_path: Path, seed: float, share: float) -> tuple[FactTable, list, ReportedTable]:
    reported = reported_table(tmp_path)
    path = statements_file(tmp_path)
    statements = load_figure_statements(path, reported)
    facts = facts_with(seed, share)
    add_article_fidelity_facts(facts, statements, reported)
    return facts, statements, reported


def all_rows(facts: FactTable, statements: list, reported: ReportedTable) -> list:
    """The rows of the three fidelity tables, in their order (data, counts, model run)."""
    return [row for table in fidelity_tables(FactCells(facts), statements, reported) for row in table.rows]


def test_quoted_precision_comes_from_the_yaml_text(tmp_path: Path) -> None:
    reported = reported_table(tmp_path)
    assert (reported["share"].quoted, reported["share"].half_unit) == ("2.80", pytest.approx(0.005))
    assert reported["fixes"].half_unit == 0.5
    assert reported["p"].half_unit == pytest.approx(5e-08)


def test_verdicts_follow_the_numbers(tmp_path: Path) -> None:
    facts, _, _ = compared(tmp_path, seed=41.4877, share=2.7991)
    assert facts["fidelity.seed.matches"] == 0 and facts["fidelity.seed.difference"] == pytest.approx(0.0977)
    assert facts["fidelity.share.matches"] == 1  # 2.7991 rounds to 2.80
    assert facts["fidelity.mcnemar.matches"] == 1 and facts["fidelity.mcnemar.site"] == pytest.approx(1.1097e-06, rel=1e-3)
    assert "fidelity.accuracy.site" not in facts  # needs the model run: quoted only
    assert [facts[f"fidelity.{k}.count"] for k in ("recomputed", "matches", "differs", "reported_only", "unavailable")] \
        == [3, 2, 1, 1, 0]
    assert facts.provenance["fidelity.seed.site"].runs == ("run-a",)


def test_flipping_the_data_flips_the_wording(tmp_path: Path) -> None:
    words = {}
    for name, (seed, share) in {"as published": (41.4877, 2.7991), "flipped": (41.391, 2.7849)}.items():
        facts, statements, reported = compared(tmp_path, seed, share)
        words[name] = {row[0].text: (row[3].text, row[4].text) for row in all_rows(facts, statements, reported)}
    assert words["as published"]["The score at one seed."] == ("differs", "It is the mean.")
    assert words["flipped"]["The score at one seed."] == ("matches", "")
    assert words["as published"]["The share."] == ("matches", "Case-insensitive.")
    assert words["flipped"]["The share."] == ("differs", f"{NO_REASON} Case-insensitive.")
    assert words["flipped"]["Accuracy."] == (NOT_RECOMPUTABLE, "")


def test_table_shows_quotes_as_written_and_facts_at_their_precision(tmp_path: Path) -> None:
    facts, statements, reported = compared(tmp_path, seed=41.4877, share=2.7991)
    rows = all_rows(facts, statements, reported)
    seed, context, share = rows[:3]
    assert seed[1].text == "41.39" and (seed[2].key, seed[2].digits) == ("fidelity.seed.site", 2)
    assert context[0].text == "… mean over seeds" and context[2].key == "leak.mean"
    assert share[1].text == "2.80%" and (share[2].kind, share[2].digits) == ("pct", 2)
    assert rows[3][2].kind == "p"


def test_reproductions_arithmetic_and_quotes_are_counted_and_tabled_apart(tmp_path: Path) -> None:
    """A figure recomputed from the probe's own counts checks its arithmetic, not its result:
    it is never counted with the figures recomputed from the data."""
    facts, statements, reported = compared(tmp_path, seed=41.4877, share=2.7991)
    assert [facts[f"fidelity.data.{k}.count"] for k in ("recomputed", "matches", "differs")] == [2, 1, 1]
    assert [facts[f"fidelity.counts.{k}.count"] for k in ("recomputed", "matches", "differs")] == [1, 1, 0]
    tables = {t.id: t for t in fidelity_tables(FactCells(facts), statements, reported)}
    assert {k: [r[0].text for r in t.rows] for k, t in tables.items()} == {
        "article-fidelity-data": ["The score at one seed.", "… mean over seeds", "The share."],
        "article-fidelity-counts": ["The p-value."], "article-fidelity-model-run": ["Accuracy."]}
    assert tables["article-fidelity-counts"].rows[0][3].text == "consistent"


def test_tolerance_can_be_stated(tmp_path: Path) -> None:
    text = STATEMENTS.replace("    reason: It is the mean.\n", "    reason: It is the mean.\n    tolerance: 0.2\n")
    reported = reported_table(tmp_path)
    path = statements_file(tmp_path, text)
    facts = facts_with(41.4877, 2.7991)
    add_article_fidelity_facts(facts, load_figure_statements(path, reported), reported)
    assert facts["fidelity.seed.matches"] == 1


@pytest.mark.parametrize("entry, field, message", [
    ("{id: x, figure: nope, where: W, fact: leak.seed}", "figure", "unknown reported figure"),
    ("{id: x, figure: share, where: W, fact: leak.seed, derive: '1'}", "derive", "not both"),
    ("{id: x, figure: share, where: W, derive: '__import__(\"os\").system(\"true\")'}", "derive", "may be called"),
    ("{id: x, figure: share, where: W, derive: 'r(\"share\").real'}", "derive", "Attribute is not allowed"),
    ("{id: x, figure: share, where: W, derive: 'r(\"missing\") + 1'}", "derive", "unknown reported figure"),
    ("{id: x, figure: share, where: W, derive: 'share * 2'}", "derive", "unknown name"),
    ("{id: x, figure: share, where: W, derive: '1 +'}", "derive", "not an expression"),
    ("{id: x, figure: share, where: W, tolerance: -1}", "tolerance", ">= 0"),
    ("{id: x, figure: share, where: W, colour: red}", "colour", "unknown field"),
    ("{id: X Y, figure: share, where: W}", "id", "lower case"),
    ("{id: x, figure: share}", "where", "required text"),
])
def test_bad_statements_are_located(tmp_path: Path, entry: str, field: str, message: str) -> None:
    path = statements_file(tmp_path, f"statements:\n  - {{id: ok, figure: share, where: W}}\n  - {entry}\n")
    with pytest.raises(InputError) as info:
        load_figure_statements(path, reported_table(tmp_path))
    problems = info.value.problems
    assert {(p.path, p.line, p.field) for p in problems} == {(str(path), 3, f"statements[1].{field}")}
    assert any(message in p.message for p in problems), problems


def test_duplicate_ids_and_unknown_fact_keys_are_located(tmp_path: Path) -> None:
    reported = reported_table(tmp_path)
    path = statements_file(tmp_path, "statements:\n  - {id: a, figure: share, where: W}\n"
                                     "  - {id: a, figure: share, where: W}\n")
    with pytest.raises(InputError, match="used twice"):
        load_figure_statements(path, reported)
    path = statements_file(tmp_path, "statements:\n  - {id: a, figure: share, where: W, fact: leak.nope}\n")
    with pytest.raises(InputError) as info:
        check_fact_keys(load_figure_statements(path, reported), FactTable(), path)
    (problem,) = info.value.problems
    assert (problem.line, problem.field) == (2, "a.fact") and "leak.nope" in problem.message


def test_a_build_without_the_runs_says_so(tmp_path: Path) -> None:
    reported = reported_table(tmp_path)
    statements = load_figure_statements(statements_file(tmp_path), reported)
    facts = FactTable()
    facts.add("audit.share", 2.7991, "case-insensitive share")  # no probe runs: no leak.* facts
    add_article_fidelity_facts(facts, statements, reported)
    assert "fidelity.seed.matches" not in facts and facts["fidelity.unavailable.count"] == 1
    rows = all_rows(facts, statements, reported)
    row = next(r for r in rows if r[0].text == "The score at one seed.")
    assert row[3].text == f"{UNAVAILABLE} (leak.seed)"
    assert not any(r[0].text.startswith("… ") for r in rows)  # its context fact is missing too
    assert facts["fidelity.data.unavailable.count"] == 1 and facts["fidelity.data.recomputed.count"] == 1


def test_every_fact_the_projects_statements_name_exists_in_a_full_build() -> None:
    """The golden site is built with every probe kind: a misspelt key would be missing there."""
    facts = FactTable()
    for key, value in json.loads((REPO / "tests" / "golden" / "site" / "facts.json").read_text()).items():
        facts.add(key, value, "golden")
    path = REPO / "content" / "article-figures.yaml"
    statements = load_figure_statements(path, load_reported(REPO / "content" / "reported.yaml"))
    check_fact_keys(statements, facts, path)
    assert all(f"fidelity.{s.id}.matches" in facts for s in statements if s.recomputable)


def test_evaluate_arithmetic(tmp_path: Path) -> None:
    reported = reported_table(tmp_path)
    assert evaluate('100 * (r("fixes") - r("breaks")) / 400', reported) == pytest.approx(10.0)
    assert evaluate('-r("fixes") + 1', reported) == -53.0


def test_the_projects_statements_load_against_its_reported_figures() -> None:
    reported = load_reported(REPO / "content" / "reported.yaml")
    statements = load_figure_statements(REPO / "content" / "article-figures.yaml", reported)
    figures = {s.figure for s in statements}
    probe_figures = {k for k in reported.figures if reported[k].source.id == "blind_probe"}
    assert probe_figures <= figures, f"article figures with no statement: {sorted(probe_figures - figures)}"


@pytest.mark.realdata
def test_real_data_comparison(real_dataset, tmp_path: Path) -> None:
    """Issue 17's two slips, from the real CSV: the seed-1111 label and the matching rule."""
    from builder.benchmarks.cibuzzbench.compute import compute
    from builder.benchmarks.cibuzzbench.probes.generate import generate_probe_runs
    from builder.runs.reader import read_run
    paths = generate_probe_runs(real_dataset, tmp_path, created="2026-01-01T00:00:00Z")
    runs = [read_run(p) for p in paths if p.name.startswith("probe-longest_chars-t2-")]
    computed = compute(real_dataset, runs)
    reported = load_reported(REPO / "content" / "reported.yaml")
    path = REPO / "content" / "article-figures.yaml"
    add_article_fidelity_facts(computed.facts, load_figure_statements(path, reported), reported)
    f = computed.facts
    assert f["fidelity.longest-option-seed-1111.matches"] == 0
    assert round(f["fidelity.longest-option-seed-1111.site"], 2) == 41.49
    assert round(f["leak.longest_chars.macro_f1.mean"], 2) == 41.39
    assert f["fidelity.distractor-is-other-gold.matches"] == 1
    assert round(f["audit.distractor_is_other_gold.exact.share"], 2) == 2.78
    assert f["fidelity.differs.count"] == 1 and f["fidelity.data.differs.count"] == 1
