"""Reading a ``stats.txt[.xz|.gz]``: blocks decompressed ahead by a helper thread, parsed as they come (the
compiled tokenizer `mpx.readers.gem5.tokens`, the line grammar `mpx.readers.gem5.lines`) and collected
dump by dump (`mpx.readers.gem5.dumps`)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np

from mpx.errors import FormatError
from mpx.util.jit import compile_notice
from mpx.util.progress import bar as progress_bar
from mpx.readers.gem5 import lines as grammar
from mpx.readers.gem5 import tokens
from mpx.readers.gem5.dumps import Dumps, Table
from mpx.readers.gem5.lines import BLOCK, Chunk, Stats, strict_chunk
from mpx.readers.textio import is_decompress_error, open_binary

def ahead(source: Callable[[], Iterator[Any]], name: str, depth: int = 2) -> Iterator[Any]:
    """The items of ``source()``, produced by a helper thread up to ``depth`` items ahead of the consumer.
    An exception in the helper is raised in the consumer; closing the consumer stops the helper, which
    closes its iterator in its own thread."""
    stop = threading.Event()
    items: queue.Queue = queue.Queue(maxsize=depth)
    done = object()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        it = None
        try:
            it = source()
            for item in it:
                if not put(item):
                    return
            put(done)
        except BaseException as exc:  # handed to the consumer
            put(exc)
        finally:
            if it is not None and hasattr(it, "close"):
                it.close()

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    try:
        while True:
            item = items.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


def read_blocks(fh: IO[bytes], path: Any) -> Iterator[tuple[bytes, int, int]]:
    """Decompressed blocks of ``fh`` as ``(data, start, end)``: whole lines in ``data[start:end]`` (the
    byte at ``end``, if any, is their last newline). A line cut by a block's end is given on its own,
    joined with its head from the next block (no copy of the block). Damaged compression is a
    `FormatError`; ``fh`` is closed at the end."""
    carry = b""
    try:
        while True:
            try:
                block = fh.read(BLOCK)
            except Exception as exc:
                if is_decompress_error(exc):
                    raise FormatError(path, None, f"cannot decompress: {exc}") from None
                raise
            if not block:
                if carry:
                    yield carry, 0, len(carry)
                return
            nl = block.find(b"\n")
            if nl < 0:
                carry += block
                continue
            start = 0
            if carry:
                head = carry + block[:nl]
                yield head, 0, len(head)
                start = nl + 1
            last = block.rfind(b"\n")
            if last >= start:
                yield block, start, last
            carry = block[last + 1:]
    finally:
        fh.close()


#: lines the Python parser reads before the compiled tokenizer takes over (a size rule, not a timer; the
#: rows are the same either way): a small file never pays numba's compilation of the tokenizer (13 s of CPU
#: on an empty cache; issue 39: a first ``mpx trace info`` of a 5-line file took 47 s), a large one pays it
#: once per machine after ~1 s of Python parsing
COMPILE_AFTER_LINES = 1_000_000


def tokenized(blocks: Iterator[tuple[bytes, int, int]], stats: Stats, path: Any) -> Iterator[tuple[Chunk, int]]:
    """The parsed rows of each block and its number of lines (see `rows`)."""
    names = None
    first = 1
    try:
        for data, start, end in blocks:
            if names is None and tokens.available and first > COMPILE_AFTER_LINES:
                compile_notice(tokens.__file__, "the gem5 tokenizer")
                names = tokens.NameTable()
            chunk, n_lines = rows(data, first, stats, names, path, start, end)
            first += n_lines
            yield chunk, n_lines
    finally:
        if hasattr(blocks, "close"):
            blocks.close()


def parse(path: Any, select: slice, stop_dumps: int | None, clashing: frozenset[bytes], allow_clash: bool
          ) -> tuple[Stats, Table, bool]:
    """The selected dumps of the file, parsed block by block as the decompression delivers them (the
    compiled tokenizer where numba is available, else the Python parsers); reading stops after dump
    ``stop_dumps``."""
    stats = Stats(clashing)
    start = select.start if select.start is not None and select.start >= 0 else 0
    dumps = Dumps(path, stats, start, stop_dumps, allow_clash)
    stopped = False
    size = os.path.getsize(path) if os.path.isfile(path) else None
    with progress_bar(total=size, desc=f"reading {os.path.basename(os.fspath(path))}", unit="B",
                      unit_scale=True, unit_divisor=1024) as shown:
        # three stages on their own threads: decompress (lzma releases the GIL), tokenize (the compiled
        # kernel releases it), collect the dumps (here)
        fh = open_binary(path, on_read=shown.update)
        parsed = ahead(lambda: tokenized(ahead(lambda: read_blocks(fh, path), "mpx-gem5-read"), stats, path),
                       "mpx-gem5-tokenize")
        try:
            for chunk, _ in parsed:
                dumps.feed(chunk)
                if dumps.done:
                    stopped = True
                    break
        finally:
            parsed.close()
            fh.close()
    return stats, dumps.finish(select, stopped), stopped


def rows(block: bytes, first: int, stats: Stats, names: tokens.NameTable | None, path: Any, start: int = 0,
         end: int | None = None) -> tuple[Chunk, int]:
    """Parsed rows of the lines in ``block[start:end]`` (no newline at ``end``), the first numbered
    ``first``, and how many lines that is: the compiled tokenizer, else the Python fast parser, else the
    strict one (which raises the exact `FormatError`). Blocks with NUL bytes skip the fast parsers (numpy
    reads ``b"1\\x002"`` as 1)."""
    end = len(block) if end is None else end
    clean = block.find(b"\0", start, end) < 0
    if clean and names is not None and tokens.available:
        got = tokens.block_rows(np.frombuffer(block, dtype=np.uint8), start, end, first, stats, names)
        if got is not None:
            return got
    lines = block[start:end].split(b"\n")
    fast = grammar.fast_chunk(lines, first, stats) if clean else None
    return fast or strict_chunk(lines, first, stats, path), len(lines)
