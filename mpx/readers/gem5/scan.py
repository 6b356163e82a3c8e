"""Reading a ``stats.txt[.xz|.gz]``: blocks decompressed ahead by a helper thread, parsed by the line
grammar (`mpx.readers.gem5.lines`)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from mpx.errors import FormatError
from mpx.readers.gem5 import lines as grammar
from mpx.readers.gem5.lines import BLOCK, COL_END, Chunk, Stats, strict_chunk
from mpx.readers.textio import is_decompress_error, open_binary

def read_blocks(fh: IO[bytes], path: Any) -> Iterator[bytes]:
    """Decompressed blocks of ``fh``; a helper thread reads ahead (lzma and zlib release the GIL)."""
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
        try:
            while not stop.is_set():
                block = fh.read(BLOCK)
                put(block)
                if not block:
                    return
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
            if not item:
                return
            yield item
    finally:
        stop.set()
        worker.join()
        fh.close()


def parse(path: Any, stop_dumps: int | None, clashing: frozenset[bytes]) -> tuple[Stats, Chunk, bool]:
    """All stat rows and markers of the file (or of its first ``stop_dumps`` dumps)."""
    stats = Stats(clashing)
    chunks: list[Chunk] = []
    first = 1
    carry = b""
    ends = 0
    stopped = False
    blocks = read_blocks(open_binary(path), path)
    try:
        for block in blocks:
            lines = block.split(b"\n")
            lines[0] = carry + lines[0]
            carry = lines.pop()
            if not lines:
                continue
            fast = None if b"\0" in block else grammar.fast_chunk(lines, first, stats, block)
            chunks.append(fast or strict_chunk(lines, first, stats, path))
            first += len(lines)
            if stop_dumps is not None:
                ends += int(np.count_nonzero(chunks[-1].cols == COL_END))
                if ends >= stop_dumps:
                    stopped = True
                    break
    finally:
        blocks.close()
    if carry and not stopped:
        lines = [carry]
        fast = None if b"\0" in carry else grammar.fast_chunk(lines, first, stats)
        chunks.append(fast or strict_chunk(lines, first, stats, path))
    exact: dict[int, int] = {}
    offset = 0
    for ch in chunks:
        exact.update({offset + i: v for i, v in ch.exact.items()})
        offset += len(ch.cols)
    if chunks:
        rows = Chunk(np.concatenate([c.lines for c in chunks]), np.concatenate([c.cols for c in chunks]),
                      np.concatenate([c.vals for c in chunks]), exact)
    else:
        rows = Chunk(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0), {})
    return stats, rows, stopped
