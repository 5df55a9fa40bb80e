"""Findings first (issue 32 items 2, 3, 4 and 6): the front page's headline and findings, each
benchmark page's computed summary ahead of its evidence, the category table headed by models in
score order, the FAQ's tie-group rules as the pages use them, the glossary, the spec keys that
keep a data set's text off the page or point to runs read elsewhere, PNG chart downloads and
canonical addresses.

The site here is built from the real content plus a SYNTHETIC spec'd benchmark (placeholders,
no benchmark's items; tests/test_mcq_probe.py writes it) whose runs a loopback server answers.
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import InputError
from builder.site.canonical import with_canonical
from builder.site.chart_png import chart_png
from tests.loopback_server import LoopbackServer, reply
from tests.test_mcq_probe import KEY_ENV, NAME, SPEC, answer, build_site, project  # noqa: F401 (fixture)

STRONG, WEAK = "loop-model", "a-weak-model"  # the weaker model sorts first by name, second by score


def _weak(request: object) -> object:
    """Always the longest option: right only where the planted length cue holds."""
    options = dict(re.findall(r"^([A-Z])\. (.*)$", request.user_text, flags=re.M))  # type: ignore[attr-defined]
    return reply(max(sorted(options), key=lambda letter: len(options[letter])))


def _ask(project: Path, monkeypatch: pytest.MonkeyPatch, model: str, respond: object) -> None:
    from builder.cli import main
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(respond) as server:
        assert main(["probe", "--model", model, "--base-url", server.url, "--api-key-env", KEY_ENV, "--quiet",
                     "--benchmark", NAME, "--condition", "sighted", "--seeds", "1111"]) == 0


@pytest.fixture(scope="module")
def two_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic benchmark with a strong and a weak model's sighted runs: a leak split.
    Built once for the module (the project fixture of test_mcq_probe, made here)."""
    import json
    import shutil
    from tests.test_mcq_probe import REPO, synthetic_records
    root = tmp_path_factory.mktemp("findings")
    shutil.copytree(REPO / "content", root / "content")
    (root / "data").mkdir()
    data = root / "data" / "probe.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in synthetic_records()), encoding="utf-8")
    (root / "content" / "benchmarks" / f"{NAME}.yaml").write_text(SPEC.format(data=data), encoding="utf-8")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _ask(root, monkeypatch, STRONG, answer)
        _ask(root, monkeypatch, WEAK, _weak)
        return build_site(root)


def _text(fragment: str) -> str:
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


# --- a benchmark page: findings first ------------------------------------------------------


def test_benchmark_page_opens_with_computed_findings_then_the_leak_split(two_models: Path) -> None:
    page = (two_models / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    found = page.index('id="found"')
    assert found < page.index('id="leak-split"') < page.index('id="audit"') < page.index('id="models"')
    assert page.index('id="leak-split"') < page.index('<dl class="header">')  # metadata after the findings
    summary = page[found:page.index("</section>", found)]
    items = re.findall(r"<li>(.*?)</li>", summary, re.S)
    assert len(items) == 2
    for item in items:  # each finding links to its evidence on the page
        anchor = re.search(r'href="#([^"]+)">Evidence</a>', item).group(1)
        assert anchor in _ids(page), anchor
    # the numbers are the audit table's and the split's own cells, not typed
    learned = _text(re.search(r"<tr><td[^>]*>learned options</td>(.*?)</tr>", page, re.S).group(1)).split()[0]
    assert f"picks the right answer on {learned}% of the" in _text(items[0])
    assert "%%" not in _text(summary) and "% of those items are option-solvable" in _text(items[0])
    split = _text(page[page.index('id="leak-split"'):page.index("</p>", page.index('id="leak-split"'))])
    assert _text(items[1]).removesuffix(" Evidence") in split
    # page-type sentences only where they apply: no pairs here, so none about sighted and blind runs
    assert "compares each model's sighted and blind runs" not in page
    assert "the models section shows the model runs" in page


def test_category_table_is_headed_by_models_in_score_order_with_strict_accuracy(two_models: Path) -> None:
    page = (two_models / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    table = page[page.index('id="mcq-' + NAME + '-categories"'):]
    table = table[:table.index("</table>")]
    headers = [_text(h) for h in re.findall(r"<th\b[^>]*>(.*?)</th>", table, re.S)]
    assert headers[2:] == [STRONG, WEAK], headers  # by strict accuracy, not by name or run id
    assert "Strict accuracy" in _text(table[:table.index("<thead")]) or "strict accuracy" in _text(page)
    assert not any("-t2-" in h or "sighted" in h for h in headers)


def test_faq_names_the_pages_each_tie_group_rule_is_used_on(two_models: Path) -> None:
    faq = (two_models / "faq.html").read_text(encoding="utf-8")
    section = faq[faq.index("What is a tie group"):faq.index('id="glossary"')]
    mcnemar = section[section.index("Chained McNemar"):]
    listed = set(re.findall(r'href="(benchmarks/[^"]+\.html)"', mcnemar))
    shown = {f"benchmarks/{p.name}" for p in (two_models / "benchmarks").glob("*.html")
             if "McNemar" in p.read_text(encoding="utf-8") and "Tie group" in p.read_text(encoding="utf-8")}
    assert listed == shown and listed, (listed, shown)
    models = (two_models / "models.html").read_text(encoding="utf-8")
    interval = "Overlapping intervals" in section
    assert interval == ("interval reaches the group leader" in models)


def test_index_has_a_headline_and_findings_that_link_to_their_evidence(two_models: Path) -> None:
    index = (two_models / "index.html").read_text(encoding="utf-8")
    assert '<p class="headline"><strong>' in index
    assert index.index('class="headline"') < index.index('class="findings"') < index.index('id="cibuzzbench-the-first')
    findings = re.search(r'<ol class="findings">(.*?)</ol>', index, re.S).group(1)
    items = re.findall(r"<li>(.*?)</li>", findings, re.S)
    assert len(items) == 2  # the shelf's two; CIBuzzBench's needs its probe runs (the golden index has it)
    targets = [re.search(r'<strong><a href="([^"]+)">', item).group(1) for item in items]
    assert targets[0] == f"benchmarks/{NAME}.html#audit" and targets[1] == f"benchmarks/{NAME}.html#leak-split"
    for target in targets:
        path, anchor = target.split("#")
        assert anchor in _ids((two_models / path).read_text(encoding="utf-8")), target
    for item in items:  # every number is a fact, linked to its provenance
        numbers = re.findall(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w-])", _text(re.sub(r'<a class="fact".*?</a>', "", item)))
        assert not [n for n in numbers if n not in ("95",)], (numbers, item)
        assert 'class="fact"' in item
    faq_ids = _ids((two_models / "faq.html").read_text(encoding="utf-8"))
    for anchor in re.findall(r'href="faq\.html#([^"]+)"', index):
        assert anchor in faq_ids, anchor
    for term in ("glossary-choices-only-probe", "glossary-leak-split", "glossary-chance"):
        assert f'href="faq.html#{term}"' in index, term
    glossary = (two_models / "faq.html").read_text(encoding="utf-8")
    for term in ("macro-f1", "blind-probe", "choices-only-probe", "leak-split", "tie-group", "option-solvable"):
        assert f'id="glossary-{term}"' in glossary, term


# --- spec keys the page reads ---------------------------------------------------------------


def _spec(tmp_path: Path, extra: str) -> Path:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "q1", "stem": "s", "choices": ["a", "b"], "answer": 0, "split": "test", '
                    '"topic": "t"}\n', encoding="utf-8")
    path = tmp_path / f"{NAME}.yaml"
    path.write_text(SPEC.format(data=data) + extra, encoding="utf-8")
    return path


def test_page_keys_are_checked_and_located(tmp_path: Path) -> None:
    plain = load_spec(_spec(tmp_path, ""), root=tmp_path)
    assert plain.quote_items is True and plain.runs_page is None
    given = load_spec(_spec(tmp_path, "quote_items: false\nruns_page: models\n"), root=tmp_path)
    assert given.quote_items is False and given.runs_page == "models"
    with pytest.raises(InputError) as bad:
        load_spec(_spec(tmp_path, 'quote_items: "no"\nruns_page: "../Models"\n'), root=tmp_path)
    lines = len(SPEC.splitlines())
    assert f"{NAME}.yaml:{lines + 1} [quote_items]: must be true or false" in str(bad.value)
    assert f"{NAME}.yaml:{lines + 2} [runs_page]:" in str(bad.value)


def test_a_page_quotes_no_item_where_the_spec_says_so_and_links_runs_read_elsewhere(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import json
    from tests.test_mcq_probe import synthetic_records
    monkeypatch.chdir(project)  # the repository a spec may read from
    records = synthetic_records()
    records[1]["choices"] = list(records[0]["choices"])  # a shared option set: the findings note quotes it
    (project / "data" / "probe.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    spec = project / "content" / "benchmarks" / f"{NAME}.yaml"
    page = (build_site(project) / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    assert "Synthetic question 1?" in page  # quoted by default (the first item's prompt)
    assert "Shared option sets: 1 sets" in page and records[0]["choices"][1] in html_lib.unescape(page)
    assert "No runs yet" in page and "No model has been run on it yet." in page
    spec.write_text(spec.read_text(encoding="utf-8") + "url: https://example.org/upstream\nquote_items: false\n"
                    "runs_page: models\n", encoding="utf-8")
    page = (build_site(project) / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    assert "Synthetic question" not in page and "indeed so" not in page  # no item's text anywhere
    assert "Shared option sets: 1 sets" in page and records[0]["choices"][1] not in html_lib.unescape(page)
    assert 'its licence does not clearly allow republishing its text' in page
    assert 'at <a href="https://example.org/upstream">' in page
    assert "No runs yet" not in page and 'see\n<a href="../models.html">Models</a>' in page


def test_shipped_lawbench_spec_quotes_no_item() -> None:
    """JEC-QA's terms are not stated upstream (LawBench asks users to follow the source's)."""
    from tests.browser_support import REPO
    spec = load_spec(REPO / "content" / "benchmarks" / "lawbench.yaml", root=REPO)
    assert spec.quote_items is False
    assert load_spec(REPO / "content" / "benchmarks" / "cibuzzbench-t2.yaml", root=REPO).runs_page == "models"


# --- reuse: PNG downloads and canonical addresses --------------------------------------------


SVG = (b'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" '
       b'viewBox="0 0 40 20"><text x="2" y="14" fill="currentColor">7</text></svg>\n')


def test_chart_png_is_deterministic_and_cached(tmp_path: Path) -> None:
    fresh = chart_png(SVG, None)
    assert fresh.startswith(b"\x89PNG\r\n\x1a\n") and fresh == chart_png(SVG, None)
    assert chart_png(SVG, tmp_path) == fresh
    assert list((tmp_path / "chart-png").iterdir())
    assert chart_png(SVG, tmp_path) == fresh  # read back from the cache
    assert int.from_bytes(fresh[16:20], "big") == 80  # twice the drawn width
    with pytest.raises(ValueError):
        chart_png(b"<div/>", None)


def test_canonical_addresses_only_when_the_address_is_known() -> None:
    page = b'<head>\n<meta property="og:type" content="website">\n</head>'
    files = {"a.html": page, "runs/b c.html": page, "404.html": page, "x.csv": b"a"}
    assert with_canonical(files, "") == files
    out = with_canonical(files, "https://example.org/site")
    assert b'<link rel="canonical" href="https://example.org/site/a.html">\n' \
           b'<meta property="og:url" content="https://example.org/site/a.html">\n' in out["a.html"]
    assert b'href="https://example.org/site/runs/b c.html"' in out["runs/b c.html"]
    assert out["404.html"] == page and out["x.csv"] == b"a"


def test_the_index_names_the_split_whose_gaps_clear_zero_most_often_first() -> None:
    """Not the split with the most models: 12 of 51 clearing zero is weaker evidence than 29 of 29."""
    from builder.benchmarks.mcq.views.summary import strongest_splits
    listed = [{"name": "many", "leak_models": 51, "leak_above": 12}, {"name": "none", "leak_models": 0, "leak_above": 0},
              {"name": "all", "leak_models": 29, "leak_above": 29}, {"name": "few", "leak_models": 13, "leak_above": 2}]
    assert [b["name"] for b in strongest_splits(listed)] == ["all", "many", "few"]
