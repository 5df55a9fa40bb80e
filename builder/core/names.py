"""Names are data, not paths: the one rule for run ids, model slugs and file names.

A model name, a run id or a page name ends up in a file name, a URL and a fact key
(`run.<run_id>.accuracy`), so every one of them is made or checked here, and nowhere else.
The two other names the project makes from text live here too: a harness task name
(`identifier`) and a fact's HTML anchor (`fact_anchor`).
The character set is deliberately small: lower-case ASCII letters, digits, `_` and `-`, so a
name can never be a path (no separators, no `..`, no NUL), never blur a dotted fact key, and
never collide with another on a case-insensitive file system.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import string
import unicodedata
from collections.abc import Callable
from pathlib import Path

from builder.core.errors import InputError

NAME_CHARS = "lower-case ASCII letters, digits, '_' and '-'"
MAX_NAME = 120  # characters of a run id or page name
MAX_SLUG = 80  # characters of a model slug (it is one part of a run id)
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_OUTSIDE_NAME = re.compile(r"[^a-z0-9_]+")  # a run of characters a name part cannot hold
_OUTSIDE_ANCHOR = re.compile(r"[^A-Za-z0-9_.-]")
_HASH_CHARS = 8
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: nothing a name shows
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
# Characters that reorder or hide text: bidi embeddings, overrides, isolates and marks, and the
# zero-width and invisible ones (two names that look the same, or a name that flips what follows).
_HIDDEN = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def slug(name: str) -> str:
    """A model (or any display) name as one part of a run id: "Qwen2.5-7B" -> "qwen2_5-7b".

    Lower case; "." becomes "_" (so "2.5" and "2-5" stay apart); any other run of characters
    outside [a-z0-9_] becomes "-". Letters with accents lose them ("é" -> "e"). When a name
    keeps nothing (e.g. "模型") or loses characters no ASCII letter stands for, a short hash of
    the full name is appended, so different names never share a slug; the display name is
    kept apart, in the run's header. An empty name is refused.
    """
    check_display_name(name, "name")  # empty, or control characters
    folded = unicodedata.normalize("NFKD", name)
    ascii_only = "".join(ch for ch in folded if not unicodedata.combining(ch))
    lossy = any(ord(ch) > 127 for ch in ascii_only)
    base = _OUTSIDE_NAME.sub("-", ascii_only.lower().replace(".", "_")).strip("-_")
    if lossy or not base or len(base) > MAX_SLUG:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
        base = f"{base[:MAX_SLUG - _HASH_CHARS - 1].rstrip('-_')}-{digest}" if base else f"m-{digest}"
    return base


def display_name_problem(name: object, what: str = "model name") -> str | None:
    """Why `name` cannot be shown as a model (or probe) name, or None. Control characters are
    refused at every entrance: no page or chart can show them, and one in a chart label made
    the renderer abort the whole build."""
    if not isinstance(name, str):
        return f"a {what} must be text"
    if not name.strip():
        return f"a {what} cannot be empty"
    bad = sorted(set(_CONTROL.findall(name)))
    if bad:
        return f"a {what} cannot contain control characters (found {', '.join(repr(ch) for ch in bad)})"
    return None


def check_display_name(name: str, where: str, what: str = "model name") -> str:
    """`name` unchanged, or an InputError located at `where` (an option or a file)."""
    return check_name(name, where, what, display_name_problem)


def visible(text: str) -> str:
    """`text` with each bidi control and zero-width character written out as <U+XXXX>: where a
    name is shown it can neither reorder the text around it nor pass for another name."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text)


def xml_safe(value: object) -> object:
    """`value` (nested dicts, lists and strings) with each character XML 1.0 cannot hold
    replaced by U+FFFD, and bidi and zero-width characters made visible (see `visible`)."""
    if isinstance(value, str):
        return visible(_NOT_XML.sub("\ufffd", value))
    if isinstance(value, dict):
        return {xml_safe(k): xml_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [xml_safe(v) for v in value]
    return value


def identifier(text: str) -> str:
    """Lower case, each run outside [a-z0-9_] as one "_": an lm-eval task name that is also a
    Python identifier (Inspect's @task), when the text starts with a letter."""
    return _OUTSIDE_NAME.sub("_", text.lower())


def fact_anchor(key: str) -> str:
    """The HTML id of a fact's row on the provenance page: "f-" and the key, each character
    an id should not hold as "_" (keys are dotted ASCII names, so this keeps them readable)."""
    return "f-" + _OUTSIDE_ANCHOR.sub("_", key)


def name_problem(name: object, what: str = "run id") -> str | None:
    """Why `name` cannot be a run id (or page name), or None when it can."""
    if not isinstance(name, str):
        return f"a {what} must be a string"
    if not name:
        return f"a {what} cannot be empty"
    if len(name) > MAX_NAME:
        return f"a {what} has at most {MAX_NAME} characters (this one has {len(name)})"
    if _NAME.fullmatch(name) is None:
        bad = sorted({ch for ch in name if ch not in "abcdefghijklmnopqrstuvwxyz0123456789_-"})
        shown = ", ".join(repr(ch) for ch in bad) if bad else repr(name[0])
        return (f"{what} {name!r} may only use {NAME_CHARS}, starting with a letter or digit "
                f"(not allowed: {shown})")
    return None


def check_name(name: str, where: str, what: str = "run id",
               rule: Callable[[object, str], str | None] = name_problem) -> str:
    """`name` unchanged, or an InputError located at `where` (an option or a file)."""
    problem = rule(name, what)
    if problem is not None:
        raise InputError.single(where, problem)
    return name


def fill_template(template: str, where: str, **values: str) -> Path:
    """An output path from a template such as "runs/{model_slug}/{run_id}.jsonl".

    Only the named fields, plain (no attribute, index, conversion or format spec), and each
    value must be a valid name, so a filled-in value can never leave the folder the
    template names."""
    for _, field, spec, conversion in string.Formatter().parse(template):
        if field is None:
            continue
        if field not in values or spec or conversion:
            allowed = " and ".join("{" + k + "}" for k in values)
            raise InputError.single(where, f"only {allowed} can be filled in, plainly (found {{{field}}})")
    for key, value in values.items():
        check_name(value, where, key.replace("_", " "))
    return Path(template.format(**values))


def confined(folder: Path, name: str, suffix: str, where: str) -> Path:
    """`folder/<name><suffix>` for a checked name: the file stays inside `folder`."""
    return folder / f"{check_name(name, where)}{suffix}"


def did_you_mean(name: str, known: list[str], what: str) -> str:
    """The tail of an unknown-name message: the closest known names (difflib), then all of them,
    so a typo gets its fix and a newcomer the list. One wording for every command that takes a name."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."
    return f"{hint} {what}: {', '.join(known)}" if known else hint
