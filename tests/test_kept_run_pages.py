"""A run's catalogue pages are kept between builds and reused only while everything they read
is unchanged: each build's bytes equal a fresh rendering's, whatever was kept.

The pages are rendered by the site's real templates from a real prepared stage; the run cache
is stood in for by a dict (RunRow.memo's contract: name, compute -> value)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

import builder.site.catalogue_pages as catalogue
from builder.core.facts import FactTable
from builder.site.configuration import load_site_content
from builder.site.incremental import reusable_context
from builder.site.parts import PageSettings
from builder.site.prepare import SiteInputs, prepare_site
from builder.site.run_catalogue import RunRow
from builder.site.tables import Cell, Table
from tests.shared_builds import CONTENT

FACT = "mcq.demo.runs.r1.accuracy"


def settings(computation: str = "correct items over answered items", day: int = 1) -> PageSettings:
    facts = FactTable()
    facts.add(FACT, 0.5, computation, ("r1",))
    facts.add("mcq.demo.runs.r2.accuracy", 0.25, "another run's accuracy", ("r2",))
    inputs = SiteInputs(facts=facts, parts={}, content=load_site_content(CONTENT, ""), verdicts=[],
                        build_date=dt.date(2026, 1, day))
    return prepare_site(inputs).page_settings


def row(memo: Callable[[str, Callable[[], Any]], Any] | None, accuracy: float = 0.5) -> RunRow:
    table = Table("run-r1-scores", "Scores", ("Measure", "Value"),
                  ((Cell("accuracy"), Cell(key=FACT, value=accuracy, kind="pct")),))
    items = tuple((f"q{i}", "A", "AB"[i % 2], i % 2 == 0, 0.25) for i in range(40))
    return RunRow(run_id="r1", benchmark="demo", benchmark_title="Demo", subject="model-x", condition="blind",
                  option_seed=None, answered=40, total=40, complete=True, created="2026-01-01T00:00:00Z",
                  tables=(table,), items_of=lambda: items, memo=memo)


class Memo(dict):
    """A run cache of one run: what RunRow.derived asks it for, kept by name."""

    def __call__(self, name: str, compute: Callable[[], Any]) -> Any:
        if name not in self:
            self[name] = compute()
        return self[name]


@pytest.fixture()
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The run ids whose pages were rendered afresh."""
    done: list[str] = []
    real = catalogue.run_page_files

    def counted(settings: PageSettings, row: RunRow, made: Any = None) -> Any:
        done.append(row.run_id)
        return real(settings, row, made)
    monkeypatch.setattr(catalogue, "run_page_files", counted)
    return done


def test_a_kept_page_is_reused_and_equals_a_fresh_rendering(renders: list[str]) -> None:
    memo, page = Memo(), settings()
    first = catalogue.catalogue_pages(page, [row(memo)])
    assert "runs/r1.html" in first and b"@@buzzprobe" not in first["runs/r1.html"]
    again = catalogue.catalogue_pages(page, [row(memo)])
    assert renders == ["r1"], "the second build reads the kept page"
    assert again == first == catalogue.catalogue_pages(page, [row(None)])


def test_the_footer_values_are_filled_in_on_every_build(renders: list[str]) -> None:
    memo = Memo()
    catalogue.catalogue_pages(settings(day=1), [row(memo)])
    later = catalogue.catalogue_pages(settings(day=2), [row(memo)])
    assert renders == ["r1"], "only the build date changed: the page is kept"
    assert later == catalogue.catalogue_pages(settings(day=2), [row(None)])
    assert b"2026-01-02" in later["runs/r1.html"] and b"2026-01-01T" in later["runs/r1.html"]


@pytest.mark.parametrize("change", ["a table's value", "a fact's computation"])
def test_a_page_is_rendered_afresh_when_what_it_reads_changes(renders: list[str], change: str) -> None:
    memo = Memo()
    catalogue.catalogue_pages(settings(), [row(memo)])
    if change == "a table's value":
        page, changed = settings(), row(memo, accuracy=0.75)
    else:
        page, changed = settings(computation="correct items over all items"), row(memo)
    out = catalogue.catalogue_pages(page, [changed])
    assert renders == ["r1", "r1"]
    assert out == catalogue.catalogue_pages(page, [dataclasses.replace(changed, memo=None)])


def test_a_kept_page_may_read_only_the_facts_its_key_covers() -> None:
    provenance = settings().common["provenance"]
    guarded = reusable_context({"provenance": provenance}, frozenset({FACT}))["provenance"]
    assert guarded[FACT].computation == provenance[FACT].computation
    with pytest.raises(KeyError, match="not its run's"):
        guarded["mcq.demo.runs.r2.accuracy"]
    by_prefix = reusable_context({"provenance": provenance}, "mcq.demo.runs.r1.")["provenance"]  # CIBuzzBench's pages
    assert by_prefix[FACT].computation == provenance[FACT].computation
    with pytest.raises(KeyError, match="not its run's"):
        by_prefix["mcq.demo.runs.r2.accuracy"]


def test_a_page_showing_a_fact_its_key_does_not_cover_fails_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a template to show a fact beyond the row's tables, the kept page would go stale when
    that fact changed: rendering it to be kept fails instead (here: a key covering no fact)."""
    from jinja2 import UndefinedError
    monkeypatch.setattr(catalogue, "_fact_keys", lambda row: frozenset())
    with pytest.raises(UndefinedError, match="_OwnFactsOnly"):
        catalogue.catalogue_pages(settings(), [row(Memo())])
