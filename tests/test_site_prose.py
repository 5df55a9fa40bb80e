"""The built site read as a reader reads it: prose that points at something must find it.

The site `make site` publishes (the real CIBuzzBench CSV, the committed runs and the shipped specs)
is built once (conftest.shipped_site) and every HTML page but the imported runs' own is checked
for sentences the data can contradict or leave dangling:

* a link (href or src) to a file or an anchor that does not exist;
* prose that names a column in quotes (the "Largest gap on" column) that no table on the
  same page has;
* prose that names "the <name> page" when the site has no such page;
* a figure glued to its "reported by" marker ("3,001reported by the paper").

And what a reader needs to cite and verify it: the footer (data at its pinned commit, a BibTeX
block), the front page's schema.org Dataset, "What's new" (every run once, by its own date) and
the Mouse page's quoted figures marked as reported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml


REPO = Path(__file__).resolve().parents[1]
SKIPPED = {"script", "style", "svg", "pre", "code"}
BLOCKS = {"p", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "div", "br", "caption", "figcaption",
          "summary", "dt", "dd", "table", "section", "article", "main", "header", "footer", "nav"}
QUOTE = "[\"“”']"
COLUMN_REF = re.compile(rf"{QUOTE}([^\"“”'\n]{{1,60}}){QUOTE} column|column {QUOTE}([^\"“”'\n]{{1,60}}){QUOTE}")
PAGE_REF = re.compile(r"\bthe ([A-Za-z][\w-]*) page\b")
GLUED = re.compile(r"[0-9%]reported by")


@dataclass
class PageText(HTMLParser):
    """What a reader sees of one page: its text, its table headers, its ids and its links."""

    text: list[str] = field(default_factory=list)
    headers: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    _skip: int = 0
    _th: list[str] | None = None

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"] or "")
        for name in ("href", "src"):
            if attributes.get(name) is not None and tag != "base":
                self.links.append(attributes[name] or "")
        if tag in SKIPPED:
            self._skip += 1
        if tag in BLOCKS:
            self.text.append("\n")
        if tag == "th":
            self._th = []

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED:
            self._skip = max(0, self._skip - 1)
        if tag == "th" and self._th is not None:
            self.headers.add(" ".join("".join(self._th).split()))
            self._th = None

    def handle_data(self, data: str) -> None:
        if self._th is not None:
            self._th.append(data)
        if not self._skip:
            self.text.append(data)

    def prose(self) -> str:
        return re.sub(r"[ \t]*\n\s*", "\n", "".join(self.text))


def read_page(path: Path) -> PageText:
    page = PageText()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(shipped_site: Path) -> Path:
    """The site `make site` publishes, built once a session (conftest.shipped_site)."""
    return shipped_site


def imported_run_ids() -> set[str]:
    """The runs imported from published answers, by the site's own rule (run_catalogue.provenance_of)."""
    from builder.runs.files import run_files
    from builder.site.run_catalogue import provenance_of
    from tests.shared_builds import raw_header
    return {h["run_id"] for path in run_files(REPO / "runs") if provenance_of((h := raw_header(path)).get("source"))}


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, PageText]:
    """Every page but the imported runs' own (runs/<id>.html and its item parts): one template
    filled per run (test_every_run_citizen reads them), 52 MB of item tables that would take
    longer to parse than the rest of the site. Links into them are still followed."""
    imported = imported_run_ids()
    def of_imported_run(name: str) -> bool:
        stem = name.removeprefix("runs/").removesuffix(".html")
        return name.startswith("runs/") and (stem in imported or stem.split("-items-")[0] in imported)
    return {name: read_page(p) for p in sorted(site.rglob("*.html"))
            if not of_imported_run(name := p.relative_to(site).as_posix())}


def page_names(site: Path) -> set[str]:
    """The words a sentence may use for a top-level page: its file name or a word of its nav label."""
    nav = yaml.safe_load((REPO / "content" / "site.yaml").read_text(encoding="utf-8"))["nav"]
    return {p.stem.lower() for p in site.glob("*.html")} | {
        word.lower() for item in nav for word in re.findall(r"[A-Za-z]+", item["label"])}


def test_every_link_resolves(site: Path, pages: dict[str, PageText]) -> None:
    broken = []
    for name, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("data:"):
                continue
            target = (site / name).parent / unquote(parts.path) if parts.path else site / name
            target = target.resolve()
            if not target.is_file():
                broken.append(f"{name}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                linked = target.relative_to(site.resolve()).as_posix()
                ids = pages[linked].ids if linked in pages else read_page(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{name}: {link} (no element with that id)")
    assert not broken, "\n".join(broken[:30])


def test_prose_names_only_columns_that_the_page_shows(pages: dict[str, PageText]) -> None:
    dangling = []
    for name, page in pages.items():
        for match in COLUMN_REF.finditer(page.prose()):
            column = " ".join((match.group(1) or match.group(2)).split())
            if column not in page.headers:
                dangling.append(f"{name}: names the column {column!r}; its tables have {sorted(page.headers)[:12]}")
    assert not dangling, "\n".join(dangling)


def test_prose_names_only_pages_that_exist(site: Path, pages: dict[str, PageText]) -> None:
    names = page_names(site)
    dangling = [f"{name}: 'the {m.group(1)} page'" for name, page in pages.items()
                for m in PAGE_REF.finditer(page.prose()) if m.group(1).lower() not in names]
    assert not dangling, "\n".join(sorted(set(dangling)))


def test_no_figure_is_glued_to_its_reported_marker(pages: dict[str, PageText]) -> None:
    glued = [f"{name}: …{page.prose()[max(0, m.start() - 30):m.end() + 10]!r}…"
             for name, page in pages.items() for m in GLUED.finditer(page.prose())]
    assert not glued, "\n".join(glued[:20])


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    """Each check fails on a page that has the fault (so the tests above can fail)."""
    page = tmp_path / "x.html"
    page.write_text('<p>See the "Largest gap on" column and 3,001<sup>reported by</sup> the paper.</p>'
                    '<table><tr><th>Gap</th></tr></table><a href="nowhere.html">x</a>', encoding="utf-8")
    text = read_page(page)
    assert [m.group(1) for m in COLUMN_REF.finditer(text.prose())] == ["Largest gap on"]
    assert text.headers == {"Gap"} and GLUED.search(text.prose())
    assert text.links == ["nowhere.html"]


def test_every_page_can_be_cited_and_names_its_data_at_the_pinned_commit(site: Path) -> None:
    from builder.benchmarks.cibuzzbench.dataset.fetch import PINNED_COMMIT, UPSTREAM_REPO
    pinned = f'href="https://github.com/{UPSTREAM_REPO}/tree/{PINNED_COMMIT}" rel="external"'
    for path in [site / "index.html", site / "faq.html", *sorted((site / "runs").glob("*.html"))[:3]]:
        html = path.read_text(encoding="utf-8")
        footer = html[html.index('<footer class="site">'):]
        assert pinned in footer, path.name
        assert "Cite this report" in footer and "@misc{buzzprobe," in footer, path.name
        assert 'href="' + ("../" if path.parent.name == "runs" else "") + 'changelog.html"' in footer, path.name
    assert (REPO / "CITATION.cff").is_file()


def test_front_page_describes_the_report_as_a_schema_org_dataset(site: Path) -> None:
    html = (site / "index.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    data = [json.loads(b) for b in blocks]
    dataset = next(d for d in data if d.get("@type") == "Dataset")
    assert dataset["@context"] == "https://schema.org"
    from builder.benchmarks.cibuzzbench.dataset.fetch import PINNED_COMMIT
    assert any(PINNED_COMMIT in source.get("url", "") for source in dataset["isBasedOn"])
    facts = [d["contentUrl"] for d in dataset["distribution"]]
    assert "facts.json" in facts and all((site / url).is_file() for url in facts)


def test_whats_new_lists_every_run_once_by_its_own_date(site: Path, pages: dict[str, PageText]) -> None:
    """By its header's date: an imported run's source date (the file's commit), else its creation."""
    from builder.runs.files import run_files
    from tests.shared_builds import raw_header

    def day(header: dict) -> str:  # the header as written (shared_builds.raw_header: reading every run whole took 14 s)
        source = header.get("source") if isinstance(header.get("source"), dict) else {}
        return str(source.get("date") or header["created"][:10]) if source.get("kind") == "import" else header["created"][:10]
    created = {h["run_id"]: day(h) for p in run_files(REPO / "runs") if (h := raw_header(p))}
    html = (site / "changelog.html").read_text(encoding="utf-8")
    sections = re.split(r'<h2 id="added-', html)[1:]
    listed = {}
    for section in sections:
        day = section[:10]
        for rid in re.findall(r'<a href="runs/([^"]+)\.html">', section):
            assert rid not in listed, rid
            listed[rid] = day
    assert listed == created
    days = [s[:10] for s in sections]
    assert days == sorted(days, reverse=True)


def test_mouse_figures_quoted_from_the_paper_look_reported(site: Path) -> None:
    html = (site / "mouse.html").read_text(encoding="utf-8")
    quoted = re.findall(r'<a class="fact" href="provenance.html#f-(mouse\.reported\.text\.[a-z_]+)"', html)
    assert quoted
    for key in quoted:
        at = html.index(f'href="provenance.html#f-{key}"')
        assert html.rfind('<span class="reported"', 0, at) > html.rfind("</span>", 0, at), key
    assert 'id="source-mouse"' in html
