"""The reader fuzz harness (``benchmarks/fuzz_readers.py``) for a short budget on every change: every target,
200 inputs each from fixed random seeds (the same inputs on any machine at any load: a budget in seconds made
the suite's inputs depend on how busy the machine was, and let it find a new failure on one run and not the
next; the long runs in seconds are the harness's own, ``--seconds 600``); any finding fails the test with its
reproducer path. The harness itself is checked to report a reader that breaks the invariant."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from mpx.errors import FormatError

HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_readers.py"


def harness():
    spec = importlib.util.spec_from_file_location("fuzz_readers", HARNESS)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_readers"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow(seconds=25)
def test_every_target_for_a_short_budget(tmp_path):
    proc = subprocess.run([sys.executable, str(HARNESS), "--all", "--inputs", "200", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {ln.split()[0]: ln for ln in proc.stdout.splitlines()[1:]}
    assert set(rows) == set(harness().targets())
    tried = {n: int(r.split()[1]) for n, r in rows.items() if "skipped" not in r}
    assert tried and all(v == 200 for v in tried.values()), tried
    assert not list(tmp_path.iterdir())


def test_the_markdown_table_in_two_lanes(tmp_path):
    """``--table --jobs 2``: the issue's table (targets x outcomes) in one command, rows in target order."""
    proc = subprocess.run([sys.executable, str(HARNESS), "--target", "expr", "--target", "perfstat-csv", "--inputs",
                           "30", "--jobs", "2", "--table", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    rows = [ln.split("|")[1:-1] for ln in lines if ln.startswith("| ")]
    assert [r[0].strip() for r in rows] == ["target", "expr", "perfstat-csv", "**all**"]
    header = [c.strip() for c in rows[0]]
    assert header[4].startswith("raw") and header[6] == "silent"
    counts = [[int(c.strip().replace(",", "")) for c in r[1:7]] for r in rows[1:]]
    assert all(c[0] == 30 and c[0] == c[1] + c[2] for c in counts[:2]), counts  # every input loaded or refused
    assert counts[2] == [a + b for a, b in zip(*counts[:2])]  # the totals are the rows' sums
    assert f"**0 raw, 0 silent** in {counts[2][0]:,} inputs" in proc.stdout
    assert "2 lane(s)" in lines[0] and "30 inputs each" in lines[0]


def test_mutations_change_the_input():
    fz = harness()
    b = b"a 1\nb 22\nc 333\n"
    assert fz.mutate(b, "merge_lines", 0, 0) == b"a 1b 22\nc 333\n"
    assert fz.mutate(b, "delete_line", 1, 0) == b"a 1\nc 333\n"
    assert fz.mutate(b, "dup_line", 2, 0) == b + b"c 333\n"
    assert fz.mutate(b, "truncate", 5, 0) == b"a 1\nb"
    assert fz.mutate(b, "inflate_digits", 0, 1) == b"a 1999\nb 22\nc 333\n"
    assert fz.mutate(b, "byteflip", 0, 0) == b"` 1\nb 22\nc 333\n"
    assert fz.mutate(b, "garbage_line", 1, 0) == b"a 1\nhello world\nb 22\nc 333\n"


def test_the_independent_fuzzers_operators_change_the_input():
    """The operators of issue 29's independent fuzzer (they found what the first eight missed)."""
    fz = harness()
    b = b"a 1\nb 22.5\nc 333\n"
    assert fz.mutate(b, "swap_lines", 0, 0) == b"b 22.5\na 1\nc 333\n"
    assert fz.mutate(b, "num_plus1", 4, 0) == b"a 1\nb 23.5\nc 333\n"
    assert fz.mutate(b, "num_minus1", 0, 0) == b"a 0\nb 22.5\nc 333\n"
    assert fz.mutate(b, "num_times10", 11, 0) == b"a 1\nb 22.5\nc 3330\n"
    assert fz.mutate(b, "crlf", 0, 0) == b"a 1\r\nb 22.5\r\nc 333\r\n"
    assert fz.mutate(b, "bom", 0, 1) == b"\xef\xbb\xbf" + b and fz.mutate(b, "bom", 1, 0) == b"a 1\n\xef\xbb\xbfb 22.5\nc 333\n"
    assert fz.mutate(b, "empty_line", 2, 0) == b"a 1\nb 22.5\n\nc 333\n"
    assert fz.mutate(b, "truncate16", 0, 7) == b[: len(b) * 8 // 16]
    assert fz.mutate(b, "chunk_dup", 0, 1) == b"a a 1\nb 22.5\nc 333\n"
    assert fz.mutate(b, "unicode_name", 0, 0) == "aé 1\nb 22.5\nc 333\n".encode()
    huge = fz.mutate(b, "huge_line", 1, 1)
    assert len(huge) > 2**20 and huge.startswith(b"a 1\ne 999") and huge.endswith(b"\nb 22.5\nc 333\n")
    assert set(fz.SILENT_KINDS) <= set(fz.MUTATIONS) | {"delete_member"}


@pytest.mark.parametrize("raise_, kind", [(KeyError("x"), "KeyError"), (None, "unnamed")])
def test_the_harness_reports_a_broken_reader(tmp_path, raise_, kind):
    """A reader that raises a raw exception, or an error not naming the file, is a failure with a reproducer."""
    fz = harness()
    seed = tmp_path / "seed.txt"
    seed.write_text("x 1\ny 2\n")

    def load(path):
        if Path(path).read_bytes() != seed.read_bytes():
            raise raise_ if raise_ is not None else FormatError("elsewhere", 1, "bad")
        return 1

    t = fz.Target("toy", lambda w: [seed], load, lambda obj: obj)
    work = tmp_path / "work"
    work.mkdir()
    stats = fz.run_target(t, 5.0, 5.0, tmp_path / "out", work)
    assert stats.failures and f"toy: {kind}" in stats.failures[0]
    assert (tmp_path / "out" / f"toy-{kind}-seed.txt").exists()
