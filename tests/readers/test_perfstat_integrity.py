"""The ``perf stat -I`` reader never loads changed data without an error (issue 16, item 3): negative
counts, a metric continuation row folded into the previous row by a lost newline, a truncated last line,
duplicated summary rows, integers no u64 holds. Each case is a one-edit mutant of a real or hand-made
fixture of tests/data/perfstat (see its README).

perf keeps counts and times as ``u64`` (``tools/perf/util/counts.h``) and ends every row with a newline
(``tools/perf/util/stat-display.c``); it prints one ``--summary`` row per counter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.readers.perfstat import read_perf_stat

DATA = Path(__file__).resolve().parents[1] / "data" / "perfstat"


def _mutant(tmp_path: Path, name: str, old: str, new: str, count: int = 1) -> Path:
    text = (DATA / name).read_text()
    assert text.count(old) >= count, old
    path = tmp_path / name
    path.write_text(text.replace(old, new, count))
    return path


def _raises(path: Path, line: int, *words: str) -> None:
    with pytest.raises(FormatError) as info:
        read_perf_stat(path)
    assert info.value.path == str(path) and info.value.line == line, str(info.value)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_the_fixtures_read():
    for name in ("real_summary_semicolon.csv", "mux_stalled_comma.csv", "real_summary.jsonl"):
        assert read_perf_stat(DATA / name).n_intervals > 0


def test_a_negative_count_is_an_error(tmp_path: Path):
    """The reproduction: page-faults ``16728`` (line 4) mutated to ``-16728`` loaded as -16728."""
    _raises(_mutant(tmp_path, "real_summary_semicolon.csv", ";16728;", ";-16728;"), 4, "negative")
    _raises(_mutant(tmp_path, "real_summary.jsonl", '"1454.000000"', '"-1454.000000"'), 12, "negative")


def test_a_continuation_row_merged_by_a_lost_newline_is_an_error(tmp_path: Path):
    """``-x ,``: line 3's metric unit swallowed line 4 (``0.100098765,,,,,,0.15,stalled cycles per insn``)."""
    path = _mutant(tmp_path, "mux_stalled_comma.csv", "insn per cycle\n0.100098765,,,,,,0.15",
                   "insn per cycle0.100098765,,,,,,0.15")
    _raises(path, 3, "lost newline")
    # a counter row swallowed by a row without a metric (line 1 + line 2)
    path = _mutant(tmp_path, "mux_stalled_comma.csv", "77.00,,\n0.100098765,63771841", "77.00,,0.100098765,63771841")
    _raises(path, 1, "lost newline")


def test_a_truncated_last_line_is_an_error(tmp_path: Path):
    """Cut inside the last metric unit (``K/sec`` -> ``K/s``): perf ends every row with a newline."""
    text = (DATA / "real_summary_semicolon.csv").read_text()
    path = tmp_path / "cut.csv"
    path.write_text(text[:-3])
    _raises(path, text.count("\n"), "truncated")
    text = (DATA / "real_summary.jsonl").read_text()
    path = tmp_path / "cut.jsonl"
    path.write_text(text[:-1])  # even a complete JSON object: the newline is missing
    _raises(path, text.count("\n"), "truncated")


def test_a_duplicated_summary_row_is_an_error(tmp_path: Path):
    text = (DATA / "real_summary_semicolon.csv").read_text()
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    path = tmp_path / "dup.csv"
    path.write_text(text + last + "\n")
    _raises(path, text.count("\n") + 1, "a second summary row of 'page-faults'", f"line {text.count(chr(10))}")
    text = (DATA / "real_summary.jsonl").read_text()
    path = tmp_path / "dup.jsonl"
    path.write_text(text + text.rstrip("\n").rsplit("\n", 1)[1] + "\n")
    _raises(path, text.count("\n") + 1, "a second summary row")


def test_integers_beyond_u64_are_format_errors(tmp_path: Path):
    """A run time of 5,000 digits (int() refuses over 4,300: ValueError) and JSON integers beyond float64
    (OverflowError) or u64."""
    _raises(_mutant(tmp_path, "real_summary_semicolon.csv", ";99448323;", f";{'9' * 5000};"), 4, "run time")
    _raises(_mutant(tmp_path, "real_summary_semicolon.csv", ";99448323;", f";{2**64};"), 4, "run time")
    huge = str(10**400)
    _raises(_mutant(tmp_path, "real_summary.jsonl", '"1454.000000"', huge), 12, "counter-value", "as perf prints it")
    _raises(_mutant(tmp_path, "real_summary.jsonl", '"event-runtime" : 17319089', f'"event-runtime" : {2**70}'),
            12, "event-runtime", "2**64")
    _raises(_mutant(tmp_path, "real_summary.jsonl", '"1454.000000"', "9" * 5000), 12, "counter-value",
            "as perf prints it")
