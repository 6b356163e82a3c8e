"""Reading a ``stats.txt[.xz|.gz]``: blocks decompressed ahead by a helper thread, parsed as they come (the
compiled tokenizer `mpx.readers.gem5.tokens`, the line grammar `mpx.readers.gem5.lines`) and collected
dump by dump (`mpx.readers.gem5.dumps`)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from mpx.errors import FormatError
from mpx.progress import bar as progress_bar
from mpx.readers.gem5 import lines as grammar
from mpx.readers.gem5 import tokens
from mpx.readers.gem5.dumps import Dumps, Table
from mpx.readers.gem5.lines import BLOCK, Chunk, Stats, strict_chunk
from mpx.readers.textio import is_decompress_error, open_binary

def read_blocks(fh: IO[bytes], path: Any) -> Iterator[tuple[bytes, int]]:
    """Decompressed blocks of ``fh`` cut at line ends, as ``(data, end)``: the lines of ``data[:end]``
    (``data[end]`` is their last newline; at the end of a file without a final newline, ``end`` is
    ``len(data)``). A helper thread reads ahead and cuts (lzma and zlib release the GIL)."""
    stop = threading.Event()
    blocks: queue.Queue = queue.Queue(maxsize=2)

    def put(item: Any) -> None:
        while not stop.is_set():
            try:
                blocks.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def work() -> None:
        carry = b""
        try:
            while not stop.is_set():
                block = fh.read(BLOCK)
                if not block:
                    if carry:
                        put((carry, len(carry)))
                    put(None)
                    return
                data = carry + block if carry else block
                cut = data.rfind(b"\n")
                if cut < 0:
                    carry = data
                    continue
                put((data, cut))
                carry = data[cut + 1:]
        except BaseException as exc:  # handed to the consumer
            put(exc)

    worker = threading.Thread(target=work, name="mpx-gem5-read", daemon=True)
    worker.start()
    try:
        while True:
            item = blocks.get()
            if isinstance(item, BaseException):
                if is_decompress_error(item):
                    raise FormatError(path, None, f"cannot decompress: {item}") from None
                raise item
            if item is None:
                return
            yield item
    finally:
        stop.set()
        worker.join()
        fh.close()


def parse(path: Any, select: slice, stop_dumps: int | None, clashing: frozenset[bytes], allow_clash: bool
          ) -> tuple[Stats, Table, bool]:
    """The selected dumps of the file, parsed block by block as the decompression delivers them (the
    compiled tokenizer where numba is available, else the Python parsers); reading stops after dump
    ``stop_dumps``."""
    stats = Stats(clashing)
    start = select.start if select.start is not None and select.start >= 0 else 0
    dumps = Dumps(path, stats, start, stop_dumps, allow_clash)
    names = tokens.NameTable() if tokens.available else None
    first = 1
    stopped = False
    size = os.path.getsize(path) if os.path.isfile(path) else None
    with progress_bar(total=size, desc=f"reading {os.path.basename(os.fspath(path))}", unit="B",
                      unit_scale=True, unit_divisor=1024) as shown:
        blocks = read_blocks(open_binary(path, on_read=shown.update), path)
        try:
            for data, end in blocks:
                chunk, n_lines = rows(data, first, stats, names, path, 0, end)
                dumps.feed(chunk)
                first += n_lines
                if dumps.done:
                    stopped = True
                    break
        finally:
            blocks.close()
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
