"""Opening inputs: compressed files (``.xz``, ``.gz``, ``.bz2``, ``.zst`` by magic bytes) read transparently."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from mpx.errors import FormatError

_MAGIC = {
    b"\xfd7zXZ\x00": "xz",
    b"\x1f\x8b": "gz",
    b"BZh": "bz2",
    b"\x28\xb5\x2f\xfd": "zst",
}


#: What a damaged compressed stream raises while it is read: gzip's ``zlib.error`` (bad deflate data) and
#: ``BadGzipFile``/``EOFError``, bz2's ``OSError``, ``lzma.LZMAError``, and zstandard's ``ZstdError`` (a
#: subclass of ``Exception`` only, recognised by name so that the package stays optional).
DECOMPRESS_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, lzma.LZMAError, zlib.error)


def is_decompress_error(exc: BaseException) -> bool:
    """Is ``exc`` a damaged compressed stream (see `DECOMPRESS_ERRORS`), not a missing file?"""
    if isinstance(exc, FileNotFoundError):
        return False
    return isinstance(exc, DECOMPRESS_ERRORS) or type(exc).__name__ == "ZstdError"


def compression(path: str | os.PathLike) -> str | None:
    """The compression of ``path`` by its magic bytes (``'xz'``, ``'gz'``, ``'bz2'``, ``'zst'``) or None."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    return None


def open_binary(path: str | os.PathLike) -> IO[bytes]:
    """A binary stream of the decompressed content of ``path``."""
    kind = compression(path)
    if kind is None:
        return open(path, "rb")
    if kind == "xz":
        return lzma.open(path, "rb")
    if kind == "gz":
        return gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    try:
        import zstandard
    except ImportError:
        raise FormatError(path, None, "zstd-compressed file: install the 'zstandard' package to read it") from None
    return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"))


def read_bytes(path: str | os.PathLike) -> bytes:
    """The whole decompressed content of ``path``; corrupt compression becomes a FormatError."""
    try:
        with open_binary(path) as fh:
            return fh.read()
    except Exception as exc:
        if not is_decompress_error(exc):
            raise
        raise FormatError(path, None, f"cannot decompress: {exc}") from None


def read_text(path: str | os.PathLike) -> str:
    """The whole decompressed content of ``path`` as text (UTF-8; undecodable bytes are an error)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(path, line, f"not UTF-8 text (byte {data[exc.start]:#04x})") from None


def head_text(path: str | os.PathLike, n_bytes: int = 4096) -> str:
    """The first ``n_bytes`` of the decompressed content, decoded leniently (for format detection).
    Damaged compression within them is a `FormatError` ("cannot decompress")."""
    try:
        with open_binary(path) as fh:
            return fh.read(n_bytes).decode("utf-8", errors="replace")
    except Exception as exc:
        if compression(path) is not None and is_decompress_error(exc):
            raise FormatError(path, None, f"cannot decompress: {exc}") from None
        if isinstance(exc, OSError):
            return ""
        raise


def text_stream(path: str | os.PathLike) -> IO[str]:
    """A text stream over the decompressed content (for line-by-line readers of huge files)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", newline="")


def kind_of(path: str | os.PathLike) -> str:
    """``'file'``, ``'directory'``, ``'pipe'`` or what else ``path`` is (``'character device'``, ...)."""
    mode = os.stat(path).st_mode
    for test, name in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "pipe"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


@contextmanager
def regular_input(path: str | os.PathLike) -> Iterator[str | os.PathLike]:
    """``path`` itself when it is a file or folder; a pipe (``<(cat f)``) is read once, to its end, into a
    temporary file (removed on exit) because detection and the readers open their input several times;
    a device or socket (``/dev/zero`` would never end) is a `FormatError`."""
    kind = kind_of(path)
    if kind in ("file", "directory"):
        yield path
        return
    if kind != "pipe":
        raise FormatError(path, None, f"a {kind}, not a file: give a file, a folder or a pipe")
    fd, tmp = tempfile.mkstemp(prefix="mpx-pipe-")
    try:
        with open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        yield tmp
    finally:
        os.unlink(tmp)
