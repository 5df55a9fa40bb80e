"""The harness task files, whichever benchmark's tasks (interop/harness.py `HarnessTask`): for
lm-eval a task YAML and its items JSONL per task, for Inspect one task file with an @task per
task and the same JSONL items. The items carry the data set's text: they go to the user's
folder only (the commands refuse the repository)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from builder.interop.harness import HarnessTask


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def write_items(path: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    _write_text(path, text)


def export_lm_eval(tasks: Sequence[HarnessTask], dataset: Any, out: Path, tag: str) -> list[Path]:
    """A task YAML and its items JSONL per task; the JSONL is named by absolute path because
    lm-eval resolves `data_files` against the working directory, not the YAML. `dataset` is
    what the tasks' records are read from (CIBuzzBench's variant, or a spec's choice set)."""
    out = out.resolve()
    written = []
    for t in tasks:
        items = out / f"{t.name}.jsonl"
        write_items(items, t.records(dataset))
        config = lm_eval_config(t, items, tag)
        config_path = out / f"{t.name}.yaml"
        _write_text(config_path, _yaml_header(t) + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        written += [config_path, items]
    return written


def lm_eval_config(t: HarnessTask, items: Path, tag: str) -> dict[str, Any]:
    """generate_until with the protocol's messages as fields: `description` (the system message,
    when the task has one) and `doc_to_text` name document fields, which lm-eval uses verbatim."""
    config: dict[str, Any] = {
        "task": t.name, "tag": [tag],
        "dataset_path": "json", "dataset_kwargs": {"data_files": {"test": str(items)}},
        "test_split": "test", "output_type": "generate_until"}
    if t.system_message:
        config["description"] = "system"
    config.update({
        "doc_to_text": "user", "doc_to_target": "target", "num_fewshot": 0,
        # `until: []` keeps lm-eval from adding its default "\n\n" stop sequence.
        "generation_kwargs": {"until": [], "max_gen_toks": t.max_tokens, "temperature": 0.0, "do_sample": False},
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True,
                         "ignore_case": False, "ignore_punctuation": True}],
        "metadata": {"version": t.version, "buzzprobe": t.metadata()}})
    return config


def _yaml_header(t: HarnessTask) -> str:
    return (f"# Exported by buzzprobe: {t.describe()}.\n# Import the --log_samples output with "
            "`buzzprobe import lm-eval PATH`; editing the prompt fields makes that import warn.\n")


def export_inspect(tasks: Sequence[HarnessTask], dataset: Any, out: Path, filename: str, title: str) -> list[Path]:
    """One task file with an @task per exported task, reading its items from the JSONL beside it."""
    written = []
    for t in tasks:
        items = out / f"{t.name}.jsonl"
        write_items(items, t.records(dataset))
        written.append(items)
    path = out / filename
    _write_text(path, inspect_source(tasks, filename, title))
    return [path, *written]


def inspect_source(tasks: Sequence[HarnessTask], filename: str, title: str) -> str:
    """The task file's text: self-contained (needs inspect_ai only, not buzzprobe)."""
    metadata = {t.name: t.metadata() for t in tasks}
    functions = "".join(f"\n\n@task\ndef {t.name}() -> Task:\n    return _task({t.name!r})\n" for t in tasks)
    return (_INSPECT_TEMPLATE.replace("@TITLE@", title).replace("@FILE@", filename)
            .replace("@TASKS@", json.dumps(metadata, indent=1, sort_keys=True)) + functions)


_INSPECT_TEMPLATE = '''"""@TITLE@ tasks exported by buzzprobe (Inspect task file).

Run:    inspect eval @FILE@@<task> --model <provider>/<model>
Import: buzzprobe import inspect LOG

Each sample's input is the exact messages of buzzprobe's prompt (its probe sends the same), asked with
generate() (not multiple_choice(), which would rewrite the prompt). The scorer here is only
indicative: the import re-parses every output with the official parser.
Editing the prompts or items makes the import warn or refuse.
"""

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import pattern
from inspect_ai.solver import generate

HERE = Path(__file__).resolve().parent
TASKS = json.loads(r"""@TASKS@""")
SCORERS = {"equivalent_selection": r"\\b([ABCD])\\b", "harmfulness_detection": r"(non-harmful|harmful)",
           "multiple_choice": r"\\b([A-Z])\\b"}


def _sample(record: dict, meta: dict) -> Sample:
    keep = {k: record[k] for k in ("row_id", "id", "letter_map") if k in record}
    system = [ChatMessageSystem(content=record["system"])] if "system" in record else []
    return Sample(id=record["row_id"], target=record["target"],
                  input=[*system, ChatMessageUser(content=record["user"])],
                  metadata={**keep, "option_seed": meta["option_seed"], "task_name": meta["task_name"]})


def _task(name: str) -> Task:
    meta = TASKS[name]
    with open(HERE / f"{name}.jsonl", encoding="utf-8") as handle:
        samples = [_sample(json.loads(line), meta) for line in handle if line.strip()]
    return Task(name=name, dataset=MemoryDataset(samples, name=name), solver=generate(),
                scorer=pattern(SCORERS[meta["task"]]), metadata={"buzzprobe": meta},
                config=GenerateConfig(temperature=0.0, max_tokens=meta["max_tokens"]))
'''
