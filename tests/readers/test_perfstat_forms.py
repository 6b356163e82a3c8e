"""Every perf stat output form besides -I CSV/JSON (issue 38): plain, human -I, -x and -j of a whole run,
-A/--per-socket, -r, hybrid PMUs, locale separators; several runs refused in one line naming the form."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.readers.perfstat import read_perf_stat, sniff
from mpx.readers.perfstat.plain import parse_grouped
from mpx.readers.perfstat.rows import RowError

FORMS = Path(__file__).resolve().parents[1] / "data" / "perfstat" / "forms"

# KargJonas/tiled-matmul, main.profile @ 5524ed1c4d2039e713e2ed2cebab38bfe9f09485 (tests/data/perfstat/real/SOURCES.md):
# lines quoted as printed (perf 6.x, hybrid Alder/Raptor Lake, de_DE LC_NUMERIC), a subset of the counters
KARG = """# started on Fri May 16 23:04:11 2025


 Performance counter stats for 'bin/main 3000 3000 3000 perf':

     3.642.649.330      cpu_atom/cycles/                 #    3,308 GHz                         (0,68%)
     4.963.414.681      cpu_core/cycles/                 #    4,508 GHz                         (78,79%)
    11.012.810.078      cpu_core/instructions/           #    2,22  insn per cycle              (88,71%)
          1.101,01 msec task-clock                       #    0,999 CPUs utilized             
                11      context-switches                 #    9,991 /sec                      
                 0      cpu_atom/LLC-load-misses/                                               (0,83%)
        11.006.799      cpu_core/LLC-load-misses/        #   69,62% of all LL-cache accesses    (88,79%)

       1,101976138 seconds time elapsed

       1,022897000 seconds user
       0,078992000 seconds sys


"""


def write(tmp_path: Path, text: str, name: str = "perf.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_real_hybrid_german_locale_values_equal_the_file(tmp_path):
    run = read_perf_stat(write(tmp_path, KARG))
    assert run.format == "plain" and run.n_intervals == 1
    assert run.labels == ("cpu_atom/cycles/", "cpu_core/cycles/", "cpu_core/instructions/", "task-clock",
                          "context-switches", "cpu_atom/LLC-load-misses/", "cpu_core/LLC-load-misses/")
    assert run.value[0].tolist() == [3642649330, 4963414681, 11012810078, 1101.01, 11, 0, 11006799]
    assert run.pct_running[0].tolist() == [0.68, 78.79, 88.71, 100, 100, 0.83, 88.79]
    assert run.units[3] == "msec" and run.timestamps.tolist() == [1.101976138]
    assert run.metric_value[0, 0] == pytest.approx(3.308) and run.metric_unit[0, 0] == "GHz"
    # one interval, each counter's running share of it: the read view gives perf's values back under linear
    view = run.read_view()
    assert view.running[0, 1] == pytest.approx(0.7879 * view.enabled[0, 1])
    assert view.raw[0, 0] * view.enabled[0, 0] / view.running[0, 0] == pytest.approx(3642649330)


def test_real_captures_of_each_form():
    g = read_perf_stat(FORMS / "plain_global.txt")
    assert g.labels == ("task-clock", "page-faults", "cycles") and g.value[0, 1] == 14503
    assert g.not_supported[0, 2] and g.timestamps.tolist() == [0.775639350]
    r = read_perf_stat(FORMS / "plain_repeat.txt")
    assert r.variance_pct[0].tolist() == [2.72, 0.01] and r.timestamps.tolist() == [0.8086]
    assert any(d["what"] == "runs" and d["count"] == 2 for d in r.dropped)
    i = read_perf_stat(FORMS / "plain_interval.txt")
    assert i.n_intervals == 9 and i.value[:, 1].tolist()[:3] == [2304, 2333, 2346]
    assert i.timestamps[0] == pytest.approx(0.103286256)
    c = read_perf_stat(FORMS / "plain_percpu.txt")
    assert c.aggregation == "cpu" and c.labels[:2] == ("CPU0:task-clock", "CPU1:task-clock")
    s = read_perf_stat(FORMS / "plain_interval_persocket.txt")
    assert s.aggregation == "socket" and s.n_aggregated[0, 0] == 2 and s.value[0, 0] == 239.74
    assert s.enabled_ns()[0, 0] == pytest.approx(2 * 0.118155272e9)
    x = read_perf_stat(FORMS / "whole_comma.csv")
    assert x.format == "csv" and x.value[0, :2].tolist() == [171.76, 14493]
    assert x.timestamps[0] == pytest.approx(0.171757313)  # enabled = 100 * run / pct of the longest counter
    j = read_perf_stat(FORMS / "whole.jsonl")
    assert j.format == "json" and j.value[0, 1] == 14493 and j.timestamps[0] == pytest.approx(0.170999438)
    a = read_perf_stat(FORMS / "whole_percpu_semicolon.csv")
    assert a.aggregation == "cpu" and a.value[0].tolist() == [836.01, 836.03, 20875, 13118]
    v = read_perf_stat(FORMS / "whole_repeat_comma.csv")
    assert v.variance_pct[0].tolist() == [2.0, 0.04]
    m = read_perf_stat(FORMS / "whole_summary_comma.csv")
    assert m.value[0].tolist() == [175.5]


def test_multiplexed_plain_interval_from_perfs_rules(tmp_path):
    # print_header_interval_std, prepare_interval "%6lu.%09lu ", print_running_std "  (%.2f%%)", -B grouping
    text = ("#           time             counts unit events\n"
            "     1.000123456        1,234,567      cycles                           #    1.23 GHz       (66.67%)\n"
            "     1.000123456          456,789      instructions                                         (33.33%)\n"
            "     1.000123456         1,000.50 msec task-clock\n"
            "     2.000234567        2,000,000      cycles                                               (50.00%)\n"
            "     2.000234567      <not counted>      instructions                                          (0.00%)\n"
            "     2.000234567         1,000.00 msec task-clock\n")
    run = read_perf_stat(write(tmp_path, text))
    assert run.n_intervals == 2 and run.value[0].tolist() == [1234567, 456789, 1000.5]
    assert run.pct_running[:, 0].tolist() == [66.67, 50.0] and run.not_counted[1, 1]
    view = run.read_view()
    assert view.running[1, 1] == 0 and view.running[0, 1] == pytest.approx(0.3333 * 1.000123456e9)


@pytest.mark.parametrize("text,value", [("1,234,567", 1234567), ("1.234.567", 1234567), ("1 234 567", 1234567),
                                        ("1'234'567", 1234567), ("1\u202f234", 1234), ("1.101,01", 1101.01),
                                        ("1,101.01", 1101.01), ("26,554473", 26.554473), ("171.76", 171.76),
                                        ("14503", 14503)])
def test_locale_numbers(text, value):
    assert parse_grouped(text, None)[0] == pytest.approx(value)


@pytest.mark.parametrize("text,decimal", [("1,23,456", None), ("1.234", "."), ("1,2345", None), ("1.234,5", None),
                                          ("12,34", ".")])
def test_locale_numbers_refused(text, decimal):
    with pytest.raises(RowError):
        parse_grouped(text, decimal)


def test_several_runs_refused_in_one_line(tmp_path):
    body = KARG.replace("# started on Fri May 16 23:04:11 2025\n", "")
    with pytest.raises(FormatError) as info:
        read_perf_stat(write(tmp_path, body + body))
    assert "several perf stat runs" in str(info.value) and info.value.line is not None
    csv = (FORMS / "whole_comma.csv").read_text()
    with pytest.raises(FormatError) as info:
        read_perf_stat(write(tmp_path, csv + csv, "x.csv"))
    assert "perf stat -x SEP output without -I" in str(info.value) and "several runs" in str(info.value)


def test_plain_problems_are_one_line_errors(tmp_path):
    cut = KARG.split("\n       1,101976138")[0] + "\n"
    with pytest.raises(FormatError, match="seconds time elapsed"):
        read_perf_stat(write(tmp_path, cut))
    with pytest.raises(FormatError, match="decimal mark"):
        read_perf_stat(write(tmp_path, KARG.replace("(78,79%)", "(78.79%)")))
    with pytest.raises(FormatError, match="counter row") as info:
        read_perf_stat(write(tmp_path, KARG.replace("                11      context", "       eleven   context")))
    assert info.value.line == 10
    with pytest.raises(FormatError, match="truncated"):
        read_perf_stat(write(tmp_path, KARG.rstrip("\n")))


def test_sniff_knows_plain_output(tmp_path):
    assert sniff(tmp_path / "x", KARG)
    assert sniff(tmp_path / "x", (FORMS / "whole_comma.csv").read_text())


def test_estimate_reads_a_whole_run(tmp_path, capsys):
    from mpx.cli import main

    assert main(["estimate", str(write(tmp_path, KARG)), "--scaler", "linear"]) == 0
    out = capsys.readouterr().out
    assert "1 intervals, 7 counters (plain)" in out and "3,642,649,330" in out
    assert "11.000" not in out and " 11 " in out  # small counts print as integers


def test_no_interval_below_the_count_on_every_shipped_file():
    """Issue 38: mpx estimate's intervals on every shipped perf file never reach below the count seen, nor 0."""
    import numpy as np

    from mpx import scalers
    from mpx.observation import Observation
    from mpx.scalers.trust import trust_report

    files = sorted(p for p in FORMS.parent.rglob("*") if p.suffix in (".csv", ".jsonl", ".txt"))
    assert len(files) >= 25
    for path in files:
        run = read_perf_stat(path, missing="record")
        view = run.read_view()
        obs = Observation.from_read_view(view)
        for name in ("linear", "dcam"):
            rep = trust_report(run, scalers.get(name).estimate(obs))
            ok = np.isfinite(rep.lo)
            seen = np.nan_to_num(view.raw)
            assert np.all(rep.lo[ok] >= 0) and np.all(rep.lo[ok] >= seen[ok] - 1e-6), (path.name, name)


def test_estimate_small_items(tmp_path, capsys):
    """Issue 38's smaller items: a trace given to mpx estimate, --events with commas inside a counter's name, a
    short error listing counters, and no 'per-task counting?' note on cells perf printed at 100 %."""
    import numpy as np

    from mpx.cli import main

    npz = tmp_path / "t.npz"
    np.savez(npz, a=np.zeros(2))
    assert main(["estimate", str(npz), "--scaler", "linear"]) != 0
    assert "is a trace" in capsys.readouterr().err
    dump = Path(__file__).resolve().parents[1] / "data" / "callgrind" / "combined" / "cg.out.xz"
    assert main(["estimate", str(dump), "--scaler", "linear"]) != 0
    err = capsys.readouterr().err
    assert "is a trace (ground truth, callgrind format)" in err and "mpx evaluate" in err
    text = "".join(f"{t}.000000000;{v};;uncore_imc/event=0x4,umask=0x3/;50;50.00;;\n"
                   f"{t}.000000000;7;;cycles;100;100.00;;\n" for t, v in ((1, 10), (2, 12)))
    path = write(tmp_path, text, "u.csv")
    assert main(["estimate", str(path), "--scaler", "linear", "--events", "uncore_imc/event=0x4,umask=0x3/"]) == 0
    assert "uncore_imc/event=0x4,umask=0x3/" in capsys.readouterr().out
    assert main(["estimate", str(path), "--scaler", "linear", "--events", "nope"]) != 0
    err = capsys.readouterr().err
    assert "nope" in err and len(err) < 400
    # per-task counting: the task ran 0.2 s of each 1 s interval, every counter on it the whole time (100 %)
    task = write(tmp_path, "".join(f"{t}.000000000;{v};;{e};200000000;100.00;;\n"
                                   for t in (1, 2) for e, v in (("cycles", 5), ("instructions", 9))), "task.csv")
    view = read_perf_stat(task).read_view()
    assert not any("per-task" in n for n in view.notes) and view.enabled[0, 0] == 200000000


# perf 4.x in fr_FR (space grouping, decimal comma, "task-clock (msec)", "%18.6f"): the values of a French-locale
# example in a public project's documentation, with running shares added by hand by perf 4.x's rule (print_running
# comes after the last metric line, so a counter whose metrics span two lines has its share on the second)
OLD4 = """
 Performance counter stats for './cfg small.cfg 1000':

         26,554473 task-clock (msec)         #    0,965 CPUs utilized          
                13 context-switches          #    0,490 K/sec                  
          77 375 671 cycles                    #    2,914 GHz                      (83,21%)
     <not supported> stalled-cycles-backend  
       121 540 390 instructions              #    1,57  insns per cycle        
                                             #    0,23  stalled cycles per insn  (83,40%)

       0,027512345 seconds time elapsed

"""

# perf 6.5+ default output: metric-group rows without a value, hints after the counters
NEW65 = """
 Performance counter stats for 'system wide':

             7,932      context-switches                 #    281.7 cs/sec  cs_per_second
             TopdownL1 (cpu_core)                 #     10.3 %  tma_bad_speculation
                                                  #     17.3 %  tma_frontend_bound
       418,955,116      cpu_core/cycles/                                                        (50.12%)

       1.002 seconds time elapsed

Some events weren't counted. Try disabling the NMI watchdog:
\techo 0 > /proc/sys/kernel/nmi_watchdog
\tperf stat ...

"""


def test_old_and_new_plain_layouts(tmp_path):
    run = read_perf_stat(write(tmp_path, OLD4))
    assert run.labels == ("task-clock (msec)", "context-switches", "cycles", "stalled-cycles-backend", "instructions")
    assert run.value[0, [0, 1, 2, 4]].tolist() == [26.554473, 13, 77375671, 121540390]
    assert run.pct_running[0].tolist() == [100, 100, 83.21, 100, 83.40] and run.not_supported[0, 3]
    new = read_perf_stat(write(tmp_path, NEW65))
    assert new.labels == ("context-switches", "cpu_core/cycles/") and new.value[0].tolist() == [7932, 418955116]
    assert new.pct_running[0].tolist() == [100, 50.12]
    per_thread = ("\n Performance counter stats for process id '1234':\n\n"
                  "            python-1234             12,345      cycles          (50.00%)\n"
                  "       kworker/0:1-99                  678      cycles          (50.00%)\n\n"
                  "       1.000000000 seconds time elapsed\n\n")
    thr = read_perf_stat(write(tmp_path, per_thread))
    assert thr.aggregation == "thread" and thr.labels == ("python-1234:cycles", "kworker/0:1-99:cycles")


def test_damaged_whole_run_json_is_a_one_line_error(tmp_path):
    text = (FORMS / "whole.jsonl").read_text().replace('"event" : "page-faults"', '"event" "page-faults"')
    with pytest.raises(FormatError, match="not a JSON object") as info:
        read_perf_stat(write(tmp_path, text, "x.jsonl"))
    assert info.value.line == 4


def _mutant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (FORMS / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("name,old,new,why", [
    ("plain_global.txt", "191.81 msec", "18446744073709551616 msec", "beyond 64 bits"),
    ("plain_global.txt", "14503      page", "0000000000014503      page", "a leading zero"),
    ("plain_global.txt", "14503      page", "\u0661\u0664503      page", "cannot read"),  # Arabic-Indic digits
    ("plain_global.txt", "0.775639350 seconds", "18446744073709551616 seconds", "beyond 64 bits"),
    ("plain_global.txt", "utilized          \n", "utilized                       14503      page-faults "
     "                     #   75.610 K/sec                  \n", "two '#' on one line"),
    ("plain_global.txt", "K/sec                  \n", "K/sec                     <not supported>      cycles\n",
     "two rows merged"),
    ("plain_interval_persocket.txt", "counts unit events\n", "counts unit events", "two rows merged"),
    ("plain_interval_persocket.txt", "S0        2 ", "S0        " + "2" * 5000 + " ", "CPU count"),
    ("whole.jsonl", '"event" : "task-clock",', '"event" : "task-clock", "event": "x",', "twice"),
    ("whole.jsonl", '"event-runtime" : 170999438', '"event-runtime" : 5e3', "not an integer of 0..2\\*\\*64-1"),
    ("whole_repeat_comma.csv", "task-clock,2.00%", "task-clock,5e3%", "no -r variance as perf prints it"),
])
def test_the_fuzzed_mutants_are_refused_in_one_line(tmp_path, name, old, new, why):
    """What the reader fuzz harness found in these forms (issue 40's rules for issue 38's forms): a value beyond
    perf's grammar, two rows merged into one line, a repeated JSON key, a broken -r variance read as a cgroup."""
    with pytest.raises(FormatError, match=why):
        read_perf_stat(_mutant(tmp_path, name, old, new))


def test_deeply_nested_json_and_a_repeated_event(tmp_path):
    with pytest.raises(FormatError):
        read_perf_stat(_mutant(tmp_path, "whole.jsonl", '"unit" : "msec"', '"unit" : ' + "[" * 20000 + "]" * 20000))
    text = (FORMS / "plain_global.txt").read_text()
    row = next(s for s in text.split("\n") if "task-clock" in s)
    path = tmp_path / "twice.txt"
    path.write_text(text.replace(row, row + "\n" + row, 1))
    run = read_perf_stat(path)  # perf -e task-clock,task-clock: two columns, and a note that says so
    assert run.labels[:2] == ("task-clock", "task-clock#2")
    assert any(d["what"] == "repeated events" for d in run.dropped)
