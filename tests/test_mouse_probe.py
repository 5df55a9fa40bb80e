"""Mouse probes end to end against the loopback server, on the SYNTHETIC Mouse fixtures
(tests/fixtures/mouse/, placeholders marked 【合成】; no real Mouse item exists here).

A scripted "oracle" answers right by looking the item up in the fixtures; other responders
answer garbage, fail, or echo the prompt. The runs are written by the shared probing engine
(builder.probing.runner) and must read back with the one strict reader (`read_run`), score
with `score_run`, record what was asked, and resume correctly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from builder.core.errors import InputError
from builder.benchmarks.mouse.dataset import MouseSet, load_icc, load_main, load_single_choice
from builder.benchmarks.mouse.labels import RC_COMPONENTS
from builder.benchmarks.mouse.parsing import strip_marker
from builder.benchmarks.mouse.probe import plan_judge, plan_probe
from builder.benchmarks.mouse.probe_protocols import (DEFAULT_MOUSE_PROTOCOLS, find_mouse_protocol, load_mouse_protocols)
from builder.benchmarks.mouse.run_format import MouseItem, unparsed
from builder.benchmarks.mouse.runs import score_run
from builder.probing.client import RetryPolicy
from builder.probing.runner import (ProbeSettings, RunOutcome, RunPlan, drop_errored_items, execute, is_complete,
                                    preview)
from builder.runs.selection import Selection
from builder.runs.reader import read_run
from builder.runs.writer import RunWriter
from tests.loopback_server import LoopbackServer, Request, Responder, reply, status

FIXTURES = Path(__file__).parent / "fixtures" / "mouse"
PROTOCOLS = load_mouse_protocols()
MAIN = load_main(FIXTURES / "main_eval.csv")
MS = load_single_choice(FIXTURES / "single_choice.csv")
CC = load_icc(FIXTURES / "icc.csv")
DATA = {"tr": MAIN, "rc": MAIN, "ir": MAIN, "td": MAIN, "ms": MS, "cc": CC}
RC_CUES = {"homophonic": "谐音成分", "semantic": "语义成分", "visual": "视觉成分"}


# ------------------------------------------------------------------ a right-answering model

def judge_parts(request: Request) -> tuple[str, str, str] | None:
    """(source, reference, translation) of a judge request, None for other requests."""
    system, user = request.body["messages"][0]["content"], request.body["messages"][-1]["content"]
    if "翻译评审员" not in system:
        return None
    source = user.split("源文本：", 1)[1].split("\n", 1)[0]
    reference = user.split("参考译文：", 1)[1].split("\n", 1)[0]
    return source, reference, user.split("模型译文：", 1)[1]


def answer_for(request: Request, main: MouseSet = MAIN, ms: MouseSet = MS, cc: MouseSet = CC) -> str:
    """The right answer to any Mouse request on the synthetic data ("?" if unknown)."""
    user = request.body["messages"][-1]["content"]
    parts = judge_parts(request)
    if parts is not None:
        return f"分析：与参考译文{'一致' if parts[2] == parts[1] else '不一致'}。\n分数：{2 if parts[2] == parts[1] else 0}"
    for inst in main:
        if f"抽象话：{inst.source}\n" in user:
            for component, cue in RC_CUES.items():
                if cue in user:
                    return str(inst.component(component))
            if "意图分类" in user:
                return str(inst.intention)
            if "毒性" in user:
                return str(inst.toxicity)
            return inst.reference  # TR
    for inst in ms:
        if f"A. {strip_marker(inst.options[0])}\n" in user:
            return inst.answer
    for inst in cc:
        if f"A. {inst.options[0][1]}\n" in user:
            return inst.answer
    return "?"


def oracle(request: Request) -> Callable:
    return reply(answer_for(request))


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(oracle) as s:
        yield s


def settings(server: LoopbackServer, **extra) -> ProbeSettings:
    values = dict(model="Loop/Mouse-1.5B", base_url=server.url, temperature=0.0, top_p=None, max_tokens=None,
                  selection=Selection("all"), concurrency=4, timeout=2.0,
                  policy=RetryPolicy(retries=2, backoff=0.01, max_backoff=0.02), progress=False)
    return ProbeSettings(**{**values, **extra})


def make_plan(task: str, server: LoopbackServer, tmp_path: Path, condition: str = "sighted", **extra) -> RunPlan:
    protocol = find_mouse_protocol(PROTOCOLS, task, condition)
    return plan_probe(task, DATA[task], protocol, settings(server, **extra),
                      out_template=str(tmp_path / "{model_slug}" / "{run_id}.jsonl"))


def run(plan: RunPlan, key: str | None = "sk-test", **extra) -> RunOutcome:
    return asyncio.run(execute(plan, key, **extra))


# ------------------------------------------------------------------ each task end to end

@pytest.mark.parametrize("task", ["rc", "ir", "td", "ms", "cc"])
def test_each_task_right_answers_score_perfectly(task: str, server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan(task, server, tmp_path)
    outcome = run(plan)
    data = DATA[task]
    assert (outcome.asked, outcome.errors, outcome.complete) == (len(data), 0, True)
    assert plan.path == tmp_path / "loop-mouse-1_5b" / f"mouse-loop-mouse-1_5b-{task}-sighted.jsonl"
    written = read_run(plan.path)
    assert unparsed(task, written.items) == 0
    assert [i.row_id for i in written.items] == list(range(len(data)))
    scores = score_run(written, data, boot=None)
    if task == "rc":
        assert scores.balanced_accuracy == 1.0 and all(c.unparsed == 0 for c in scores.components.values())
        assert len(server.requests) == 3 * len(data)  # three binary questions per item
    else:
        assert scores.accuracy == 1.0 and scores.mcc == 1.0 and scores.unparsed == 0
        assert len(server.requests) == len(data)
    protocol = find_mouse_protocol(PROTOCOLS, task, "sighted")
    h = written.header
    assert h.subject == {"kind": "model", "name": "Loop/Mouse-1.5B", "parameters": {
        "temperature": 0.0, "top_p": None, "max_tokens": 128, "condition": "sighted", "protocol": protocol.id,
        "protocol_version": 1, "prompt_sha256": protocol.sha256, "endpoint_host": "127.0.0.1"}}
    assert (h.schema, h.benchmark, h.condition, h.option_seed) == ("buzzprobe.run/1", "mouse", "sighted", None)
    assert h.dataset["content_sha256"] == data.content_sha256 and h.items == {"selection": "all", "n": len(data)}
    # usage: each item's requests summed on its line (RC: three), the footer's totals over the items
    assert all(i.usage and i.latency_ms >= 0 and i.error is None for i in written.items)
    parts = 3 if task == "rc" else 1
    assert written.footer.usage_totals["prompt_tokens"] == sum(i.usage["prompt_tokens"] for i in written.items)
    assert written.footer.items == len(data) and written.footer.finished
    assert all(r.body["max_tokens"] == 128 and r.body["temperature"] == 0.0 for r in server.requests)
    assert len(server.requests) == parts * len(data)


def test_rc_items_keep_three_raw_answers(server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan("rc", server, tmp_path)
    run(plan)
    item = read_run(plan.path).items[6]
    inst = MAIN.instances[6]
    assert item.raw == {c: str(inst.component(c)) for c in RC_COMPONENTS}
    assert item.parsed == {c: inst.component(c) for c in RC_COMPONENTS}


def test_garbage_is_kept_raw_flagged_unparsed_and_counted_wrong(server: LoopbackServer, tmp_path: Path) -> None:
    garbage = "我觉得答案是 1，因为它用了谐音。"
    server.set_responder(lambda request: reply(garbage))
    for task in ("ir", "ms", "rc"):
        plan = make_plan(task, server, tmp_path)
        outcome = run(plan)
        written = read_run(plan.path)
        assert outcome.complete and outcome.errors == 0
        if task == "rc":
            assert all(i.raw == dict.fromkeys(RC_COMPONENTS, garbage) for i in written.items)
            assert unparsed(task, written.items) == 3 * len(MAIN)
            assert score_run(written, MAIN, boot=None).balanced_accuracy == 0.0  # every answer wrong
        else:
            assert all(i.raw == garbage and i.parsed is None for i in written.items)
            assert score_run(written, DATA[task], boot=None).accuracy == 0.0
            assert unparsed(task, written.items) == len(DATA[task])
    ms_run = read_run(tmp_path / "loop-mouse-1_5b" / "mouse-loop-mouse-1_5b-ms-sighted.jsonl")
    assert '"parsed":null' in Path(ms_run.path).read_text() and unparsed("ms", ms_run.items) == 6


def test_429_and_500_are_retried_and_the_answer_kept(server: LoopbackServer, tmp_path: Path) -> None:
    server.script(status(429, retry_after="0"), status(500), status(503), status(429))
    plan = make_plan("td", server, tmp_path)
    outcome = run(plan)
    assert outcome.complete and outcome.errors == 0
    assert len(server.requests) == len(MAIN) + 4
    assert score_run(read_run(plan.path), MAIN, boot=None).accuracy == 1.0
    assert all(i.error is None and i.usage for i in read_run(plan.path).items)


def _fail_item(index: int, component: str | None = None) -> Responder:
    source = MAIN.instances[index].source

    def respond(request: Request):
        user = request.body["messages"][-1]["content"]
        if source + "\n" in user and (component is None or RC_CUES[component] in user):
            return status(500, body="scripted outage")
        return oracle(request)
    return respond


def test_a_request_failing_after_retries_leaves_raw_null_then_retry_errors_reasks_it(
        server: LoopbackServer, tmp_path: Path) -> None:
    server.set_responder(_fail_item(4))
    plan = make_plan("ir", server, tmp_path, policy=RetryPolicy(retries=1, backoff=0.01, max_backoff=0.02))
    outcome = run(plan)
    assert outcome.complete and outcome.errors == 1
    item = read_run(plan.path).items[4]
    assert (item.raw, item.parsed) == (None, None)
    errors = [i for i in read_run(plan.path).items if i.error is not None]
    assert len(errors) == 1 and errors[0].row_id == 4 and "HTTP 500" in errors[0].error
    assert "gave up after 2 attempts" in errors[0].error
    assert score_run(read_run(plan.path), MAIN, boot=None).unparsed == 1  # counted wrong

    server.set_responder(oracle)
    before = len(server.requests)
    dropped, prior = drop_errored_items(plan)
    assert (dropped, prior) == (1, {})
    assert run(plan).complete
    assert len(server.requests) - before == 1
    assert score_run(read_run(plan.path), MAIN, boot=None).accuracy == 1.0


def test_retry_errors_on_rc_reasks_only_the_failed_component(server: LoopbackServer, tmp_path: Path) -> None:
    server.set_responder(_fail_item(2, "visual"))
    plan = make_plan("rc", server, tmp_path, policy=RetryPolicy(retries=0, backoff=0.01, max_backoff=0.02))
    run(plan)
    failed = read_run(plan.path).items[2]
    assert failed.raw["visual"] is None and failed.error.startswith("visual: ")
    server.set_responder(oracle)
    before = len(server.requests)
    dropped, prior = drop_errored_items(plan)
    assert dropped == 1 and prior == {2: {"homophonic": "1", "semantic": "1"}}
    run(plan, prior=prior)
    assert [RC_CUES["visual"] in r.user_text for r in server.requests[before:]] == [True]
    assert score_run(read_run(plan.path), MAIN, boot=None).balanced_accuracy == 1.0


# ------------------------------------------------------------------ the blind arm

@pytest.mark.parametrize("task", ["ms", "cc"])
def test_blind_prompts_show_the_options_but_never_the_question(task: str, server: LoopbackServer,
                                                               tmp_path: Path) -> None:
    plan = make_plan(task, server, tmp_path, condition="blind")
    assert plan.path.name == f"mouse-loop-mouse-1_5b-{task}-blind.jsonl"
    assert run(plan).complete
    data = DATA[task]
    assert len(server.requests) == len(data)
    for request in server.requests:
        text = request.all_text
        assert not any(inst.question in text for inst in data)
        assert "【合成】题目" not in text and "【合成】对话" not in text and "___" not in text
        assert request.user_text.startswith("选项：\nA. 【合成】")
        assert "看不到" in request.body["messages"][0]["content"]  # the system message explains it
    # the options themselves are intact, so the oracle still answers right
    assert score_run(read_run(plan.path), data, boot=None).accuracy == 1.0
    assert read_run(plan.path).header.subject["parameters"]["protocol"] == f"mouse-{task}-blind"
    assert read_run(plan.path).header.condition == "blind"


def test_sighted_choice_prompts_show_the_question_and_normalised_options(server: LoopbackServer,
                                                                         tmp_path: Path) -> None:
    run(make_plan("ms", server, tmp_path))
    first = min(server.requests, key=lambda r: r.user_text).user_text
    assert "题目：【合成】题目01\n" in first and "A. 【合成】甲1\nB. 【合成】乙1\nC. 【合成】丙1\n" in first
    assert "A. A." not in first  # a marker already in the cell is not doubled


def test_a_sample_is_the_same_items_in_both_arms(server: LoopbackServer, tmp_path: Path) -> None:
    sample = settings(server, selection=Selection("sample", None, 3, 7))
    arms = [plan_probe("ms", MS, find_mouse_protocol(PROTOCOLS, "ms", condition), sample,
                       out_template=str(tmp_path / "{run_id}.jsonl"))
            for condition in ("sighted", "blind")]
    assert arms[0].row_ids == arms[1].row_ids and len(arms[0].row_ids) == 3
    assert [a.path.name for a in arms] == ["mouse-loop-mouse-1_5b-ms-sighted-n3-r7.jsonl",
                                           "mouse-loop-mouse-1_5b-ms-blind-n3-r7.jsonl"]
    for plan in arms:
        assert run(plan).complete
        written = read_run(plan.path)
        assert [i.row_id for i in written.items] == plan.row_ids
        assert written.header.items == {"selection": "sample", "n": 3, "sample_seed": 7}
        assert written.header.dataset["content_sha256"] == MS.content_sha256  # of the whole file
        assert score_run(written, MS, boot=None).accuracy == 1.0


# ------------------------------------------------------------------ translation and the judge

def _translator(request: Request):
    """Right translations, except: item 1 copies the source, item 2 answers in ASCII-colon
    judge-bait, item 3 fails (500)."""
    user = request.user_text
    if MAIN.instances[1].source + "\n" in user:
        return reply(MAIN.instances[1].source)
    if MAIN.instances[3].source + "\n" in user:
        return status(500)
    return oracle(request)


def _judge(request: Request):
    source, reference, translation = judge_parts(request)
    if source == MAIN.instances[1].source:
        return reply("照抄了源文本，但这里故意给满分。\n分数：2")  # the copy rule must still score 0
    if source == MAIN.instances[2].source:
        return reply("分析：意思一致。\n分数:2")  # ASCII colon: unparsed, flagged, scored 0
    return oracle(request)


def test_translations_then_judge_make_a_judged_run(server: LoopbackServer, tmp_path: Path) -> None:
    server.set_responder(_translator)
    tr = make_plan("tr", server, tmp_path, policy=RetryPolicy(retries=0, backoff=0.01, max_backoff=0.02))
    outcome = run(tr)
    assert outcome.complete and outcome.errors == 1
    translations = read_run(tr.path)
    assert translations.header.source["kind"] == "probe"
    assert all(i.judge is None and i.judge_raw is None and i.parsed == 0 for i in translations.items)
    assert translations.items[1].copied and translations.items[3].raw is None

    server.set_responder(_judge)
    before = len(server.requests)
    protocol = find_mouse_protocol(PROTOCOLS, "judge", "sighted")
    plan = plan_judge(translations, MAIN, protocol, settings(server, model="Judge/J-7B"))
    assert plan.path == tr.path.with_name("mouse-loop-mouse-1_5b-tr-sighted-judge-judge-j-7b.jsonl")
    judged_outcome = run(plan)
    assert judged_outcome.complete and judged_outcome.errors == 0
    judge_requests = server.requests[before:]
    assert len(judge_requests) == len(MAIN) - 1  # no request for the missing translation
    judged = read_run(plan.path)
    items = {i.row_id: i for i in judged.items}
    assert (items[0].judge_raw.endswith("分数：2"), items[0].judge, items[0].parsed) == (True, 2, 2)
    assert (items[1].copied, items[1].judge, items[1].parsed) == (True, 2, 0)  # copy rule, independent of the judge
    assert (items[2].judge_raw, items[2].judge, items[2].parsed) == ("分析：意思一致。\n分数:2", None, 0)
    assert (items[3].raw, items[3].judge_raw, items[3].judge, items[3].parsed) == (None, None, None, 0)
    assert unparsed("tr", judged.items) == 2  # the ASCII colon and the missing one
    scores = score_run(judged, boot=None)
    assert (scores.n, scores.missing, scores.copied, scores.judge_unparsed) == (12, 1, 1, 2)
    assert scores.semantic_accuracy == pytest.approx(9 * 2 / 12 / 2) and scores.perfect_rate == pytest.approx(9 / 12)
    h = judged.header
    assert h.subject == translations.header.subject and h.dataset == translations.header.dataset
    assert h.items == translations.header.items and h.condition == "sighted"
    assert h.source["kind"] == "judge" and h.source["translations"]["run_id"] == translations.header.run_id
    assert h.source["judge"]["parameters"]["prompt_sha256"] == protocol.sha256
    assert h.source["judge"]["parameters"]["max_tokens"] == 512
    sample = next(r for r in judge_requests if MAIN.instances[0].source + "\n" in r.user_text)
    assert f"参考译文：{MAIN.instances[0].reference}" in sample.user_text
    assert sample.user_text.endswith(f"模型译文：{MAIN.instances[0].reference}")
    assert "分数：" in sample.body["messages"][0]["content"]


def test_judge_refuses_an_unfinished_run_or_another_dataset(server: LoopbackServer, tmp_path: Path) -> None:
    tr = make_plan("tr", server, tmp_path)
    with RunWriter.open(tr.path, tr.header) as writer:
        writer.write(MouseItem(0, "x", 0, None, None, False))
    protocol = find_mouse_protocol(PROTOCOLS, "judge", "sighted")
    with pytest.raises(InputError, match="unfinished: 1 of 12 items"):
        plan_judge(read_run(tr.path), MAIN, protocol, settings(server))
    run(tr)
    changed = tmp_path / "main_eval.csv"
    changed.write_text((FIXTURES / "main_eval.csv").read_text(encoding="utf-8").replace("参考07", "参考七"),
                       encoding="utf-8")
    with pytest.raises(InputError, match="was made on dataset content"):
        plan_judge(read_run(tr.path), load_main(changed), protocol, settings(server))
    ms_run = make_plan("ms", server, tmp_path)
    run(ms_run)
    with pytest.raises(InputError, match="not a translation run"):
        plan_judge(read_run(ms_run.path), MAIN, protocol, settings(server))


# ------------------------------------------------------------------ resume, dry run, the key

def test_resume_asks_only_what_is_missing_and_a_complete_run_is_left_alone(server: LoopbackServer,
                                                                          tmp_path: Path) -> None:
    plan = make_plan("ir", server, tmp_path)
    with RunWriter.open(plan.path, plan.header) as writer:
        for inst in MAIN.instances[:5]:
            writer.write(MouseItem(inst.index, str(inst.intention), inst.intention))
    with plan.path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"item","row_id":5,"raw":"5","par')  # a torn last line
    assert not is_complete(plan)
    outcome = run(plan)
    assert outcome.asked == len(MAIN) - 5 and outcome.complete
    assert len(server.requests) == len(MAIN) - 5
    assert [i.row_id for i in read_run(plan.path).items] == list(range(len(MAIN)))
    assert is_complete(plan)


def test_a_changed_setting_refuses_to_resume_into_the_same_file(server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan("td", server, tmp_path)
    with RunWriter.open(plan.path, plan.header) as writer:
        writer.write(MouseItem(0, "0", 0))
    hotter = make_plan("td", server, tmp_path, temperature=0.7)
    with pytest.raises(InputError, match="cannot resume: existing run has subject"):
        run(hotter)
    assert server.requests == []


def test_a_file_that_is_not_this_run_is_refused_and_left_untouched(server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan("td", server, tmp_path)
    plan.path.parent.mkdir(parents=True)
    for text in ("my notes, not JSON", '{"type":"header","schema":"buzzprobe.run/1"}\n{"type":"item","row_'):
        plan.path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match="cannot resume"):
            run(plan)
        assert plan.path.read_text(encoding="utf-8") == text
    assert server.requests == []


def test_preview_shows_exact_bodies_and_touches_nothing(server: LoopbackServer, tmp_path: Path) -> None:
    plan = make_plan("rc", server, tmp_path)
    text = preview(plan, 1)
    assert server.requests == [] and not plan.path.parent.exists()
    assert text.count("POST body") == 3 and "[visual]" in text
    assert find_mouse_protocol(PROTOCOLS, "rc", "sighted").sha256 in text
    body = json.loads(text.split("[homophonic]: POST body\n", 1)[1].split("\n---", 1)[0])
    assert body == plan.body(plan.build(0).requests[0][1])


def test_the_key_is_sent_but_never_written(server: LoopbackServer, tmp_path: Path) -> None:
    key = "sk-FAKE-mouse-3f9a1c77-never-write-me"

    def echo(request: Request):
        if MAIN.instances[0].source + "\n" in request.user_text:
            return status(500, body=f"oops {request.headers['Authorization']}")
        return oracle(request)
    server.set_responder(echo)
    plan = make_plan("td", server, tmp_path, policy=RetryPolicy(retries=0, backoff=0.01, max_backoff=0.02))
    run(plan, key)
    assert all(r.headers["Authorization"] == f"Bearer {key}" for r in server.requests)
    written = "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file())
    assert key not in written and "[redacted]" in written  # the echoed key was scrubbed from the error


# ------------------------------------------------------------------ the protocol file

def test_every_protocol_is_labelled_as_buzzprobes_wording() -> None:
    text = DEFAULT_MOUSE_PROTOCOLS.read_text(encoding="utf-8")
    assert "csdq777/Mouse" in text and "not available" in text
    assert {(p.task, p.condition) for p in PROTOCOLS.values()} == {
        ("tr", "sighted"), ("rc", "sighted"), ("ir", "sighted"), ("td", "sighted"), ("ms", "sighted"),
        ("cc", "sighted"), ("ms", "blind"), ("cc", "blind"), ("judge", "sighted")}
    for p in PROTOCOLS.values():
        assert p.source.startswith("buzzprobe's") and "official" in p.source
    ir = PROTOCOLS["mouse-ir"].parts["answer"].user
    for line in ("0 评论（抱怨或称赞）", "1 一般陈述", "2 群体身份", "3 幽默与玩梗", "4 情绪表达", "5 性暗示",
                 "6 催促", "7 其他"):
        assert line in ir
    assert "分数：" in PROTOCOLS["mouse-judge"].parts["answer"].system


def test_a_blind_protocol_using_the_question_is_refused_with_its_line(tmp_path: Path) -> None:
    text = DEFAULT_MOUSE_PROTOCOLS.read_text(encoding="utf-8").replace(
        "只回答一个字母（A、B 或 C）。\n\n          结果：", "题目：{question}\n          结果：", 1)
    ms_blind = text.index("id: mouse-ms-blind")
    assert "{question}" in text[ms_blind:text.index("id: mouse-cc", ms_blind)]
    bad = tmp_path / "mouse.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_mouse_protocols(bad)
    (problem,) = caught.value.problems
    assert "uses placeholders ['options', 'question'], expected ['options']" in problem.message
    assert problem.line == text[:text.index("answer:", ms_blind)].count("\n") + 1


def test_prompt_sha256_changes_with_any_part() -> None:
    rc = PROTOCOLS["mouse-rc"]
    parts = dict(rc.parts)
    parts["visual"] = replace(parts["visual"], user=parts["visual"].user + " ")
    assert replace(rc, parts=parts).sha256 != rc.sha256
