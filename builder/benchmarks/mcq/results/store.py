"""Writing an imported run: never over a different run unless asked, and saying what differs."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from builder.core.errors import InputError
from builder.core.names import confined
from builder.runs.files import COMPRESSED_SUFFIX
from builder.runs.reader import read_run
from builder.runs.schema import Run
from builder.runs.writer import write_run

_VOLATILE = ("created", "tool")  # an import made again later is the same run
_SHOWN = 5


def target(out: Path, run: Run) -> Path:
    return confined(out, run.header.run_id, COMPRESSED_SUFFIX, "--out")


def differences(old: Run, new: Run) -> list[str]:
    """What an overwrite would change: header fields (except when it was made) and items."""
    a, b = _flat(old.header.to_json()), _flat(new.header.to_json())
    found = [f"header {key}: {a.get(key)!r} -> {b.get(key)!r}" for key in sorted(set(a) | set(b))
             if key not in _VOLATILE and a.get(key) != b.get(key)]
    before = {i.row_id: i.to_json() for i in old.items}
    after = {i.row_id: i.to_json() for i in new.items}
    changed = sorted(r for r in set(before) | set(after) if before.get(r) != after.get(r))
    if changed:
        found.append(f"{len(changed)} item(s) differ (row_id {', '.join(map(str, changed[:_SHOWN]))}"
                     + (" ..." if len(changed) > _SHOWN else "") + ")")
    if (old.footer is None) != (new.footer is None):
        found.append("the footer (complete run) " + ("is added" if new.footer else "is removed"))
    return found


def _flat(header: dict[str, Any]) -> dict[str, Any]:
    """Header fields, objects one level down (`source.sha256`), so a message names the field."""
    out: dict[str, Any] = {}
    for key, value in header.items():
        if isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def save(run: Run, out: Path, force: bool) -> tuple[Path, str]:
    """(path, what happened): written, unchanged, or replaced (with --force)."""
    path = target(out, run)
    what = "wrote"
    if path.exists():
        found = differences(read_run(path), run)
        if not found:
            return path, "unchanged"
        if not force:
            raise InputError.single(path, "an existing run with different content: " + "; ".join(found) +
                                    " (give --force to replace it)")
        what = "replaced"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_run(path, run.header, run.items, run.footer)
    return path, what


def summary(run: Run) -> str:
    items = run.header.items["n"]
    source = run.header.source or {}  # an imported run's header has one
    rev = source["revision"]
    unanswered = source.get("unanswered")
    return (f"{len(run.items):,} of {items:,} items{' (partial)' if run.footer is None else ''}; "
            f"{rev['items_differ']} differ from the reference revision"
            + (f"; {unanswered:,} record(s) hold no answer (unanswered)" if unanswered else ""))
