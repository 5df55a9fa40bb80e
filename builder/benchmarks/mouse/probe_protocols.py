"""Mouse prompt protocols: versioned templates from content/protocols/mouse.yaml.

Like the CIBuzzBench protocols (builder/probing/protocols.py), prompts live in a content
file so their exact text is reviewable in one place, and runs record id, version and the
sha256 of the template text. A Mouse protocol may have several parts (RC asks three
binary questions); each part is filled through the CIBuzzBench `Protocol`, so values are
inserted the same way (verbatim, never re-formatted). The blind arms are checked never to
use `{question}`.
"""

from __future__ import annotations

import hashlib
import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.benchmarks.mouse.labels import BLIND, CC, IR, MS, RC, RC_COMPONENTS, SIGHTED, TD, TR
from builder.core.yamlfile import line_of, load_yaml
from builder.probing.jobs import ANSWER  # the part name of single-question tasks
from builder.probing.protocols import Protocol
from builder.core.paths import REPO_DIR

DEFAULT_MOUSE_PROTOCOLS = REPO_DIR / "content" / "protocols" / "mouse.yaml"
SCHEMA = "buzzprobe.mouse-protocols/1"
JUDGE = "judge"
_SOURCE, _CHOICE, _BLIND = frozenset({"source"}), frozenset({"question", "options"}), frozenset({"options"})
# (task, condition) -> (parts, placeholders every part must use exactly)
SHAPES: dict[tuple[str, str], tuple[tuple[str, ...], frozenset[str]]] = {
    (TR, SIGHTED): ((ANSWER,), _SOURCE),
    (RC, SIGHTED): (RC_COMPONENTS, _SOURCE),
    (IR, SIGHTED): ((ANSWER,), _SOURCE),
    (TD, SIGHTED): ((ANSWER,), _SOURCE),
    (MS, SIGHTED): ((ANSWER,), _CHOICE),
    (MS, BLIND): ((ANSWER,), _BLIND),
    (CC, SIGHTED): ((ANSWER,), _CHOICE),
    (CC, BLIND): ((ANSWER,), _BLIND),
    (JUDGE, SIGHTED): ((ANSWER,), frozenset({"source", "reference", "translation"})),
}
_FIELDS = {"id": str, "version": int, "task": str, "condition": str, "max_tokens": int, "source": str,
           "prompts": dict}
_TOP = {"schema", "benchmark", "shared", "protocols"}


@dataclass(frozen=True)
class MouseProtocol:
    id: str
    version: int
    task: str  # tr, rc, ir, td, ms, cc or judge
    condition: str
    max_tokens: int
    source: str  # whose wording it is
    parts: dict[str, Protocol]  # part name -> system/user templates, in asking order

    @property
    def sha256(self) -> str:
        """sha256 of {"<part>": ["<system>", "<user>"], ...}: keys sorted, UTF-8, no spaces."""
        texts = {name: [p.system, p.user] for name, p in self.parts.items()}
        payload = json.dumps(texts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def messages(self, part: str, **values: str) -> list[dict[str, str]]:
        return self.parts[part].messages(**values)


def load_mouse_protocols(path: str | Path = DEFAULT_MOUSE_PROTOCOLS) -> dict[str, MouseProtocol]:
    """Every protocol by id; raises InputError naming each bad entry with its line."""
    data, lines = load_yaml(path)
    where = str(path)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("protocols"), list):
        raise InputError.single(where, f"expected a mapping with schema {SCHEMA!r} and a list 'protocols'", line=1)
    problems = [Problem(where, "unknown top-level key", line_of(lines, (k,)), str(k)) for k in data if k not in _TOP]
    found: dict[str, MouseProtocol] = {}
    for index, entry in enumerate(data["protocols"]):
        protocol = _entry(where, index, entry, lines, problems)
        if protocol is not None and protocol.id in found:
            problems.append(Problem(where, f"duplicate id {protocol.id!r}", line_of(lines, ("protocols", index, "id")),
                                    "id"))
        elif protocol is not None:
            found[protocol.id] = protocol
    if problems:
        raise InputError(problems)
    return found


def _entry(where: str, index: int, entry: Any, lines: dict, problems: list[Problem]) -> MouseProtocol | None:
    at = ("protocols", index)
    if not isinstance(entry, dict):
        problems.append(Problem(where, "expected a mapping", line_of(lines, at)))
        return None
    before = len(problems)
    for name, kind in _FIELDS.items():
        if type(entry.get(name)) is not kind:
            problems.append(Problem(where, f"missing or not a {kind.__name__}", line_of(lines, at + (name,)), name))
    for name in sorted(set(entry) - set(_FIELDS)):
        problems.append(Problem(where, "unknown field", line_of(lines, at + (name,)), name))
    if len(problems) > before:
        return None
    shape = SHAPES.get((entry["task"], entry["condition"]))
    if shape is None:
        problems.append(Problem(where, f"unsupported task/condition {(entry['task'], entry['condition'])}",
                                line_of(lines, at + ("task",)), "task"))
        return None
    parts = _parts(where, entry, shape, lines, at, problems)
    if len(problems) > before:
        return None
    return MouseProtocol(entry["id"], entry["version"], entry["task"], entry["condition"], entry["max_tokens"],
                         entry["source"], parts)


def _parts(where: str, entry: dict, shape: tuple[tuple[str, ...], frozenset[str]], lines: dict, at: tuple,
           problems: list[Problem]) -> dict[str, Protocol]:
    names, wanted = shape
    prompts = entry["prompts"]
    if sorted(prompts) != sorted(names):
        problems.append(Problem(where, f"prompts must be exactly: {', '.join(names)}",
                                line_of(lines, at + ("prompts",)), "prompts"))
        return {}
    parts = {}
    for name in names:
        body, here = prompts[name], at + ("prompts", name)
        if not isinstance(body, dict) or sorted(body) != ["system", "user"] or \
                not all(isinstance(v, str) for v in body.values()):
            problems.append(Problem(where, "expected exactly `system` and `user` texts", line_of(lines, here),
                                    f"prompts.{name}"))
            continue
        used = _placeholders(body["system"]) | _placeholders(body["user"])
        if used != wanted:
            problems.append(Problem(where, f"uses placeholders {sorted(used)}, expected {sorted(wanted)}",
                                    line_of(lines, here), f"prompts.{name}"))
            continue
        parts[name] = Protocol(entry["id"], entry["version"], entry["task"], entry["condition"], "zh",
                               entry["max_tokens"], entry["source"], body["system"], body["user"])
    return parts


def _placeholders(template: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError:  # a lone brace
        return {"<unbalanced brace>"}


def find_mouse_protocol(protocols: dict[str, MouseProtocol], task: str, condition: str) -> MouseProtocol:
    """The protocol for (task, condition); the newest version if several."""
    matches = [p for p in protocols.values() if (p.task, p.condition) == (task, condition)]
    if not matches:
        raise InputError.single("--condition" if condition == BLIND else "--task",
                                f"no Mouse protocol for task={task}, condition={condition}"
                                + (" (the blind arm exists for ms and cc only)" if condition == BLIND else ""))
    return max(matches, key=lambda p: p.version)
