"""Long tables are split over pages and long run lists on the provenance page are summarised,
so a 1,000-run corpus keeps every page small; the limits are lowered here so the small
synthetic corpus crosses them (at the real limits it renders as the golden site)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from builder.site import paging, provenance
from tests.test_build import small_build

SPLIT_ABOVE, PART_SIZE = 4_000, 2_500


@pytest.fixture()
def paged_site(small_inputs, tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(paging, "SPLIT_ABOVE", SPLIT_ABOVE)
    monkeypatch.setattr(paging, "PART_SIZE", PART_SIZE)
    monkeypatch.setattr(provenance, "PROVENANCE_RUNS_LISTED", 1)
    out = tmp_path / "site"
    small_build(small_inputs, out)
    return out


def _links(html: str) -> list[str]:
    """Every link but the footer's external citations (rel="external": the data's pinned source)."""
    return re.findall(r'href="([^"#]*)[^"]*"(?! rel="external")', html)


def _tbody(html: str) -> list[str]:
    return re.findall(r"<tbody>\n(.*?)</tbody>", html, re.S)


def test_long_tables_are_split_into_linked_parts_of_bounded_size(paged_site):
    parts = sorted(p.name for p in paged_site.glob("*-*-[0-9]*.html"))
    assert "runs-all-runs-2.html" in parts and any(p.startswith("categories-") for p in parts)
    for page in [paged_site / "runs.html", paged_site / "categories.html", *(paged_site / p for p in parts)]:
        html = page.read_text()
        assert 'class="pager"' in html, page.name
        for body in _tbody(html):
            rows = body.split("<tr>")[1:]
            # a short table whole; a part of a long one holds whole rows of about PART_SIZE
            # characters (it overshoots by at most its last row)
            assert len(body) <= max(SPLIT_ABOVE, PART_SIZE + max((len(r) for r in rows), default=0) + 4), page.name
        assert all(not link.startswith(("/", "http")) for link in _links(html)), page.name
    # a part page names its table and links back to part 1 on the page
    second = (paged_site / "runs-all-runs-2.html").read_text()
    # plain HTML, readable without JavaScript: only the site-wide enhancements (sorting, search) load
    enhancements = re.compile(r'<script src="assets/(?:table-sort|site-search)\.js" defer></script>')
    assert all("<script" not in enhancements.sub("", (paged_site / p).read_text()) for p in parts)
    assert 'href="runs.html#all-runs"' in second and "<h1>Runs: Every run of every benchmark, part 2</h1>" in second


def test_every_run_is_reachable_from_the_runs_index(paged_site):
    seen, todo, linked = set(), ["runs.html"], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for link in _links((paged_site / name).read_text()):
            if link.startswith("runs/"):
                linked.add(link)
            elif re.fullmatch(r"runs-all-runs-\d+\.html", link):
                todo.append(link)
    assert len(seen) > 2  # the index and at least two further parts
    assert linked == {f"runs/{p.name}" for p in (paged_site / "runs").glob("*.html")}


def test_long_run_lists_on_the_provenance_page_point_to_provenance_json(paged_site):
    html = "".join(p.read_text() for p in paged_site.glob("provenance*.html"))
    summarised = re.findall(r"(\d+) runs: listed under this key in <a href=\"provenance.json\">", html)
    assert summarised and all(int(n) > 1 for n in summarised)
    assert 'href="runs/' in html  # facts from one run still link it


def test_a_long_provenance_page_is_split_and_every_fact_link_finds_its_row(paged_site):
    parts = sorted(paged_site.glob("provenance-facts-*.html"))
    assert parts and all(len(p.read_text()) < len((paged_site / "provenance.html").read_text()) * 3 for p in parts)
    links = 0
    for page in paged_site.glob("*.html"):
        for target, anchor in re.findall(r'<a class="fact" href="(provenance[^"#]*\.html)#([^"]+)"', page.read_text()):
            links += 1
            assert f'<tr id="{anchor}">' in (paged_site / target).read_text(), (page.name, target, anchor)
    assert links and any(p.name in html for p in parts for html in [(paged_site / "article.html").read_text()])


def test_short_tables_are_not_split(small_site):
    out = small_site
    assert not list(out.glob("*-*-[0-9]*.html")) and 'class="pager"' not in (out / "runs.html").read_text()
