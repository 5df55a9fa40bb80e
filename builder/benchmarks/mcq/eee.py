"""A spec'd benchmark's run as Every Eval Ever's instances and metrics (`buzzprobe export eee`;
the files are written by builder/runs/eee.py).

One instance per answered item: the question and options from the benchmark's data (runs never
store them), the gold letter, the strict letter as the terminal extracted answer. Metrics:
strict accuracy, and for an upstream-scored import also the accuracy the upstream script gives
(its seeded random letter for an answer it cannot extract), both as proportions like MMLU-Pro's.
"""

from __future__ import annotations

from typing import Any

from builder.benchmarks.base import BuildSettings
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.gold import gold_letters
from builder.benchmarks.mcq.loading import Loaded
from builder.runs.eee import Evaluation, Instance, Metric
from builder.runs.schema import Run
from builder.benchmarks.mcq.probe import spec_path
from builder.benchmarks.mcq.loading import load_spec_runs
from builder.benchmarks.mcq.prompts import render_prompt


def evaluation(run: Run, settings: BuildSettings) -> Evaluation:
    """The run checked against its spec's data (content/benchmarks/<benchmark>.yaml), mapped."""
    name = run.header.benchmark
    loaded = load_spec_runs(spec_path(name, None, settings.content_dir), settings.cache_dir, {name: [run]})
    run = loaded.runs[0]
    source = run.header.source if isinstance(run.header.source, dict) else {}
    details = {k: str(v) for k, v in (("repo", source.get("repo")), ("commit", source.get("commit")),
                                       ("file", source.get("file")), ("file_sha256", source.get("sha256")))
               if v is not None}
    dataset = {"dataset_name": loaded.benchmark.spec.title, "source_type": "other",
               "additional_details": {"content_sha256": loaded.benchmark.content_sha256,
                                      "items": f"{len(run.items)} of {run.header.items.get('n')}"}}
    return Evaluation(name, dataset, instances(run, loaded), _metrics(run, loaded), details,
                      str(source.get("repo") or "buzzprobe"))


def instances(run: Run, loaded: Loaded) -> list[Instance]:
    """One per answered item, in the run's order, scored against the run's gold (an imported
    item made on another revision keeps its own file's gold). `input.raw` is what the model
    was given: a probed run's prompt (the blind arm's has no question), an import's question."""
    gold = dict(zip(sorted(i.row_id for i in run.items), gold_letters(run, loaded)[0]))
    method = _method(run)
    found = []
    for item in run.items:
        known, answer = loaded.data.items[item.row_id], gold[item.row_id]
        order = sorted(item.letter_map, key=LETTERS.index)
        choices = tuple(known.choices[item.letter_map[letter]] if item.letter_map[letter] < len(known.choices) else ""
                        for letter in order)  # in the order shown, under letters A, B, ...
        metadata = {k: str(v) for k, v in (("row_id", item.row_id), ("response_sha256", item.response_sha256),
                                            ("response_chars", item.response_chars),
                                            ("official_letter", item.official)) if v is not None}
        found.append(Instance(item.id, _shown(run, loaded, known, [item.letter_map[k] for k in order]), answer,
                              item.prediction, item.prediction == answer, method, choices, item.response, metadata,
                              item.usage, item.latency_ms, item.error, item.row_id))
    return found


def _shown(run: Run, loaded: Loaded, known: Any, order: list[int]) -> str:
    """The prompt a probe sent (`buzzprobe probe --benchmark`, or a harness running its export):
    never the question in the blind arm. An import in the published order was asked the question."""
    if run.header.source is not None:
        return str(known.stem)
    return render_prompt(loaded.benchmark.spec, known, order, run.header.condition)


def _method(run: Run) -> str:
    source = run.header.source if isinstance(run.header.source, dict) else {}
    return {"upstream": "regex (the upstream scorer's three patterns)", "given": "as published"}.get(
        str(source.get("scoring")), "regex (buzzprobe letter parser)")


def _metrics(run: Run, loaded: Loaded) -> list[Metric]:
    gold, strict = gold_letters(run, loaded)
    found = [Metric("accuracy", "accuracy", "strict: an unparsed answer is wrong", _accuracy(gold, strict))]
    source = run.header.source if isinstance(run.header.source, dict) else {}
    if source.get("scoring") == "upstream":
        official = [i.scored for i in sorted(run.items, key=lambda i: i.row_id)]
        found.append(Metric("accuracy_official", "accuracy", "as the upstream scores it: an unparsed answer gets "
                            "its seeded random letter", _accuracy(gold, official)))
    return found


def _accuracy(gold: list[str], pred: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)

