"""Every run of every benchmark, as the site lists it: what a plug-in supplies per run
(`Benchmark.run_rows`, builder/benchmarks/base.py) for runs.html, the cross-benchmark models
page, each run's own page and its per-item downloads. The shared layer names no benchmark: a
plug-in that writes its own run pages says so (`page`), and the site writes a page for every
other run from its row (catalogue_pages.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from builder.site.model_names import is_human_group

T = TypeVar("T")

# One answered item as the downloads and the item browser show it: (item id, gold letter(s),
# answer ("" when none was read), correct, leak score (0-1) or None where the benchmark has none).
ItemRow = tuple[str, str, str, bool, "float | None"]


@dataclass(frozen=True)
class Measure:
    """A figure with its 95% interval, as the keys of three facts (the values and their
    provenance are the fact table's; nothing here computes an interval)."""

    key: str
    low: str
    high: str


@dataclass(frozen=True)
class Provenance:
    """Where an imported run's answers come from, as its header records it."""

    repo: str = ""
    commit: str = ""
    file: str = ""
    member: str = ""
    sha256: str = ""
    date: str = ""  # the source file's commit date (YYYY-MM-DD), when the import recorded it
    format: str = ""

    @property
    def tree(self) -> str:
        """The upstream repository at the commit (a GitHub tree link), or the repository."""
        if self.repo.startswith("https://github.com/") and self.commit:
            return f"{self.repo.rstrip('/')}/tree/{self.commit}"
        return self.repo


@dataclass(frozen=True)
class RunRow:
    """One run as every shared page shows it."""

    run_id: str
    benchmark: str  # the run header's benchmark name
    benchmark_title: str
    subject: str  # the subject's label
    condition: str
    option_seed: int | None
    answered: int  # items the run answered
    total: int  # items of the benchmark (or of the run's selection) it could have answered
    complete: bool  # the run has its footer
    created: str  # ISO 8601, from the header
    kind: str = "model"  # "model", or "probe" for a model-free probe
    benchmark_href: str = ""  # the benchmark's page
    page: str = ""  # the site path of a page the plug-in writes itself; "": the site writes runs/<id>.html
    task: str = ""
    accuracy: Measure | None = None
    gap: Measure | None = None  # the leak split's headline gap (solvable minus the rest), points
    gap_label: str = ""  # which gap: "adjusted" (within strata) or "crude"
    tie_group: str | None = None  # fact key of the run's paired tie group on its benchmark
    tie_note: str = ""  # shown instead where the plug-in does not rank the run, and why ("not ranked (partial: …)")
    source: Provenance | None = None  # imported runs
    item_text: str = ""  # where the items' text is published (the site never shows it)
    header_json: str = ""  # the full header, as the page's details show it
    tables: tuple[Any, ...] = ()  # the run page's tables (site.tables.Table): scores, the leak split
    has_items: bool = True  # False: the benchmark's answers are not one letter per item (no item table)
    # The run's answers, computed when first needed (a cached run's pages and downloads need none).
    items_of: Callable[[], tuple[ItemRow, ...]] = field(default=lambda: (), repr=False, compare=False)
    # The plug-in's per-run cache (name, compute) -> value, e.g. RunCache.derived with a name that says
    # what else the items depend on; None: computed on every build.
    memo: Callable[[str, Callable[[], Any]], Any] | None = field(default=None, repr=False, compare=False)

    def derived(self, name: str, compute: Callable[[], T]) -> T:
        """A value of this run's items alone, through the plug-in's cache when it gave one."""
        return compute() if self.memo is None else self.memo(name, compute)

    @property
    def href(self) -> str:
        return self.page or f"runs/{self.run_id}.html"

    @property
    def subject_kind(self) -> str:
        """What the subject is, as the page says it: "people" for a human group (model_names)."""
        return "people" if is_human_group(self.subject) else self.kind

    @property
    def coverage(self) -> str:
        return coverage_label(self.answered, self.total, self.complete or self.source is not None)

    @property
    def source_date(self) -> str:
        """The day What's new lists the run under: its source's commit date, else its creation."""
        return self.source.date if self.source is not None and self.source.date else self.created[:10]


def coverage_label(answered: int, total: int, finished: bool) -> str:
    """"complete", "partial (N of M items)" for a finished run of part of the items, or "in
    progress (N of M items)" for one that is not finished. An imported run is finished whatever
    it covers (its file holds what it holds; people who answered a subset are not a run in
    progress), though it has no footer when it lacks items."""
    of = f"{answered:,} of {total:,} items"
    if not finished:
        return f"in progress ({of})"
    return "complete" if answered >= total else f"partial ({of})"


def provenance_of(source: Any) -> Provenance | None:
    """An imported run's `source` header block as a Provenance (None when not an import)."""
    if not isinstance(source, dict) or source.get("kind") != "import":
        return None
    return Provenance(*(str(source.get(name) or "") for name in
                        ("repo", "commit", "file", "member", "sha256", "date", "format")))
