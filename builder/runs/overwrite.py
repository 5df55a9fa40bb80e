"""Importers never replace a run silently: one check shared by every importer.

Re-importing the same answers is harmless (the file is left as it is, so its `created` time and
git history stay put); importing different answers over an existing run would rewrite a
published result, so it needs `--force`, and the refusal says what would change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.core.textfiles import lines_with_ends, read_input
from builder.runs.lines import LineError, load_line
from builder.runs.schema import Footer, Header, Run
from builder.runs.writer import write_run

_VOLATILE = {"header": ("created", "tool"), "footer": ("finished",)}  # when, not what
_MAX_LISTED = 5


def check_overwrite(path: str | Path, header: Header, items: Iterable[Any], footer: Footer | None, *,
                    force: bool = False) -> bool:
    """True when `path` already holds this very run (the caller may skip writing); False when
    there is nothing there, or `force` lets it be replaced. Raises InputError (naming the file and
    what differs) when a different run is there and `force` is not given."""
    path = Path(path)
    if not path.exists():
        return False
    if not path.is_file():
        raise InputError.single(path, "exists and is not a file; the run cannot be written there")
    new = [_comparable(header.to_json())] + [_comparable(i.to_json()) for i in items]
    if footer is not None:
        new.append(_comparable(footer.to_json()))
    differences = _differences(_existing(path), new)
    if not differences:
        return True
    if force:
        return False
    raise InputError.single(path, "a different run is already there (" + "; ".join(differences) +
                            "); pass --force to replace it, or import into another --out")


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    """As it reads back from a file (tuples become lists), without the when-fields."""
    record = json.loads(json.dumps(record, ensure_ascii=False))
    for key in _VOLATILE.get(str(record.get("type")), ()):
        record.pop(key, None)
    return record


def _existing(path: Path) -> list[dict[str, Any]] | None:
    """The file's records, or None when it is not a readable run (any such file differs)."""
    try:
        records = [load_line(line) for line in lines_with_ends(read_input(path)) if line.strip()]
    except (OSError, InputError, LineError):
        return None
    if not all(isinstance(r, dict) for r in records):
        return None
    return [_comparable(r) for r in records]


def _differences(old: list[dict[str, Any]] | None, new: list[dict[str, Any]]) -> list[str]:
    if old is None:
        return ["the existing file is not a readable run"]
    found = []
    old_header = old[0] if old and old[0].get("type") == "header" else {}
    fields = sorted(k for k in set(old_header) | set(new[0]) if old_header.get(k) != new[0].get(k))
    if fields:
        found.append("header " + ", ".join(fields[:_MAX_LISTED]) + (" …" if len(fields) > _MAX_LISTED else ""))
    old_items, new_items = _items(old), _items(new)
    changed = sorted(k for k in old_items.keys() & new_items.keys() if old_items[k] != new_items[k])
    for label, keys in (("answers differ for", changed), ("only the existing run has", old_items.keys() - new_items),
                        ("only the new run has", new_items.keys() - old_items)):
        if keys:
            shown = sorted(keys, key=lambda k: (len(k), k))
            found.append(f"{label} {len(shown)} item(s): " + ", ".join(map(str, shown[:_MAX_LISTED]))
                         + (" …" if len(shown) > _MAX_LISTED else ""))
    if not found and [r for r in old if r.get("type") == "footer"] != [r for r in new if r.get("type") == "footer"]:
        found.append("the footer (complete or not, usage totals)")
    return found


def _items(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Items by row_id (every run format has one); an odd id is compared as its text."""
    return {json.dumps(r.get("row_id")): r for r in records if r.get("type") == "item"}


def write_checked(planned: Sequence[tuple[Path, Run]], *, force: bool = False) -> list[tuple[Path, bool]]:
    """Check every planned (path, run) first, then write: one refusal writes nothing, and every
    refusal is reported at once. Returns (path, written); an identical run is left untouched."""
    unchanged, problems = [], []
    for path, run in planned:
        try:
            unchanged.append(check_overwrite(path, run.header, run.items, run.footer, force=force))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    for (path, run), same in zip(planned, unchanged, strict=True):
        if not same:
            write_run(path, run.header, run.items, run.footer)
    return [(path, not same) for (path, _), same in zip(planned, unchanged, strict=True)]
