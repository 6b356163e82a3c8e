"""The gem5 line grammar (`mpx.readers.gem5.lines`): what may follow a stat's value, so that two stat lines
merged by a lost newline raise instead of losing the second stat (issue 16, item 1), and values too long
for any number gem5 prints. Every case runs through the fast parser and through the strict one.

The legal tail is gem5's ``ScalarPrint::operator()`` (``src/base/stats/text.cc``, v24.0.0.1): the value,
then the pdf and cdf columns (``%.2f%%``, vector and distribution entries only), then `` # description``
(only when not empty), then `` (Unit)``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.readers import gem5
from tests.readers.gem5_parsers import PARSERS, every_parser, parser

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"

#: One delta dump in the v21.1+ format (units), lines 1-13; the body starts at line 5.
BODY = """\
system.cpu.numCycles 29 # Number of cpu cycles simulated (Cycle)
system.cpu.committedInsts 119 # Number of instructions committed (Count)
system.cpu.iq.issued_per_cycle::0 12000 63.57% 63.57% # Number of insts issued each cycle (Count)
system.cpu.iq.issued_per_cycle::1 6876 36.43% 100.00% # Number of insts issued each cycle (Count)
system.cpu.iq.rate 0.5 # Inst issue rate (see issued_per_cycle) ((Count/Cycle))
system.cpu.idle 3 (Unspecified)
system.cpu.busy 4 (Count)"""
TEXT = "\n".join([
    BEGIN,
    "simTicks 100 # Number of ticks simulated (Tick)",
    "finalTick 100 # Number of ticks from beginning of simulation (Tick)",
    "simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))",
    BODY, "", END, ""])

#: The pre-v21 format (no units, snake_case).
OLD = "\n".join([
    BEGIN,
    "sim_ticks 100 # Number of ticks simulated",
    "final_tick 100 # Number of ticks from beginning of simulation",
    "system.cpu.numCycles 29 # number of cpu cycles simulated",
    "system.cpu.committedInsts 119 # Number of instructions committed",
    "system.cpu.fu_busy::No_OpClass 0 0.00% 0.00% # attempts to use FU when none available",
    "", END, ""])


def _read_both(path, monkeypatch):
    """The trace through the compiled tokenizer, and through both Python parsers (which must agree)."""
    got = every_parser(path)
    assert not isinstance(got, tuple), got
    return got


def _raises_both(path, monkeypatch, line: int, message: str) -> None:
    for which in PARSERS:
        with parser(which):
            with pytest.raises(FormatError, match=message) as err:
                gem5.read(path)
        assert err.value.line == line and err.value.path == str(path), which


def test_legal_tails_load(tmp_path, monkeypatch):
    """pdf/cdf columns, descriptions with parentheses, a unit without a description all read as printed."""
    for i, text in enumerate((TEXT, OLD)):
        path = tmp_path / f"ok{i}.txt"
        path.write_text(text)
        tr = _read_both(path, monkeypatch)
        assert tr["system.cpu.numCycles"][0] == 29 and tr["system.cpu.committedInsts"][0] == 119
    assert tr["system.cpu.fu_busy::No_OpClass"][0] == 0


def test_a_number_after_the_value_is_an_error(tmp_path, monkeypatch):
    """The reproduction of the issue: ``system.cpu.numCycles 29 119`` read as 29."""
    path = tmp_path / "stats.txt"
    path.write_text(TEXT.replace("system.cpu.numCycles 29 #", "system.cpu.numCycles 29 119 #"))
    _raises_both(path, monkeypatch, 5, "unexpected '119' after the value")
    path.write_text(TEXT.replace("system.cpu.numCycles 29 #", "system.cpu.numCycles 29 119"))
    _raises_both(path, monkeypatch, 5, "unexpected '119' after the value")
    path.write_text(TEXT.replace("63.57% 63.57%", "63.57% 63.57% 1.00%"))
    _raises_both(path, monkeypatch, 7, "unexpected '63.57%'")


@pytest.mark.parametrize("text", [TEXT, OLD], ids=["units", "pre-v21"])
def test_every_lost_newline_between_two_lines_is_an_error(tmp_path, monkeypatch, text):
    """Delete each newline between two non-blank lines: the file never loads (it named file and line)."""
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        if not lines[i].strip() or not lines[i + 1].strip():
            continue
        path = tmp_path / f"merged{i}.txt"
        path.write_text("\n".join(lines[:i] + [lines[i] + lines[i + 1]] + lines[i + 2:]))
        for which in PARSERS:
            with parser(which):
                with pytest.raises(FormatError) as err:
                    gem5.read(path)
            assert err.value.path == str(path)
            assert err.value.line is not None and err.value.line <= i + 1, (i, which, str(err.value))


def test_merged_lines_name_the_cause(tmp_path, monkeypatch):
    path = tmp_path / "stats.txt"
    path.write_text(TEXT.replace("(Cycle)\nsystem.cpu.committedInsts", "(Cycle)system.cpu.committedInsts"))
    _raises_both(path, monkeypatch, 5, "lost newline")
    path.write_text(TEXT.replace("((Count/Cycle))\nsystem.cpu.idle", "((Count/Cycle))system.cpu.idle"))
    _raises_both(path, monkeypatch, 9, "another stat line .*lost newline")  # the second line has no '#'
    path.write_text(TEXT.replace("(Unspecified)\nsystem.cpu.busy", "(Unspecified)system.cpu.busy"))
    _raises_both(path, monkeypatch, 10, "unexpected '\\(Unspecified\\)system.cpu.busy'")
    path.write_text(OLD.replace("simulated\nsystem.cpu.committedInsts", "simulatedsystem.cpu.committedInsts"))
    _raises_both(path, monkeypatch, 4, "another stat line .*lost newline")


def test_a_merged_stat_without_a_description_is_an_error(tmp_path, monkeypatch):
    """Found by a 10-minute fuzz run on gem5test_netperf.txt: a pre-v21 stat whose description is empty
    prints none, so a lost newline before it glued ``name value`` onto the previous description — one
    '#' on the line, and the stat silently gone from that dump. A description that merely ends in a number
    still loads."""
    lines = OLD.split("\n")
    lines.insert(5, "drivesys.cpu.kern.mode_good::kernel               144                      ")
    path = tmp_path / "ok.txt"
    path.write_text("\n".join(lines).replace("# Number of instructions committed", "# insts committed above 100"))
    assert _read_both(path, monkeypatch)["drivesys.cpu.kern.mode_good::kernel"][0] == 144
    lines[4] = lines[4] + lines.pop(5)
    path.write_text("\n".join(lines))
    _raises_both(path, monkeypatch, 5, "another stat line .*mode_good.*lost newline")


def test_a_value_longer_than_any_gem5_number_is_a_format_error(tmp_path, monkeypatch):
    """5,000 digits: Python's int() refuses over 4,300 digits (ValueError); gem5 prints at most ~320."""
    path = tmp_path / "stats.txt"
    path.write_text(TEXT.replace("system.cpu.numCycles 29 #", f"system.cpu.numCycles {'9' * 5000} #"))
    _raises_both(path, monkeypatch, 5, "5,000 characters")
    path.write_text(TEXT.replace("system.cpu.numCycles 29 #", f"system.cpu.numCycles {'9' * 300} #"))
    tr = _read_both(path, monkeypatch)  # the longest a double prints: still a (dropped, infinite-ish) value
    assert "system.cpu.numCycles" in tr.events or "system.cpu.numCycles" in tr.aux_names


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tail=st.text(alphabet="0123456789.%# ()/CountTickCyclex-", max_size=30))
def test_fast_and_strict_parsers_agree_on_any_tail(tmp_path, tail):
    """Whatever follows a value, the three parsers load the same numbers or refuse with the same error."""
    path = tmp_path / "tail.txt"
    path.write_text(TEXT.replace("system.cpu.committedInsts 119 # Number of instructions committed (Count)",
                                 f"system.cpu.committedInsts 119 {tail}"))
    got = every_parser(path)
    if not isinstance(got, tuple):
        assert got["system.cpu.committedInsts"][0] == 119
