"""Damaged compression is the project's error everywhere a file is read (issue 16: ``zlib.error`` came
through format detection, so from every reader and catalog)."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.metrics.catalog import load_catalog
from mpx.readers import detect_format, read_trace
from mpx.readers.perfstat import read_perf_stat
from mpx.readers.textio import open_binary, read_bytes

DATA = Path(__file__).resolve().parents[1] / "data"
PERF = DATA / "perfstat" / "real_global_semicolon.csv"
CATALOG = b'[{"MetricName": "ipc", "MetricExpr": "instructions / cycles"}]\n'


def _damaged(path: Path, packed: bytes, at: int) -> Path:
    raw = bytearray(packed)
    for k in range(at, min(at + 40, len(raw) - 8)):
        raw[k] ^= 0x5A
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("compress, suffix", [(gzip.compress, "gz"), (bz2.compress, "bz2"), (lzma.compress, "xz")])
def test_damaged_streams_are_format_errors(tmp_path: Path, compress, suffix):
    text = PERF.read_bytes() * 20
    path = _damaged(tmp_path / f"perf.csv.{suffix}", compress(text), 30)
    for read in (detect_format, read_trace, read_perf_stat, read_bytes):
        with pytest.raises(FormatError, match="cannot decompress") as err:
            read(path)
        assert err.value.path == str(path), read
    cat = _damaged(tmp_path / f"cat.json.{suffix}", compress(CATALOG * 1), 12)
    with pytest.raises(FormatError) as err:
        load_catalog(cat)
    assert err.value.path == str(cat)


def test_gzip_damage_past_the_head_is_caught_by_the_gem5_reader(tmp_path: Path):
    """The reproduction: ``zlib.error: invalid distance too far back`` from a gem5 file."""
    body = "\n".join(f"system.cpu.stat{i} {i} # a counter (Count)" for i in range(20000))
    text = ("---------- Begin Simulation Statistics ----------\nsimTicks 10 # t (Tick)\n"
            f"finalTick 10 # t (Tick)\n{body}\n---------- End Simulation Statistics   ----------\n")
    packed = gzip.compress(text.encode())
    path = _damaged(tmp_path / "stats.txt.gz", packed, len(packed) // 2)
    assert detect_format(path) == "gem5"
    with pytest.raises(FormatError, match="cannot decompress") as err:
        read_trace(path)
    assert err.value.path == str(path)


# -- devices and pipes (issue 16: `mpx trace info /dev/zero` hung; a pipe was opened several times) -------


def test_a_device_is_refused_not_read_forever():
    with pytest.raises(FormatError, match="/dev/zero: a character device, not a file"):
        read_trace("/dev/zero")
    with pytest.raises(FormatError, match="character device"):
        detect_format("/dev/zero")


_PIPE = r"""
import os, sys, threading, numpy as np
from mpx.readers import read_trace
from mpx.trace import Trace
from mpx.errors import FormatError
d = sys.argv[1]
src = os.path.join(d, "t.npz")
Trace(["a", "b"], np.array([[1, 2], [3, 4]]), [0, 5, 10], "cycles", {}).save(src)
for content, fifo in ((open(src, "rb").read(), "p1"), (b"garbage\n", "p2")):
    fifo = os.path.join(d, fifo)
    os.mkfifo(fifo)
    def feed(content=content, fifo=fifo):
        with open(fifo, "wb") as fh:  # one writer, once: a second open by the reader would block forever
            fh.write(content)
    threading.Thread(target=feed, daemon=True).start()
    try:
        tr = read_trace(fifo)
        print("loaded", tr.events, tr.totals(), tr.meta.get("source"))
    except FormatError as exc:
        print("error", exc)
print("tmp left:", sorted(f for f in os.listdir(os.environ["TMPDIR"]) if f.startswith("mpx-pipe-")))
"""


def test_a_pipe_is_read_once(tmp_path):
    import os
    import subprocess
    import sys

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = subprocess.run([sys.executable, "-c", _PIPE, str(tmp_path)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TMPDIR": str(tmpdir)})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("loaded ('a', 'b') {'a': 4.0, 'b': 6.0}"), lines
    assert lines[1] == f"error {tmp_path / 'p2'}: unknown format: no reader recognises it (tried: " \
                       "mpx, jsonl, gem5, callgrind, perfstat, likwid_perfctr)", lines
    assert lines[2] == "tmp left: []"


@pytest.mark.parametrize("compress, suffix", [(None, ""), (lzma.compress, ".xz"), (gzip.compress, ".gz"),
                                              (bz2.compress, ".bz2")])
def test_on_read_counts_the_bytes_of_the_file_itself(tmp_path: Path, compress, suffix):
    """What a progress bar of a compressed file shows: bytes of the file read, not decompressed bytes."""
    text = b"".join(b"line %d of some text\n" % i for i in range(50_000))
    path = tmp_path / f"f{suffix}"
    path.write_bytes(compress(text) if compress else text)
    seen: list[int] = []
    with open_binary(path, on_read=seen.append) as fh:
        got = b"".join(iter(lambda: fh.read(1 << 16), b""))
    assert got == text
    assert sum(seen) == path.stat().st_size and len(seen) >= 1
