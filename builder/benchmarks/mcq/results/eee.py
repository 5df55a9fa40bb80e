"""`buzzprobe export eee RUN --out DIR`: a run of a spec'd benchmark as Every Eval Ever files.

Every Eval Ever (evaleval/every_eval_ever, `every-eval-ever` on PyPI) keeps one aggregate log
per model and evaluation, `data/<benchmark>/<developer>/<model>/<uuid>.json`, and an
instance-level sidecar `<uuid>_samples.jsonl` beside it; its validator checks both, their
paths and that they agree (evaluation id, model id, row count, checksum). The uuid is derived
from the run id and data hash, so exporting a run again writes the same files. The instances
carry the benchmark's question and options (the user's own data): like the other exports, the
folder must be outside the repository.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.gold import gold_letters
from builder.benchmarks.mcq.report import Loaded
from builder.core.names import slug
from builder.runs.schema import Run

SCHEMA_VERSION = "0.3.0"  # the every-eval-ever schema these files are written for (and tested with)


def eval_uuid(run: Run) -> str:
    digest = hashlib.sha256(f"{run.header.run_id}\0{run.header.dataset.get('content_sha256')}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _accuracy(gold: list[str], pred: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)


def instances(run: Run, loaded: Loaded, evaluation_id: str, model_id: str) -> list[dict[str, Any]]:
    """One instance line per answered item: the question and options as the data has them, the
    strict letter as the terminal extracted answer, scored 1 or 0 against the run's gold."""
    items = sorted(run.items, key=lambda i: i.row_id)
    gold, _ = gold_letters(run, loaded)
    lines = []
    for item, answer in zip(items, gold):
        known = loaded.data.items[item.row_id]
        order = sorted(item.letter_map, key=LETTERS.index)
        choices = [known.choices[item.letter_map[letter]] if item.letter_map[letter] < len(known.choices) else ""
                   for letter in order]  # in the order shown, under letters A, B, ...
        correct = item.prediction == answer
        metadata = {k: str(v) for k, v in (("row_id", item.row_id), ("response_sha256", item.response_sha256),
                                            ("response_chars", item.response_chars),
                                            ("official_letter", item.official)) if v is not None}
        lines.append({
            "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": model_id,
            "evaluation_name": run.header.benchmark, "sample_id": item.id, "interaction_type": "single_turn",
            "input": {"raw": known.stem, "reference": [answer], "choices": choices},
            # an imported run keeps a hash of the response, not its text: no response is given
            "output": {"raw": [item.response] if item.response is not None else []},
            "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": item.prediction,
                                    "extraction_method": _method(run), "is_terminal": True}],
            "evaluation": {"score": 1.0 if correct else 0.0, "is_correct": correct},
            "metadata": metadata})
    return lines


def _method(run: Run) -> str:
    source = run.header.source if isinstance(run.header.source, dict) else {}
    return {"upstream": "regex (the upstream scorer's three patterns)", "given": "as published"}.get(
        str(source.get("scoring")), "regex (buzzprobe letter parser)")


def aggregate(run: Run, loaded: Loaded, repo_path: str, samples: bytes, rows: int, developer: str) -> dict[str, Any]:
    h = run.header
    gold, strict = gold_letters(run, loaded)
    official = [i.scored for i in sorted(run.items, key=lambda i: i.row_id)]
    source = h.source if isinstance(h.source, dict) else {}
    results = [_result(h.benchmark, "accuracy", "strict: an unparsed answer is wrong", _accuracy(gold, strict), run, loaded)]
    if source.get("scoring") == "upstream":
        results.append(_result(h.benchmark, "accuracy_official", "as the upstream scores it: an unparsed answer gets "
                               "its seeded random letter", _accuracy(gold, official), run, loaded))
    details = {k: str(v) for k, v in (("run_id", h.run_id), ("condition", h.condition), ("repo", source.get("repo")),
                                       ("commit", source.get("commit")), ("file", source.get("file")),
                                       ("file_sha256", source.get("sha256"))) if v is not None}
    return {
        "schema_version": SCHEMA_VERSION, "evaluation_id": f"{h.benchmark}/{slug(h.subject_name)}/{eval_uuid(run)}",
        "retrieved_timestamp": h.created,
        "source_metadata": {"source_name": f"buzzprobe run {h.run_id}", "source_type": "evaluation_run",
                            "source_organization_name": str(source.get("repo") or "buzzprobe"),
                            "evaluator_relationship": "third_party", "additional_details": details},
        "eval_library": {"name": "buzzprobe", "version": str(h.tool.get("version", ""))},
        "model_info": {"name": h.subject_name, "id": slug(h.subject_name), "developer": developer,
                       "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"}},
        "evaluation_results": results,
        "detailed_evaluation_results": {"format": "jsonl", "file_path": repo_path, "hash_algorithm": "sha256",
                                        "checksum": hashlib.sha256(samples).hexdigest(), "total_rows": rows}}


def _result(bench: str, metric: str, how: str, score: float, run: Run, loaded: Loaded) -> dict[str, Any]:
    return {"evaluation_name": bench,
            "source_data": {"dataset_name": loaded.benchmark.spec.title, "source_type": "other",
                            "additional_details": {"content_sha256": loaded.benchmark.content_sha256,
                                                   "items": f"{len(run.items)} of {run.header.items.get('n')}"}},
            "metric_config": {"evaluation_description": how, "metric_id": metric, "metric_name": metric,
                              "metric_kind": "accuracy", "metric_unit": "proportion", "lower_is_better": False,
                              "score_type": "continuous", "min_score": 0.0, "max_score": 1.0},
            "score_details": {"score": score}}


def export_eee(run: Run, loaded: Loaded, out: Path, developer: str = "unknown") -> tuple[Path, Path]:
    """Write the aggregate and its sidecar under `out/data/...`; returns both paths."""
    folder = f"data/{slug(run.header.benchmark)}/{slug(developer) or 'unknown'}/{slug(run.header.subject_name)}"
    name = eval_uuid(run)
    samples_rel = f"{folder}/{name}_samples.jsonl"
    aggregate_data = {"evaluation_id": f"{run.header.benchmark}/{slug(run.header.subject_name)}/{name}"}
    lines = instances(run, loaded, aggregate_data["evaluation_id"], slug(run.header.subject_name))
    samples = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines).encode()
    log = aggregate(run, loaded, samples_rel, samples, len(lines), developer)
    target = out / folder
    target.mkdir(parents=True, exist_ok=True)
    (target / f"{name}_samples.jsonl").write_bytes(samples)
    (target / f"{name}.json").write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return target / f"{name}.json", target / f"{name}_samples.jsonl"
