"""Read lm-evaluation-harness `--log_samples` output: `samples_<task>_<timestamp>.jsonl` plus the
`results_<timestamp>.json` written beside it (which holds the task config and the model).

Only the documented JSON is read, so lm-eval need not be installed to import. Each samples
line has `doc` (the exported item: row_id, letter_map, target), `arguments` (the context as
sent: with --apply_chat_template a JSON list of chat messages, and the generation kwargs) and
`resps` (the raw generations).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.interop.harness import HarnessOutput, HarnessSample, host_of
from builder.core.build_date import utc_stamp
from builder.core.textfiles import decode_utf8, numbered_lines, read_input
from builder.runs.lines import MAX_DOCUMENT_DEPTH, LineError, load_document, load_line

_YEAR_10000 = 253402300800  # Unix seconds; datetime ends at 9999-12-31
_SAMPLES = re.compile(r"samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT[0-9.\-]+)\.jsonl")


def find_samples(path: Path) -> list[Path]:
    """The samples files named by PATH: the file itself, or every one under a folder."""
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(path.rglob("samples_*.jsonl"))
        if found:
            return found
        raise InputError.single(path, "no samples_*.jsonl under this folder (run lm-eval with --log_samples)")
    raise InputError.single(path, "no such file or folder")


def read_lm_eval(samples_path: Path) -> HarnessOutput:
    """One task's output; InputError (located) when a file is missing or malformed."""
    match = _SAMPLES.fullmatch(samples_path.name)
    if match is None:
        raise InputError.single(samples_path, "not an lm-eval samples file (expected samples_<task>_<timestamp>.jsonl)")
    task_name = match.group("task")
    results_path = samples_path.with_name(f"results_{match.group('stamp')}.json")
    results = _read_json(results_path, "the results JSON lm-eval writes beside the samples file")
    configs = results.get("configs")
    config = configs.get(task_name) if isinstance(configs, dict) else None
    if not isinstance(config, dict):
        raise InputError.single(results_path, f"unknown task {task_name!r}: no config for it in the results JSON",
                                field="configs")
    run_config = results.get("config")
    model_args = _model_args(run_config.get("model_args") if isinstance(run_config, dict) else None)
    samples, first_kwargs = _read_samples(samples_path)
    kwargs = first_kwargs or config.get("generation_kwargs") or {}
    kwargs = kwargs if isinstance(kwargs, dict) else {}
    return HarnessOutput(
        path=samples_path, harness="lm-eval", source=f"lm-eval {str(results.get('lm_eval_version', '?'))[:40]} --log_samples",
        task_name=task_name, metadata=_meta(config.get("metadata")),
        model=str(model_args.get("model") or model_args.get("pretrained") or results.get("model_name") or "model"),
        temperature=_number(kwargs.get("temperature")), top_p=_number(kwargs.get("top_p")),
        max_tokens=_integer(kwargs.get("max_tokens", kwargs.get("max_gen_toks"))),
        endpoint_host=host_of(model_args.get("base_url")), samples=samples,
        created=_stamp(results.get("date")))


def _stamp(epoch: Any) -> str | None:
    """lm-eval's `date` is the run's start as Unix seconds; one no calendar holds (1e20, NaN,
    negative) is no date at all, so the import's own time is used instead."""
    if not isinstance(epoch, (int, float)) or isinstance(epoch, bool) or not 0 <= epoch < _YEAR_10000:
        return None
    return utc_stamp(datetime.fromtimestamp(epoch, tz=timezone.utc))


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = load_document(path, read_input(path))
    except FileNotFoundError:
        raise InputError.single(path, f"missing: {what}") from None
    except OSError as exc:
        raise InputError.single(path, f"cannot read {what}: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise InputError.single(path, "expected a JSON object", line=1)
    return data


def _meta(value: Any) -> Any:
    return value.get("buzzprobe") if isinstance(value, dict) else None


def _model_args(value: Any) -> dict[str, Any]:
    """model_args as lm-eval records them: a dict, or the command line's "k=v,k=v" string."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return dict(part.split("=", 1) for part in value.split(",") if "=" in part)
    return {}


def _read_samples(path: Path) -> tuple[list[HarnessSample], dict[str, Any] | None]:
    samples, problems, kwargs = [], [], None
    try:
        lines = numbered_lines(path, decode_utf8(path, read_input(path)))
    except OSError as exc:
        raise InputError.single(path, f"cannot read samples: {exc.strerror or exc}") from None
    for number, text in lines:
        try:
            record = load_document(path, text, number)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        doc = record.get("doc") if isinstance(record, dict) else None
        if not isinstance(doc, dict):
            problems.append(Problem(str(path), "expected an object with a 'doc' object", number, "doc"))
            continue
        context, gen_kwargs = _arguments(record.get("arguments"))
        kwargs = kwargs if kwargs is not None else gen_kwargs
        response = _first_response(record.get("resps"))
        samples.append(HarnessSample(
            row_id=doc.get("row_id"), letter_map=doc.get("letter_map"), target=doc.get("target"),
            messages=_messages(context), response=response, line=number, where="doc.",
            prompt_field="arguments.gen_args_0.arg_0", raw=record,
            error=None if response is not None else "lm-eval recorded no response"))
    if problems:
        raise InputError(problems)
    if not samples:
        raise InputError.single(path, "samples file has no samples", line=1)
    return samples, kwargs


def _arguments(value: Any) -> tuple[Any, dict[str, Any] | None]:
    """(context, generation kwargs) of the first request; lm-eval writes {"gen_args_0": {"arg_0":
    ctx, "arg_1": kwargs}} (older releases a list of [ctx, kwargs])."""
    if isinstance(value, dict) and value:
        first = next(iter(value.values()))
        if isinstance(first, dict):
            kwargs = first.get("arg_1")
            return first.get("arg_0"), kwargs if isinstance(kwargs, dict) else None
    if isinstance(value, list) and value and isinstance(value[0], list) and len(value[0]) >= 2:
        kwargs = value[0][1]
        return value[0][0], kwargs if isinstance(kwargs, dict) else None
    return None, None


def _messages(context: Any) -> list[dict[str, Any]] | None:
    """The chat messages sent; a plain-text context (no chat template) is one pseudo-message, so
    it is reported as a prompt that differs from the protocol."""
    if isinstance(context, list) and len(context) == 1:
        context = context[0]
    if not isinstance(context, str):
        return None
    try:
        parsed = load_line(context, MAX_DOCUMENT_DEPTH)
    except LineError:
        return [{"role": "text", "content": context}]
    if isinstance(parsed, list) and all(isinstance(m, dict) for m in parsed):
        return [{"role": m.get("role"), "content": m.get("content")} for m in parsed]
    return [{"role": "text", "content": context}]


def _first_response(resps: Any) -> str | None:
    while isinstance(resps, list) and resps:
        resps = resps[0]
    return resps if isinstance(resps, str) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _integer(value: Any) -> int | None:
    return value if type(value) is int else None
