"""The callgrind reader reads a whole run or raises (issue 16, item 2): the end of a run deleted, emptied or
garbled, a sibling file of another run. Callgrind marks its last dump ``desc: Trigger: Program
termination`` (``callgrind/dump.c``); the real split run of tests/data/callgrind/split has 27 parts, the
27th in ``cg.out``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.readers import callgrind

SPLIT = Path(__file__).resolve().parents[1] / "data" / "callgrind" / "split"


@pytest.fixture
def run(split_copy: Path) -> Path:
    return split_copy


def test_the_real_run_ends_with_its_final_dump():
    tr = callgrind.read(SPLIT)
    assert tr.n_intervals == 27 and tr.meta["triggers"]["Program termination"] == 1
    assert "Trigger: Program termination" in (SPLIT / "cg.out").read_text()


def test_last_three_parts_deleted_is_an_error(run: Path):
    """The reproduction: parts 25, 26 and 27 deleted gave 24 intervals (Ir 15,188,254 of 16,646,194)."""
    for name in ("cg.out.25", "cg.out.26", "cg.out"):
        (run / name).unlink()
    for where in (run, run / "cg.out.1", run / "cg.out.24"):
        with pytest.raises(FormatError, match="final dump .* is missing: the last part found is part 24"):
            callgrind.read(where)


@pytest.mark.parametrize("content", ["", "garbage\n", "# callgrind format\n"])
def test_empty_or_junk_final_part_is_an_error(run: Path, content: str):
    """An empty or junk ``cg.out`` gave 26 intervals when the folder or a part was read."""
    (run / "cg.out").write_text(content)
    for where in (run, run / "cg.out.3"):
        with pytest.raises(FormatError, match="final dump|no events|empty file"):
            callgrind.read(where)


def test_a_final_dump_that_is_not_last_is_an_error(run: Path):
    p = run / "cg.out.26"
    p.write_text(p.read_text().replace("Trigger: --dump-every-bb=20000", "Trigger: Program termination"))
    with pytest.raises(FormatError, match="part 26 is the run's final dump .* part 27 follows") as err:
        callgrind.read(run)
    assert err.value.path == str(p) and err.value.line == 6


def test_a_sibling_of_another_pid_is_an_error(run: Path):
    """``cg.out.5`` with another pid: reading a part skipped it (27 -> 1 interval)."""
    p = run / "cg.out.5"
    p.write_text(re.sub(r"^pid: \d+", "pid: 9999", p.read_text(), flags=re.M))
    with pytest.raises(FormatError, match="from another run: pid 9999") as err:
        callgrind.read(run / "cg.out.1")
    assert err.value.path == str(p)
    with pytest.raises(FormatError, match="2 different runs"):
        callgrind.read(run)


def test_another_runs_default_output_beside_is_not_part_of_the_run(tmp_path: Path):
    """``callgrind.out.<pid>`` is callgrind's default name: two runs side by side are two runs."""
    for pid in ("7541", "8000"):
        text = (SPLIT / "cg.out").read_text()
        (tmp_path / f"callgrind.out.{pid}").write_text(
            re.sub(r"^pid: \d+", f"pid: {pid}", text.replace("part: 27", "part: 1"), flags=re.M))
    tr = callgrind.read(tmp_path / "callgrind.out.7541")
    assert tr.n_intervals == 1 and tr.meta["files"] == 1


def test_cachegrind_and_other_profilers_are_named(tmp_path):
    """Issue 38: a cachegrind output and a callgrind-format file of another profiler say what they are and what
    mpx needs instead (not 'unknown format' or 'truncated file?')."""
    import pytest

    from mpx.errors import FormatError
    from mpx.readers import read_trace

    cg = tmp_path / "cachegrind.out.1"
    cg.write_text("desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./a.out\nevents: Ir Dr\n"
                  "fl=/tmp/a.c\nfn=main\n3 4 1\nsummary: 4 1\n")
    with pytest.raises(FormatError, match="cachegrind output.*mpx record"):
        read_trace(cg)
    other = tmp_path / "prof.callgrind"
    other.write_text("version: 1\ncreator: perf-to-callgrind 0.1\ncmd: ./a.out\nevents: cycles\n"
                     "fl=a.c\nfn=main\n3 100\n")
    with pytest.raises(FormatError, match="written by 'perf-to-callgrind 0.1'.*mpx record"):
        read_trace(other)
