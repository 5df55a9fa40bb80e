"""Text is text: one JSON line in, one JSON line out, whatever a model or a file contains.

Shared by every run format (CIBuzzBench and Mouse runs, their writers and resume checks), so
a hostile or broken answer is handled the same way everywhere:

- a line that is not JSON, has a number with thousands of digits or is nested thousands deep
  is a located problem, never a traceback;
- an unpaired UTF-16 surrogate (valid in JSON as an escape, not encodable as UTF-8) is kept as
  the visible escape text `\\udXXX`, so the raw answer survives and nothing downstream fails to
  encode it;
- a stored answer is capped at MAX_RESPONSE_CHARS, and the run records that it was cut.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from builder.core.errors import InputError
from builder.core.textfiles import check_values

MAX_RESPONSE_CHARS = 20_000  # a Task 2 answer is one letter; this keeps runaway output bounded
MAX_ERROR_CHARS = 2_000  # an error message; the client's own are a few hundred
MAX_DEPTH = 64  # nesting a run line may have (real lines need 3)
MAX_DOCUMENT_DEPTH = 256  # a log or data file (Inspect's event trees nest more than a run line)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class LineError(ValueError):
    """This line cannot be read as one JSON value; the message says why, for a person."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line  # within a multi-line text (a whole JSON file), when known


def load_line(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads with every failure as a LineError, and lone surrogates made visible."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LineError(f"not valid JSON: {exc.msg} at column {exc.colno}", exc.lineno) from None
    except RecursionError:
        raise LineError("not readable: JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise LineError("not valid UTF-8") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise LineError(f"not readable: {shorten(str(exc))}") from None
    if _bracket_count(text) > max_depth and _depth_over(value, max_depth):
        raise LineError(f"not readable: JSON nested more than {max_depth} levels deep")
    needs_repair = _SURROGATE_ESCAPE.search(text if isinstance(text, str) else text.decode("utf-8", "replace"))
    return visible_surrogates(value) if needs_repair else value


def load_document(path: str | Path, text: str | bytes, line: int | None = None,
                  max_depth: int = MAX_DOCUMENT_DEPTH) -> Any:
    """A JSON file (or one line of a JSON Lines file) from any importer or data file, read by
    load_line's rules within MAX_VALUES (builder.core.textfiles); a failure is an InputError
    naming the file (and line)."""
    check_values(path, text)
    try:
        return load_line(text, max_depth)
    except LineError as exc:
        raise InputError.single(path, str(exc), line=line if line is not None else exc.line) from None


def visible_surrogates(value: Any) -> Any:
    """Every string in `value` with unpaired surrogates replaced by their `\\udXXX` text
    (a well-formed pair, such as an emoji written as two escapes, is one character already)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8") if _has_surrogate(value) else value
    if isinstance(value, list):
        return [visible_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {visible_surrogates(k): visible_surrogates(v) for k, v in value.items()}
    return value


def cap_response(text: str, limit: int = MAX_RESPONSE_CHARS) -> tuple[str, bool]:
    """(the text to store, whether it was cut): at most `limit` characters are kept."""
    text = visible_surrogates(text)
    return (text, False) if len(text) <= limit else (text[:limit], True)


def cap_error(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """An error text to store (from a log or results file): at most `limit` characters, the cut
    said in the text itself (items have no flag for it)."""
    text = visible_surrogates(text)
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _bracket_count(text: str | bytes) -> int:
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{")
    return text.count("[") + text.count("{")


def _depth_over(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def shorten(text: str, limit: int = 120) -> str:
    """At most `limit` characters of `text` for a message, an ellipsis saying it was cut."""
    return text if len(text) <= limit else text[:limit] + "…"
