"""The streaming gem5 reader (issues 16 and 17): dumps cut anywhere by the decompressed blocks, storage in
dense or sparse parts, the compiled tokenizer's number conversion, and the size ceiling."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.readers import gem5
from mpx.readers.gem5 import dumps, scan, tokens
from tests.readers.gem5_parsers import PARSERS, outcome, parser

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"


def _periodic(n_dumps: int, names_per_dump, delta: int = 1000) -> str:
    """A delta series: dump k prints the stats ``names_per_dump(k)`` with value k + 1 + i."""
    out = []
    for k in range(n_dumps):
        out += [BEGIN, f"simTicks {delta} # Number of ticks simulated (Tick)",
                f"finalTick {delta * (k + 1)} # Number of ticks from beginning of simulation (Tick)",
                "simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))"]
        out += [f"{name} {k + 1 + i} 12.50% 50.00% # Number of {name} (Count)" if i % 3 == 0 else
                f"{name} {k + 1 + i} # Number of {name} (Count)" for i, name in enumerate(names_per_dump(k))]
        out += ["", END, ""]
    return "\n".join(out) + "\n"


def test_dumps_cut_by_any_block_size_read_the_same(tmp_path, monkeypatch):
    """Blocks of 64 bytes to 4 MiB cut lines and dumps anywhere; storage parts of 7 rows to a million:
    the same trace every time, with every parser."""
    path = tmp_path / "stats.txt"
    path.write_text(_periodic(40, lambda k: [f"system.cpu.stat{i}" for i in range(30 if k % 2 else 25)]))
    want = gem5.read(path)
    assert want.n_intervals == 40 and want["system.cpu.stat27"].tolist()[:2] == [0.0, 29.0]
    for block, rows in ((64, 7), (1000, 50), (1 << 22, 1 << 20)):
        monkeypatch.setattr(scan, "BLOCK", block)
        monkeypatch.setattr(dumps, "CHUNK_ROWS", rows)
        for which in PARSERS:
            with parser(which):
                got = gem5.read(path)
            assert got == want and got.meta == want.meta, (block, rows, which)


def test_an_error_names_the_same_line_whatever_the_blocks(tmp_path, monkeypatch):
    text = _periodic(30, lambda k: [f"system.cpu.stat{i}" for i in range(20)]).split("\n")
    bad = 400  # a stat printed twice, deep in the file (1-based line numbers)
    text.insert(bad - 1, text[bad - 3])
    path = tmp_path / "stats.txt"
    path.write_text("\n".join(text))
    errors = set()
    for block in (64, 333, 1 << 22):
        monkeypatch.setattr(scan, "BLOCK", block)
        for which in PARSERS:
            with parser(which):
                errors.add(outcome(path)[:2])
    assert errors == {("error", bad)}


def test_stats_that_come_and_go_are_stored_sparse(tmp_path, monkeypatch):
    """300 dumps, each printing 40 stats no other dump prints: 12,000 names. Dense storage would hold
    300 × 12,000 cells; the parts hold one entry per printed row (issue 16: memory by the data)."""
    path = tmp_path / "stats.txt"
    path.write_text(_periodic(300, lambda k: [f"system.unit{k}.stat{i}" for i in range(40)]))
    monkeypatch.setattr(dumps, "CHUNK_ROWS", 1000)
    stats, table, _ = scan.parse(path, slice(None), None, frozenset(), True)
    assert len(stats.names) == 3 + 300 * 40
    assert all(p.values is None for p in table.parts if p.nd > 2)  # sparse: many dumps, each its own names
    stored = sum(p.vals.size for p in table.parts if p.values is None)
    assert stored == 300 * 43  # the printed rows, not 300 × 12,003
    tr = gem5.read(path)
    assert tr.counts.shape == (300, 12000)
    assert tr["system.unit7.stat3"][7] == 7 + 1 + 3 and tr["system.unit7.stat3"].sum() == 11


def test_a_periodic_series_is_stored_dense(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_text(_periodic(50, lambda k: [f"system.cpu.stat{i}" for i in range(30)]))
    _, table, _ = scan.parse(path, slice(None), None, frozenset(), True)
    assert all(p.values is not None for p in table.parts)


def test_a_trace_wider_than_the_native_format_allows_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "stats.txt"
    path.write_text(_periodic(20, lambda k: [f"system.unit{k}.stat{i}" for i in range(10)]))
    assembly = importlib.import_module("mpx.readers.gem5.assemble")  # the package exports its function
    monkeypatch.setattr(assembly, "MAX_MEMBER_BYTES", 20 * 150 * 8)  # 20 intervals × 200 events do not fit
    with pytest.raises(FormatError, match="20 intervals × 200 events would take"):
        gem5.read(path)


def test_dump_selection_stores_and_reads_only_what_is_asked(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_text(_periodic(30, lambda k: ["system.cpu.a", "system.cpu.b"]))
    whole = gem5.read(path)
    for sel in ((5, 9), (-4, None), (0, 1), (28, None)):
        part = gem5.read(path, dumps=sel)
        lo, hi = range(30)[slice(*sel)].start, range(30)[slice(*sel)].stop
        assert part.counts.tolist() == whole.counts[lo:hi].tolist(), sel
        assert part.meta["dumps"] == [lo, hi]
    assert gem5.read(path, dumps=(5, 9)).meta["stopped_after_selection"] is True


@pytest.mark.skipif(not tokens.available, reason="numba is not installed")
@settings(max_examples=100, deadline=None)
@given(token=st.one_of(
    st.from_regex(r"[+-]?[0-9]{1,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.floats(allow_nan=False).map(repr),
    st.integers(-2**60, 2**60).map(str),
    st.sampled_from(["nan", "-nan", "inf", "-inf", "+inf", "NaN", "1.", ".5", "-0", "0.000000000000000000001"])))
def test_the_compiled_conversion_is_pythons_float(token):
    """Clinger's fast path (PLDI 1990, §4: mantissa < 2**53, |power of ten| ≤ 22, one correctly rounded
    operation) gives exactly Python's float; anything else is left to Python (ok False)."""
    raw = np.frombuffer(token.encode(), dtype=np.uint8)
    value, ok = tokens.number(raw, 0, raw.size)
    if ok:
        want = float(token)
        assert (np.isnan(value) and np.isnan(want)) or (value == want and np.signbit(value) == np.signbit(want)), token


def test_a_small_file_never_compiles_the_tokenizer(tmp_path, monkeypatch):
    """Issue 39: the compiled tokenizer takes over after `scan.COMPILE_AFTER_LINES` lines, a count decided
    before reading; a small file is read by the Python parser alone (a first `mpx trace info` of a 5-line
    file compiled for 47 s), and both give the same trace."""
    path = tmp_path / "stats.txt"
    path.write_text("".join(f"\n---------- Begin Simulation Statistics ----------\nsimTicks {1000 * d} # t\n"
                            f"finalTick {1000 * d} # t\nsystem.cpu.numCycles {10 * d} # c\n"
                            "---------- End Simulation Statistics   ----------\n" for d in (1, 2, 3)))
    made = []
    real = tokens.NameTable
    monkeypatch.setattr(tokens, "NameTable", lambda: made.append(1) or real())
    small = gem5.read(path)
    assert made == [] and small.counts.shape[0] == 3 and "system.cpu.numCycles" in small.events
    monkeypatch.setattr(scan, "COMPILE_AFTER_LINES", 0)
    compiled = gem5.read(path)
    assert made == ([1] if tokens.available else [])
    assert compiled == small and compiled.meta == small.meta
