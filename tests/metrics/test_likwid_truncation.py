"""Issue 29, item 1: a LIKWID group file cut inside a METRICS line whose cut formula still parses loaded with
another meaning; the truncation rule (a group ends with LONG and a newline) refuses it."""

from __future__ import annotations

import pytest

from mpx.errors import FormatError
from mpx.metrics.formats import likwid


@pytest.mark.parametrize("arch, group, cut_after", [
    ("skylake", "DATA", "CPI  FIXC1"),            # was CPI = CPU_CLK_UNHALTED_CORE
    ("skylake", "PERF", "Clock [MHz]  1."),       # was Clock = 1
    ("arm8_n1", "ICACHE", "L1I miss ratio PMC3"),  # a ratio without its denominator
])
def test_group_cut_inside_a_metric_line_is_truncated(tmp_path, shared, arch, group, cut_after):
    src = shared("data", "metrics", "likwid", arch, f"{group}.txt").read_text()
    assert cut_after in src
    p = tmp_path / f"{group}.txt"
    p.write_text(src[: src.index(cut_after) + len(cut_after)])
    with pytest.raises(FormatError, match="truncated file") as info:
        likwid.load(p)
    assert str(p) in str(info.value)
    p.write_text(src[: src.index(cut_after) + len(cut_after)] + "\n")  # with a newline: still no LONG
    with pytest.raises(FormatError, match="no LONG section"):
        likwid.load(p)
    p.write_text(src)
    assert not likwid.load(p).problems  # the whole file loads as before


def test_cut_inside_long_without_newline_is_truncated(tmp_path, shared):
    src = shared("data", "metrics", "likwid", "skylake", "DATA.txt").read_text()
    p = tmp_path / "DATA.txt"
    p.write_text(src.rstrip("\n")[:-3])
    with pytest.raises(FormatError, match="no newline"):
        likwid.load(p)
    p.write_text(src)
    assert likwid.load(p)["DATA/CPI"].events == {"CPU_CLK_UNHALTED_CORE", "INSTR_RETIRED_ANY"}


def test_a_byte_order_mark_before_a_metric_line_is_an_error(tmp_path, shared):
    """Found by the fuzz harness's new operators: a BOM before a METRICS line renamed the metric
    (``\\ufeffRuntime (RDTSC) [s]``), nothing noted."""
    src = shared("data", "metrics", "likwid", "skylake", "CLOCK.txt").read_text()
    p = tmp_path / "CLOCK.txt"
    p.write_text(src.replace("\nMETRICS\n", "\nMETRICS\n\ufeff", 1))
    with pytest.raises(FormatError, match="byte-order mark") as info:
        likwid.load(p)
    assert info.value.line == src[: src.index("\nMETRICS\n")].count("\n") + 3


def test_a_huge_counter_name_is_read_in_linear_time(tmp_path):
    """Found by the fuzz harness (huge_line): a 1 MiB counter name in the EVENTSET was compiled into a 1 MiB
    regular expression per metric line (a 3 MiB group: 15 s). 10 metric lines and a 1 MiB name now take a
    fraction of a second (bounded generously here: the old way takes minutes)."""
    import time

    name = "X" * 2**20
    metrics = "".join(f"M{i} [x] PMC0/{name}\n" for i in range(10))
    p = tmp_path / "BIG.txt"
    p.write_text(f"SHORT big\nEVENTSET\nPMC0 A\n{name} B\nMETRICS\n{metrics}LONG\n")
    t = time.monotonic()
    cat = likwid.load(p)
    assert time.monotonic() - t < 20
    assert len(cat.metrics) == 10 and cat["BIG/M3 [x]"].events == {"A", "B"}
