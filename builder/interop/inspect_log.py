"""Read an Inspect eval log (`.eval` or `.json`) as a HarnessOutput.

With inspect_ai installed the log is read by its own API (`read_eval_log`) and dumped to the
documented JSON shape; without it, `.json` logs are that JSON already and `.eval` logs are a zip
of `header.json` (eval, plan, results) and `samples/<id>_epoch_<n>.json`. One path then
reads both, so the two ways cannot disagree.
"""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.interop.harness import HarnessOutput, HarnessSample, host_of
from builder.core.build_date import utc_stamp
from builder.core.archives import open_zip, read_member
from builder.core.textfiles import MAX_ARCHIVE_BYTES, MAX_MEMBER_BYTES, MAX_MEMBERS, read_input
from builder.runs.lines import load_document

# Inspect's usage names -> the OpenAI names `buzzprobe probe` records, so totals compare.
ATTACHMENT = "attachment://"
USAGE_NAMES = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens", "total_tokens": "total_tokens"}


def read_inspect(path: Path, *, use_library: bool = True) -> HarnessOutput:
    data = _load(path, use_library)
    spec = data.get("eval")
    if not isinstance(spec, dict) or not isinstance(spec.get("task"), str):
        raise InputError.single(path, "not an Inspect eval log (no eval.task)", field="eval")
    samples = data.get("samples") or []
    if not isinstance(samples, list) or not samples:
        raise InputError.single(path, f"the log has no samples (status {str(data.get('status'))[:40]!r})",
                                field="samples")
    odd = [n for n, s in enumerate(samples, start=1) if not isinstance(s, dict)]
    if odd:
        raise InputError.single(path, f"sample {odd[0]} is a {type(samples[odd[0] - 1]).__name__}, not an object "
                                f"({len(odd)} such)", field="samples")
    logged = [s.get("epoch", 1) for s in samples]
    epochs = sorted(set(logged)) if all(type(e) is int for e in logged) else sorted({repr(e)[:20] for e in logged})
    if epochs != [1]:
        raise InputError.single(path, f"the log has epochs {epochs}; the protocol asks each item once "
                                "(run with --epochs 1)", field="samples.epoch")
    config = _generate_config(data)
    return HarnessOutput(
        path=path, harness="inspect", source=f"inspect_ai {str(_dict(spec.get('packages')).get('inspect_ai', '?'))[:40]} log",
        task_name=spec["task"].rsplit("/", 1)[-1], metadata=_dict(spec.get("metadata")).get("buzzprobe"),
        model=_model_name(str(spec.get("model", ""))), temperature=config.get("temperature"),
        top_p=config.get("top_p"), max_tokens=config.get("max_tokens"),
        endpoint_host=host_of(spec.get("model_base_url")),
        samples=[_sample(s) for s in samples], created=_stamp(spec.get("created")))


def find_logs(path: Path) -> list[Path]:
    """The logs named by LOG: the file itself, or every .eval/.json log in a folder."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json") and p.is_file())
        if not found:
            raise InputError.single(path, "no .eval or .json logs in this folder")
        return found
    return [path]


def _stamp(value: Any) -> str | None:
    try:
        return utc_stamp(datetime.fromisoformat(str(value)[:64]))
    except (ValueError, OverflowError):
        return None


def _load(path: Path, use_library: bool) -> dict[str, Any]:
    if not path.is_file():
        raise InputError.single(path, "no such log file")
    if path.suffix not in (".eval", ".json"):
        raise InputError.single(path, "expected an Inspect log (.eval or .json)")
    if path.suffix == ".eval":
        _check_members(path)  # before anything inflates them, the library included
    if use_library:
        try:
            # deferred: optional (the interop extra) and heavy
            from inspect_ai.log import read_eval_log
        except ImportError:
            pass
        else:
            try:
                log = read_eval_log(str(path))
            except Exception as exc:  # the library's own parse errors, shown without a traceback
                raise InputError.single(path, f"Inspect cannot read this log: {exc}") from None
            return log.model_dump(mode="json", exclude={"samples": {"__all__": {"events", "timelines"}}})
    return _read_documented(path)


def _read_documented(path: Path) -> dict[str, Any]:
    try:
        raw = read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read Inspect log: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        return _object(path, load_document(path, raw))
    with open_zip(path, raw) as archive:
        infos = {i.filename: i for i in archive.infolist()}
        if "header.json" not in infos:
            raise InputError.single(path, "cannot read Inspect log: it has no header.json")
        data = _object(path, load_document(f"{path}:header.json", _member(path, archive, infos["header.json"])))
        names = sorted(n for n in infos if n.startswith("samples/") and n.endswith(".json"))
        data["samples"] = [load_document(f"{path}:{n}", _member(path, archive, infos[n])) for n in names]
        return data


def _check_members(path: Path) -> None:
    """A zip states each member's size; refuse one too big (or too many) before inflating. A
    member that lies about its size is caught while streaming (_member)."""
    try:
        raw = read_input(path)
    except OSError as exc:
        raise InputError.single(path, f"cannot read Inspect log: {exc.strerror or exc}") from None
    with open_zip(path, raw) as archive:
        infos = archive.infolist()
    big = next((i for i in infos if i.file_size > MAX_MEMBER_BYTES), None)
    total = sum(i.file_size for i in infos)
    if big is not None or total > MAX_ARCHIVE_BYTES:
        what = f"member {big.filename[:80]!r} inflates to {big.file_size:,} bytes" if big else \
            f"{len(infos):,} members inflating to {total:,} bytes"
        raise InputError.single(path, f"refused: {what} (limits: {MAX_MEMBER_BYTES:,} bytes a member, "
                                f"{MAX_ARCHIVE_BYTES:,} in all, {MAX_MEMBERS:,} members)")


def _member(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One member, read with a cap whatever its header claims; zstd members (which stdlib
    zipfile reads from Python 3.14 on) are refused with what to do instead."""
    if info.compress_type == _ZSTD:
        raise InputError.single(path, "this .eval log (Inspect's default format) is compressed with zstd, which "
                                "Python's zipfile reads only from 3.14 on: install inspect_ai into this environment "
                                "(pip install 'buzzprobe[interop]', or pip install inspect-ai) so its own log reader "
                                "reads it, or convert the log where Inspect is installed: `inspect log convert --to "
                                f"json --output-dir DIR {path.name}`, then import DIR/{path.stem}.json")
    return read_member(f"{path}:{info.filename}", archive, info, limit=MAX_MEMBER_BYTES)


_ZSTD = 93  # Zstandard's zip method number


def _object(path: Path, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError.single(path, "expected a JSON object")
    return value


def _generate_config(data: dict[str, Any]) -> dict[str, Any]:
    """The task's generate config, overridden by what the command line set for the model."""
    plan = _dict(_dict(data.get("plan")).get("config"))
    model = _dict(_dict(data.get("eval")).get("model_generate_config"))
    return {k: v for k, v in {**plan, **{k: v for k, v in model.items() if v is not None}}.items() if v is not None}


def _model_name(model: str) -> str:
    """`openai-api/<service>/<model>` -> model; `<provider>/<model>` -> model."""
    parts = model.split("/")
    keep = parts[2:] if parts[0] == "openai-api" and len(parts) > 2 else parts[1:] or parts
    return "/".join(keep)


def _sample(s: dict[str, Any]) -> HarnessSample:
    """A sample's fields, any of which may be missing or of the wrong type in a hostile log
    (a wrong type reads as absent; the checks that follow then say what is missing)."""
    attachments = _dict(s.get("attachments"))
    meta, output = _dict(s.get("metadata")), _dict(s.get("output"))
    error = s.get("error")
    usage = {USAGE_NAMES[k]: v for k, v in _dict(output.get("usage")).items() if k in USAGE_NAMES and type(v) is int}
    latency = output.get("time")
    return HarnessSample(
        row_id=meta.get("row_id", s.get("id")), letter_map=meta.get("letter_map"), target=s.get("target"),
        messages=_messages(s.get("input"), attachments),
        response=None if error else _resolve(str(output.get("completion") or ""), attachments),
        error=_error_text(error.get("message") if isinstance(error, dict) else error) if error else None,
        where=f"sample {str(s.get('id'))[:40]}: ", prompt_field=f"sample {str(s.get('id'))[:40]}: input",
        latency_ms=float(latency) * 1000.0 if isinstance(latency, (int, float)) and not isinstance(latency, bool)
        else None, usage=usage or None, raw=s)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_text(message: Any) -> str:
    """The error's type and its cause: Inspect's message quotes the whole request (the prompt, so
    dataset text) between the two, which must not reach a run file."""
    text = str(message)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]  # not JSON Lines: a message
    if len(lines) < 2:
        return text
    kind, cause = lines[0].split("(", 1)[0], lines[-1].removesuffix("')")
    return f"{kind}: {cause}" if kind else cause


def _messages(value: Any, attachments: dict[str, str]) -> list[dict[str, Any]] | None:
    if isinstance(value, str):
        return [{"role": "user", "content": _resolve(value, attachments)}]
    if not isinstance(value, list):
        return None
    return [{"role": m.get("role"), "content": _text(m.get("content"), attachments)}
            for m in value if isinstance(m, dict)]


def _text(content: Any, attachments: dict[str, str]) -> Any:
    if isinstance(content, list):
        content = "".join(text for part in content if isinstance(part, dict)
                          and isinstance(text := part.get("text", ""), str))
    return _resolve(content, attachments) if isinstance(content, str) else content


def _resolve(text: str, attachments: dict[str, str]) -> str:
    """Inspect may store repeated content once, as `attachment://<id>` plus the sample's attachments."""
    if text.startswith(ATTACHMENT):
        found = attachments.get(text[len(ATTACHMENT):], text)
        return found if isinstance(found, str) else text
    return text
