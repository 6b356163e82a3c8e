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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

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


class Counted(io.RawIOBase):
    """A raw file that reports how many bytes each read took from the disk (for a progress bar)."""

    def __init__(self, raw: IO[bytes], on_read: Callable[[int], object]) -> None:
        self.raw, self.on_read = raw, on_read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        if n:
            self.on_read(n)
        return n or 0

    def close(self) -> None:
        self.raw.close()
        super().close()


class Owning(io.BufferedIOBase):
    """A decompressing stream that also closes the file it was opened on."""

    def __init__(self, inner: IO[bytes], raw: IO[bytes]) -> None:
        self.inner, self.raw = inner, raw

    def readable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        return self.inner.read(-1 if n is None else n)

    def read1(self, n: int = -1) -> bytes:
        return self.inner.read(n)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.raw.close()
            super().close()


def open_binary(path: str | os.PathLike, on_read: Callable[[int], object] | None = None) -> IO[bytes]:
    """A binary stream of the decompressed content of ``path``; ``on_read(n)`` is called with the number
    of bytes of ``path`` itself (compressed or not) each read consumed."""
    kind = compression(path)
    if on_read is None:
        return open_plain(path, kind)
    raw = io.BufferedReader(Counted(open(path, "rb"), on_read), 1 << 20)
    if kind is None:
        return raw
    try:
        return Owning(open_plain(raw, kind, path), raw)
    except BaseException:
        raw.close()
        raise


def open_plain(source: Any, kind: str | None, path: str | os.PathLike | None = None) -> IO[bytes]:
    """``source`` (a path or a binary file read from ``path``) decompressed as ``kind`` (None: as it is)."""
    if kind is None:
        return open(source, "rb")
    if kind == "xz":
        return lzma.open(source, "rb")
    if kind == "gz":
        return gzip.open(source, "rb")
    if kind == "bz2":
        return bz2.open(source, "rb")
    try:
        import zstandard
    except ImportError:
        raise FormatError(path or source, None,
                          "zstd-compressed file: install the 'zstandard' package to read it") from None
    return zstandard.ZstdDecompressor().stream_reader(open(source, "rb") if isinstance(source, (str, os.PathLike))
                                                      else source)


def require_final_newline(path: str | os.PathLike, data: str | bytes, n_lines: int | None = None) -> None:
    """The end-of-file rule of every line-based text reader (perf stat, callgrind, LIKWID groups, mpx-stats
    lines): the tools end every line with a newline, so a file whose last byte is not one was cut short, even
    when what is left still parses (a number cut to fewer digits). `FormatError` at its last line."""
    nl = "\n" if isinstance(data, str) else b"\n"
    if data and not data.endswith(nl):  # type: ignore[arg-type]
        line = n_lines if n_lines is not None else data.count(nl) + 1  # type: ignore[arg-type]
        raise FormatError(path, line, "truncated file: the last line has no newline")


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
    """The whole decompressed content of ``path`` as text (UTF-8; undecodable bytes and a byte-order mark
    after the first character are an error)."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(path, line, f"not UTF-8 text (byte {data[exc.start]:#04x})") from None
    bom = text.find("\ufeff", 1)
    if bom > 0:  # invisible inside a name ("\ufeffCPI" is not "CPI"): only a spliced or damaged file has one
        raise FormatError(path, text.count("\n", 0, bom) + 1, "a byte-order mark (U+FEFF) inside the text: "
                                                               "a spliced or damaged file?")
    return text


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
