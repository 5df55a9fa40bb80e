"""Mouse runs as the run store holds them: headers, imported runs, checks against the data, scores.

A Mouse run is a `buzzprobe.run/1` file (benchmark "mouse", items: run_format.MouseItem) in
`runs/<model>/`; it is read by builder.runs.reader like any run. This module builds the header
every Mouse run shares, turns official output files into runs, checks a run against the data
file it was made on (content hash, selection, letters) and scores it with the paper's metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builder.benchmarks.mouse.analyses import metrics as m
from builder.benchmarks.mouse.dataset import ClozeInstance, MouseSet
from builder.benchmarks.mouse.importer import ChoiceResults, MainResults, TaskResult, TranslationResult
from builder.benchmarks.mouse.labels import CC, IR, IR_LABELS, MS, MS_LABELS, RC, RC_COMPONENTS, TD, TR
from builder.benchmarks.mouse.run_format import (BENCHMARK, DATA_FILES, IMPORTED, SIGHTED, MouseItem)
from builder.core.errors import InputError, Problem
from builder.core.names import slug
from builder.runs.selection import Selection
from builder.runs.checks import footer_problems, number_problems, parameters_problems
from builder.runs.lines import cap_response
from builder.runs.schema import Footer, Header, Run, new_header, usage_totals

DATASET_NAME = "Mouse"


def make_header(run_id: str, task: str, condition: str, subject: dict[str, Any], content_sha256: str,
                items: dict[str, Any], source: dict[str, Any], created: str) -> Header:
    """The header every Mouse run has: the envelope's fields plus where the answers came from."""
    return new_header(run_id=run_id, benchmark=BENCHMARK, task=task, condition=condition, subject=subject,
                      option_seed=None, items=items,
                      dataset={"name": DATASET_NAME, "file": DATA_FILES[task], "content_sha256": content_sha256},
                      created=created, source=source)


def declared_row_ids(run: Run, data: MouseSet) -> list[int]:
    """The row_ids the run's header selects on this data file (all, or the seeded sample
    `sorted(random.Random(seed).sample(range(rows), n))`, the same in both arms)."""
    try:
        return Selection.from_header(run.header.items).row_ids(data)
    except InputError as exc:  # an impossible sample size: located at the header
        raise InputError.single(run.path, exc.problems[0].message, line=1, field="items.n") from None


# ---------------------------------------------------------------- official outputs -> runs

def make_runs(subject: dict[str, Any], created: str, *, main: MainResults | None = None,
              judge: TranslationResult | None = None, ms: ChoiceResults | None = None,
              cc: ChoiceResults | None = None, dataset_content: str | None = None) -> list[Run]:
    """One finished run per task present, run ids `mouse-<model>-<task>`; `dataset_content` is
    the main dataset's content_sha256 for the TR run (a judge sheet lacks the gold)."""
    base = f"mouse-{slug(subject['name'])}"

    def run(task: str, content: str, path: Any, sha: str, items: tuple[MouseItem, ...]) -> Run:
        header = make_header(f"{base}-{task}", task, SIGHTED, subject, content, {"selection": "all", "n": len(items)},
                             {"kind": IMPORTED, "file": path.name, "sha256": sha}, created)
        return Run("", header, items, Footer(len(items), created, usage_totals(items)), {})

    runs = []
    if main is not None:
        content = main.instances.content_sha256
        for result in (main.td, main.ir):
            runs.append(run(result.task, content, main.path, main.sha256, _plain_items(result)))
        runs.append(run(RC, content, main.path, main.sha256, _rc_items(main)))
    if judge is not None:
        if dataset_content is None:
            raise InputError.single(judge.path, "a judge sheet holds no gold, so its run cannot name the data it "
                                    "was made on: pass --data main_eval.csv (or the main_eval output)", line=1)
        runs.append(run(TR, dataset_content, judge.path, judge.sha256, _tr_items(judge)))
    for choice in (ms, cc):
        if choice is not None:
            runs.append(run(choice.result.task, choice.instances.content_sha256, choice.path, choice.sha256,
                            _plain_items(choice.result)))
    return runs


def _plain_items(result: TaskResult) -> tuple[MouseItem, ...]:
    return tuple(_item(a.index, a.raw, a.parsed) for a in result.answers)


def _item(row_id: int, raw: Any, parsed: Any, judge_raw: str | None = None, judge: int | None = None,
          copied: bool | None = None) -> MouseItem:
    """Imported answers are capped like probed ones (a cell of an output file can hold megabytes)."""
    cut: list[bool] = []

    def cap(text: Any) -> Any:
        if not isinstance(text, str):
            return text
        kept, was_cut = cap_response(text)
        cut.append(was_cut)
        return kept
    raw = {k: cap(v) for k, v in raw.items()} if isinstance(raw, dict) else cap(raw)
    judge_raw = cap(judge_raw)
    return MouseItem(row_id, raw, parsed, judge_raw, judge, copied, response_truncated=any(cut) or None)


def _rc_items(main: MainResults) -> tuple[MouseItem, ...]:
    per = {c: main.rc[c].answers for c in RC_COMPONENTS}
    return tuple(_item(i.index, {c: per[c][k].raw for c in RC_COMPONENTS},
                       {c: per[c][k].parsed for c in RC_COMPONENTS})
                 for k, i in enumerate(main.instances))


def _tr_items(judge: TranslationResult) -> tuple[MouseItem, ...]:
    return tuple(_item(i.index, i.translation, i.score, i.judge_raw, i.judge, i.copied) for i in judge.items)


# ---------------------------------------------------------------- checks against the data

def dataset_for(run: Run, datasets: Sequence[MouseSet]) -> MouseSet | None:
    """The data file this run was made on (by content hash). None for a TR run without one
    (its scores are in the run); any other run without its data is an error."""
    wanted = run.header.dataset.get("content_sha256")
    for data in datasets:
        if data.content_sha256 == wanted:
            return data
    if run.header.task == TR:
        return None
    file = run.header.dataset.get("file", "its data file")
    raise InputError.single(run.path or run.header.run_id,
                            f"no Mouse data file has this run's content sha256 {wanted!r}: give the {file} it was "
                            "made on", line=1, field="dataset.content_sha256")


def validate_mouse_run(run: Run, data: MouseSet | None) -> None:
    """Items exactly within the declared selection of `data` (TR without data: the count), a
    CC answer only among its item's letters, a footer that agrees, real generation settings."""
    problems: list[Problem] = []
    if data is not None and run.header.dataset.get("content_sha256") != data.content_sha256:
        problems.append(Problem(run.path, f"run was made on different data (content sha256 "
                                f"{run.header.dataset.get('content_sha256')!r}, {data.path} has "
                                f"{data.content_sha256!r})", 1, "dataset.content_sha256"))
    else:
        declared = set(declared_row_ids(run, data)) if data is not None else set(run.row_ids)
        if len(declared) != run.header.items.get("n"):
            problems.append(Problem(run.path, f"header declares n={run.header.items.get('n')}, but its selection "
                                    f"holds {len(declared)} items", 1, "items.n"))
        letters = {i.index: set(i.letters) for i in data} if data is not None and run.header.task == CC else None
        for item in run.items:
            line = run.item_lines.get(item.row_id)
            if item.row_id not in declared:
                problems.append(Problem(run.path, f"row_id {item.row_id} is outside the run's selection", line, "row_id"))
            elif letters is not None and item.parsed is not None and item.parsed not in letters[item.row_id]:
                problems.append(Problem(run.path, f"{item.parsed!r} is not an option of this item", line, "parsed"))
            problems += number_problems(run, item.latency_ms, item.usage, line or 0)
        problems += footer_problems(run, declared)
    problems += parameters_problems(run)
    if problems:
        raise InputError(problems)


# ---------------------------------------------------------------- scores

def score_run(run: Run, dataset: MouseSet | None = None,
              boot: m.BootstrapOptions | None = m.DEFAULT_BOOTSTRAP) -> m.ClassScores | m.RCScores | m.TranslationScores:
    """The paper's metrics for one run. TR needs no dataset (the final scores are in the run);
    the other tasks take gold from `dataset`, which must be the one the run was made on."""
    task = run.header.task
    items: Sequence[MouseItem] = run.items
    if task == TR:
        return m.tr_from_scores([i.parsed for i in items], sum(1 for i in items if i.raw is None),
                                sum(1 for i in items if i.copied), sum(1 for i in items if i.judge is None), boot)
    if dataset is None:
        raise ValueError(f"scoring a {task} run needs its dataset")
    validate_mouse_run(run, dataset)
    gold = {inst.index: inst for inst in dataset}
    if task == RC:
        return m.score_rc({c: [gold[i.row_id].component(c) for i in items] for c in RC_COMPONENTS},
                          {c: [i.parsed[c] for i in items] for c in RC_COMPONENTS}, boot)
    pick = {TD: lambda x: x.toxicity, IR: lambda x: x.intention, MS: lambda x: x.answer, CC: lambda x: x.answer}[task]
    labels = {TD: (0, 1), IR: IR_LABELS, MS: MS_LABELS}.get(task) or cc_letters(dataset)
    return m.score_classification([pick(gold[i.row_id]) for i in items], [i.parsed for i in items], labels, boot)


def cc_letters(dataset: MouseSet[ClozeInstance]) -> tuple[str, ...]:
    """CC's label set: every letter any item offers."""
    return tuple(sorted({letter for inst in dataset for letter in inst.letters}))
