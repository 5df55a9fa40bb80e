"""What a file holds once inflated (a gzip run, a zip member), within the input caps.

A compressed file is small on disk and can be huge inflated: 652 KB of gzip is 640 MiB of
newlines, a 1 MB zip member can be 1 GiB. So nothing here inflates a whole stream at once:
output is drawn in steps through builder.core.textfiles.drain, which stops at the first step
past MAX_INPUT_BYTES (or, for line-based text, MAX_LINES) or MAX_READ_SECONDS. A zip member
whose header already states a size over the cap is refused before it is opened, and every way
a member can fail (damaged, encrypted, a compression method Python lacks, a stream that lies
about its size) is an InputError naming the archive and member, never a traceback.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from builder.core import textfiles
from builder.core.errors import InputError

_GZIP = 16 + zlib.MAX_WBITS  # a gzip header and trailer around deflate
_READABLE = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
# What a damaged archive or member raises inside zipfile and the decompressors it uses.
_DAMAGE = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError,
           RuntimeError)


@dataclass
class _Inflating:
    """Where gunzip's reader is: the current member's inflater, the bytes not yet fed to it and
    the newlines inflated so far (the line a damaged stream breaks off in)."""

    inflater: zlib._Decompress
    rest: bytes
    newlines: int = 0


def gunzip(path: str | Path, raw: bytes, *, lines: bool = True) -> bytes:
    """The bytes a gzip file (one member or several, as gzip allows) inflates to, within the
    caps; a damaged or truncated stream is a located error naming the line where the readable
    text breaks off (a run is written whole, so the damage is the file's, not a crash's)."""
    state = _Inflating(zlib.decompressobj(_GZIP), raw)

    def step(size: int) -> bytes:
        while True:
            inflater = state.inflater
            out = inflater.decompress(state.rest, size)
            state.rest = inflater.unconsumed_tail
            if out:
                state.newlines += out.count(b"\n")
                return out
            if inflater.eof:
                if not inflater.unused_data.strip(b"\0"):
                    return b""
                state.inflater, state.rest = zlib.decompressobj(_GZIP), inflater.unused_data
            elif not state.rest:
                raise EOFError("the stream ends before its end marker (truncated)")
    try:
        return textfiles.drain(path, step, textfiles.MAX_INPUT_BYTES, lines=lines)
    except (zlib.error, EOFError) as exc:
        raise InputError.single(path, f"not a readable gzip file: {exc} (it breaks off in this line: the file was "
                                "cut short or damaged; import or copy it again)", line=state.newlines + 1) from None


def open_zip(path: str | Path, raw: bytes) -> zipfile.ZipFile:
    """The archive `raw` (the bytes of `path`), its members counted first (from its end record:
    zipfile builds an object per member before anyone can count them); a located error when it
    is not a readable zip."""
    if _declared_members(raw) > textfiles.MAX_MEMBERS:
        raise InputError.single(path, f"cannot read: more than {textfiles.MAX_MEMBERS:,} files in the archive")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except _DAMAGE as exc:
        raise InputError.single(path, f"not a readable zip archive: {exc}") from None
    if len(archive.infolist()) > textfiles.MAX_MEMBERS:  # a central directory longer than its end record says
        archive.close()
        raise InputError.single(path, f"cannot read: more than {textfiles.MAX_MEMBERS:,} files in the archive")
    return archive


_END = b"PK\x05\x06"  # end of central directory record: member count at +10 (2 bytes)
_END64 = b"PK\x06\x06"  # its zip64 form: member count at +32 (8 bytes)


def _declared_members(raw: bytes) -> int:
    """The member count the archive's end record states (0 when there is none to read:
    zipfile then says what is wrong)."""
    end = raw.rfind(_END, max(0, len(raw) - 22 - 65535))
    if end < 0 or end + 22 > len(raw):
        return 0
    count = struct.unpack_from("<H", raw, end + 10)[0]
    if count != 0xFFFF:
        return count
    start = raw.rfind(_END64, max(0, end - 4096), end)
    return struct.unpack_from("<Q", raw, start + 32)[0] if start >= 0 and start + 40 <= len(raw) else 0


def read_member(shown: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo, *, limit: int | None = None,
                lines: bool = False) -> bytes:
    """One member's bytes, at most `limit` (MAX_INPUT_BYTES) inflated whatever its header says;
    `shown` names it in errors (e.g. `results.zip!outputs.json`)."""
    limit = textfiles.MAX_INPUT_BYTES if limit is None else limit
    if info.flag_bits & 0x1:
        raise InputError.single(shown, "cannot read: the file is encrypted in the archive; give it unencrypted")
    if info.compress_type not in _READABLE:
        raise InputError.single(shown, f"cannot read: compressed with zip method {info.compress_type}, which "
                                "Python's zipfile cannot inflate; repack it with deflate")
    if info.file_size > limit:
        raise InputError.single(shown, f"refused: it inflates to {info.file_size:,} bytes (the limit is {limit:,})")
    try:
        with archive.open(info) as member:
            return textfiles.drain(shown, member.read, limit, lines=lines)
    except _DAMAGE as exc:
        raise InputError.single(shown, f"cannot read: a damaged file in the archive ({exc})") from None
