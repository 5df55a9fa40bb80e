"""`buzzprobe import eee PATH`: an Every Eval Ever export of buzzprobe's back into the very run.
A command's work, so it lives on the CLI side beside builder/eee_export.py: it joins the registry (the
owning plug-in's mapping) to the run reader and writer, which name no plug-in.

`export eee` writes the run's header, footer and item order into the aggregate
(`source_metadata.additional_details.buzzprobe_run`) and each item's run line into its instance
(`metadata.buzzprobe_item`), so nothing Every Eval Ever's own fields cannot hold is lost: the
condition, the letter map, the option seed, the settings. The import rebuilds the run from them,
reads it as any run file is read, and then checks that the files agree with it: the sidecar's
checksum and row count, and every instance and score as the owning plug-in maps the rebuilt run
(`Benchmark.eee_evaluation`, which also checks it against the data). An edited answer, score or
condition is a located error; nothing is written unless all is clean. An Every Eval Ever file
from elsewhere is not a buzzprobe export: `import results FILE --benchmark NAME --format eee`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem, gather
from builder.core.textfiles import decode_utf8, numbered_lines, read_input
from builder.runs.eee import RUN_HEADER, RUN_ITEM, Evaluation
from builder.runs.lines import load_document
from builder.runs.schema import Run
from builder.runs.reader import read_run
from builder.runs.writer import dump_line
from builder.benchmarks import run_owner
from builder.benchmarks.base import BuildSettings
from builder.interop.harness import imported_path
from builder.runs.overwrite import write_checked

DEFAULT_OUT = "runs/{model_slug}"


def find_aggregates(path: Path) -> list[Path]:
    """The aggregate logs PATH names: the file, or every `<uuid>.json` under a folder."""
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.json") if p.is_file())
        if found:
            return found
        raise InputError.single(path, "no Every Eval Ever aggregate (.json) under this folder")
    raise InputError.single(path, "no such file or folder")


def read_export(aggregate: Path) -> Run:
    """The run an aggregate and its sidecar carry, checked against both files and the data."""
    log = _json_object(aggregate)
    details = _dict(_dict(log.get("source_metadata")).get("additional_details"))
    carried = details.get(RUN_HEADER)
    if not isinstance(carried, str):
        raise InputError.single(aggregate, "not an export of `buzzprobe export eee` (no source_metadata."
                                f"additional_details.{RUN_HEADER}); import another Every Eval Ever file with "
                                "`buzzprobe import results FILE --benchmark NAME --format eee`",
                                field=f"source_metadata.additional_details.{RUN_HEADER}")
    run_info = _dict(load_document(f"{aggregate} [{RUN_HEADER}]", carried))
    header = _dict(run_info.get("header"))
    where = "source_metadata.additional_details"
    for key in ("run_id", "condition"):
        if details.get(key) != header.get(key):
            raise InputError.single(aggregate, f"{key} {str(details.get(key))[:80]!r} is not the carried run's "
                                    f"{str(header.get(key))[:80]!r} (edited after export?)", field=f"{where}.{key}")
    samples, lines = _sidecar(aggregate, log)
    run = _rebuild(aggregate, header, run_info, samples, lines)
    _check_agreement(aggregate, log, samples, lines, run)
    return run


def _json_object(path: Path) -> dict[str, Any]:
    try:
        data = load_document(path, read_input(path))
    except OSError as exc:
        raise InputError.single(path, f"cannot read the aggregate: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise InputError.single(path, "expected a JSON object (an Every Eval Ever aggregate log)", line=1)
    return data


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _sidecar(aggregate: Path, log: dict[str, Any]) -> tuple[Path, list[tuple[int, dict[str, Any]]]]:
    """The instance file beside the aggregate, checked against the checksum and row count it states."""
    detailed = _dict(log.get("detailed_evaluation_results"))
    name = Path(str(detailed.get("file_path") or "")).name
    if not name:
        raise InputError.single(aggregate, "names no instance file", field="detailed_evaluation_results.file_path")
    path = aggregate.with_name(name)
    try:
        raw = read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read the instance file the aggregate names: {exc.strerror or exc}") \
            from None
    if hashlib.sha256(raw).hexdigest() != detailed.get("checksum"):
        raise InputError.single(path, "its sha256 is not the checksum the aggregate states (edited after export?)",
                                field="detailed_evaluation_results.checksum")
    lines = []
    for number, text in numbered_lines(path, decode_utf8(path, raw)):
        line = load_document(path, text, number)
        if not isinstance(line, dict):
            raise InputError.single(path, "expected an instance object", line=number)
        lines.append((number, line))
    if len(lines) != detailed.get("total_rows"):
        raise InputError.single(aggregate, f"states {detailed.get('total_rows')!r} rows, the instance file has "
                                f"{len(lines)}", field="detailed_evaluation_results.total_rows")
    return path, lines


def _rebuild(aggregate: Path, header: dict[str, Any], run_info: dict[str, Any], samples: Path,
             lines: list[tuple[int, dict[str, Any]]]) -> Run:
    """The run file the export came from, read by the run reader (its every check)."""
    items: dict[int, str] = {}
    problems = []
    for number, line in lines:
        carried = _dict(line.get("metadata")).get(RUN_ITEM)
        record = load_document(f"{samples}:{number}", carried) if isinstance(carried, str) else None
        if not isinstance(record, dict) or type(record.get("row_id")) is not int:
            problems.append(Problem(str(samples), "carries no run line", number, f"metadata.{RUN_ITEM}"))
            continue
        items[record["row_id"]] = dump_line(record)
    if problems:
        raise InputError(problems)
    order = run_info.get("order")
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(map(str, items)):
        raise InputError.single(aggregate, "the carried item order does not name the instances' items",
                                field=f"source_metadata.additional_details.{RUN_HEADER}")
    footer = run_info.get("footer")
    text = dump_line(header) + "".join(items[row_id] for row_id in order) + \
        (dump_line(footer) if isinstance(footer, dict) else "")
    return read_run(aggregate, text.encode("utf-8"))


def _check_agreement(aggregate: Path, log: dict[str, Any], samples: Path, lines: list[tuple[int, dict[str, Any]]],
                     run: Run) -> None:
    """Every instance and score as the owning plug-in maps the rebuilt run: what the files say
    is what the run gives, so neither can be edited apart from the other."""
    owner = run_owner(run.header.benchmark, run.header.task)
    if owner is None:  # the reader refuses such a run already
        raise InputError.single(aggregate, f"no benchmark reads runs of {run.header.benchmark!r}")
    evaluation = owner.eee_evaluation(run, BuildSettings(Path("content"), Path(".cache")))
    problems = _instance_problems(samples, lines, evaluation) + _score_problems(aggregate, log, evaluation)
    if problems:
        raise InputError(problems)


def _instance_problems(samples: Path, lines: list[tuple[int, dict[str, Any]]], evaluation: Evaluation) -> list[Problem]:
    expected = {one.sample_id: one for one in evaluation.instances}
    problems = []
    for number, line in lines:
        one = expected.get(str(line.get("sample_id")))
        attribution = line.get("answer_attribution")
        given = attribution[0] if isinstance(attribution, list) and attribution and \
            isinstance(attribution[0], dict) else {}
        found = {"sample_id": str(line.get("sample_id")), "input.reference": _dict(line.get("input")).get("reference"),
                 "answer_attribution.extracted_value": given.get("extracted_value"),
                 "evaluation.is_correct": _dict(line.get("evaluation")).get("is_correct")}
        wanted = {"sample_id": one.sample_id, "input.reference": [one.reference],
                  "answer_attribution.extracted_value": one.prediction,
                  "evaluation.is_correct": one.correct} if one is not None else {}
        for key, value in found.items():
            if value != wanted.get(key):
                problems.append(Problem(str(samples), f"{str(value)[:80]!r} is not what the carried run gives "
                                        f"({str(wanted.get(key))[:80]!r}): edited after export?", number, key))
                break
    return problems


def _score_problems(aggregate: Path, log: dict[str, Any], evaluation: Evaluation) -> list[Problem]:
    results = log.get("evaluation_results")
    found = {str(_dict(r.get("metric_config")).get("metric_id")): _dict(r.get("score_details")).get("score")
             for r in results if isinstance(r, dict)} if isinstance(results, list) else {}
    return [Problem(str(aggregate), f"score {found.get(m.metric_id)!r} is not the carried run's {m.score!r} "
                    "(edited after export?)", field=f"evaluation_results[{m.metric_id}].score_details.score")
            for m in evaluation.metrics if found.get(m.metric_id) != m.score]


def run_eee_import(path: Path, out: str | None, force: bool) -> list[str]:
    """Every export under PATH -> its run, written where a probe of the model writes it; the
    lines to print. Nothing is written unless every file is clean."""
    runs = gather(find_aggregates(path), read_export)  # every bad file named at once
    results = write_checked([(imported_path(run, out or DEFAULT_OUT), run) for run in runs], force=force)
    return [f"{'wrote' if changed else 'unchanged'} {written} ({run.header.condition}, {len(run.items)} items)"
            for run, (written, changed) in zip(runs, results, strict=True)]
