"""Issue 32, items 7 and 8: the related-work page sets each shelf figure beside published
choices-only figures, every number on it measured (a fact link) or quoted (a reported span with
a source that has an address); and the article shows no category gaps of a model at chance."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from builder.core.reported import load_reported
from tests.test_build import CONTENT, small_build
from tests.test_model_summaries import site_with, small, text  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"
SPECS = {"list_options": "synthetic-list", "columns": "synthetic-columns", "nested": "synthetic-nested"}
# Numbers a page may type: the interval's level, and the years in a citation's short name.
LABELS = re.compile(r"95% interval|(?:et al\.|and) (?:19|20)\d\d")
NUMBER = re.compile(r"(?<![\w.#-])\d+(?:[.,]\d+)*%?(?![\w-])")


def _with_shelf(tmp_path: Path) -> Path:
    """The committed content with the synthetic fixture specs in place of the shipped ones."""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content, ignore=shutil.ignore_patterns("benchmarks"))
    (content / "benchmarks").mkdir()
    for fixture, name in SPECS.items():
        spec = (FIXTURES / f"{fixture}.yaml").read_text(encoding="utf-8")
        (content / "benchmarks" / f"{name}.yaml").write_text(
            spec.replace("dataset_path: tests/", f"dataset_path: {REPO}/tests/"), encoding="utf-8")
    return content


@pytest.fixture(scope="module")
def shelf_site(small_inputs, tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("related")
    out = tmp / "site"
    small_build(small_inputs, out, content=_with_shelf(tmp), charts=False, force=True)
    return out


def _unmarked_numbers(html: str) -> list[str]:
    """Numbers in the page's prose that are neither a fact link nor a reported span."""
    main = html[html.index("<main"):html.index('<section class="sources"')]
    for marked in (r'<a class="fact"[^>]*>.*?</a>', r'<span class="reported".*?</sup></span>',
                   r'<a class="cite"[^>]*>.*?</a>', r"<code>.*?</code>"):
        main = re.sub(marked, " ", main, flags=re.S)
    prose = LABELS.sub(" ", re.sub(r"<[^>]+>", " ", main))
    return NUMBER.findall(prose)


def test_the_page_sets_every_shelf_benchmark_beside_the_literature(shelf_site: Path) -> None:
    html = (shelf_site / "related.html").read_text(encoding="utf-8")
    assert 'href="related.html"' in (shelf_site / "index.html").read_text(encoding="utf-8")  # in the navigation
    assert 'href="related.html"' in (shelf_site / "faq.html").read_text(encoding="utf-8")
    for name in SPECS.values():
        assert f'<h3 id="{name}">' in html
        assert f'href="provenance.html#f-mcq.{name}.audit.shuffled.learned_options.accuracy"' in html
        page = (shelf_site / "benchmarks" / f"{name}.html").read_text(encoding="utf-8")
        assert f'href="../related.html#{name}"' in page  # each benchmark page's line points at its own entry
        start = page.index("how much of this benchmark its options alone give away")
        intro = page[start:page.index("</p>", start)]
        assert "models section" not in intro  # no runs of the fixtures: the intro does not promise them
    for source in ("balepur2024", "chandak2025", "brown2025", "gururangan2018", "poliak2018"):
        assert f'<li id="source-{source}">' in html and f'href="#source-{source}"' in html
    assert _unmarked_numbers(html) == []


def test_the_check_finds_a_typed_number() -> None:
    """The crawl above can fail: a figure typed into the prose is found, a fact link is not."""
    page = ('<main><p>The probe picks <a class="fact" href="x">72.5%</a> (95% interval '
            '<a class="fact" href="y">69.5</a>), against 22.3% by chance.</p>'
            '<section class="sources"></section>')
    assert _unmarked_numbers(page) == ["22.3%"]


def test_every_cited_source_has_an_address() -> None:
    table = load_reported(CONTENT / "reported.yaml")
    page = (CONTENT / "pages" / "related.md").read_text(encoding="utf-8")
    cited = set(re.findall(r'cite\("(\w+)"\)', page))
    cited |= {table[k].source.id for k in re.findall(r'reported\("([\w.]+)"', page)}
    assert {"balepur2024", "chandak2025", "brown2025", "gururangan2018", "poliak2018"} <= cited
    for source in cited - {"blind_probe"}:  # the blind probe is an unpublished run, cited by its settings
        assert table.sources[source].url.startswith("https://"), source


@pytest.mark.parametrize("at_chance", [True, False])
def test_category_gaps_come_with_intervals_or_not_at_all(small, tmp_path, monkeypatch, at_chance) -> None:  # noqa: F811
    """A model no better than a random letter sighted is a negative control: the article names
    none of its category gaps; any other model's largest gap comes with its 95% interval."""
    def change(values: dict) -> None:
        low = next(k for k in values if k.startswith("model.") and "-sighted-" in k and k.endswith(".accuracy.ci95_low"))
        values[low] = 20.0 if at_chance else 60.0

    site = site_with(small, tmp_path, {"synthetic-demo": (1111,)}, monkeypatch, change)
    section = text(site, "article.html").split("Where the Chinese should matter")[1].split("The harmfulness contrast")[0]
    assert ("is a negative control (above)" in section) is at_chance
    assert ("the sighted-minus-blind accuracy gap is largest on" in section) is not at_chance
    html = (site / "article.html").read_text(encoding="utf-8")
    where = html[html.index('id="where-the-chinese-should-matter"'):html.index('id="the-harmfulness-contrast"')]
    gaps = re.findall(r"category\.[^.\"]+\.gap\.accuracy\.(mean|ci95_low|ci95_high)", where)
    if at_chance:
        assert gaps == []
    else:
        assert re.search(r"points, 95% interval [\d.-]+ to [\d.-]+", section)
        assert gaps.count("ci95_low") == gaps.count("mean") == gaps.count("ci95_high") > 0


def test_the_brief_table_names_no_largest_gap_for_a_model_at_chance(small, tmp_path, monkeypatch) -> None:  # noqa: F811
    """With several models the article's table names each one's largest category gap: none for
    the model at chance sighted, a category for the other."""
    def change(values: dict) -> None:
        values["model.control-t2-sighted-en-all.accuracy.ci95_low"] = 20.0

    site = site_with(small, tmp_path, {"control": (1111,), "reader": (1111,)}, monkeypatch, change)
    csv = (site / "tables" / "model-pairs-brief.csv").read_text(encoding="utf-8").splitlines()
    rows = {line.split(",")[0]: line.rsplit(",", 1)[1] for line in csv[1:]}
    assert rows["control"] == "none (at chance sighted)"
    assert rows["reader"] in {"Slang", "Abbreviation", "Homophonic pun", "Quotation", "Stylistic device", "Experience"}
