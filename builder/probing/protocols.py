"""Prompt protocols: versioned prompt templates loaded from content/protocols/*.yaml.

Prompts live in a content file rather than in code so that their exact text is reviewable
in one place; each run records the protocol id, version and the sha256 of the template text,
so two runs are comparable exactly when those agree. A benchmark says which tasks, conditions,
languages and placeholders its file may use (`ProtocolRules`); the loader knows no benchmark.
"""

from __future__ import annotations

import hashlib
import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.core.errors import InputError, Problem
from builder.core.yamlfile import load_yaml

SCHEMA = "buzzprobe.protocols/1"


@dataclass(frozen=True)
class ProtocolRules:
    """What one benchmark's protocol file may hold: for each (task, condition) it serves, the
    exact placeholders its templates must use (so a blind prompt can never show what it hides),
    and the prompt languages."""

    placeholders: dict[tuple[str, str], frozenset[str]]
    langs: tuple[str, ...]
_FIELDS = {"id": str, "version": int, "task": str, "condition": str, "lang": str,
           "max_tokens": int, "source": str, "system": str, "user": str}
_OPTIONAL = {"default": bool, "pairs_with": str}


@dataclass(frozen=True)
class Protocol:
    id: str
    version: int
    task: str
    condition: str
    lang: str
    max_tokens: int  # default output budget for this task
    source: str  # attribution: quoted official text, or buzzprobe's own wording
    system: str
    user: str
    default: bool = False  # the one `probe` uses when several serve a (task, condition, lang)
    pairs_with: str = ""  # a blind protocol: "<sighted id> v<version>" it is the blind arm of

    @property
    def sha256(self) -> str:
        """Hash of the exact template text: JSON ["<system>", "<user>"], UTF-8, no spaces."""
        payload = json.dumps([self.system, self.user], ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def messages(self, **values: str) -> list[dict[str, str]]:
        """The chat messages for one item; values are inserted verbatim, never re-formatted."""
        return [{"role": "system", "content": _fill(self.system, values)},
                {"role": "user", "content": _fill(self.user, values)}]


def _fill(template: str, values: dict[str, str]) -> str:
    return "".join(literal + (values[name] if name is not None else "")
                   for literal, name, _, _ in string.Formatter().parse(template))


def load_protocols(path: str | Path, rules: ProtocolRules) -> dict[str, Protocol]:
    """All protocols in a file by id; raises InputError naming every bad entry."""
    path = Path(path)
    data, _ = load_yaml(path)  # the one YAML reader: located errors, alias limits, duplicate keys
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("protocols"), list):
        raise InputError.single(path, f"expected a mapping with schema {SCHEMA!r} and a list 'protocols'")
    problems: list[Problem] = []
    found: dict[str, Protocol] = {}
    for index, entry in enumerate(data["protocols"]):
        protocol = _check_entry(path, index, entry, rules, problems)
        if protocol is not None and protocol.id in found:
            problems.append(Problem(str(path), f"protocol {index}: duplicate id {protocol.id!r}", field="id"))
        elif protocol is not None:
            found[protocol.id] = protocol
    problems.extend(_check_defaults(path, found))
    if problems:
        raise InputError(problems)
    return found


def _check_defaults(path: Path, found: dict[str, Protocol]) -> list[Problem]:
    """At most one default per (task, condition, lang), so the default choice is never a guess."""
    defaults: dict[tuple[str, str, str], list[str]] = {}
    for p in found.values():
        if p.default:
            defaults.setdefault((p.task, p.condition, p.lang), []).append(p.id)
    return [Problem(str(path), f"several protocols are the default for {key}: {', '.join(ids)}", field="default")
            for key, ids in sorted(defaults.items()) if len(ids) > 1]


def _check_entry(path: Path, index: int, entry: Any, rules: ProtocolRules, problems: list[Problem]) -> Protocol | None:
    where = f"protocol {index}"
    if not isinstance(entry, dict):
        problems.append(Problem(str(path), f"{where}: expected a mapping"))
        return None
    before = len(problems)
    for name, kind in _FIELDS.items():
        if type(entry.get(name)) is not kind:
            problems.append(Problem(str(path), f"{where}: missing or not a {kind.__name__}", field=name))
    for name, kind in _OPTIONAL.items():
        if name in entry and type(entry[name]) is not kind:
            problems.append(Problem(str(path), f"{where}: not a {kind.__name__}", field=name))
    for name in sorted(set(entry) - set(_FIELDS) - set(_OPTIONAL)):
        problems.append(Problem(str(path), f"{where}: unknown field", field=name))
    if len(problems) > before:
        return None
    protocol = Protocol(**entry)
    problems.extend(_check_values(path, where, protocol, rules))
    return protocol if len(problems) == before else None


def _check_values(path: Path, where: str, p: Protocol, rules: ProtocolRules) -> list[Problem]:
    wanted = rules.placeholders.get((p.task, p.condition))
    if p.lang not in rules.langs or wanted is None:
        return [Problem(str(path), f"{where}: unsupported task/condition/lang {(p.task, p.condition, p.lang)}")]
    used = _placeholders(p.system) | _placeholders(p.user)
    if used != wanted:
        return [Problem(str(path), f"{where}: uses placeholders {sorted(used)}, expected {sorted(wanted)}")]
    return []


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def find_protocol(protocols: dict[str, Protocol], task: str, condition: str, lang: str,
                  protocol_id: str | None = None) -> Protocol:
    """The protocol for a (task, condition, lang): the one named, else the one marked default,
    else the newest version."""
    matches = [p for p in protocols.values() if (p.task, p.condition, p.lang) == (task, condition, lang)]
    if protocol_id is not None:
        named = [p for p in matches if p.id == protocol_id]
        if not named:
            choices = ", ".join(sorted(p.id for p in matches)) or "none"
            raise InputError.single("protocols", f"protocol {protocol_id!r} does not serve task={task}, "
                                                 f"condition={condition}, lang={lang} (choices: {choices})")
        return named[0]
    if not matches:
        raise InputError.single("protocols", f"no protocol for task={task}, condition={condition}, lang={lang}")
    defaults = [p for p in matches if p.default]
    return defaults[0] if defaults else max(matches, key=lambda p: p.version)
