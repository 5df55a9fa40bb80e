"""Spec'd multiple-choice benchmarks end to end: `buzzprobe probe --benchmark NAME` asks a
real HTTP loopback server in both arms (resuming an interrupted run without duplicates), and
the build turns the runs into the benchmark's page with its audit and the paired analysis.

All data here is SYNTHETIC, written by the test (placeholders, no benchmark's items)."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from builder.benchmarks.facts_reference import fact_schema
from builder.benchmarks.mcq.probe import parse_letter
from builder.cli import main
from builder.core.errors import InputError
from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.pipeline import BuildConfig, build
from builder.runs.reader import read_run
from tests.loopback_server import LoopbackServer, Request, reply
from tests.synthetic import synthetic_rows, write_synthetic_csv

REPO = Path(__file__).resolve().parents[1]
NAME = "synthetic-probe"
ITEMS = 30
KEY_ENV = "BUZZPROBE_TEST_MCQ_KEY"
WORDS = ("amber", "basil", "cedar", "dune", "ember", "fjord", "grove", "heath")
SCRIPT = "<script>alert(1)</script>"


def synthetic_records() -> list[dict]:
    """30 items, 4 options; the gold is longest on two items in three (a planted length cue)."""
    rng = random.Random(5)
    records = []
    for n in range(1, ITEMS + 1):
        options = [f"{rng.choice(WORDS)} {n}{i}" for i in range(4)]
        gold = rng.randrange(4)
        if n % 3:
            options[gold] += " indeed so"
        if n == 1:
            options[(gold + 1) % 4] = SCRIPT
        records.append({"id": f"q{n}", "stem": f"Synthetic question {n}?", "choices": options, "answer": gold,
                        "split": "test" if n % 5 == 0 else "train", "topic": ("alpha", "beta <b>")[n % 2]})
    return records


SPEC = f"""# SYNTHETIC spec written by tests/test_mcq_probe.py
name: {NAME}
title: Synthetic probe benchmark
language: en
dataset_path: {{data}}
id: id
doc_to_text: stem
doc_to_choice: choices
doc_to_target: answer
split: split
train_split: train
test_split: test
category: topic
"""


def make_project(root: Path) -> Path:
    """A repository-like folder at root: content/ (the real one plus the spec), data/, runs/."""
    shutil.copytree(REPO / "content", root / "content")
    (root / "data").mkdir()
    data = root / "data" / "probe.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in synthetic_records()), encoding="utf-8")
    (root / "content" / "benchmarks").mkdir(exist_ok=True)
    (root / "content" / "benchmarks" / f"{NAME}.yaml").write_text(SPEC.format(data=data), encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def answer(request: Request) -> object:
    """Sighted: the gold letter. Blind: the longest option's letter (the planted cue)."""
    text = request.user_text
    options = dict(re.findall(r"^([A-Z])\. (.*)$", text, flags=re.M))
    found = re.search(r"Synthetic question (\d+)\?", text)
    if found is None:
        return reply(max(options, key=lambda letter: len(options[letter])))
    record = synthetic_records()[int(found.group(1)) - 1]
    gold = record["choices"][record["answer"]]
    return reply(next(letter for letter, option in options.items() if option == gold))


def probe(project: Path, server: LoopbackServer, *extra: str) -> int:
    return main(["probe", "--model", "loop-model", "--base-url", server.url, "--api-key-env", KEY_ENV,
                 "--quiet", "--concurrency", "3", *extra])


def build_site(project: Path) -> Path:
    csv = write_synthetic_csv(project / "cibuzzbench.csv", synthetic_rows(n=60, test=12, seed=3))
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import DatasetSpec
    out = project / "site"
    build(BuildConfig(options=cibuzzbench_options(csv, DatasetSpec(rows=60, split_counts={"train": 48, "test": 12})), runs_dir=project / "runs", content_dir=project / "content", out=out, charts=False, cache_dir=project / "cache", force=True))
    return out


def test_parse_letter_reads_leading_and_standalone_capitals_only() -> None:
    assert [parse_letter(t, 4) for t in ("B", "(C) because", "The answer is D.", "a good fit", "E", "", None)] == \
        ["B", "C", "D", "", "", "", ""]


def test_probe_both_arms_resume_and_build_the_paired_page(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(answer) as server:
        assert probe(project, server, "--benchmark", NAME, "--dry-run", "1") == 0
        assert server.requests == [] and not (project / "runs").exists()
        dry = capsys.readouterr().out
        assert "Synthetic question" in dry and '"role": "user"' in dry

        assert probe(project, server, "--benchmark", NAME, "--condition", "sighted") == 0
        assert probe(project, server, "--spec", f"content/benchmarks/{NAME}.yaml", "--condition", "blind") == 0
        assert len(server.requests) == 2 * ITEMS
        blind_prompts = [r.user_text for r in server.requests[ITEMS:]]
        assert not any("Synthetic question" in text for text in blind_prompts)

        runs = sorted((project / "runs" / "loop-model").glob("*.jsonl"))
        assert [p.name for p in runs] == [f"loop-model-{NAME}-blind-s1111-all.jsonl",
                                          f"loop-model-{NAME}-sighted-s1111-all.jsonl"]
        blind = runs[0]
        # As if killed: 12 items written, the 13th torn mid-line, no footer; then resumed.
        lines = blind.read_text(encoding="utf-8").splitlines(keepends=True)
        blind.write_text("".join(lines[:13]) + lines[13][:20], encoding="utf-8")
        before = len(server.requests)
        assert probe(project, server, "--benchmark", NAME, "--condition", "blind") == 0
        assert len(server.requests) - before == ITEMS - 12
        assert probe(project, server, "--benchmark", NAME, "--condition", "blind") == 0  # complete: nothing asked
        assert len(server.requests) - before == ITEMS - 12

    run = read_run(blind)
    assert run.header.benchmark == NAME and run.header.task == "multiple_choice" and run.complete
    assert [i.row_id for i in run.items] == list(range(1, ITEMS + 1))  # every item once, in order
    item = run.items[0]
    assert sorted(item.letter_map.values()) == [0, 1, 2, 3] and item.id == "q1"
    assert SCRIPT not in blind.read_text(encoding="utf-8")  # runs never copy the data set's text

    out = build_site(project)
    page = (out / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    facts = json.loads((out / "facts.json").read_text(encoding="utf-8"))
    sighted_id = f"loop-model-{NAME}-sighted-s1111-all"
    pair = f"mcq.{NAME}.pair.{sighted_id}"
    assert facts[f"mcq.{NAME}.run.{sighted_id}.accuracy"] == 100.0
    blind_accuracy = facts[f"mcq.{NAME}.run.loop-model-{NAME}-blind-s1111-all.accuracy"]
    assert 50 < blind_accuracy < 100  # the length cue, found by the blind arm
    assert facts[f"{pair}.n"] == ITEMS and facts[f"{pair}.breaks"] == 0
    assert facts[f"{pair}.fixes"] == round(ITEMS * (100 - blind_accuracy) / 100)
    assert facts[f"{pair}.gap.accuracy"] == pytest.approx(100 - blind_accuracy)
    assert facts[f"{pair}.gap.accuracy.ci95_low"] > 0 and facts[f"{pair}.mcnemar_p"] < 0.05
    assert f'id="mcq-{NAME}-pairs"' in page and f'data-fact="{pair}.mcnemar_p"' in page
    assert f'id="mcq-{NAME}-categories"' in page and "beta &lt;b&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and SCRIPT not in page
    assert fact_schema().problems(facts) == []
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f'href="benchmarks/{NAME}.html"' in index
    assert (out / "tables" / f"mcq-{NAME}-audit.csv").is_file()
    shelf = (out / "benchmarks.html").read_text(encoding="utf-8")  # the index: one row, linked, from facts
    assert 'id="mcq-index"' in shelf and f'href="benchmarks/{NAME}.html"' in shelf
    assert f'data-fact="mcq.{NAME}.index.learned.gain"' in shelf and 'href="benchmarks.html"' in index
    assert facts[f"mcq.{NAME}.index.learned.gain"] == pytest.approx(
        facts[f"mcq.{NAME}.audit.shuffled.learned_options.accuracy"] - facts[f"mcq.{NAME}.index.learned_chance"])
    assert (out / "tables" / "mcq-index.csv").is_file()
    for html in out.rglob("*.html"):  # spec'd runs have no run page: nothing may link to one
        for href in re.findall(r'href="([^"]+)"', html.read_text(encoding="utf-8")):
            target = re.split(r"[#?]", href)[0]
            if target and ":" not in target:
                assert (html.parent / target).is_file(), f"{html.relative_to(out)} links to a missing {href}"


def test_a_tampered_letter_map_is_a_located_build_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(answer) as server:
        assert probe(project, server, "--benchmark", NAME, "--sample", "5", "--sample-seed", "2") == 0
    (path,) = (project / "runs" / "loop-model").glob("*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    item = json.loads(lines[2])
    item["letter_map"] = dict(zip("ABCD", [3, 2, 1, 0] if list(item["letter_map"].values()) != [3, 2, 1, 0]
                                  else [0, 1, 2, 3]))
    lines[2] = json.dumps(item) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        build_site(project)
    assert f"{path}:3 [letter_map]: not the seed-1111 shuffle of item" in str(caught.value)


def test_a_missing_data_file_names_the_spec_the_path_and_the_variable(project: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)  # the repository: where buzzprobe runs, and where a spec's data may lie
    (project / "data" / "probe.jsonl").unlink()
    with pytest.raises(InputError) as caught:
        build_site(project)
    text = str(caught.value)
    spec = project / "content" / "benchmarks" / f"{NAME}.yaml"
    assert f"{spec}:5 [dataset_path]: the data file of '{NAME}' is missing: {project / 'data' / 'probe.jsonl'}" in text
    assert "BUZZPROBE_DATA_SYNTHETIC_PROBE" in text


def test_cibuzzbench_options_are_refused_for_a_spec(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(project)
    assert main(["probe", "--benchmark", NAME, "--model", "m", "--lang", "zh", "--dry-run"]) == 2
    assert main(["probe", "--benchmark", "no-such-spec", "--model", "m", "--dry-run"]) == 2
    assert main(["probe", "--benchmark", NAME, "--model", "m", "--split", "dev", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "--lang: an option of cibuzzbench's probe; " + NAME + " does not read it" in err
    assert "no benchmark 'no-such-spec' to probe. Benchmarks that can be probed: " in err
    assert "cibuzzbench, " in err.split("no-such-spec' to probe. ")[1]


def test_a_mistyped_benchmark_gets_the_closest_names(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`probe --benchmark` with a typo names the plug-in or spec it probably meant, then all of
    them (the probing plug-ins by their own name, the spec files by theirs)."""
    monkeypatch.chdir(project)
    assert main(["probe", "--benchmark", NAME[:-1], "--model", "m", "--dry-run"]) == 2
    assert main(["probe", "--benchmark", "cibuzzbnch", "--model", "m", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"no benchmark {NAME[:-1]!r} to probe; did you mean {NAME!r}?" in err
    assert "no benchmark 'cibuzzbnch' to probe; did you mean 'cibuzzbench'" in err
    listed = err.split("Benchmarks that can be probed: ")[1].split(" (")[0].split(", ")
    assert "cibuzzbench" in listed and NAME in listed and listed == sorted(listed)


def test_probe_dispatches_through_the_registry(project: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`--spec` alone picks the plug-in whose option it is; a spec'd benchmark's option is
    refused for CIBuzzBench as CIBuzzBench's are for a spec (no list of either's options)."""
    monkeypatch.chdir(project)
    spec = project / "content" / "benchmarks" / f"{NAME}.yaml"
    assert main(["probe", "--spec", str(spec), "--model", "m", "--dry-run", "1"]) == 0
    out = capsys.readouterr().out
    assert f"m-{NAME}-sighted-s" in out and "POST body" in out
    assert main(["probe", "--benchmark", "cibuzzbench", "--spec", str(spec), "--model", "m", "--dry-run"]) == 2
    assert "--spec: an option of mcq's probe; cibuzzbench does not read it" in capsys.readouterr().err


def test_two_option_seeds_of_one_model_build_with_told_apart_labels(project: Path, monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    """`probe --seeds 1111 2222` makes two sighted runs of one model: the leak split's table and
    chart name each by model and seed (the chart refused two rows of one label, so the build
    failed with a traceback)."""
    monkeypatch.chdir(project)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with LoopbackServer(answer) as server:
        assert probe(project, server, "--benchmark", NAME, "--condition", "sighted", "--seeds", "1111", "2222") == 0
    out = build_site(project)
    split = (out / "tables" / f"mcq-{NAME}-leak-split.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[0] for line in split[1:]] == ["loop-model (seed 1111)", "loop-model (seed 2222)"]
    page = (out / "benchmarks" / f"{NAME}.html").read_text(encoding="utf-8")
    assert "loop-model (seed 2222)" in page
