"""Loading the native trace format never gives changed numbers or a raw exception (issue 16, item 4 and
the ``.npz`` raw exceptions): counts of a string dtype, malformed ``header``, ``.npy`` members declaring a
huge shape, damaged compression. Files are built member by member in numpy's ``.npy`` layout
(``numpy/lib/format.py``) inside a zip, as `Trace.save` writes them.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import mpx.trace_file
from mpx.errors import FormatError
from mpx.readers import read_trace
from mpx.trace import Trace

HEADER = {"format": "mpx-trace", "version": 1, "events": ["a", "b"], "time_unit": "ticks",
          "aux_names": [], "meta": {}}


def _npy(array: np.ndarray | None = None, *, header: dict | None = None, data: bytes = b"") -> bytes:
    buf = io.BytesIO()
    if array is not None:
        np.lib.format.write_array(buf, array, allow_pickle=False)
    else:
        np.lib.format.write_array_header_1_0(buf, header)
        buf.write(data)
    return buf.getvalue()


def _write(path: Path, **members: bytes) -> Path:
    good = {
        "header": _npy(np.frombuffer(json.dumps(HEADER).encode(), dtype=np.uint8)),
        "counts": _npy(np.array([[1.0, 2.0], [3.0, 16728.0]])),
        "edges": _npy(np.array([0.0, 10.0, 20.0])),
        "aux": _npy(np.zeros((2, 0))),
    }
    good.update(members)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, raw in good.items():
            if raw is not None:
                zf.writestr(f"{name}.npy", raw)
    return path


def _header(obj) -> bytes:
    return _npy(np.frombuffer(json.dumps(obj).encode(), dtype=np.uint8))


def _fails(path: Path, *words: str) -> None:
    with pytest.raises(FormatError) as info:
        read_trace(path)
    assert info.value.path == str(path)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_a_hand_built_file_loads_and_round_trips(tmp_path: Path):
    tr = read_trace(_write(tmp_path / "ok.npz"))
    assert tr.counts.tolist() == [[1.0, 2.0], [3.0, 16728.0]] and tr.events == ("a", "b")
    tr.save(tmp_path / "again.npz")
    assert Trace.load(tmp_path / "again.npz") == tr
    ints = read_trace(_write(tmp_path / "ints.npz", counts=_npy(np.array([[1, 2], [3, 4]], dtype=np.int64))))
    assert ints.counts.tolist() == [[1, 2], [3, 4]]


def test_counts_of_a_string_dtype_are_an_error(tmp_path: Path):
    """The reproduction: ``|S4`` counts loaded as truncated numbers (16728 -> 1672)."""
    strings = np.array([[b"1.0", b"2.0"], [b"3.0", b"1672"]], dtype="S4")
    _fails(_write(tmp_path / "s.npz", counts=_npy(strings)), "counts.npy", "dtype '|S4'")
    _fails(_write(tmp_path / "u.npz", edges=_npy(np.array(["0", "10", "20"]))), "edges.npy", "dtype '<U2'")
    _fails(_write(tmp_path / "b.npz", counts=_npy(np.ones((2, 2), dtype=bool))), "dtype '|b1'")
    _fails(_write(tmp_path / "c.npz", counts=_npy(np.ones((2, 2), dtype=complex))), "dtype '<c16'")


def test_a_huge_declared_shape_is_an_error_before_allocating(tmp_path: Path, monkeypatch):
    """A member declaring 10**18 float64 raised MemoryError; one declaring more than it holds, or more
    than the stated bound, is refused before anything is allocated."""
    huge = _npy(header={"descr": "<f8", "fortran_order": False, "shape": (10**12, 10**6)}, data=b"\0" * 32)
    _fails(_write(tmp_path / "huge.npz", counts=huge), "counts.npy", "more than the 2,147,483,648")
    lying = _npy(header={"descr": "<f8", "fortran_order": False, "shape": (4, 2)}, data=b"\0" * 32)
    _fails(_write(tmp_path / "lying.npz", counts=lying), "declares shape (4, 2) (64 bytes) but holds 32")
    monkeypatch.setattr(mpx.trace_file, "MAX_MEMBER_BYTES", 16)
    _fails(_write(tmp_path / "ok.npz"), "more than the 16 a trace file may hold")


@pytest.mark.parametrize("header, words", [
    ([1, 2], ["a JSON list, not an object"]),
    ({**HEADER, "events": 7}, ["'events' is a int, not a list"]),
    ({**HEADER, "meta": [1]}, ["'meta' is a list"]),
    ({**HEADER, "time_unit": 3}, ["'time_unit' is a int"]),
    ({**HEADER, "version": "1"}, ["version"]),
    ({**HEADER, "events": [1, 2]}, ["invalid trace content"]),
    ({k: v for k, v in HEADER.items() if k != "time_unit"}, ["invalid trace content"]),
])
def test_malformed_headers_are_format_errors(tmp_path: Path, header, words):
    """AttributeError (a list header), TypeError (events an int) and the like before."""
    _fails(_write(tmp_path / "h.npz", header=_header(header)), *words)


def test_broken_members_are_format_errors(tmp_path: Path):
    _fails(_write(tmp_path / "j.npz", header=_npy(np.frombuffer(b"{not json", dtype=np.uint8))), "not JSON")
    _fails(_write(tmp_path / "deep.npz", header=_npy(np.frombuffer(b"[" * 100000, dtype=np.uint8))), "not JSON")
    big = b'{"version": ' + b"9" * 5000 + b"}"
    _fails(_write(tmp_path / "digits.npz", header=_npy(np.frombuffer(big, dtype=np.uint8))), "not JSON")
    _fails(_write(tmp_path / "magic.npz", counts=b"NOTNUMPY" + b"\0" * 64), "not an mpx trace file")
    _fails(_write(tmp_path / "none.npz", aux=None), "no member aux.npy")
    neg = _npy(header={"descr": "<f8", "fortran_order": False, "shape": (-2, -2)}, data=b"\0" * 32)
    _fails(_write(tmp_path / "neg.npz", counts=neg), "declares shape (-2, -2)")
    text = json.dumps(HEADER).encode()
    wide = _npy(np.frombuffer(text + b" " * (-len(text) % 4), dtype=np.uint32))
    _fails(_write(tmp_path / "wide.npz", header=wide), "header.npy declares shape")


def test_damaged_compressed_data_is_a_format_error(tmp_path: Path):
    path = _write(tmp_path / "ok.npz", counts=_npy(np.arange(4000.0).reshape(2000, 2)),
                  edges=_npy(np.arange(2001.0)), aux=_npy(np.zeros((2000, 0))))
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("counts.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 10
    for k in range(start, start + 40):
        raw[k] ^= 0x5A
    path.write_bytes(bytes(raw))
    _fails(path, "not an mpx trace file")
