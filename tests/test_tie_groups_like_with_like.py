"""Tie groups compare like with like (analyses/rankings.py): only model runs that answered at least
99% of the benchmark's items are ranked, on the items every one of them answered; a partial run
and people are set aside, and pages say why instead of showing a blank."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from builder.benchmarks.mcq import fact_keys as K
from builder.benchmarks.mcq.analyses.rankings import tie_groups, unranked_note
from builder.benchmarks.mcq.analyses.run_summary import RunSummary
from builder.core.facts import FactTable
from builder.stats.paired import mcnemar_exact

REPO = Path(__file__).resolve().parents[1]
N = 400


def _bench(runs: dict[str, tuple[list[int], list[bool]]], people: tuple[str, ...] = ()) -> FactTable:
    """Imported runs (row ids answered, right per item) through tie_groups; their facts."""
    listed: list[Any] = []
    summaries, facts = {}, FactTable()
    for rid, (rows, right) in runs.items():
        header = SimpleNamespace(run_id=rid, source={"kind": "import"},
                                 subject_label="humans" if rid in people else rid)
        listed.append(SimpleNamespace(header=header, items=tuple(rows)))
        summaries[rid] = RunSummary(FactTable(), np.array(rows, dtype=np.int64), np.array(right, dtype=bool), False)
        facts.add(K.RUN_SCORE.key(bench="b", run_id=rid, metric="accuracy"), 100.0 * sum(right) / len(right), "test")
    tie_groups(listed, summaries, facts, "b", N)
    return facts


def _group(facts: FactTable, rid: str) -> Any:
    key = K.RUN_TIE_GROUP.key(bench="b", run_id=rid)
    return facts[key] if key in facts else None


def test_a_partial_run_is_not_ranked_with_the_full_runs() -> None:
    """`part` answered 40 easy items, all right: by accuracy on its own items it would top group 1."""
    facts = _bench({"a": (list(range(N)), [True] * (N - 2) + [False] * 2),
                    "b": (list(range(N)), [True] * (N - 4) + [False] * 4),
                    "c": (list(range(N)), [True] * 200 + [False] * 200),
                    "part": (list(range(40)), [True] * 40)})
    assert {rid: _group(facts, rid) for rid in ("a", "b", "c", "part")} == {"a": 1, "b": 1, "c": 2, "part": None}
    assert K.RUN_TIE_P.key(bench="b", run_id="part") not in facts
    assert K.RUN_TIE_P.key(bench="b", run_id="a") not in facts  # a is first again, not below `part`


def test_people_are_never_ranked_among_models_even_with_full_coverage() -> None:
    facts = _bench({"a": (list(range(N)), [True] * N), "humans": (list(range(N)), [True] * N),
                    "c": (list(range(N)), [True] * 300 + [False] * 100)}, people=("humans",))
    assert (_group(facts, "a"), _group(facts, "humans"), _group(facts, "c")) == (1, None, 2)


def test_nearly_full_runs_are_ranked_on_the_items_all_of_them_answered() -> None:
    """`near` misses 4 of 400 items (99%): ranked; both are compared on the 396 shared items, so
    the 4 items only `full` answered (which it got wrong) neither lower its score nor enter McNemar."""
    full_right = [True] * 390 + [False] * 6 + [False] * 4
    near_right = [True] * 392 + [False] * 4
    facts = _bench({"full": (list(range(N)), full_right), "near": (list(range(N - 4)), near_right)})
    assert _group(facts, "near") == 1 and _group(facts, "full") == 1
    # On the shared items: near 392 right, full 390; near first, full below it with 0 fixes, 2 breaks.
    assert facts[K.RUN_TIE_P.key(bench="b", run_id="full")] == mcnemar_exact(0, 2)
    said = facts.provenance_json()[K.RUN_TIE_GROUP.key(bench="b", run_id="full")]
    assert "396 items every ranked run answered" in str(said)


def test_the_note_says_why_a_run_is_not_ranked() -> None:
    assert unranked_note(166, 2150, people=True) == "not ranked (people, not ranked among models; partial: 166 of " \
                                                   "2,150 items)"
    assert unranked_note(10341, 12022, people=False) == "not ranked (partial: 10,341 of 12,022 items; not ranked " \
                                                        "with the full runs)"


def test_the_shipped_chembench_humans_run_has_no_tie_group() -> None:
    """On the committed ChemBench runs: people (166 of 2,150 items) get no tie group; the models do,
    and every model's tie-group cell on the run page is a group number."""
    if not os.environ.get("BUZZPROBE_DATA_CHEMBENCH"):
        pytest.skip("BUZZPROBE_DATA_CHEMBENCH not set (the ChemBench data; .ci/run shows how to name it)")
    from builder.benchmarks.mcq.analyses.compute import compute_spec
    from builder.benchmarks.mcq.loading import load_spec_runs
    from builder.benchmarks.mcq.views.tie_note import tie_note
    from builder.runs.cache import RunCache
    from builder.runs.load import read_store
    cache = RunCache(REPO / ".cache")
    store = read_store(REPO / "runs" / "chembench", cache)
    loaded = load_spec_runs(REPO / "content" / "benchmarks" / "chembench.yaml", REPO / ".cache", store.runs, cache)
    facts = FactTable()
    computed = compute_spec(loaded, facts)
    people = [r for r in loaded.runs if r.header.subject_label == "humans"]
    assert people and len(loaded.runs) > len(people)
    for run in loaded.runs:
        key = K.RUN_TIE_GROUP.key(bench="chembench", run_id=run.header.run_id)
        assert (key in facts) == (run not in people), run.header.run_id
    assert tie_note(computed, people[0], facts) == (f"not ranked (people, not ranked among models; partial: "
                                                    f"{len(people[0].items):,} of {len(loaded.data.items):,} items)")


def test_the_leak_split_ranks_only_the_full_runs_and_counts_every_split_run() -> None:
    """A partial split run keeps its gap (counted among the models) but gets no rank, no tie group
    and no part in Kendall's tau; before the rule it was ranked on its own 40 items."""
    from builder.benchmarks.mcq.analyses.leak_split import add_split_summary
    runs = {"a": (list(range(N)), [True] * 300 + [False] * 100), "b": (list(range(N)), [True] * 200 + [False] * 200),
            "c": (list(range(N)), [True] * 100 + [False] * 300), "part": (list(range(40)), [True] * 40)}
    summaries, facts = {}, FactTable()
    for rid, (rows, right) in runs.items():
        summaries[rid] = RunSummary(FactTable(), np.array(rows, dtype=np.int64), np.array(right, dtype=bool), True)
        on = {"bench": "b", "run_id": rid}
        facts.add(K.RUN_SCORE.key(metric="accuracy", **on), 100.0 * sum(right) / len(right), "test")
        facts.add(K.LEAK_SPLIT.key(value="accuracy_rest", **on), 50.0, "test")
        for key, value in ((K.LEAK_GAP.key(**on), 1.0), (K.LEAK_GAP.low(**on), 0.5), (K.LEAK_GAP.high(**on), 2.0)):
            facts.add(key, value, "test")
    split = add_split_summary(list(runs), summaries, np.arange(0, N, 2), facts, "b", N)
    assert split is not None and split.run_ids == ("a", "b", "c", "part")
    assert facts[K.LEAK_MODELS.key(bench="b")] == 4
    rank = {rid: facts[k] for rid in runs if (k := K.LEAK_RANK.key(bench="b", run_id=rid, scope="all", value="rank"))
            in facts}
    assert rank == {"a": 1, "b": 2, "c": 3}
