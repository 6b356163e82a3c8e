"""Issue 29, item 4: a destroyed or damaged results store is reported as such, in one line, and nothing is
written into it; each cell carries a checksum of its rows, checked when read and by `mpx report --verify`."""

from __future__ import annotations

import sqlite3
import struct

import pytest

from mpx.cli import main
from mpx.errors import FormatError
from mpx.experiment.store import ResultsStore, open_store

MAPE = 0.123456789012345  # a value whose 8 stored bytes are easy to find in the file


def make_store(path, n_cells: int = 3):
    with ResultsStore(path) as st:
        st.declare({"scores": ("scaler",)})
        run = st.begin_run("toy", None, {}, "v0", [f"k{i}" for i in range(n_cells)], "1")
        for i in range(n_cells):
            st.write({"cell": {"key": f"k{i}", "experiment": "toy", "status": "done"},
                      "scores": [{"scaler": "linear", "window_mape": MAPE + i, "workload": f"w{i}"},
                                 {"scaler": "dcam", "window_mape": 2 * MAPE + i, "workload": f"w{i}"}]})
        st.end_run(run)
    return path


def flip(path, offset: int, mask: int = 0x01) -> None:
    b = bytearray(path.read_bytes())
    b[offset] ^= mask
    path.write_bytes(bytes(b))


def test_a_fresh_store_verifies(tmp_path):
    p = make_store(tmp_path / "results.sqlite")
    with open_store(p) as st:
        assert st.verify() == [] and st.unchecked() == 0
        assert sorted(st.table("scores")["window_mape"]) == pytest.approx(sorted([MAPE, MAPE + 1, MAPE + 2, 2 * MAPE,
                                                                                   2 * MAPE + 1, 2 * MAPE + 2]))
    assert main(["report", str(p), "--verify"]) == 0


def test_the_writer_checks_once_at_open_and_refuses_a_damaged_store(tmp_path, monkeypatch):
    """`mpx run` reads its store back for the export and report right after writing it; it checks every cell once,
    when it opens the store (issue 40 item 3: it wrote a finished run into a damaged store before failing), and
    the cells it writes itself are checksummed from their rows read back, so it never checks again (issue 30:
    re-checking a quickstart store cost ~4 s)."""
    p = make_store(tmp_path / "results.sqlite", n_cells=2)
    calls = []
    real = ResultsStore.problems
    monkeypatch.setattr(ResultsStore, "problems", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    with ResultsStore(p) as st:
        st.write({"cell": {"key": "k2", "experiment": "toy", "status": "done"},
                  "scores": [{"scaler": "linear", "window_mape": 5.0, "workload": "w2"}]})
        assert len(st.table("scores", keys=["k0", "k1", "k2"])) == 5
    assert len(calls) == 1
    data = p.read_bytes()
    flip(p, data.find(struct.pack(">d", MAPE + 1)) + 7)  # damage k1
    before = p.read_bytes()
    with pytest.raises(FormatError, match="1 damaged cell.s. .first: k1: its rows no longer match"):
        ResultsStore(p)
    assert p.read_bytes() == before
    with ResultsStore(p, read_only=True) as st:
        assert st.verify() == ["k1"]  # a fresh store checks every cell


def test_report_on_an_empty_store_says_so_and_writes_nothing(tmp_path, capsys):
    """It printed "no results", exited 0 and wrote a fresh schema into the zero-length file."""
    p = tmp_path / "results.sqlite"
    p.write_bytes(b"")
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "empty file" in err[0] and str(p) in err[0]
    assert p.stat().st_size == 0
    assert main(["report", str(p), "--verify"]) == 1 and p.stat().st_size == 0


def test_a_flipped_value_in_a_record_is_found(tmp_path, capsys):
    """A byte flipped inside a record reached the report silently (SQLite keeps no page checksums)."""
    p = make_store(tmp_path / "results.sqlite")
    data = p.read_bytes()
    at = data.find(struct.pack(">d", MAPE + 1))  # SQLite stores a REAL as a big-endian double
    assert at > 0 and data.count(struct.pack(">d", MAPE + 1)) == 1
    flip(p, at + 7)  # the last mantissa byte: a slightly other number, a valid record
    before = p.read_bytes()
    with open_store(p) as st:
        assert st.verify() == ["k1"]
    with open_store(p) as st, pytest.raises(FormatError, match="no longer match the checksum") as info:
        st.table("scores")
    assert str(p) in str(info.value)
    assert main(["report", str(p), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "cell k1" in out and "2 of 3 checked cell(s) match" in out
    assert main(["report", str(p)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "checksum" in err[0]
    assert p.read_bytes() == before  # nothing written


def test_a_damaged_page_is_one_line(tmp_path, capsys):
    """A flipped byte in the page structure of the scores table ended in a raw sqlite3.DatabaseError."""
    p = make_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'scores'").fetchone()[0]
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    flip(p, (root - 1) * page, 0xFF)  # the b-tree page type byte: no longer a page SQLite knows
    before = p.read_bytes()
    assert main(["report", str(p)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged results store" in err[0] and str(p) in err[0]
    assert main(["report", str(p), "--verify"]) == 1
    assert p.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_one_line(tmp_path, capsys):
    p = tmp_path / "results.sqlite"
    p.write_bytes(b"hello" * 100)
    assert main(["report", str(p)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(p) in err[0]
    assert p.read_bytes() == b"hello" * 100


def test_the_row_text_of_a_checksum_is_the_canonical_form_of_every_value():
    """`row_text` inlines `canonical_value` for floats, ints and strings (speed); the text must stay what every stored
    checksum was computed from: `name=<canonical_value(value)>` joined by 0x1f, NULLs left out."""
    import numpy as np

    from mpx.experiment.store import canonical_value, row_text

    names = ["f", "i", "s", "b", "n", "np", "flag", "neg"]
    row = (0.1, 7, "x=y", b"\x00\x01", None, np.float64(2.5), True, -0.0)
    want = "\x1f".join(f"{n}={canonical_value(v)}" for n, v in zip(names, row) if v is not None)
    assert row_text(names, row) == want
    assert "f=f0x1.999999999999ap-4" in want and "flag=iTrue" in want and "neg=f-0x0.0p+0" in want
