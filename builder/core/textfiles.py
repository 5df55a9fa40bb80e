"""Reading inputs within bounds, with errors that name the file and line: every reader uses it.

Runs (gzip too), results, data files, specs, pages, templates and cache entries are all read by
`read_input`: a regular file only (a FIFO would block the read forever and /dev/zero never
ends: each is refused, symlinks followed), at most a cap of bytes, within a deadline. What a
file inflates to (a gzip run, a zip member: builder.core.archives) has the same caps, checked
while inflating, so a bomb is refused before it is expanded. Line-based text (JSON Lines, runs,
CSV) is split on `\n` only (`numbered_lines`), at most MAX_LINES lines of MAX_LINE_CHARS each.
The caps, all here and in docs/input-limits.md, are far above the largest real input (MMLU-Pro's
results: 23 MB inflated in one member; 12,032 lines in a run; lines under 1 MB).
"""

from __future__ import annotations

import csv
import io
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

from builder.core.errors import InputError, Problem
from builder.core.redact import excerpt

T = TypeVar("T", bound=str | bytes)

MAX_INPUT_BYTES = 512 * 1024 * 1024  # a data, results, run or log file, as stored or as inflated
MAX_DOCUMENT_BYTES = 1024 * 1024  # a hand-written file: a spec or other YAML, a page, a template (YAML costs
# ~200 bytes of memory per byte: 16 MiB of it took 3.1 GB and minutes; the largest real one is 16 KB)
MAX_LINES = 5_000_000  # lines of one line-based input (a 10^6-item data file has 10^6)
MAX_LINE_CHARS = 16 * 1024 * 1024  # one line of JSON Lines, a run or a CSV (real ones are under 1 MB)
MAX_VALUES = 20_000_000  # `,` `[` `{` in one text: what a JSON or CSV parser makes of it (MMLU-Pro's: 509,429)
MAX_READ_SECONDS = 120.0  # reading, or inflating, one file (a real one takes well under a second)
MAX_MEMBERS = 100_000  # files in one zip archive (an Inspect log has one per sample)
MAX_MEMBER_BYTES = 64 * 1024 * 1024  # one member of an Inspect log (a sample or its header: kilobytes)
MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024  # all the members of one Inspect log together, inflated
CHUNK_BYTES = 64 * 1024 * 1024  # read in steps this size, the deadline checked between them


def read_input(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` (MAX_INPUT_BYTES) bytes, read within
    MAX_READ_SECONDS. A FIFO, a device (a symlink to /dev/zero too), a folder or a bigger file
    is an InputError before anything is read. An OSError (missing, unreadable) is left to the
    caller, which knows what the file was for."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    with open_regular(path, limit) as handle:
        return drain(path, handle.read, limit)


def open_regular(path: str | Path, limit: int | None = None) -> BinaryIO:
    """`path` opened for reading when it is a regular file (of at most `limit` bytes, when
    given); else an InputError, raised without waiting: the open does not block on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO must not wait for a writer
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode) or (limit is not None and status.st_size > limit):
        os.close(fd)
        if not stat.S_ISREG(status.st_mode):
            raise InputError.single(path, f"cannot read: not a regular file ({file_kind(status.st_mode)}); "
                                    "give the path of the file itself")
        raise too_large(path, limit or 0)
    return os.fdopen(fd, "rb")


def drain(path: str | Path, read: Callable[[int], bytes], limit: int, *, lines: bool = False) -> bytes:
    """Everything `read(n)` gives until it gives nothing: at most `limit` bytes (and, with
    `lines`, MAX_LINES newlines), within MAX_READ_SECONDS; else a located error as soon as a
    step passes a cap, so a bomb costs one step, never its whole size."""
    started = time.monotonic()
    parts: list[bytes] = []
    size = newlines = 0
    while chunk := read(min(CHUNK_BYTES, limit + 1 - size)):
        size += len(chunk)
        newlines += chunk.count(b"\n") if lines else 0
        if size > limit:
            raise too_large(path, limit)
        if newlines > MAX_LINES:
            raise too_many_lines(path)
        if time.monotonic() - started > MAX_READ_SECONDS:
            raise InputError.single(path, f"cannot read: took more than {MAX_READ_SECONDS:g} s")
        parts.append(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def too_large(path: str | Path, limit: int) -> InputError:
    return InputError.single(path, f"cannot read: larger than {_size(limit)} (the limit for this input)")


def too_many_lines(path: str | Path) -> InputError:
    return InputError.single(path, f"cannot read: more than {MAX_LINES:,} lines", line=MAX_LINES + 1)


def _size(limit: int) -> str:
    return f"{limit // 2**20:,} MiB" if limit >= 2**20 else f"{limit:,} bytes"


def numbered_lines(path: str | Path, text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line, split on `\n` only (str.splitlines
    would also split on U+2028, NEL and other characters valid unescaped inside a JSON string),
    a `\r` before it dropped. More than MAX_LINES lines is a located error before any line is
    given; a line longer than MAX_LINE_CHARS one when it is reached. Lines are cut one at a
    time, so a file of millions of blank lines is never a list of millions of strings."""
    if text.count("\n") > MAX_LINES:
        raise too_many_lines(path)
    return _lines(path, text)


def _lines(path: str | Path, text: str) -> Iterator[tuple[int, str]]:
    start, number = 0, 1
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > MAX_LINE_CHARS:
            raise InputError.single(path, f"cannot read: line longer than {MAX_LINE_CHARS:,} characters", line=number)
        line = text[start:end]
        if line.strip():
            yield number, line.removesuffix("\r")
        start, number = end + 1, number + 1


def last_line(text: str) -> int:
    """The number of the last non-blank line of `text` (0 when there is none), as
    numbered_lines counts them; found from the end in blocks, so millions of trailing blank
    lines cost no Python loop per line."""
    end = len(text)
    while end > 0:
        start = max(0, end - 65536)
        kept = len(text[start:end].rstrip())
        if kept:
            return text.count("\n", 0, start + kept) + 1
        end = start
    return 0


def lines_with_ends(raw: bytes) -> list[bytes]:
    """The lines of JSON Lines bytes, each with its `\n` (the last may lack one), split on `\n`
    only, as the strict reader splits them: for the writers that cut or rewrite a run by line."""
    lines = [line + b"\n" for line in raw.split(b"\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (from its `st_mode`)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a folder" if stat.S_ISDIR(mode) else "a socket or other special file"


def decode_utf8(path: Path, raw: bytes) -> str:
    """UTF-8 text without a BOM, within MAX_VALUES (check_values); a bad byte is reported with
    its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.single(
            path, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
            line=line) from exc
    return check_values(path, text.removeprefix("\ufeff"))


def _separators(text: str | bytes) -> int:
    if isinstance(text, str):
        return text.count(",") + text.count("[") + text.count("{")
    return text.count(b",") + text.count(b"[") + text.count(b"{")


def check_values(path: str | Path, text: T) -> T:
    """`text` (str or bytes) when it holds at most MAX_VALUES separators (`,` `[` `{`), an upper
    bound on the values a JSON or CSV parser makes of it; else a located error before parsing:
    three bytes of `{},` are a 64-byte object, so 512 MiB of them would be 12 GB."""
    if len(text) > MAX_VALUES and _separators(text) > MAX_VALUES:
        raise InputError.single(path, f"cannot read: more than {MAX_VALUES:,} values (counting `,` `[` `{{`)")
    return text


def repeated_columns(path: str | Path, header: list[str], line: int = 1) -> list[Problem]:
    """A problem per column name the header repeats (surrounding spaces ignored): every reader
    reads cells by name, and `qid,picked,picked` would silently keep only the last `picked`."""
    names = [h.strip() for h in header]
    return [Problem(str(path), f"duplicate column: the name appears more than once ({names.count(name)} times); "
                    "give each column its own",
                    line, excerpt(name, quoted=False)) for name in sorted({n for n in names if names.count(n) > 1})]


def csv_records(path: Path, text: str, *, header: bool = True,
                delimiter: str = ",") -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (first line number, cells) for every non-blank record; a header that repeats a
    column name is refused (`header=False`: the first row is a record, not names).

    Line numbers are where a record starts, so a quoted cell spanning lines does not shift
    the numbers of the records after it.
    """
    if text.count("\n") > MAX_LINES:
        raise too_many_lines(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        first = next(reader)
    except StopIteration:
        raise InputError.single(path, "file is empty", line=1) from None
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=1) from exc
    if not any(h.strip() for h in first):
        raise InputError.single(path, "first line is blank: expected the header row", line=1)
    if header and (repeated := repeated_columns(path, first)):
        raise InputError(repeated)
    records: list[tuple[int, list[str]]] = []
    start = reader.line_num + 1
    try:
        for cells in reader:
            if cells:
                records.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=start) from exc
    return first, records
