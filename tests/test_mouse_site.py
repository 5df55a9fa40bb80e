"""The Mouse page parts: measures over the paper's reported tables (values checked by hand
from content/mouse/*.csv), claim verdicts, table facts, the Qwen3 scale chart, the claims
file's errors, and the page rendering with and without the parts wired in."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from markupsafe import Markup
from scipy import stats

from builder.claims.engine import MeasureRegistry, judge_statement
from builder.site.pages import read_page
from builder.core.reported import load_reported as load_site_reported
from builder.core.errors import InputError
from builder.core.facts import FactTable
from builder.benchmarks.mouse.analyses.paper_claims import (MEASURES, PRIMARY, MouseMeasures, average_ranks, line_fit,
                                                            load_mouse_claims, register_mouse_measures, spearman)
from builder.benchmarks.mouse.analyses.reported_figures import add_reported_facts, compute_mouse
from builder.benchmarks.mouse.reported import load_reported
from builder.benchmarks.mouse.views.reported_tables import SCORE, mouse_tables
from builder.benchmarks.mouse.views.scale_chart import SCALE_CHART, mouse_charts, qwen3_scale_rows
from builder.benchmarks.mouse.views.size_chart import scale_chart
from builder.site.environment import make_environment
from builder.site.markdown_pages import FactUse, page_functions, render_page_body

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
MOUSE = CONTENT / "mouse"
CLAIMS = MOUSE / "claims.yaml"


@pytest.fixture(scope="module")
def reported():
    return load_reported(MOUSE)


@pytest.fixture(scope="module")
def m(reported):
    return MouseMeasures(reported)


@pytest.fixture(scope="module")
def built():
    facts = FactTable()
    return facts, mouse_site_parts(facts, CONTENT)


def mouse_site_parts(facts: FactTable, content: Path, *, charts: bool = True) -> SimpleNamespace:
    """What the Mouse plug-in's compute and site stages give the build."""
    from builder.site.charts import SvgRenderer
    computed = compute_mouse(facts, content)
    drawn = mouse_charts(facts, computed, SvgRenderer()) if charts else {}
    return SimpleNamespace(tables=mouse_tables(facts, computed), charts=drawn, verdicts=computed.verdicts)


def values(evidence) -> dict[str, float]:
    return {e.label: e.value for e in evidence}


def read_csv(name: str) -> list[dict[str, str]]:
    with (MOUSE / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


# ----------------------------------------------------------------------------- measures

def test_scale_step_qwen3_14b_to_32b(m):
    # Table 3 rows Qwen3-32B and Qwen3-14B, headline column of each task (32B - 14B):
    # TR 0.209-0.228=-0.019, RC 0.510-0.518=-0.008, IR 0.189-0.173=+0.016,
    # TD 0.605-0.656=-0.051, MS 0.660-0.560=+0.100, CC 0.490-0.400=+0.090
    assert values(m.scale_step()) == {
        "TR Semantic Accuracy": -0.019, "RC balanced accuracy": -0.008, "IR balanced accuracy": 0.016,
        "TD accuracy": -0.051, "MS accuracy": 0.1, "CC accuracy": 0.09}
    # tr_perfect_rate is 0.168 at both sizes: a tie is exactly 0, not float noise
    assert values(m.scale_step(["tr_perfect_rate"])) == {"TR Perfect Rate": 0.0}
    first = m.scale_step()[0]
    assert first.detail == "Qwen3-32B 0.209 − Qwen3-14B 0.228"


def test_scale_decline_share(m):
    # declines: TR, RC, TD (3 of 6) -> 0.5; over all ten columns: tr_sem, rc_bal, rc_f1, td_acc
    # decline (4), tr_perfect ties, the other five rise -> 0.4
    [share] = m.scale_decline_share()
    assert share.value == 0.5
    assert share.detail == "3 of 6: TR Semantic Accuracy, RC balanced accuracy, TD accuracy"
    [share] = m.scale_decline_share(list(m.reported.main.columns))
    assert share.value == 0.4


def test_column_gap_points_relative_and_group(m):
    gaps = values(m.column_gap())
    # td_acc - rc_bal_acc per model, e.g. DeepSeek-V3.2 0.731-0.533=0.198, Qwen3-4B 0.470-0.501=-0.031
    assert gaps["DeepSeek-V3.2"] == 0.198 and gaps["Qwen3-4B"] == -0.031 and gaps["Ministral-3-3B"] == 0.063
    assert len(gaps) == 14
    # sum of td_acc 8.569, sum of rc_bal_acc 7.299 -> mean gap 1.270/14 = 0.090714...
    assert math.isclose(sum(gaps.values()) / 14, 1.270 / 14, abs_tol=1e-9)
    commercial = values(m.column_gap(group="commercial"))
    # 0.198 + 0.200 + 0.117 + 0.132 + 0.081 = 0.728 over 5 models = 0.1456
    assert list(commercial) == ["DeepSeek-V3.2", "Doubao-Seed-1.8", "Qwen3-Max", "GPT5.2", "Mistral-Large-3"]
    assert math.isclose(sum(commercial.values()) / 5, 0.1456, abs_tol=1e-9)
    relative = values(m.column_gap(relative=True))
    # 0.731 / 0.533 - 1 = 0.37148...; 0.540 / 0.500 - 1 = 0.08
    assert math.isclose(relative["DeepSeek-V3.2"], 0.731 / 0.533 - 1) and math.isclose(relative["Ministral-3-8B"], 0.08)


def test_line_fit_and_ranks_by_hand():
    fit = line_fit([1, 2, 3], [2, 4, 6])
    assert (fit.slope, fit.intercept, fit.r, fit.max_residual) == (2.0, 0.0, 1.0, 0.0)
    # y = 0, 1, 0 on x = 0, 1, 2: slope 0, so r = 0; the mean line 1/3 misses x = 1 by 2/3
    fit = line_fit([0, 1, 2], [0, 1, 0])
    assert fit.slope == 0 and fit.r == 0 and math.isclose(fit.max_residual, 2 / 3)
    assert line_fit([1, 1, 1], [1, 2, 3]) is None and line_fit([1, 2], [1, 2]) is None
    assert average_ranks([3, 1, 3, 2]) == [3.5, 1.0, 3.5, 2.0]
    assert spearman([1, 2, 3, 4], [10, 20, 30, 5]) == pytest.approx(stats.spearmanr([1, 2, 3, 4], [10, 20, 30, 5])[0])
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_scale_fit_matches_scipy(m, reported):
    series = reported.qwen3_scale_series()
    # Qwen3 sizes 0.6, 1.7, 4, 8, 14, 32 B; tr_sem_acc 0.041, 0.096, 0.144, 0.168, 0.228, 0.209
    assert [p.size_b for p in series] == [0.6, 1.7, 4.0, 8.0, 14.0, 32.0]
    xs = [math.log(p.size_b) for p in series]
    for column in ("tr_sem_acc", "tr_perfect_rate", "ms_acc"):
        ref = stats.linregress(xs, [p.main[column] for p in series])
        [slope] = m.scale_fit([column], statistic="slope")
        [r2] = m.scale_fit([column], statistic="r2")
        assert slope.value == pytest.approx(ref.slope, abs=1e-12) and r2.value == pytest.approx(ref.rvalue ** 2, abs=1e-12)
    [r2] = m.scale_fit(["tr_sem_acc"], x="size")
    assert r2.value == pytest.approx(stats.linregress([p.size_b for p in series], [p.main["tr_sem_acc"] for p in series]).rvalue ** 2)
    [res] = m.scale_fit(["tr_sem_acc"], statistic="max_residual")
    assert 0.031 < res.value < 0.032  # the 14B point (0.228) sits above the line
    assert "n = 6" in res.detail and "Qwen3-0.6B … Qwen3-32B" in res.detail


def test_score_mcc_correlation(m, reported):
    rho = values(m.score_mcc_correlation())
    assert list(rho) == ["RC", "IR", "TD", "MS", "CC"]
    # MS: ordering the 14 models by ms_acc (0.18 Qwen3-0.6B ... 0.94 Doubao) gives exactly the
    # order of their MS MCC (-0.233 ... 0.912): rho = 1
    assert rho["MS"] == 1.0
    models = reported.models
    for task, (score, mcc) in {"IR": ("ir_bal_acc", "ir"), "TD": ("td_acc", "td"), "CC": ("cc_acc", "cc")}.items():
        ref = stats.spearmanr([reported.main.value(x, score) for x in models], [reported.mcc.value(x, mcc) for x in models])
        assert rho[task] == pytest.approx(ref[0], abs=1e-12)
    rc_mcc = [sum(reported.mcc.value(x, c) for c in ("rc_homophonic", "rc_semantic", "rc_visual")) / 3 for x in models]
    assert rho["RC"] == pytest.approx(stats.spearmanr([reported.main.value(x, "rc_bal_acc") for x in models], rc_mcc)[0])


@pytest.mark.parametrize("call, message", [
    (lambda m: m.scale_step(["td_accuracy"]), "unknown Table 3 column"),
    (lambda m: m.scale_step("td_acc"), "non-empty list"),
    (lambda m: m.scale_step(lower="Qwen3-15B"), "unknown model"),
    (lambda m: m.column_gap(group="open"), "unknown group"),
    (lambda m: m.scale_fit(statistic="p"), "statistic must be"),
    (lambda m: m.scale_fit(x="sqrt"), "x must be"),
    (lambda m: m.scale_fit(family="Llama"), "fewer than three"),
    (lambda m: m.score_mcc_correlation(["TR"]), "TR has no MCC"),
])
def test_bad_measure_params(m, call, message):
    with pytest.raises(ValueError, match=message):
        call(m)


# ------------------------------------------------------------------------------ claims

EXPECTED = {
    "qwen3-declines-14b-to-32b": ("does not hold", [6.0, None]),      # 3 of 6 decline: 0.5 is not > 0.5
    "td-above-rc-by-15-points": ("does not hold", [1.270 / 14, 1.270 / 14]),  # mean 0.0907 < 0.125
    "td-above-rc-by-15-points-commercial": ("holds", [0.1456, 0.1456]),      # 0.728 / 5
    "td-above-rc-by-15-percent-relative": ("holds", [0.171007, 0.171007]),   # mean of TD/RC - 1
    "translation-linear-in-log-size": ("holds", [0.040222, 0.927516, 0.031583]),  # min slope, min R², max residual
    "translation-linear-in-raw-size": ("does not hold", [0.003977, 0.552331]),    # R² 0.55 < 0.9
    "higher-scores-higher-mcc": ("holds", [5.0, 0.947253]),                  # min rho is TD's
}


def judge_all(reported):
    registry = MeasureRegistry()
    register_mouse_measures(registry, reported)
    return [judge_statement(s, registry) for s in load_mouse_claims(CLAIMS, registry)]


def test_claim_verdicts(reported):
    verdicts = judge_all(reported)
    assert [v.statement.id for v in verdicts] == list(EXPECTED)
    for v in verdicts:
        status, aggregated = EXPECTED[v.statement.id]
        assert v.status == status, v.statement.id
        got = [r.value for r in v.results]
        assert got == [pytest.approx(a, abs=1e-6) if a is not None else None for a in aggregated], v.statement.id
        assert all(r.evidence for r in v.results) and v.statement.note


def test_claim_verdicts_are_deterministic(reported, built):
    assert judge_all(reported) == judge_all(load_reported(MOUSE)) == built[1].verdicts


def test_claims_use_exactly_the_registered_measures(reported):
    registry = MeasureRegistry()
    register_mouse_measures(registry, reported)
    used = {c.measure for s in load_mouse_claims(CLAIMS, registry) for c in s.holds_when}
    assert used == set(registry.measures) == set(MEASURES)


def write_claims(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, field, line, message", [
    ("claims:\n  - id: a\n    claim: c\n    source: s\n    holds_when:\n"
     "      - {measure: nope, aggregate: all, op: '>', threshold: 0}\n",
     "claims[0].holds_when[0].measure", 6, "unknown measure 'nope'"),
    ("claims:\n  - id: a\n    claim: c\n    source: s\n    holds_when:\n      - measure: scale_step\n"
     "        params: {columns: [td_accuracy]}\n        aggregate: all\n        op: '<'\n        threshold: 0\n",
     "claims[0].holds_when[0].params", 7, "unknown Table 3 column"),
    ("claims:\n  - id: a\n    claim: c\n    source: s\n    holds_when:\n      - measure: column_gap\n"
     "        params: {minuend: td_acc, weight: 2}\n        aggregate: mean\n        op: '>'\n        threshold: 0\n",
     "claims[0].holds_when[0].params", 7, "unexpected keyword argument 'weight'"),
    ("claims:\n  - id: Bad_Id\n    claim: c\n    source: s\n    holds_when: []\n",
     "claims[0].id", 2, "lower-case"),
    ("claims:\n  - id: a\n    source: s\n    holds_when: []\n", "claims[0].claim", 2, "required text is missing"),
    ("claims:\n  - id: a\n    claim: c\n    source: s\n    holds_when:\n"
     "      - {measure: scale_step, aggregate: most, op: '>', threshold: x}\n",
     "claims[0].holds_when[0].aggregate", 6, "aggregate must be one of"),
])
def test_bad_claims_file_is_located(tmp_path, reported, text, field, line, message):
    registry = MeasureRegistry()
    register_mouse_measures(registry, reported)
    path = write_claims(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_mouse_claims(path, registry)
    found = [(p.path, p.field, p.line, p.message) for p in info.value.problems]
    assert any(pth == str(path) and f == field and ln == line and message in msg for pth, f, ln, msg in found), found


def test_claims_file_that_is_not_yaml(tmp_path, reported):
    registry = MeasureRegistry()
    register_mouse_measures(registry, reported)
    with pytest.raises(InputError) as info:
        load_mouse_claims(write_claims(tmp_path, "claims:\n  - id: [a\n"), registry)
    assert info.value.problems[0].line is not None and "not valid YAML" in info.value.problems[0].message


# ------------------------------------------------------------------------------ facts

def test_tables_show_the_csv_cells_as_facts(built, reported):
    facts, parts = built
    for table_id, name, key in (("mouse-table3", "reported_table3_main.csv", "model"),
                                ("mouse-table4", "reported_table4_mcc.csv", "model"),
                                ("mouse-table6", "reported_table6_human_cc.csv", "participant")):
        table = parts.tables[table_id]
        rows = read_csv(name)
        number = {"mouse-table3": 3, "mouse-table4": 4, "mouse-table6": 6}[table_id]
        assert f"reported by Lin et al. (ACL 2026, arXiv:2604.15841), Table {number}" in table.caption
        assert [r[0].text for r in table.rows] == [row[key] for row in rows]
        for cells, row in zip(table.rows, rows):
            numbers = [c for c in cells if c.is_fact]
            assert [c.value for c in numbers] == [float(v) for k, v in row.items() if k != key]
            for c in numbers:
                assert c.kind == SCORE and facts[c.key] == c.value
                assert f"Table {number}" in facts.provenance[c.key].computation
    # spot checks of the keys (analyses.reported_figures naming)
    assert facts["mouse.reported.main.qwen3-0_6b.tr_sem_acc"] == 0.041
    assert facts["mouse.reported.mcc.qwen3-0_6b.ms"] == -0.233
    assert facts["mouse.reported.human_cc.fp.cc_acc"] == 0.95
    assert "0–1 scale" in parts.tables["mouse-table3"].note


def test_group_and_human_facts(built):
    facts, parts = built
    # commercial tr_sem_acc: (0.494 + 0.448 + 0.404 + 0.441 + 0.227) / 5 = 2.014 / 5 = 0.4028
    assert facts["mouse.derived.group.commercial.tr_sem_acc"] == pytest.approx(0.4028, abs=1e-12)
    # local: (0.209 + 0.228 + 0.168 + 0.144 + 0.096 + 0.041 + 0.117 + 0.093 + 0.053) / 9 = 1.149 / 9
    assert facts["mouse.derived.group.local.tr_sem_acc"] == pytest.approx(1.149 / 9, abs=1e-12)
    assert facts["mouse.derived.group_gap.tr_sem_acc"] == pytest.approx(0.4028 - 1.149 / 9, abs=1e-12)
    assert (facts["mouse.derived.group.commercial.n"], facts["mouse.derived.group.local.n"]) == (5, 9)
    assert "unweighted mean" in facts.provenance["mouse.derived.group.local.ms_acc"].computation
    # Table 6: FP 0.950 and UFP 0.640 against the best model, Doubao-Seed-1.8 at 0.780
    assert facts["mouse.derived.human_cc.fp.minus_best_model"] == 0.17
    assert facts["mouse.derived.human_cc.ufp.minus_best_model"] == -0.14
    assert "Doubao-Seed-1.8" in facts.provenance["mouse.derived.human_cc.fp.minus_best_model"].computation
    assert facts["mouse.reported.text.instances"] == 1099 and facts["mouse.derived.models"] == 14
    groups = parts.tables["mouse-groups"]
    assert len(groups.rows) == 10 and all(c.key.startswith("mouse.derived.") for r in groups.rows for c in r[1:])


def test_claim_evidence_is_in_the_facts(built):
    facts, parts = built
    for v in parts.verdicts:
        for n, result in enumerate(v.results, start=1):
            base = f"mouse.claims.{v.statement.id}.c{n}"
            for e in result.evidence:
                matching = [k for k in facts.values if k.startswith(base + ".") and facts[k] == e.value]
                assert matching, (base, e.label)
            if result.value is not None:
                assert facts[f"{base}.{result.condition.aggregate}"] == result.value
    assert facts["mouse.claims.qwen3-declines-14b-to-32b.c1.td-accuracy"] == -0.051


def test_reported_facts_already_added_are_reused(tmp_path):
    facts = FactTable()
    add_reported_facts(facts, load_reported(MOUSE))
    before = len(facts.values)
    parts = mouse_site_parts(facts, CONTENT, charts=False)
    assert parts.charts == {} and len(facts.values) > before and set(parts.tables) == {
        "mouse-table3", "mouse-table4", "mouse-table6", "mouse-groups"}


# ------------------------------------------------------------------------------ chart

def walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_scale_chart(built, reported):
    facts, parts = built
    chart = parts.charts[SCALE_CHART]
    x_encodings = [n["x"] for n in walk(chart.spec) if isinstance(n.get("x"), dict) and "field" in n["x"]]
    assert x_encodings and all(x["scale"]["type"] == "log" for x in x_encodings)
    assert x_encodings[0]["axis"]["values"] == [0.6, 1.7, 4.0, 8.0, 14.0, 32.0]
    text = json.dumps(chart.spec)
    assert "http" not in text and "url" not in chart.spec.get("data", {}) and "$schema" not in chart.spec
    assert "http" not in chart.svg and chart.svg.startswith("<svg")
    assert chart.columns == ("Task", "Model", "Parameters (billions)", "Reported score (0–1)")
    assert len(chart.rows) == 36  # six tasks x six Qwen3 sizes
    assert chart.rows[0] == ("TR Semantic Accuracy", "Qwen3-0.6B", 0.6, 0.041)
    assert chart.rows[-1] == ("CC accuracy", "Qwen3-32B", 32.0, 0.49)
    assert sorted(chart.rows) == sorted(qwen3_scale_rows(facts, reported))
    assert {row[0] for row in chart.rows} == {label for label in
                                              ("TR Semantic Accuracy", "RC balanced accuracy", "IR balanced accuracy",
                                               "TD accuracy", "MS accuracy", "CC accuracy")}
    assert len(PRIMARY) == 6


def test_scale_chart_is_deterministic():
    rows = [("A", "m2", 8, 0.5), ("A", "m1", 0.5, 0.25), ("B", "m1", 0.5, 0.75)]
    one = scale_chart(rows, id="scale-test", title="T", description="D")
    two = scale_chart(list(reversed(rows)), id="scale-test", title="T", description="D")
    assert one.rows == (("A", "m1", 0.5, 0.25), ("A", "m2", 8.0, 0.5), ("B", "m1", 0.5, 0.75))
    assert one.svg == scale_chart(rows, id="scale-test", title="T", description="D").svg
    assert one.spec_json == scale_chart(rows, id="scale-test", title="T", description="D").spec_json
    assert two.rows[0][0] == "B"  # series keep their first-appearance order


@pytest.mark.parametrize("rows, message", [
    ([("A", "m", 0, 0.5)], "positive"),
    ([("A", "m", -1, 0.5)], "positive"),
    ([("A", "m", 1, 0.5), ("A", "m", 2, 0.6)], "repeat"),
    ([("A", "m", 1)], "4 fields"),
    ([], "at least one row"),
])
def test_scale_chart_rejects_bad_rows(rows, message):
    with pytest.raises(ValueError, match=message):
        scale_chart(rows, id="scale-test", title="T", description="D")


# ------------------------------------------------------------------------------- page

def render_mouse_page(facts: FactTable, tables: dict, charts: dict, names: dict) -> str:
    """The page as site/render.py renders it (`names`: the plug-ins' page context): Jinja functions, table/chart macros, blocks, Markdown."""
    env = make_environment(CONTENT / "templates")
    common = {"provenance": facts.provenance, "root": "", "build_date": "2026-01-01", "run_count": 0}
    functions = page_functions(facts, load_site_reported(CONTENT / "reported.yaml"), "", FactUse())
    table_macro = env.get_template("table.html").make_module(common)
    chart_macro = env.get_template("chart.html").make_module(common)

    def shortcode(html: str) -> Markup:
        return Markup('<div class="shortcode">{}</div>').format(Markup(html.strip()))

    def block(name: str, **params) -> Markup:
        return shortcode(env.get_template(f"blocks/{name}.html").render(**common, **names, **params,
                                                                        tables=tables, **functions))

    context = {**functions, "block": block, "table": lambda t: shortcode(table_macro.render(tables[t])),
               "chart": lambda c: shortcode(chart_macro.render(charts[c])), "has_table": lambda t: t in tables,
               "has_chart": lambda c: c in charts, "facts_table": facts}
    return str(render_page_body(env, read_page(CONTENT / "pages" / "mouse.md"), context))


def test_page_renders_with_the_parts(built):
    facts, parts = built
    html = render_mouse_page(facts, parts.tables, parts.charts, {"mouse_verdicts": parts.verdicts})
    for table_id in parts.tables:
        assert f'id="{table_id}"' in html
    assert f'id="chart-{SCALE_CHART}"' in html
    assert html.count('class="badge badge-holds"') == 4 and html.count('class="badge badge-does-not-hold"') == 3
    assert 'id="claim-td-above-rc-by-15-points"' in html
    assert "1,099" in html and 'data-fact="mouse.reported.main.gpt5_2.td_acc"' in html
    assert re.search(r'data-fact="mouse\.reported\.main\.gpt5_2\.td_acc"[^>]*>0\.69(4)?</td>', html)
    external = re.findall(r'<a [^>]*href="https?://[^"]*"[^>]*>', html)
    assert external and all('rel="external"' in a for a in external)


def test_reported_cells_show_three_decimals(built):
    facts, parts = built
    html = render_mouse_page(facts, parts.tables, {}, {})
    assert 'title="mouse.reported.main.gpt5_2.td_acc' in html and ">0.694</td>" in html


def test_page_renders_before_the_parts_are_wired():
    html = render_mouse_page(FactTable(), {}, {}, {})
    assert "not part of this build" in html and "badge" not in html and "gated" in html


def test_block_takes_verdicts_as_a_parameter(built):
    facts, parts = built
    env = make_environment(CONTENT / "templates")
    html = env.get_template("blocks/mouse_claims.html").render(verdicts=parts.verdicts[:1], inputs=SimpleNamespace())
    assert "badge-does-not-hold" in html and "3 of 6" in html and "needs each value &gt; 0.5" in html and "(count 6; needs == 6)" in html
