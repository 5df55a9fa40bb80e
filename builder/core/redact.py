"""What an error message may say about input it quotes: a short, escaped excerpt of a record,
and never the value of a secret environment variable.

Messages end up in terminals and CI logs. A data file can be anything a spec points at (before
confinement caught it, `/proc/self/environ` or a private key), so a message that quotes a record
quotes at most `EXCERPT_CHARS` of it with control characters escaped, and every message is
scrubbed of the values of variables whose names look secret (`*KEY*`, `*TOKEN*`, ...).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

EXCERPT_CHARS = 60  # of a record's text in a message: enough to find it, too little to publish it
MESSAGE_CHARS = 2_000  # of one problem's message: a backstop, no legitimate message comes near
MIN_SECRET_CHARS = 6  # shorter values ("1", "true") would blank ordinary words, and are no keys
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE", re.IGNORECASE)


def excerpt(value: object, limit: int = EXCERPT_CHARS, *, quoted: bool = True) -> str:
    """`value` as an escaped (repr-style: control characters as `\\n`, `\\x00`) excerpt of at most
    `limit` characters, quoted unless `quoted` is false (an exception's message), with how long it
    was when cut: what a message may quote of a record. The text is scrubbed before it is cut, so
    a cut cannot leave half a secret to escape the scrub."""
    text = scrub(value if isinstance(value, str) else str(value))
    shown = repr(text[:limit]) if quoted else repr(text[:limit])[1:-1]
    return shown if len(text) <= limit else f"{shown}… ({len(text):,} characters)"


def secret_values(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(name, value) of every variable whose name looks secret, longest value first (so a value
    that contains another is replaced whole)."""
    environ = os.environ if environ is None else environ
    found = [(name, value) for name, value in environ.items()
             if _SECRET_NAME.search(name) and len(value) >= MIN_SECRET_CHARS]
    return sorted(found, key=lambda pair: -len(pair[1]))


def scrub(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with each secret variable's value replaced by `<$NAME>`, its escaped (repr) form
    too, since excerpts quote with escapes."""
    for name, value in secret_values(environ):
        for form in {value, repr(value)[1:-1]}:
            if form in text:
                text = text.replace(form, f"<${name}>")
    return text


def safe_message(text: str, environ: Mapping[str, str] | None = None) -> str:
    """A message fit to print: scrubbed, and cut at MESSAGE_CHARS (a backstop for a message
    that quotes more than an excerpt)."""
    text = scrub(text, environ)
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "… (message cut)"
