"""Reading a gem5 file through each of the reader's parsers: the compiled tokenizer (where numba is
installed, from the first line here; by default after `mpx.readers.gem5.scan.COMPILE_AFTER_LINES`), the Python fast parser, and the strict line-by-line parser. They must agree on every
input: same trace, or the same `FormatError`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from mpx.errors import FormatError
from mpx.readers import gem5
from mpx.readers.gem5 import lines as grammar
from mpx.readers.gem5 import scan, tokens

PARSERS = ("compiled", "python", "strict")


@contextmanager
def parser(which: str) -> Iterator[None]:
    """Force ``which`` of `PARSERS` for the reads inside the block."""
    with pytest.MonkeyPatch.context() as mp:
        if which == "compiled":
            mp.setattr(scan, "COMPILE_AFTER_LINES", 0)
        if which in ("python", "strict"):
            mp.setattr(tokens, "available", False)
        if which == "strict":
            mp.setattr(grammar, "fast_chunk", lambda *a, **k: None)
        yield


def outcome(path: Any, read: Callable[[Any], Any] = gem5.read) -> Any:
    """The trace, or the FormatError's (line, message)."""
    try:
        return read(path)
    except FormatError as exc:
        return ("error", exc.line, exc.message)


def every_parser(path: Any, read: Callable[[Any], Any] = gem5.read) -> Any:
    """The outcome of the compiled tokenizer, after checking that the two Python parsers give the same."""
    got = {}
    for which in PARSERS:
        with parser(which):
            got[which] = outcome(path, read)
    first = got["compiled"]
    for which in PARSERS[1:]:
        other = got[which]
        if isinstance(first, tuple) or isinstance(other, tuple):
            assert first == other, (which, first, other)
        else:
            assert first == other and first.meta == other.meta, which
    return first
