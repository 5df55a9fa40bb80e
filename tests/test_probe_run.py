"""End-to-end probe runs against the loopback server: the files written must pass the strict
reader and the validator, record what was asked, and resume and re-ask errors correctly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.core.errors import InputError
from builder.probing.client import RetryPolicy
from builder.benchmarks.cibuzzbench.prompts import load_protocols
from builder.probing.protocols import find_protocol
from builder.probing.runner import (
    ProbeSettings,
    RunOutcome,
    RunPlan,
    drop_errored_items,
    execute,
    is_complete,
)
from builder.benchmarks.cibuzzbench.probes.plan import plan_run
from builder.runs.selection import make_selection
from builder.runs.reader import read_run
from builder.benchmarks.cibuzzbench.run_checks import validate_run
from tests.loopback_server import LoopbackServer, Request, gold_responder, reply, status

PROTOCOLS = load_protocols()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as s:
        yield s


def make_plan(dataset: Dataset, server: LoopbackServer, tmp_path: Path, *, task: str = "equivalent_selection",
              condition: str = "sighted", lang: str = "en", seed: int | None = 1111, split: str | None = "test",
              sample: int | None = 40, temperature: float = 0.0, retries: int = 2) -> RunPlan:
    settings = ProbeSettings(
        model="loopback/Test-Model-1", base_url=server.url, temperature=temperature, top_p=None, max_tokens=8,
        selection=make_selection(split, sample, 3), concurrency=4, timeout=1.0,
        policy=RetryPolicy(retries=retries, backoff=0.01, max_backoff=0.02), progress=False)
    protocol = find_protocol(PROTOCOLS, task, condition, lang)
    return plan_run(dataset, protocol, settings, seed, str(tmp_path / "{model_slug}" / "{run_id}.jsonl"))


def run(plan: RunPlan, key: str | None = "sk-test") -> RunOutcome:
    return asyncio.run(execute(plan, key))


def read_valid(path: Path, dataset: Dataset):
    parsed = read_run(path)
    validate_run(parsed, dataset)
    return parsed


def test_task2_sighted_run_is_valid_and_right(synthetic_dataset: Dataset, server: LoopbackServer,
                                              tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path)
    outcome = run(plan)
    run_id = "loopback-test-model-1-t2-sighted-en-s1111-test-n40-r3"
    assert plan.path == tmp_path / "loopback-test-model-1" / f"{run_id}.jsonl"
    assert (outcome.asked, outcome.errors, outcome.complete) == (40, 0, True)
    parsed = read_valid(plan.path, synthetic_dataset)
    sets = option_sets(synthetic_dataset, 1111)
    assert parsed.row_ids == sorted(parsed.row_ids) == plan.row_ids
    assert all(i.prediction == sets[i.row_id].gold_letter == i.response for i in parsed.items)
    assert all(i.latency_ms is not None and i.usage and i.error is None for i in parsed.items)
    assert parsed.footer is not None and parsed.footer.items == 40
    assert parsed.footer.usage_totals["completion_tokens"] == 40
    assert parsed.footer.usage_totals["prompt_tokens"] == sum(i.usage["prompt_tokens"] for i in parsed.items)
    header = parsed.header
    assert header.items == {"selection": "sample", "n": 40, "sample_seed": 3, "split": "test"}
    protocol = find_protocol(PROTOCOLS, "equivalent_selection", "sighted", "en")
    assert header.subject == {"kind": "model", "name": "loopback/Test-Model-1", "parameters": {
        "temperature": 0.0, "top_p": None, "max_tokens": 8, "lang": "en", "protocol": "t2-sighted-en",
        "protocol_version": 1, "prompt_sha256": protocol.sha256, "endpoint_host": "127.0.0.1"}}
    sent = sorted(server.requests, key=lambda r: r.user_text)
    assert {r.body["model"] for r in sent} == {"loopback/Test-Model-1"}
    assert all(r.body["temperature"] == 0.0 and r.body["max_tokens"] == 8 and "top_p" not in r.body for r in sent)


def test_task3_run_records_labels(synthetic_dataset: Dataset, server: LoopbackServer, tmp_path: Path) -> None:
    labels = synthetic_dataset.column("harmful_label")
    terms = synthetic_dataset.column("term_zh")
    server.set_responder(gold_responder(frozenset(terms[i] for i, label in labels.items() if label == "harmful")))
    plan = make_plan(synthetic_dataset, server, tmp_path, task="harmfulness_detection", seed=None,
                     split=None, sample=None)
    plan = RunPlan(plan.header, plan.path, plan.row_ids[:120], plan.build, plan.settings)  # keep it quick
    outcome = run(plan)
    assert outcome.complete
    parsed = read_run(plan.path)
    assert parsed.header.option_seed is None and parsed.header.task == "harmfulness_detection"
    assert all(i.prediction == labels[i.row_id] and i.letter_map is None for i in parsed.items)


def test_blind_requests_never_carry_the_term(synthetic_dataset: Dataset, server: LoopbackServer,
                                             tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, condition="blind")
    assert run(plan).complete
    read_valid(plan.path, synthetic_dataset)
    assert len(server.requests) == 40
    for request in server.requests:
        assert "合成词" not in request.all_text
        assert request.user_text.startswith("Options:\nA. ")


def test_unparsable_answers_are_kept_raw_and_count_as_unparsed(synthetic_dataset: Dataset,
                                                               server: LoopbackServer, tmp_path: Path) -> None:
    server.set_responder(lambda request: reply("Honestly, I'd rather not say."))
    plan = make_plan(synthetic_dataset, server, tmp_path, sample=10)
    run(plan)
    parsed = read_valid(plan.path, synthetic_dataset)
    # "I'd" holds a standalone D under the official rule; that quirk is kept, and the raw text with it.
    assert {(i.response, i.prediction) for i in parsed.items} == {("Honestly, I'd rather not say.", "D")}
    server.set_responder(lambda request: reply("no idea"))
    plan2 = make_plan(synthetic_dataset, server, tmp_path, sample=10, seed=2222)
    run(plan2)
    assert {i.prediction for i in read_valid(plan2.path, synthetic_dataset).items} == {""}


def failing_for(terms: set[str]):
    inner = gold_responder()

    def respond(request: Request):
        if any(term in request.user_text for term in terms):
            return status(500, body="upstream exploded")
        return inner(request)
    return respond


def test_failed_items_are_recorded_then_retried_with_retry_errors(synthetic_dataset: Dataset,
                                                                  server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, sample=30)
    terms = synthetic_dataset.column("term_zh")
    bad = {terms[plan.row_ids[i]] for i in (0, 7, 29)}
    server.set_responder(failing_for(bad))
    outcome = run(plan)
    assert (outcome.errors, outcome.complete) == (3, True)
    parsed = read_valid(plan.path, synthetic_dataset)
    errored = [i for i in parsed.items if i.error]
    assert len(errored) == 3 and all(i.prediction == "" and i.response is None for i in errored)
    assert "HTTP 500" in errored[0].error and "gave up after 3 attempts" in errored[0].error
    assert len(server.requests) == 27 + 3 * 3

    server.set_responder(gold_responder())
    before = len(server.requests)
    assert drop_errored_items(plan) == (3, {})
    assert len(read_run(plan.path).items) == 27 and read_run(plan.path).footer is None
    outcome = run(plan)
    assert (outcome.asked, outcome.errors, outcome.complete) == (3, 0, True)
    assert len(server.requests) - before == 3  # only the errored items were asked again
    parsed = read_valid(plan.path, synthetic_dataset)
    assert parsed.row_ids == plan.row_ids and not any(i.error for i in parsed.items)


def test_rerunning_a_complete_run_asks_nothing(synthetic_dataset: Dataset, server: LoopbackServer,
                                               tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, sample=12)
    run(plan)
    text = plan.path.read_text(encoding="utf-8")
    again = make_plan(synthetic_dataset, server, tmp_path, sample=12)
    assert is_complete(again)
    outcome = run(again)  # even if asked to, it writes nothing new
    assert outcome.asked == 0 and len(server.requests) == 12
    lines = plan.path.read_text(encoding="utf-8").splitlines()
    assert lines[1:-1] == text.splitlines()[1:-1]


def test_resume_continues_a_partial_file(synthetic_dataset: Dataset, server: LoopbackServer,
                                         tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, sample=20)
    run(plan)
    lines = plan.path.read_text(encoding="utf-8").splitlines(keepends=True)
    # As if killed: 8 items written, the 9th torn mid-line, no footer.
    plan.path.write_text("".join(lines[:9]) + lines[9][:25], encoding="utf-8")
    before = len(server.requests)
    outcome = run(make_plan(synthetic_dataset, server, tmp_path, sample=20))
    assert (outcome.asked, outcome.complete) == (12, True)
    assert len(server.requests) - before == 12
    assert read_valid(plan.path, synthetic_dataset).row_ids == plan.row_ids


def test_a_changed_setting_refuses_to_resume_into_the_same_file(synthetic_dataset: Dataset,
                                                                server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, sample=5)
    run(plan)
    plan.path.write_text("\n".join(plan.path.read_text().splitlines()[:3]) + "\n")
    other = make_plan(synthetic_dataset, server, tmp_path, sample=5, temperature=0.4)
    other = RunPlan(other.header, plan.path, other.row_ids, other.build, other.settings)
    with pytest.raises(InputError, match="cannot resume: existing run has subject"):
        run(other)


def test_items_stay_json_lines_with_official_letter_maps(synthetic_dataset: Dataset, server: LoopbackServer,
                                                         tmp_path: Path) -> None:
    plan = make_plan(synthetic_dataset, server, tmp_path, seed=4444, sample=8)
    run(plan)
    records = [json.loads(line) for line in plan.path.read_text(encoding="utf-8").splitlines()]
    assert [r["type"] for r in records] == ["header"] + ["item"] * 8 + ["footer"]
    sets = option_sets(synthetic_dataset, 4444)
    assert all(r["letter_map"] == sets[r["row_id"]].letter_map for r in records[1:-1])
