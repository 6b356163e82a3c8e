"""Deprecated name of `mpx.readers.textio`, kept only for `mpx.readers.gem5` until its import is updated."""

from mpx.readers.textio import compression, head_text, open_binary, read_bytes, read_text, text_stream

__all__ = ["compression", "head_text", "open_binary", "read_bytes", "read_text", "text_stream"]
