"""Reading text inputs with errors that name the line: shared by every dataset reader."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path

from builder.core.errors import InputError


MAX_INPUT_BYTES = 512 * 1024 * 1024  # far above any dataset, log or results file we read


def read_input(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. A FIFO would block the read forever,
    /dev/zero never ends and a folder is no file: each is an InputError, as is a bigger file.
    An OSError (missing, unreadable) is left to the caller, which knows what the file was for."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO must not wait for a writer
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a folder" if stat.S_ISDIR(mode) else "a socket or other special file"
        raise InputError.single(path, f"cannot read: not a regular file ({kind}); give the path of the file itself")
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise InputError.single(path, f"cannot read: larger than {limit // 1024 // 1024} MiB")
    return raw


def jsonl_lines(text: str) -> list[str]:
    """JSON Lines split on newlines only: str.splitlines would also split on U+2028, NEL and
    other characters that are valid unescaped inside a JSON string."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def decode_utf8(path: Path, raw: bytes) -> str:
    """UTF-8 text without a BOM; a bad byte is reported with its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.single(
            path, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
            line=line) from exc
    return text.removeprefix("\ufeff")


def csv_records(path: Path, text: str, *, delimiter: str = ",") -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (first line number, cells) for every non-blank record.

    Line numbers are where a record starts, so a quoted cell spanning lines does not shift
    the numbers of the records after it.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError.single(path, "file is empty", line=1) from None
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=1) from exc
    if not any(h.strip() for h in header):
        raise InputError.single(path, "first line is blank: expected the header row", line=1)
    records: list[tuple[int, list[str]]] = []
    start = reader.line_num + 1
    try:
        for cells in reader:
            if cells:
                records.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError.single(path, f"malformed CSV: {exc}", line=start) from exc
    return header, records
