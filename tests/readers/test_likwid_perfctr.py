"""The likwid-perfctr output reader (`mpx.readers.likwid_perfctr`): outputs written by LIKWID's own printing code
(ported in `tests/readers/likwid_print.py`) from chosen counts, and real outputs (tests/data/likwid/SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import FormatError
from mpx.readers import detect_format, read_trace
from mpx.readers.likwid_perfctr import read_likwid_perfctr, sniff
from mpx.readers.perfstat import COUNTED, STATUS_NOT_COUNTED, STATUS_NOT_SUPPORTED
from mpx.readers.perfstat import sniff as perf_sniff
from tests.readers.likwid_print import Group, print_output, timeline

DATA = Path(__file__).resolve().parents[1] / "data" / "likwid"


def write(tmp_path: Path, lines: list[str], name: str = "likwid.txt") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def two_groups() -> list[Group]:
    """-g FLOPS_DP -g custom -T 2s on threads 0 and 1: FLOPS_DP ran 6.00012 s, the custom set 4.000031 s."""
    flops = Group("FLOPS_DP", [("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
                               ("FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", "PMC0")],
                  [[6000000, 6100000], [9000000, 9100000], [123, 0]], 6.00012,
                  metrics=[("Runtime (RDTSC) [s]", [6.00012, 6.00012]), ("CPI", [1.5, 1.4918]),
                           ("DP [MFLOP/s]", [2.05e-05, 0.0])])
    custom = Group("Custom", [("INSTR_RETIRED_ANY", "FIXC0"), ("L1D_REPLACEMENT", "PMC0"),
                              ("L1D_REPLACEMENT", "PMC1")],
                   [[4000000, 4100000], [5000, "-"], [7, 8]], 4.000031)
    return [flops, custom]


def check_two_groups(run) -> None:
    labels = run.labels
    assert labels[:2] == ("CPU0:INSTR_RETIRED_ANY@FLOPS_DP", "CPU1:INSTR_RETIRED_ANY@FLOPS_DP")
    assert "CPU0:L1D_REPLACEMENT:PMC0@Custom" in labels and "CPU1:L1D_REPLACEMENT:PMC1@Custom" in labels
    col = {lab: i for i, lab in enumerate(labels)}
    v = run.value[0]
    assert v[col["CPU1:CPU_CLK_UNHALTED_CORE@FLOPS_DP"]] == 9100000
    assert v[col["CPU0:FP_ARITH_INST_RETIRED_SCALAR_DOUBLE@FLOPS_DP"]] == 123
    assert v[col["CPU0:INSTR_RETIRED_ANY@Custom"]] == 4000000
    ns = col["CPU1:L1D_REPLACEMENT:PMC0@Custom"]
    assert run.status[0, ns] == STATUS_NOT_SUPPORTED and np.isnan(v[ns])
    assert run.status[0, col["CPU0:L1D_REPLACEMENT:PMC0@Custom"]] == COUNTED
    # running: each group's runtime as printed (the metric's %.4f for FLOPS_DP, the raw table's %e for Custom)
    f, c = col["CPU0:INSTR_RETIRED_ANY@FLOPS_DP"], col["CPU0:INSTR_RETIRED_ANY@Custom"]
    assert run.running_ns[0, f] == pytest.approx(6.0001e9) and run.running_ns[0, c] == pytest.approx(4.000031e9)
    enabled = run.enabled_ns()
    assert enabled[0, f] == enabled[0, c] == pytest.approx(10.000131e9)
    assert run.pct_running[0, f] == pytest.approx(100 * 6.0001 / 10.000131)
    assert not run.scaled and run.aggregation == "cpu"
    view = run.read_view()
    assert view.raw[0, f] == 6000000 and view.enabled[0, f] == pytest.approx(10.000131e9) and view.notes == ()


def test_wrapper_mode_two_groups_table(tmp_path):
    path = write(tmp_path, ["--------", "CPU name:\tTest CPU", "--------"] + print_output(two_groups(), [0, 1]))
    run = read_likwid_perfctr(path)
    assert run.format == "likwid-table" and run.n_intervals == 1
    check_two_groups(run)
    assert {d["what"] for d in run.dropped} >= {"derived tables", "runtimes"}


def test_wrapper_mode_two_groups_csv(tmp_path):
    path = write(tmp_path, print_output(two_groups(), [0, 1], csv=True), "likwid.csv")
    run = read_likwid_perfctr(path)
    assert run.format == "likwid-csv"
    check_two_groups(run)


@pytest.mark.parametrize("csv", [False, True])
def test_marker_regions_several_groups(tmp_path, csv):
    """-m with -g A -g B (LIKWID_MARKER_SWITCH): a region's time under each group; enabled = both summed, per
    thread. LIKWID 4.x naming (``Core N``), STAT tables of two threads."""
    lines = ["some program output, 1 2 3"]
    for region, scale in (("init", 1.0), ("solve", 3.0)):
        a = Group("A", [("INSTR_RETIRED_ANY", "FIXC0"), ("BR_MISP", "PMC0")], [[100 * scale, 200], [5, 6]], 0.0,
                  region_time=[0.25 * scale, 0.5], calls=[1, 1])
        b = Group("B", [("INSTR_RETIRED_ANY", "FIXC0"), ("L2_MISS", "PMC0")], [[300, 400], [7, 8]], 0.0,
                  region_time=[0.75, 0.5], calls=[1, 1])
        for g, grp in enumerate((a, b)):
            out = print_output([grp], [2, 3], csv=csv, region=region, thread="Core")
            if g == 1:  # printOutput numbers the groups; the second group of a region is group 2
                out = [x.replace("Group 1", "Group 2") for x in out]
            lines += out
    run = read_likwid_perfctr(write(tmp_path, lines))
    col = {lab: i for i, lab in enumerate(run.labels)}
    i = col["solve:CPU2:INSTR_RETIRED_ANY@A"]
    assert run.value[0, i] == 300 and run.running_ns[0, i] == pytest.approx(0.75e9)
    assert run.enabled_ns()[0, i] == pytest.approx(1.5e9)  # 0.75 s under A + 0.75 s under B on thread 2
    j = col["init:CPU3:L2_MISS@B"]
    assert run.value[0, j] == 8 and run.enabled_ns()[0, j] == pytest.approx(1.0e9)


def test_single_group_is_counted_whole(tmp_path):
    grp = Group("Custom", [("INSTR_RETIRED_ANY", "FIXC0")], [[12345]], 2.5)
    run = read_likwid_perfctr(write(tmp_path, print_output([grp], [0])))
    assert run.labels == ("CPU0:INSTR_RETIRED_ANY",) and run.pct_running[0, 0] == 100.0
    assert run.value[0, 0] == 12345 and run.timestamps[0] == pytest.approx(2.5)


def test_timeline_two_groups_alternating(tmp_path):
    """-t 1s -g A -g B (custom event sets), two threads, saved with 2>&1: each read counts the active group for the
    interval since the previous read; the other group is not counted."""
    a = (["INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE"], [[[10, 11], [20, 21]], [[12, 13], [22, 23]]])
    b = (["L2_RQSTS_MISS"], [[[5, 6]]])
    lines = timeline([a, b], [0, 1], [1.000123, 2.000456, 3.0007], [1, 2, 1])
    path = write(tmp_path, lines[:3] + ["program output"] + lines[3:])
    run = read_likwid_perfctr(path)
    assert run.format == "likwid-timeline" and run.separator == " "
    assert list(run.timestamps) == [1.000123, 2.000456, 3.0007]
    col = {lab: i for i, lab in enumerate(run.labels)}
    i, j, k = col["CPU1:INSTR_RETIRED_ANY@G1"], col["CPU0:CPU_CLK_UNHALTED_CORE@G1"], col["CPU1:L2_RQSTS_MISS@G2"]
    assert run.value[0, i] == 11 and run.value[0, j] == 20 and run.value[2, i] == 13 and run.value[1, k] == 6
    assert run.status[1, i] == STATUS_NOT_COUNTED and run.status[0, k] == STATUS_NOT_COUNTED
    assert run.running_ns[1, k] == pytest.approx((2.000456 - 1.000123) * 1e9) and run.running_ns[1, i] == 0
    csv = write(tmp_path, timeline([a, b], [0, 1], [1.0, 2.0, 3.0], [1, 2, 1], outfile=True, csv=True), "t.csv")
    assert read_likwid_perfctr(csv).labels == run.labels


def test_refused_in_one_line_naming_the_form(tmp_path):
    grp = two_groups()[1]
    twice = print_output([grp], [0, 1]) + print_output([grp], [0, 1])
    with pytest.raises(FormatError, match="likwid-perfctr table output: Group 1 printed twice .* several runs"):
        read_likwid_perfctr(write(tmp_path, twice))
    cut = print_output([grp], [0, 1], csv=True)[:-2]
    with pytest.raises(FormatError, match=r"likwid-perfctr -O \(CSV\) output: .*cut short"):
        read_likwid_perfctr(write(tmp_path, cut, "cut.csv"))
    metric_tl = ["# HWThreads: 0", "# GID|MetricsCount|CpuCount|Total runtime [s]|Runtime (RDTSC) [s]|CPI",
                 "1 2 1 1.000073 1.000035 0.440459"]
    with pytest.raises(FormatError, match=r"-t \(timeline\) output: a timeline of a performance group's metrics"):
        read_likwid_perfctr(write(tmp_path, metric_tl, "m.txt"))
    short = timeline([(["A"], [[[1, 2]]])], [0, 1], [1.0], [1])
    short[-1] = short[-1].rsplit(" ", 1)[0]
    with pytest.raises(FormatError, match="1 values where EventCount x CpuCount is 2"):
        read_likwid_perfctr(write(tmp_path, short, "s.txt"))
    with pytest.raises(FormatError, match="GPU tables"):
        read_likwid_perfctr(DATA / "jl_marker_gpu.txt")


def test_detected_and_never_a_trace(tmp_path):
    path = write(tmp_path, print_output(two_groups(), [0, 1]))
    assert sniff(path, path.read_text()[:4096]) and not perf_sniff(path, path.read_text()[:4096])
    assert detect_format(path) == "likwid_perfctr"
    with pytest.raises(FormatError, match="without ground truth"):
        read_trace(path)
    assert not sniff(DATA, "") and not sniff(path, "Group 1: x\nno table\n")


# -- real outputs -------------------------------------------------------------------------------------


def test_real_likwid_jl_marker():
    run = read_likwid_perfctr(DATA / "jl_marker_flops_dp.txt")
    assert run.labels[0] == "matmul:CPU0:INSTR_RETIRED_ANY" and run.n_columns == 7
    assert list(run.value[0]) == [4414042000, 2237935000, 1648606000, 106496000, 569, 0, 0]
    assert run.running_ns[0, 0] == pytest.approx(0.465348e9) and run.pct_running[0, 0] == 100.0


# brspring/Sistemas_Lineares saida_likwid.txt @ 7eddcae8 (lines 1-5, 27-53: the program's output before the
# first region left out): LIKWID 4.x/5.0 'Core 15', blank lines between tables
BRSPRING = """--------------------------------------------------------------------------------
CPU name:\tIntel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz
CPU type:\tIntel Xeon SandyBridge EN/EP processor
CPU clock:\t2.59 GHz
--------------------------------------------------------------------------------
--------------------------------------------------------------------------------
Region eliminacaoDeGauss, Group 1: FLOPS_DP
+-------------------+----------+
|    Region Info    |  Core 15 |
+-------------------+----------+
| RDTSC Runtime [s] | 0.000002 |
|     call count    |        1 |
+-------------------+----------+

+--------------------------------------+---------+---------+
|                 Event                | Counter | Core 15 |
+--------------------------------------+---------+---------+
|           INSTR_RETIRED_ANY          |  FIXC0  |    7924 |
|         CPU_CLK_UNHALTED_CORE        |  FIXC1  |   22016 |
|         CPU_CLK_UNHALTED_REF         |  FIXC2  |   17316 |
| FP_COMP_OPS_EXE_SSE_FP_PACKED_DOUBLE |   PMC0  |       0 |
| FP_COMP_OPS_EXE_SSE_FP_SCALAR_DOUBLE |   PMC1  |     134 |
|       SIMD_FP_256_PACKED_DOUBLE      |   PMC2  |       0 |
+--------------------------------------+---------+---------+

+----------------------+--------------+
|        Metric        |    Core 15   |
+----------------------+--------------+
|  Runtime (RDTSC) [s] | 2.132045e-06 |
"""

# ThigasMidia/ICC EP2/FLOPS_DP.txt @ 637d5576 (lines 1-25, 36-56): -o FILE.txt, a CPU header before every region,
# no blank line between tables
THIGAS = """--------------------------------------------------------------------------------
CPU name:\tIntel(R) Core(TM) i5-7500 CPU @ 3.40GHz
CPU type:\tIntel Coffeelake processor
CPU clock:\t3.41 GHz
--------------------------------------------------------------------------------
Region LU, Group 1: FLOPS_DP
+-------------------+----------+
|    Region Info    |  Core 3  |
+-------------------+----------+
| RDTSC Runtime [s] | 0.000001 |
|     call count    |        1 |
+-------------------+----------+
+------------------------------------------+---------+--------+
|                   Event                  | Counter | Core 3 |
+------------------------------------------+---------+--------+
|             INSTR_RETIRED_ANY            |  FIXC0  |   5190 |
|           CPU_CLK_UNHALTED_CORE          |  FIXC1  |  14952 |
|           CPU_CLK_UNHALTED_REF           |  FIXC2  |  13916 |
| FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE |   PMC0  |      0 |
|    FP_ARITH_INST_RETIRED_SCALAR_DOUBLE   |   PMC1  |     22 |
| FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE |   PMC2  |      0 |
+------------------------------------------+---------+--------+
+----------------------+--------------+
|        Metric        |    Core 3    |
+----------------------+--------------+
|  Runtime (RDTSC) [s] | 1.191932e-06 |
--------------------------------------------------------------------------------
CPU name:\tIntel(R) Core(TM) i5-7500 CPU @ 3.40GHz
CPU type:\tIntel Coffeelake processor
CPU clock:\t3.41 GHz
--------------------------------------------------------------------------------
Region EDO1, Group 1: FLOPS_DP
+-------------------+----------+
|    Region Info    |  Core 3  |
+-------------------+----------+
| RDTSC Runtime [s] | 0.000000 |
|     call count    |        1 |
+-------------------+----------+
+------------------------------------------+---------+--------+
|                   Event                  | Counter | Core 3 |
+------------------------------------------+---------+--------+
|             INSTR_RETIRED_ANY            |  FIXC0  |   4214 |
|           CPU_CLK_UNHALTED_CORE          |  FIXC1  |   9884 |
|           CPU_CLK_UNHALTED_REF           |  FIXC2  |   9372 |
| FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE |   PMC0  |      0 |
|    FP_ARITH_INST_RETIRED_SCALAR_DOUBLE   |   PMC1  |     38 |
| FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE |   PMC2  |      0 |
+------------------------------------------+---------+--------+
"""


def test_real_quoted_outputs(tmp_path):
    """The quoted excerpts end inside a Metric table (cut there on purpose): everything before is read; the file
    as quoted is cut, so the reader says so — and with the table closed it reads the values of the file."""
    closed = BRSPRING + "+----------------------+--------------+\n"
    path = tmp_path / "brspring.txt"
    path.write_text(closed)
    run = read_likwid_perfctr(path)
    assert run.labels[0] == "eliminacaoDeGauss:CPU15:INSTR_RETIRED_ANY"
    assert list(run.value[0]) == [7924, 22016, 17316, 0, 134, 0]
    assert run.running_ns[0, 0] == pytest.approx(2132.045)  # the Metric table's %e, not Region Info's 0.000002
    path.write_text(BRSPRING)
    with pytest.raises(FormatError, match="closing border"):
        read_likwid_perfctr(path)
    path = tmp_path / "thigas.txt"
    row = "|  Runtime (RDTSC) [s] | 1.191932e-06 |\n"
    path.write_text(THIGAS.replace(row, row + "+----------------------+--------------+\n"))
    run = read_likwid_perfctr(path)
    col = {lab: i for i, lab in enumerate(run.labels)}
    assert run.value[0, col["LU:CPU3:CPU_CLK_UNHALTED_CORE"]] == 14952
    assert run.value[0, col["EDO1:CPU3:FP_ARITH_INST_RETIRED_SCALAR_DOUBLE"]] == 38
    # EDO1's region time prints as 0.000000 (below %.6f; its Metric table is not quoted): the value is kept as
    # printed, one group counted the whole region (100 %)
    e = col["EDO1:CPU3:INSTR_RETIRED_ANY"]
    assert run.status[0, e] == COUNTED and run.value[0, e] == 4214 and run.pct_running[0, e] == 100.0


# -- mpx estimate -------------------------------------------------------------------------------------


def test_estimate_reestimates_likwid_groups(tmp_path, capsys):
    """Linear re-estimation of LIKWID's multiplexed groups: count x (all groups' runtime) / (its group's runtime);
    every interval holds the count and none is negative."""
    from mpx.cli import main

    path = write(tmp_path, print_output(two_groups(), [0, 1]))
    assert main(["estimate", str(path), "--scaler", "linear", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["counter"]: r for r in out["rows"]}
    r = rows["CPU0:INSTR_RETIRED_ANY@FLOPS_DP"]
    assert r["perf"] == 6000000 and r["estimate"] == pytest.approx(6000000 * 10.000131 / 6.0001)
    assert r["coverage"] == pytest.approx(6.0001 / 10.000131)
    for r in rows.values():
        if r["lo"] is not None:
            assert r["lo"] >= r["perf"] - 1e-6 and r["lo"] >= 0
    assert main(["estimate", str(path), "--scaler", "linear"]) == 0
    text = capsys.readouterr().out
    assert "(likwid-table)" in text
    assert any(line.split()[:4] == ["time", "counter", "cov%", "likwid"] for line in text.splitlines())


@pytest.mark.parametrize("old,new,why", [
    ("Group 1: FLOPS_DP", "Group 1" + "9" * 5000 + ": FLOPS_DP", "x"),  # a 5,001-digit group id: no ValueError
    ("| 4414042000 |", "| 5e3 |", "not a number as likwid-perfctr prints it"),
    ("| 4414042000 |", "| " + "0" * 300 + "5 |", "not a number as likwid-perfctr prints it"),
    ("| 4414042000 |", "| 18446744073709551616 |", "not a number as likwid-perfctr prints it"),
    ("| 4414042000 |", "| -5 |", "a negative count"),
    ("|   0.465348 |", "|   -0 |", "a negative count '-0'"),  # a runtime the reader would not have used
])
def test_number_grammar_of_the_fuzzed_mutants(tmp_path, old, new, why):
    """Mutants the reader fuzz harness found (issue 40's grammar for issue 38's reader): refused in one line."""
    text = (DATA / "jl_marker_flops_dp.txt").read_text()
    assert old in text
    path = tmp_path / "m.txt"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(FormatError) as err:
        read_likwid_perfctr(path)
    assert why == "x" or why in str(err.value)


def test_merged_and_repeated_rows_of_the_fuzzed_mutants(tmp_path):
    """A border merged with the row after it (the row would vanish) and a raw-count row printed twice."""
    lines = (DATA / "jl_marker_flops_dp.txt").read_text().split("\n")
    row = next(i for i, s in enumerate(lines) if "INSTR_RETIRED_ANY" in s and "FIXC0" in s)
    merged = lines[:row - 1] + [lines[row - 1] + lines[row]] + lines[row + 1:]
    with pytest.raises(FormatError, match="damaged border|damaged table border"):
        read_likwid_perfctr(write(tmp_path, merged, "merged.txt"))
    twice = lines[:row + 1] + [lines[row]] + lines[row + 1:]
    with pytest.raises(FormatError, match="'INSTR_RETIRED_ANY' on counter 'FIXC0' twice in one table"):
        read_likwid_perfctr(write(tmp_path, twice, "twice.txt"))
