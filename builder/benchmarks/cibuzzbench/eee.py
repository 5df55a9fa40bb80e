"""A CIBuzzBench run as Every Eval Ever's instances and metrics (`buzzprobe export eee`; the
files are written by builder/runs/eee.py).

Runs never store the dataset's text, so the instances are rebuilt from the CSV the run was made
on (its variant, checked by content hash and the official shuffle like any run the site reads):
Task 2 shows the options in the run's own letter order, and when the run recorded a protocol
whose exact text we have, `input.raw` is the user message as it was sent (the blind arm's has
no term); otherwise it is the term for a sighted run and empty for a blind one or a model-free
probe, which saw only the options. Metrics are the site's: the official accuracy and macro F1
(x100, scikit-learn, an unparsed answer is wrong) with their bootstrap intervals, and Task 3's
harmful-class F1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from builder.benchmarks.base import BuildSettings
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore, score_run
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.plugin import UPSTREAM_TREE
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION, harmful_f1
from builder.runs.eee import UNKNOWN, Evaluation, Instance, Metric
from builder.runs.schema import Run
from builder.benchmarks.cibuzzbench.run_checks import declared_count
from builder.benchmarks.cibuzzbench.dataset.fetch import dataset_path
from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
from builder.benchmarks.cibuzzbench.run_checks import validate_runs
from builder.benchmarks.cibuzzbench.prompts import load_protocols, prompt_builder
from builder.benchmarks.cibuzzbench.probes.generate import probe_rule
from builder.benchmarks.cibuzzbench.views.run_pages import prompt_of
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.compute import BOOT
from builder.stats.bootstrap import DEFAULT_RESAMPLES

PROBE_DEVELOPER = "buzzprobe"  # a model-free probe is buzzprobe's own rule
_EXTRACTION = {EQUIVALENT_SELECTION: "the official letter parser (first standalone A-D, else a leading "
                                     "(A)/A./A:, else the option whose text the response contains)",
               HARMFULNESS_DETECTION: "the official harmfulness parser (non-harmful/safe/... before "
                                        "harmful/unsafe/...)"}


def evaluation(run: Run, settings: BuildSettings) -> Evaluation:
    """The run checked against the dataset variant it names, mapped item by item."""
    dataset = _checked_dataset(run)
    protocol = _protocol(run, settings)
    score = score_run(run, dataset)
    h = run.header
    name = "_".join(("cibuzzbench", h.task, h.condition, *([h.variant] if h.variant != "original" else [])))
    source = {"dataset_name": f"CIBuzzBench ({h.variant} options)" if h.variant != "original" else "CIBuzzBench",
              "source_type": "url", "url": [UPSTREAM_TREE],
              "additional_details": {"content_sha256": dataset.content_sha256, "variant": h.variant,
                                     "items": f"{len(run.items)} of {declared_count(run, dataset)}"}}
    return Evaluation(name, source, instances(run, dataset, score, protocol), metrics(score),
                      _details(run, protocol), generation=_generation(run, protocol),
                      developer=PROBE_DEVELOPER if h.subject.get("kind") == "probe" else UNKNOWN)


def _checked_dataset(run: Run) -> Dataset:
    """The CSV (CIBUZZBENCH_CSV or data/), or the gold-pool variant derived from it, that the run
    names; the run checked against it (a located error when it was made on other data)."""
    # deferred: read at call time, so a test's stand-in for load_dataset applies
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    datasets = {"original": load_dataset(dataset_path())}
    if run.header.variant != "original":  # seconds of work: only for a run that needs it
        datasets.update(derive_variants(datasets["original"], [run.header.variant]))
    validate_runs([run], datasets)
    return datasets[run.header.variant]


def _protocol(run: Run, settings: BuildSettings) -> Any:
    """The protocol whose exact text the run recorded (content/protocols/cibuzzbench.yaml), or None."""
    path = settings.content_dir / "protocols" / "cibuzzbench.yaml"
    return prompt_of(run.header, load_protocols(path)) if path.is_file() else None


def instances(run: Run, dataset: Dataset, score: RunScore, protocol: Any) -> list[Instance]:
    """One per answered item, in the run's order, scored as the site scores it."""
    seed = run.header.option_seed
    sets = option_sets(dataset, seed) if run.header.task == EQUIVALENT_SELECTION and seed is not None else None
    shown = _input_text(run, dataset, protocol)
    splits, categories = dataset.column("split"), dataset.column("category_label")
    found = []
    for item, gold in zip(run.items, score.gold):
        options = sets[item.row_id] if sets is not None else None
        metadata = {"row_id": str(item.row_id), "split": splits[item.row_id], "category": categories[item.row_id]}
        if options is not None:
            metadata["predicted_source"] = options.source_of(item.prediction) or "unparsed"
        if item.response_truncated:
            metadata["response_truncated"] = "true"
        found.append(Instance(
            str(item.row_id), shown(item.row_id), gold, item.prediction, item.prediction == gold,
            "the probe's own choice (no response)" if run.header.condition == "probe" else _EXTRACTION[run.header.task],
            tuple(o.text for o in options.options) if options is not None else None,
            item.response, metadata, item.usage, item.latency_ms, item.error, item.row_id))
    return found


def _input_text(run: Run, dataset: Dataset, protocol: Any) -> Callable[[int], str]:
    """row_id -> the text the subject was given (see the module's docstring)."""
    if protocol is not None:
        build = prompt_builder(dataset, protocol, run.header.option_seed)
        return lambda row_id: build(row_id).messages[-1]["content"]
    terms = dataset.column("term_zh")
    return (lambda row_id: terms[row_id]) if run.header.condition == "sighted" else (lambda row_id: "")


def metrics(score: RunScore) -> list[Metric]:
    """Accuracy and macro F1 with the site's intervals; Task 3 also the harmful class's F1."""
    report, labels = score.report, "/".join(score.labels)
    how = {"accuracy": "share of items whose prediction is the gold label, x100",
           "macro_f1": f"scikit-learn precision_recall_fscore_support over labels {labels}, average='macro', "
                       "zero_division=0, x100"}
    found = [Metric(metric, kind, f"{how[metric]}; an unparsed answer is wrong", value, "percent",
                    (score.intervals[metric].low, score.intervals[metric].high, score.intervals[metric].level),
                    BOOT, DEFAULT_RESAMPLES)
             for metric, kind, value in (("accuracy", "accuracy", report.accuracy),
                                         ("macro_f1", "f1", report.macro_f1))]
    if score.run.header.task != EQUIVALENT_SELECTION:
        found.append(Metric("harmful_f1", "f1", "F1 of the harmful class (scikit-learn, zero_division=0), x100",
                            harmful_f1(report), "percent"))
    return found


def _details(run: Run, protocol: Any) -> dict[str, str]:
    h = run.header
    parameters = h.subject.get("parameters") or {}
    details = {"task": h.task, "variant": h.variant, "selection": str(h.items.get("selection")),
               "subject_kind": str(h.subject.get("kind", "model"))}
    for key, value in (("option_seed", h.option_seed), ("split", h.items.get("split")),
                       ("sample_seed", h.items.get("sample_seed")), ("lang", parameters.get("lang")),
                       ("protocol", parameters.get("protocol")), ("prompt_sha256", parameters.get("prompt_sha256"))):
        if value is not None:
            details[key] = str(value)
    if protocol is not None:
        details["system_prompt"] = protocol.system
        details["prompt_source"] = protocol.source
    if h.subject.get("kind") == "probe":
        details["probe_rule"] = probe_rule(h.subject) or str(h.subject_name)
    return details


def _generation(run: Run, protocol: Any) -> dict[str, Any]:
    """What the model was asked with (a probe was asked nothing)."""
    parameters = run.header.subject.get("parameters") or {}
    if run.header.subject.get("kind") == "probe":
        return {}
    found = {k: parameters[k] for k in ("temperature", "top_p") if isinstance(parameters.get(k), (int, float))}
    if isinstance(parameters.get("max_tokens"), int):
        found["max_tokens"] = parameters["max_tokens"]
    if protocol is not None:
        found["prompt_template"] = protocol.user
    return found
