"""Model summaries (a model's runs over option seeds read as one entry), the pages that speak in
them, data-driven comparatives (flip the data, the word flips), rounded downloads and the footer."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import pytest

import builder.benchmarks.cibuzzbench.compute
from builder.benchmarks.cibuzzbench.analyses.model_facts import add_model_facts, add_pair_summary_facts
from builder.benchmarks.cibuzzbench.analyses.model_summaries import summarise_models, summarise_pairs
from builder.benchmarks.cibuzzbench.analyses.paired_facts import analyse_pairs
from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import CATEGORIES, Dataset, load_dataset
from builder.core.facts import FactTable
from tests.test_build import CONTENT, CREATED, SMALL_SPEC, write_synthetic_model_pair
from tests.test_paired import make_run, outcome_run

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- compute


def _outcomes(rows: range, right_every: int) -> dict[int, str]:
    return {r: "correct" if r % right_every else "pragmatic" for r in rows}


@pytest.fixture(scope="module")
def two_seeds(synthetic_dataset: Dataset):
    """demo-model, blind and sighted at seeds 1111 and 2222, plus a Task 3 run and another model."""
    runs = []
    for seed, blind_every, sighted_every in ((2222, 2, 5), (1111, 3, 7)):
        runs.append(outcome_run(synthetic_dataset, f"demo-blind-s{seed}", "blind", _outcomes(range(120), blind_every), seed=seed))
        runs.append(outcome_run(synthetic_dataset, f"demo-sighted-s{seed}", "sighted", _outcomes(range(120), sighted_every),
                                seed=seed))
    runs.append(make_run(synthetic_dataset, "demo-t3", "sighted", {r: "non-harmful" for r in range(60)},
                         task="harmfulness_detection"))
    runs.append(outcome_run(synthetic_dataset, "other-blind", "blind", _outcomes(range(120), 4), subject="other-model"))
    scores = [score_run(r, synthetic_dataset) for r in runs]
    models = summarise_models(scores)
    pairs = analyse_pairs(runs, synthetic_dataset)
    summaries = summarise_pairs(models, pairs)
    facts = FactTable()
    add_model_facts(facts, models)
    add_pair_summary_facts(facts, summaries)
    return {s.run_id: s for s in scores}, models, pairs, summaries, facts


def test_runs_differing_only_in_seed_are_one_model(two_seeds) -> None:
    _, models, _, summaries, _ = two_seeds
    by_id = {m.id: m for m in models}
    assert sorted(by_id) == ["demo-model-t2-blind-en-all", "demo-model-t2-sighted-en-all", "demo-model-t3-sighted-en-all",
                             "other-model-t2-blind-en-all"]
    assert by_id["demo-model-t2-blind-en-all"].seeds == (1111, 2222)
    assert by_id["demo-model-t3-sighted-en-all"].seeds == (None,)
    assert [s.id for s in summaries] == ["demo-model-t2-en-all"]  # other-model has no sighted arm
    assert [p.option_seed for p in summaries[0].pairs] == [1111, 2222]


def test_means_sds_and_the_seed_1111_interval(two_seeds) -> None:
    scores, _, _, _, facts = two_seeds
    blind = [scores["demo-blind-s1111"], scores["demo-blind-s2222"]]
    base = "model.demo-model-t2-blind-en-all"
    f1 = [s.report.macro_f1 for s in blind]
    assert facts[f"{base}.macro_f1.mean"] == pytest.approx(statistics.fmean(f1))
    assert facts[f"{base}.macro_f1.sd"] == pytest.approx(statistics.stdev(f1))
    assert facts[f"{base}.seeds"] == 2 and facts[f"{base}.items"] == 120
    assert facts[f"{base}.macro_f1.ci95_low"] == blind[0].intervals["macro_f1"].low  # seed 1111, not the first file
    assert facts[f"{base}.macro_f1.ci95_high"] == blind[0].intervals["macro_f1"].high


def test_one_seed_has_an_interval_but_no_sd(two_seeds) -> None:
    scores, _, _, _, facts = two_seeds
    base = "model.demo-model-t3-sighted-en-all"
    assert f"{base}.macro_f1.sd" not in facts and f"{base}.accuracy.sd" not in facts
    assert facts[f"{base}.macro_f1.ci95_low"] == scores["demo-t3"].intervals["macro_f1"].low
    assert facts[f"{base}.f1.harmful.mean"] == scores["demo-t3"].report.per_label["harmful"].f1


def test_pairs_are_made_per_seed_then_summarised(two_seeds) -> None:
    _, _, pairs, summaries, facts = two_seeds
    per_seed = {p.option_seed: p for p in pairs if p.run_a.startswith("demo-")}
    base = "paired.demo-model-t2-en-all"
    assert facts[f"{base}.gap.macro_f1.mean"] == pytest.approx(statistics.fmean(p.gap.macro_f1 for p in per_seed.values()))
    assert facts[f"{base}.gap.macro_f1.sd"] == pytest.approx(statistics.stdev(p.gap.macro_f1 for p in per_seed.values()))
    assert facts[f"{base}.gap.macro_f1.ci95_low"] == per_seed[1111].gap.macro_f1_ci.low
    assert (facts[f"{base}.mcnemar_p.min"], facts[f"{base}.mcnemar_p.max"]) == (
        min(p.mcnemar_p for p in per_seed.values()), max(p.mcnemar_p for p in per_seed.values()))
    above = [100 * (p.a.accuracy - 25) / (p.b.accuracy - 25) for p in per_seed.values()]
    assert facts[f"{base}.above_chance.accuracy.mean"] == pytest.approx(statistics.fmean(above))
    assert facts[f"{base}.chance.accuracy"] == 25.0
    shares = [facts[f"{base}.errors.{s}.share"] for s in ("literal", "cultural", "pragmatic", "unparsed")]
    assert sum(shares) == pytest.approx(100.0)
    total = sum(p.errors_a.counts["pragmatic"] for p in per_seed.values())
    assert facts[f"{base}.errors.pragmatic.count"] == total
    gap = f"{base}.category.{CATEGORIES[0]}.gap.accuracy"
    first = [next(c for c in p.categories if c.label == CATEGORIES[0]) for p in per_seed.values()]
    assert facts[f"{gap}.mean"] == pytest.approx(statistics.fmean(c.gap.accuracy for c in first))
    assert facts["paired_models.count"] == 1


def test_every_summary_fact_key_is_documented(two_seeds) -> None:
    facts = two_seeds[-1]
    doc = (REPO / "docs" / "model-facts.md").read_text(encoding="utf-8")
    documented = set()
    for cell in re.findall(r"^\| `([^|]+)\|", doc, re.MULTILINE):
        keys = re.findall(r"`([^`]+)`", "`" + cell)
        first = keys[0]
        documented.add(first)
        documented |= {first.rsplit(".", 1)[0] + k for k in keys[1:] if k.startswith(".")}
    categories = "|".join(map(re.escape, CATEGORIES))
    for key in facts.values:
        generic = re.sub(r"^(model|paired)\.[a-z0-9-]+\.", r"\1.<id>.", key)
        generic = re.sub(rf"\.category\.({categories})\.", ".category.<label>.", generic)
        generic = re.sub(r"\.errors\.(literal|cultural|pragmatic|unparsed)\.", ".errors.<type>.", generic)
        assert generic in documented, f"{generic} is not in docs/model-facts.md"


# ---------------------------------------------------------------- pages


@pytest.fixture(scope="module")
def small(small_inputs: tuple[Path, Path]) -> tuple[Path, Path]:
    """test_build's 60-row dataset and its probe runs (seeds 1111, 2222), without its model pair."""
    csv_path, runs = small_inputs
    return csv_path, runs / "probes"


def site_with(small, tmp_path: Path, models: dict[str, tuple[int, ...]], monkeypatch=None, change=None) -> Path:
    """Build with the given synthetic models ({name: seeds}); `change(facts)` edits the computed
    facts before rendering, to flip what the prose compares."""
    csv_path, probes = small
    runs = tmp_path / "runs"
    shutil.copytree(probes, runs / "probes")
    dataset = load_dataset(csv_path, SMALL_SPEC)
    for name, seeds in models.items():
        for seed in seeds:
            write_synthetic_model_pair(dataset, runs / name, seed=seed, name=name)
    if change is not None:
        original = builder.benchmarks.cibuzzbench.compute.compute

        def changed(*args, **kwargs):
            computed = original(*args, **kwargs)
            change(computed.facts.values)
            return computed
        monkeypatch.setattr(builder.benchmarks.cibuzzbench.compute, "compute", changed)
    out = tmp_path / "site"
    build(BuildConfig(runs, CONTENT, out, options=cibuzzbench_options(csv_path, SMALL_SPEC), charts=False, force=True))
    return out


def text(site: Path, page: str) -> str:
    """The page's prose as a reader sees it (tags dropped, whitespace collapsed)."""
    html = (site / page).read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


LENGTH = "leak.longest_chars.category.{}.accuracy.mean"


def _set(values: dict, **named: float):
    for key, value in named.items():
        values[key] = value


@pytest.mark.parametrize("pun_is_weakest", [True, False])
def test_comparatives_follow_the_data(small, tmp_path, monkeypatch, pun_is_weakest) -> None:
    low, high = (0.0, 100.0) if pun_is_weakest else (100.0, 0.0)

    def change(values: dict) -> None:
        values[LENGTH.format("Homophonic pun")] = low
        values["leak.shortest_chars.macro_f1.mean"], values["leak.random.macro_f1.mean"] = low, 50.0
        values["leak.longest_chars.macro_f1.mean"] = high
        gap = next(k for k in values if k.startswith("paired.") and k.endswith(".gap.macro_f1.mean"))
        values[gap] = 5.0 if pun_is_weakest else -5.0

    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)}, monkeypatch, change)
    article, faq = text(site, "article.html"), text(site, "faq.html")
    assert ("Even the length rule is weakest there" in article) is pun_is_weakest
    assert ("does not single them out" in article) is not pun_is_weakest
    if not pun_is_weakest:
        assert "Homophonic pun items, above its" in article
    word = "below" if pun_is_weakest else "above"
    assert re.search(rf"picking the shortest option gives [\d.]+, {word} the random letter's", article)
    assert ("read backwards" in article) is pun_is_weakest
    assert re.search(rf"scores [\d.]+ macro F1, {'above' if pun_is_weakest else 'below'} the [\d.]+ of random letters", faq)
    assert ("carries signal" in faq) is pun_is_weakest
    assert f"Seeing the term {'raised' if pun_is_weakest else 'lowered'} macro F1" in article


def test_one_model_one_seed_reads_without_an_sd(small, tmp_path) -> None:
    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)})
    article, models = text(site, "article.html"), text(site, "models.html")
    assert "For synthetic-demo on 60 shared items (option seed 1111)" in article
    assert "sd " not in article.split("What model runs show")[1].split("Where the Chinese")[0]
    assert re.search(r"seed-1111 pair's 95% interval runs from [\d.-]+ to [\d.-]+", article)
    assert re.search(r"exact McNemar p = [\d.e-]+\)", article) and "Per seed" not in article
    assert re.search(r"accuracy and [\d.]+ macro F1, the blind arm [\d.]+% and [\d.]+", article)
    assert "of the sighted arm's" in article and "points above chance the blind arm kept" in article
    assert "Task 2: every model" in models


def test_one_model_several_seeds_reads_as_one_model(small, tmp_path) -> None:
    site = site_with(small, tmp_path, {"synthetic-demo": (1111, 2222)})
    article = text(site, "article.html")
    assert article.count("For synthetic-demo on") == 1
    assert "averaged over 2 option seeds" in article
    assert re.search(r"\(sd [\d.]+ over seeds\)", article)
    assert re.search(r"exact McNemar p from [\d.e-]+ to [\d.e-]+ across seeds", article)


def test_seeds_are_summarised_and_models_compared(small, tmp_path) -> None:
    site = site_with(small, tmp_path, {"synthetic-demo": (1111, 2222), "synthetic-other": (1111,)})
    article, models, categories = (text(site, p) for p in ("article.html", "models.html", "categories.html"))
    assert "2 models were run sighted and blind" in article
    assert "For synthetic-demo on" not in article  # several models: a table, not a paragraph each
    assert "Sighted and blind, per model" in article
    rows = (site / "tables" / "model-pair-summaries.csv").read_text().splitlines()
    assert len(rows) == 3 and ",2," in rows[1] + rows[2]  # one row per model; demo has 2 seeds
    per_seed = (site / "tables" / "model-pairs.csv").read_text().splitlines()
    assert len(per_seed) == 4 and per_seed[0].split(",")[2:5] == ["Option set", "Items asked", "Option seed"]
    assert categories.count("synthetic-demo") == len(CATEGORIES)  # one row per category, not per seed
    assert "pair-categories.csv" in categories
    assert "Task 2: every model" in models


def test_downloads_are_rounded_with_a_full_precision_twin(small, tmp_path) -> None:
    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)})
    rounded = (site / "tables" / "heuristics-all.csv").read_text()
    full = (site / "tables" / "full" / "heuristics-all.csv").read_text()
    assert not re.search(r"\d\.\d{3}", rounded) and re.search(r"\d\.\d{5}", full)
    assert rounded.splitlines()[0] == full.splitlines()[0]
    assert "tables/full/heuristics-all.csv" in (site / "downloads.html").read_text()


def test_footer_states_the_newest_run(small, tmp_path) -> None:
    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)})
    assert f"the newest created on {CREATED[:10]}" in text(site, "index.html")


def test_chart_data_tables_show_display_precision() -> None:
    from types import SimpleNamespace

    from markupsafe import Markup

    from builder.site.environment import make_environment
    chart = SimpleNamespace(id="x", title="T", svg="", spec_json=Markup("{}"), description="d",
                            columns=("Label", "Score", "Count", "Low"), rows=(("a", 12.345678901, 1234, None),))
    env = make_environment(CONTENT / "templates")
    html = env.get_template("chart.html").make_module({"root": ""}).render(chart)
    assert "<td>12.35</td><td>1,234</td><td>–</td>" in html and "12.3456" not in html


@pytest.mark.parametrize("at_chance", [True, False])
def test_a_model_at_chance_sighted_is_presented_as_a_negative_control(small, tmp_path, monkeypatch, at_chance) -> None:
    """The sentence is chosen by the sighted arm's interval against chance, and its verdict on the
    gap by the gap's interval: flip both and the wording follows."""
    def change(values: dict) -> None:
        low = next(k for k in values if k.startswith("model.") and "-sighted-" in k and k.endswith(".accuracy.ci95_low"))
        values[low] = 20.0 if at_chance else 60.0
        gap = next(k for k in values if k.startswith("paired.") and k.endswith(".gap.macro_f1.ci95_low"))
        values[gap] = -3.0

    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)}, monkeypatch, change)
    article = text(site, "article.html")
    assert ("its pair is a negative control" in article) is at_chance
    assert ("It finds none: the gap's interval contains 0." in article) is at_chance


def test_tie_groups_form_only_among_comparable_rows() -> None:
    from builder.benchmarks.cibuzzbench.views.tables import tie_groups_within
    original, pool = ("Original", "en", "400-item sample drawn with seed 0"), ("Gold pool (article)", "en", "x")
    groups = tie_groups_within([(original, "a", 70.0, 65.0, 75.0), (original, "b", 40.0, 35.0, 45.0),
                                (pool, "a-pool", 20.0, 15.0, 25.0)])
    # Alone in its setting, the gold-pool row leads its own group; it is never ranked below "b".
    assert groups == {"a": 1, "b": 2, "a-pool": 1}


def _summary(name: str, variant: str, local: bool = True, items: dict | None = None):
    from types import SimpleNamespace

    from builder.benchmarks.cibuzzbench.analyses.model_summaries import ModelSummary, PairSummary
    from builder.runs.schema import Header
    runtime = {"local": True, "parameters": "1.5B", "quantisation": "Q4_K_M"} if local else {}
    items = items or {"selection": "sample", "n": 400, "sample_seed": 0}
    header = Header(f"{name}-{variant}", "cibuzzbench", "equivalent_selection", "blind",
                    {"kind": "model", "name": name, "runtime": runtime}, 1111, items,
                    {"variant": variant}, "2026-11-30T00:00:00Z", {})
    blind = ModelSummary(f"{name}-{variant}-{json.dumps(items)}", header.subject_label, header.task, "blind", variant,
                         "en", items, (SimpleNamespace(run=SimpleNamespace(header=header)),))
    return PairSummary(blind.id, blind, blind, ())


def test_chart_labels_name_the_option_set_and_never_repeat() -> None:
    from builder.benchmarks.cibuzzbench.views.model_views import chart_labels
    name = "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"
    summaries = [_summary(name, "original"), _summary(name, "gold_pool"),
                 _summary(name, "original", items={"selection": "split", "split": "test"}), _summary("gpt-x", "original", local=False)]
    labels = list(chart_labels(summaries).values())
    short = "Qwen2.5-Coder-1.5B-Instruct, local Q4_K_M"
    # The same model on two option sets: the option set tells them apart ...
    assert labels[1] == f"{short} · Gold pool (article)"
    # ... and on two item selections of one set, the items asked are added to both (only to them).
    assert labels[0] == f"{short} · Original · 400-item sample drawn with seed 0"
    assert labels[2] == f"{short} · Original · the test split"
    assert labels[3] == "gpt-x · Original" and len(set(labels)) == len(labels)


def test_the_committed_local_model_rows_name_their_option_set(real_dataset, tmp_path) -> None:
    """The local model answered the original options and the gold pool: every summary row says
    which, and the two are never ranked against each other."""
    from builder.benchmarks.cibuzzbench.compute import compute
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    from builder.benchmarks.cibuzzbench.run_checks import validate_runs
    from builder.benchmarks.cibuzzbench.views import model_views as mv
    from builder.benchmarks.cibuzzbench.views.tables import FactCells
    from builder.runs.reader import read_run
    variants = derive_variants(real_dataset, ["gold_pool"])
    folder = REPO / "runs" / "qwen2_5-coder-1_5b-instruct-q4_k_m"
    runs = validate_runs([read_run(p) for p in sorted(folder.glob("*-t2-*.jsonl"))],
                         {"original": real_dataset, **variants})
    computed = compute(real_dataset, runs, variants)
    cells = FactCells(computed.facts)
    for table in (mv.pair_summary_table(cells, computed.pair_summaries),
                  mv.pair_category_summary_table(cells, computed.pair_summaries)):
        column = table.columns.index("Option set")
        assert {row[column].text for row in table.rows} == {"Original", "Gold pool (article)"}
        assert all(row[table.columns.index("Items asked")].text == "400-item sample drawn with seed 0"
                   for row in table.rows)
    summary = mv.pair_summary_table(cells, computed.pair_summaries)
    assert [row[0].text for row in summary.rows] == ["1", "1"]  # each leads its own option set
    assert [row[2].text for row in summary.rows] == ["Original", "Gold pool (article)"]
    labels = mv.chart_labels(computed.pair_summaries)
    assert sorted(labels.values()) == ["Qwen2.5-Coder-1.5B-Instruct, local Q4_K_M · Gold pool (article)",
                                       "Qwen2.5-Coder-1.5B-Instruct, local Q4_K_M · Original"]
