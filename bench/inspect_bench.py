"""The peer in the cold-build budget: `inspect view bundle` of the 29 imported MMLU-Pro runs.

Each committed MMLU-Pro run (runs/mmlu-pro/) becomes one Inspect log written by inspect-ai's
own log API (`write_eval_log`): one sample per answered question with the question and its
lettered options as input, the gold letter as target, the run's letter as output and a C/I score,
and the run's accuracy as the log's result. The questions come from the spec's data file
(BUZZPROBE_DATA_MMLU_PRO or data/mmlu-pro/). Then `inspect view bundle` (the viewer and the logs
as a static site, Inspect's counterpart of a buzzprobe build) is timed, with its peak memory, as a
child process, for both of Inspect's log formats: .eval (Inspect's default since 0.3.46: a zip the
bundle mostly copies) and .json (the older format, the same logs converted with `read_eval_log` /
`write_eval_log(format="json")`, kept in a sibling folder `<logs>-json`).

Usage: python bench/inspect_bench.py [--repeat 3] [--json OUT]   (needs inspect-ai installed)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from scale_bench import child_env, run_child, summary  # noqa: E402

RUNS = REPO / "runs" / "mmlu-pro"
DATA_MEMBER = "outputs/model_outputs_jamba-1.5-large_5shots.zip"  # the spec's dataset_path
LETTERS = "ABCDEFGHIJKLMNOP"


def questions() -> dict[str, dict[str, Any]]:
    """question_id -> the MMLU-Pro record (question, options, answer_index), from the spec's data."""
    folder = Path(os.environ.get("BUZZPROBE_DATA_MMLU_PRO") or REPO / "data" / "mmlu-pro")
    with zipfile.ZipFile(folder / DATA_MEMBER) as archive:
        records = json.loads(archive.read(archive.namelist()[0]))
    return {str(r["question_id"]): r for r in records}


def run_lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def to_log(path: Path, data: dict[str, dict[str, Any]], out: Path) -> None:
    """One run as an Inspect log, written with inspect-ai's API."""
    from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalSample,
                                EvalScore, EvalSpec, write_eval_log)
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score
    lines = run_lines(path)
    header = next(lines)
    samples = []
    for item in lines:
        record = data.get(str(item.get("id")))
        if item.get("type") != "item" or record is None:
            continue
        gold, answer = LETTERS[int(record["answer_index"])], item.get("prediction") or ""
        options = "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(record["options"]))
        samples.append(EvalSample(
            id=str(item["id"]), epoch=1, input=f"{record['question']}\n\n{options}", choices=list(record["options"]),
            target=gold, output=ModelOutput.from_content(model=header["subject"]["name"], content=answer),
            scores={"choice": Score(value="C" if answer == gold else "I", answer=answer)}))
    accuracy = sum(s.scores["choice"].value == "C" for s in samples) / max(len(samples), 1)  # type: ignore[index]
    log = EvalLog(status="success", eval=EvalSpec(
        created=header["created"], task="mmlu_pro", model=header["subject"]["name"],
        dataset=EvalDataset(name="MMLU-Pro", samples=len(samples)), config=EvalConfig()),
        results=EvalResults(total_samples=len(samples), completed_samples=len(samples), scores=[EvalScore(
            name="choice", scorer="choice", metrics={"accuracy": EvalMetric(name="accuracy", value=accuracy)})]),
        samples=samples)
    write_eval_log(log, str(out / f"{header['run_id']}.eval"))


FORMATS = ("eval", "json")  # Inspect's default first


def log_dir(logs: Path, fmt: str) -> Path:
    """The folder holding the logs of one format (the bundle reads its folder recursively)."""
    return logs if fmt == "eval" else logs.with_name(f"{logs.name}-{fmt}")


def bundle(logs: Path, out: Path) -> tuple[float, int]:
    """Seconds and peak RSS of `inspect view bundle` (a fresh output folder each time)."""
    shutil.rmtree(out, ignore_errors=True)
    inspect = Path(sys.executable).parent / "inspect"
    return run_child([str(inspect), "view", "bundle", "--log-dir", str(logs), "--output-dir", str(out)], child_env())


def convert(logs: Path, workers: int = 2) -> None:
    """Every MMLU-Pro run as a log in `logs`, skipping those already there (converting is slow,
    about a minute per run on a loaded machine: pydantic objects for 12,000 samples, so keep the
    folder between benches with --logs). Written to a temporary name first: a killed conversion
    leaves no half log."""
    from concurrent.futures import ProcessPoolExecutor
    logs.mkdir(parents=True, exist_ok=True)
    todo = [p for p in sorted(RUNS.glob("*.jsonl.gz"))
            if not (logs / (p.name.removesuffix(".jsonl.gz") + ".eval")).exists()]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(_convert_one, todo, [logs] * len(todo)))
        json_dir = log_dir(logs, "json")
        json_dir.mkdir(exist_ok=True)
        todo_json = [p for p in sorted(logs.glob("*.eval")) if not list(json_dir.glob(f"*_{p.stem}.json"))]
        list(pool.map(_to_json, todo_json, [json_dir] * len(todo_json)))
    shutil.rmtree(logs / ".staging", ignore_errors=True)  # the bundle reads the folder recursively


def _to_json(path: Path, out: Path) -> None:
    """One .eval log as a .json log, by inspect-ai's own API (a temporary name first), named as
    Inspect names its logs: a .json file is listed only when its name starts with a timestamp."""
    from inspect_ai.log import read_eval_log, write_eval_log
    log = read_eval_log(str(path))
    staging = out / f".{path.stem}.json.part"
    write_eval_log(log, str(staging), format="json")
    staging.replace(out / json_name(log.eval.created, path.stem))


def json_name(created: str, stem: str) -> str:
    """`<created as YYYY-MM-DDTHH-MM-SS>_<stem>.json`, Inspect's own log naming."""
    return f"{created[:19].replace(':', '-')}_{stem}.json"


def _convert_one(path: Path, logs: Path) -> None:
    staging = logs / ".staging"
    staging.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=staging) as tmp:
        to_log(path, questions(), Path(tmp))
        for done in Path(tmp).glob("*.eval"):
            done.replace(logs / done.name)


def measure(repeat: int, logs: Path) -> dict[str, object]:
    """Convert what `logs` lacks, then bundle each format `repeat` times, interleaved."""
    convert(logs)
    seconds: dict[str, list[float]] = {fmt: [] for fmt in FORMATS}
    peaks: dict[str, list[int]] = {fmt: [] for fmt in FORMATS}
    with tempfile.TemporaryDirectory(prefix="buzzprobe-inspect-") as tmp:
        for _ in range(repeat):
            for fmt in FORMATS:
                wall, peak = bundle(log_dir(logs, fmt), Path(tmp) / "bundle")
                seconds[fmt].append(wall)
                peaks[fmt].append(peak)
    report: dict[str, object] = {"default_format": "eval"}
    for fmt in FORMATS:
        files = list(log_dir(logs, fmt).glob(f"*.{fmt}"))
        report[fmt] = {"logs": len(files), "log_mb": round(sum(p.stat().st_size for p in files) / 2**20, 1),
                       "inspect_bundle_s": summary(seconds[fmt]),
                       "inspect_bundle_peak_rss_mb": round(max(peaks[fmt]) / 2**20)}
    report["load_average_1m_after"] = round(os.getloadavg()[0], 2)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--logs", type=Path, help="keep the converted logs here (reused by later runs)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="buzzprobe-inspect-logs-") as tmp:
        report = measure(args.repeat, args.logs or Path(tmp))
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
