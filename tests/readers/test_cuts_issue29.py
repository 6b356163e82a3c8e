"""Reproductions of issue 29, item 1 (silent changes) for perf stat and callgrind: each input used to load
with other numbers and nothing noted; now each is an error naming the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.readers import read_trace
from mpx.readers.perfstat import read_perf_stat

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize("name", ["real_global_semicolon.csv", "real_nocsvsummary_semicolon.csv",
                                  "real_summary.jsonl"])
def test_perf_stat_cut_inside_the_leading_blanks_is_truncated(tmp_path, name):
    """A cut inside a line's leading blanks (the file ends ``"\\n   "``) loaded as a shorter run, while a cut
    one byte later was already "truncated file"."""
    src = (DATA / "perfstat" / name).read_text()
    lines = src.split("\n")
    p = tmp_path / name
    shorter = None
    for k in range(len(lines) - 2, 2, -1):  # the last cut just after a newline that loads: a shorter run
        p.write_text("\n".join(lines[:k]) + "\n")
        try:
            shorter = read_perf_stat(p)
        except FormatError:
            continue
        break
    whole = read_perf_stat(DATA / "perfstat" / name)
    assert shorter is not None and (shorter.timestamps.size, len(shorter.summary)) < (whole.timestamps.size,
                                                                                      len(whole.summary))
    p.write_text("\n".join(lines[:k]) + "\n   ")  # the same cut three bytes later, inside the blanks
    with pytest.raises(FormatError, match="truncated file") as info:
        read_perf_stat(p)
    assert str(p) in str(info.value)


def _split_copy(tmp_path: Path) -> Path:
    d = tmp_path / "split"
    shutil.copytree(DATA / "callgrind" / "split", d)
    return d


@pytest.mark.parametrize("damage", ["bom", "delete"])
def test_callgrind_one_unreadable_timerange_is_an_error(tmp_path, damage):
    """One part's ``desc: Timerange:`` line unreadable removed ``bb_start``/``bb_stop`` of every interval."""
    d = _split_copy(tmp_path)
    ref = read_trace(DATA / "callgrind" / "split", format="callgrind")
    assert ref.aux_names == ("bb_start", "bb_stop")
    member = d / "cg.out.7"
    text = member.read_text()
    assert "\ndesc: Timerange:" in text
    repl = "\n\ufeffdesc: Timerange:" if damage == "bom" else "\n"
    if damage == "delete":
        start = text.index("\ndesc: Timerange:")
        text = text[:start] + text[text.index("\n", start + 1):]
    else:
        text = text.replace("\ndesc: Timerange:", repl, 1)
    member.write_text(text)
    with pytest.raises(FormatError, match="Timerange") as info:
        read_trace(d, format="callgrind")
    assert "cg.out.7" in str(info.value)


@pytest.mark.parametrize("name", ["real_nocsvsummary_semicolon.csv", "real_summary_semicolon.csv", "real_summary.jsonl"])
def test_perf_stat_partial_summary_block_is_truncated(tmp_path, name):
    """A --summary block cut after some of its rows loaded with the other counters' summaries missing."""
    src = (DATA / "perfstat" / name).read_text()
    lines = src.split("\n")
    last = max(i for i, ln in enumerate(lines) if ln.strip())
    p = tmp_path / name
    p.write_text("\n".join(lines[:last]) + "\n")  # the last summary row gone, the rest of the file intact
    with pytest.raises(FormatError, match="--summary block has no row") as info:
        read_perf_stat(p)
    assert str(p) in str(info.value)


@pytest.mark.parametrize("count", [2**63, 2**64 - 1, 2**31])
@pytest.mark.parametrize("name", ["real_persocket_semicolon.csv", "real_persocket.jsonl"])
def test_perf_stat_cpu_count_beyond_int_is_an_error(tmp_path, name, count):
    """A CPU count between 2**63 and 2**64-1 raised a raw OverflowError (issue 29, item 2); perf keeps it in
    an int."""
    src = (DATA / "perfstat" / name).read_text()
    old = ";S0;2;" if name.endswith(".csv") else '"aggregate-number" : 2,'
    new = f";S0;{count};" if name.endswith(".csv") else f'"aggregate-number" : {count},'
    assert old in src
    p = tmp_path / name
    p.write_text(src.replace(old, new, 1))
    with pytest.raises(FormatError, match=r"outside 0\.\.2\*\*31-1") as info:
        read_perf_stat(p)
    assert str(p) in str(info.value) and info.value.line is not None


def test_unknown_format_quotes_nothing_of_the_file(tmp_path):
    """The "unknown format" error quoted the file's first 80 characters: for a config's ``[data] files`` naming
    /proc/self/environ, the process's environment went into the log. Now it says which formats were tried."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, MPX_SECRET_FOR_TEST="s3cr3t-value-29", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cfg = tmp_path / "c.toml"
    cfg.write_text('[experiment]\nname = "leak"\n[data]\nfiles = ["/proc/self/environ"]\n[hardware]\n'
                   'pmu = "generic-N"\ncounters = 2\nmetrics = "callgrind"\n[multiplex]\nquantum_intervals = 1\n'
                   'read_every = 2\n[scalers]\nuse = ["linear"]\n[schedulers]\nuse = ["perf"]\n')
    for argv in (["trace", "info", "/proc/self/environ"], ["run", str(cfg), "--out", str(tmp_path / "o")]):
        proc = subprocess.run([sys.executable, "-m", "mpx", *argv], capture_output=True, text=True, env=env,
                              timeout=120, cwd=tmp_path)
        assert proc.returncode != 0
        assert "s3cr3t-value-29" not in proc.stdout + proc.stderr and "MPX_SECRET" not in proc.stdout + proc.stderr
    assert "unknown format" in proc.stderr or "unknown format" in proc.stdout
    assert "tried: mpx, jsonl, gem5, callgrind, perfstat" in proc.stdout + proc.stderr


def test_perf_stat_newline_inside_a_no_csv_summary_row(tmp_path):
    """A newline inserted into a ``--summary --no-csv-summary`` row (found by brute force over every byte
    position) made page-faults' summary vanish into a metric of task-clock, nothing noted. A blank line
    inserted before the summary block, or before any of its rows, loads the same numbers."""
    src = (DATA / "perfstat" / "real_nocsvsummary_semicolon.csv").read_text()
    whole = read_perf_stat(DATA / "perfstat" / "real_nocsvsummary_semicolon.csv")
    at = src.index("\n24438;;page-faults") + 1
    p = tmp_path / "cut.csv"
    p.write_text(src[:at + len("24438;;page-faults")] + "\n" + src[at + len("24438;;page-faults"):])
    with pytest.raises(FormatError, match="no row for 'page-faults'") as info:
        read_perf_stat(p)
    assert str(p) in str(info.value)
    for before in ("\n437.92;msec", "\n24438;;page-faults", "\n<not supported>;;cycles"):
        k = src.index(before) + 1
        p.write_text(src[:k] + "\n" + src[k:])
        run = read_perf_stat(p)
        assert [(r.event, r.value) for r in run.summary][:2] == [(r.event, r.value) for r in whole.summary][:2]
        assert len(run.summary) == len(whole.summary) and run.value.shape == whole.value.shape
