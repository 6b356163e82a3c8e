"""Tests of the ``perf stat -I`` reader (mpx/readers/perfstat/).

Fixtures in tests/data/perfstat/: ``real_*`` captured with perf 6.1 (no hardware PMU, so no multiplexing),
``mux_*`` hand-made by make_handmade.py with perf's arithmetic and a hidden truth (truth.json).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.readers import perfstat
from mpx.readers.textio import head_text
from mpx.readers.perfstat import (
    COUNTED,
    MISSING,
    STATUS_NOT_COUNTED,
    STATUS_NOT_SUPPORTED,
    read_perf_stat,
    sniff,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "perfstat"
TRUTH = json.loads((DATA / "truth.json").read_text())
ALL_FIXTURES = sorted(p.name for p in DATA.iterdir() if p.suffix in (".csv", ".jsonl"))


def write(tmp_path: Path, text: str, name: str = "perf.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def bad(tmp_path: Path, text: str, line: int | None, *words: str, **options) -> FormatError:
    """Assert that reading ``text`` raises FormatError at ``line`` with all ``words`` in the message."""
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as info:
        read_perf_stat(path, **options)
    err = info.value
    assert err.path == str(path)
    assert err.line == line, str(err)
    for w in words:
        assert w in str(err), str(err)
    return err


# -- real captures ----------------------------------------------------------------------------------


def test_real_global_semicolon_values_as_printed():
    run = read_perf_stat(DATA / "real_global_semicolon.csv")
    assert run.format == "csv" and run.separator == ";" and run.aggregation == "global"
    assert run.labels == ("task-clock", "context-switches", "page-faults", "cycles", "instructions")
    assert run.units == ("msec", "", "", "", "")
    assert run.timestamps.tolist() == [0.100182412, 0.200582737, 0.300874486, 0.401188764, 0.416510842]
    np.testing.assert_allclose(run.interval_s, [0.100182412, 0.100400325, 0.100291749, 0.100314278,
                                                0.015322078])
    # line 3: "0.100182412;99.82;msec;task-clock;99815475;100.00;0.998;CPUs utilized" (1-2: comment, blank)
    assert run.lines[0, 0] == 3
    assert run.value[0, 0] == 99.82 and run.running_ns[0, 0] == 99815475 and run.pct_running[0, 0] == 100
    assert run.metric_value[0, 0] == 0.998 and run.metric_unit[0, 0] == "CPUs utilized"
    assert run.value[0, 2] == 16728 and run.metric_unit[0, 2] == "K/sec"
    assert run.metric_unit[1, 2] == "/sec"  # the unit of a metric can change from interval to interval
    assert (run.status[:, 3:] == STATUS_NOT_SUPPORTED).all()
    assert np.isnan(run.value[:, 3:]).all() and (run.running_ns[:, 3:] == 0).all()
    assert (run.metric_unit[:, 3:] == "").all() and np.isnan(run.metric_value[:, 3:]).all()
    assert run.counted[:, :3].all() and not run.counted[:, 3:].any()
    # at 100% running the raw count is the printed value
    np.testing.assert_array_equal(run.raw[:, :3], run.value[:, :3])
    assert run.variance_pct is None and run.summary == () and run.extra_metrics == () and run.dropped == ()


def test_comma_semicolon_and_json_give_the_same_structure():
    semi = read_perf_stat(DATA / "real_global_semicolon.csv")
    comma = read_perf_stat(DATA / "real_global_comma.csv")
    js = read_perf_stat(DATA / "real_global.jsonl")
    assert comma.separator == "," and js.format == "json" and js.separator is None
    for other in (comma, js):
        assert other.labels == semi.labels and other.units == semi.units
        np.testing.assert_array_equal(other.status, semi.status)
    assert js.value[0, 0] == 99.624391 and js.running_ns[0, 0] == 99623440  # JSON prints %f
    assert js.metric_value[0, 0] == 0.996244  # numeric metric-value (perf 6.1)
    # 6.1 JSON prints "metric-value" : 0.000000, "metric-unit" : "" for no metric: no metric at all
    assert js.metric_unit[0, 3] == "" and np.isnan(js.metric_value[0, 3])


def test_per_cpu_csv_and_json_agree_on_labels():
    csv = read_perf_stat(DATA / "real_percpu_comma.csv")
    js = read_perf_stat(DATA / "real_percpu.jsonl")
    expected = ("CPU0:task-clock", "CPU1:task-clock", "CPU0:page-faults", "CPU1:page-faults",
                "CPU0:cycles", "CPU1:cycles")
    assert csv.labels == expected and js.labels == expected
    assert csv.aggregation == js.aggregation == "cpu"
    assert (csv.n_aggregated == -1).all()
    assert [c.aggr_id for c in csv.columns] == ["CPU0", "CPU1"] * 3
    assert csv.events == ("task-clock", "page-faults", "cycles")
    assert csv.value[2, 1] == 113.09 and csv.running_ns[2, 1] == 113091290


def test_per_core_and_per_socket_carry_cpu_counts():
    core = read_perf_stat(DATA / "real_percore_semicolon.csv")
    assert core.aggregation == "core"
    assert core.labels == ("S0-D0-C0:task-clock", "S0-D0-C0:page-faults", "S0-D0-C1:task-clock",
                           "S0-D0-C1:page-faults")
    assert (core.n_aggregated == 1).all()
    sock = read_perf_stat(DATA / "real_persocket_semicolon.csv")
    assert sock.aggregation == "socket" and sock.labels == ("S0:task-clock", "S0:page-faults", "S0:cycles")
    # perf printed 2 CPUs for the software events and 1 for the unsupported cycles
    assert (sock.n_aggregated[:, :2] == 2).all() and (sock.n_aggregated[:, 2] == 1).all()
    js = read_perf_stat(DATA / "real_persocket.jsonl")
    assert js.labels == ("S0:task-clock", "S0:page-faults") and (js.n_aggregated == 2).all()


def test_repeat_variance_columns():
    csv = read_perf_stat(DATA / "real_repeat_semicolon.csv")
    assert csv.variance_pct is not None
    assert csv.variance_pct[:, 0].tolist() == [0.0, 1.84, 1.05, 0.78, 28.73]
    assert csv.variance_pct[4, 1] == 43.0
    assert csv.running_ns[1, 0] == 97210347 and csv.metric_unit[1, 0] == "CPUs utilized"
    js = read_perf_stat(DATA / "real_repeat.jsonl")
    assert js.variance_pct[:, 1].tolist() == [0.0, 0.0, 0.0, 55.09, 631.57]


def test_summary_rows_csv_json_and_no_csv_summary():
    csv = read_perf_stat(DATA / "real_summary_semicolon.csv")
    assert csv.n_intervals == 5 and [r.event for r in csv.summary] == ["task-clock", "page-faults"]
    s0 = csv.summary[0]
    assert s0.time is None and s0.value == 432.51 and s0.running_ns == 432513334 and s0.line == 13
    assert s0.metrics == ((0.996, "CPUs utilized"),)
    js = read_perf_stat(DATA / "real_summary.jsonl")
    assert [r.value for r in js.summary] == [417.927793, 24440.0]
    nos = read_perf_stat(DATA / "real_nocsvsummary_semicolon.csv")
    assert [(r.event, r.status) for r in nos.summary] == [
        ("task-clock", COUNTED), ("page-faults", COUNTED), ("cycles", STATUS_NOT_SUPPORTED)]
    assert nos.summary[1].value == 24438


def test_cgroup_column_csv_and_json():
    csv = read_perf_stat(DATA / "real_cgroup_semicolon.csv")
    js = read_perf_stat(DATA / "real_cgroup.jsonl")
    for run in (csv, js):
        assert run.labels == ("task-clock@/", "page-faults@/")
        assert [c.cgroup for c in run.columns] == ["/", "/"]
    assert csv.status[0].tolist() == [COUNTED, STATUS_NOT_COUNTED]
    assert csv.running_ns[0, 0] == 1150069608729


# -- hand-made multiplexed fixtures against their hidden truth --------------------------------------


def truth_arrays(name: str, run) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    raw = np.full(run.value.shape, np.nan)
    rn = np.full(run.value.shape, np.nan)
    ena = np.full(run.value.shape, np.nan)
    for key, cell in TRUTH[name].items():
        t, label = key.split(":", 1)
        e = run.column(label)
        raw[int(t), e], rn[int(t), e], ena[int(t), e] = cell["raw"], cell["run"], cell["ena"]
    assert not np.isnan(raw).any(), "every cell has a truth"
    return raw, rn, ena


@pytest.mark.parametrize("name", ["mux_global_semicolon.csv", "mux_stalled_comma.csv", "mux_percpu.jsonl"])
def test_raw_and_enabled_reconstruction_brackets_the_truth(name):
    run = read_perf_stat(DATA / name)
    raw, rn, ena = truth_arrays(name, run)
    np.testing.assert_array_equal(run.running_ns, rn)
    c = run.counted.copy()
    if "task-clock" in run.labels:
        c[:, run.column("task-clock")] = False  # printed in msec: checked below
    assert c.sum() >= 10
    lo, hi = run.raw_bounds()
    # value = floor(raw*ena/run) and pct = floor(100 run/ena): lo <= raw < hi + 1
    assert (lo[c] <= raw[c]).all() and (raw[c] < hi[c] + 1).all()
    np.testing.assert_array_equal(run.raw[c], lo[c])
    rel = np.abs(run.raw[c] - raw[c]) / raw[c]
    assert (rel <= 1.0 / run.pct_running[c] + 1e-6).all()
    assert rel.max() > 0.001, "truncated percentages do lose precision in these fixtures"
    elo, ehi = run.enabled_ns_bounds()
    assert (elo[c] < ena[c]).all() and (ena[c] <= ehi[c] * (1 + 1e-12)).all()
    # pct is perf's integer percent, exactly
    expect = np.where(rn == ena, 100, np.floor(100 * rn / np.where(ena > 0, ena, 1)))
    p = run.present & (rn > 0)
    np.testing.assert_array_equal(run.pct_running[p], expect[p])


def test_task_clock_in_msec_and_metrics_of_the_global_fixture():
    name = "mux_global_semicolon.csv"
    run = read_perf_stat(DATA / name)
    raw, _, _ = truth_arrays(name, run)
    e = run.column("task-clock")
    assert run.units[e] == "msec"
    np.testing.assert_allclose(run.value[:, e] * 1e6, raw[:, e], atol=0.005e6)
    ipc = run.metric_value[:, run.column("instructions")]
    expect = run.value[:, run.column("instructions")] / run.value[:, run.column("cycles")]
    np.testing.assert_allclose(ipc, expect, atol=0.005)
    assert set(run.metric_unit[:, run.column("branch-misses")]) == {"of all branches"}


def test_not_counted_cells():
    run = read_perf_stat(DATA / "mux_global_semicolon.csv")
    e = run.column("LLC-load-misses")
    assert run.status[3, e] == STATUS_NOT_COUNTED and run.not_counted[3, e]
    assert math.isnan(run.value[3, e]) and math.isnan(run.raw[3, e])
    assert run.running_ns[3, e] == 0 and run.pct_running[3, e] == 0  # per-task: enabled > 0
    assert run.not_counted.sum() == 1 and not run.counted[3, e] and run.present[3, e]
    js = read_perf_stat(DATA / "mux_percpu.jsonl")
    e = js.column("CPU1:branch-misses")
    assert js.status[1, e] == STATUS_NOT_COUNTED and js.pct_running[1, e] == 100  # zeroed aggregate
    assert js.metric_unit[1, e] == "" and js.metric_unit[0, e] == "of all branches"
    assert js.metric_unit[0, js.column("CPU0:cycles")] == ""  # perf 6.12+: no metric keys at all


def test_comma_inside_event_names_and_continuation_metrics():
    run = read_perf_stat(DATA / "mux_stalled_comma.csv")
    assert run.labels == ("cycles", "stalled-cycles-frontend", "instructions", "cpu/event=0xc4,umask=0x00/")
    assert len(run.extra_metrics) == 3
    ins = run.column("instructions")
    for t, m in enumerate(run.extra_metrics):
        assert (m.t, m.column, m.unit) == (t, ins, "stalled cycles per insn")
        expect = run.value[t, run.column("stalled-cycles-frontend")] / run.value[t, ins]
        assert abs(m.value - expect) <= 0.005
    assert run.metric_unit[0, ins] == "insn per cycle"
    mdf = run.metrics_dataframe()
    assert len(mdf) == 3 * 3  # idle ratio + IPC + stalled per insn, 3 intervals
    assert (mdf["line"].diff().dropna() > 0).all()


def test_per_socket_aggregation_is_approximate_and_enabled_counts_cpus():
    name = "mux_persocket_semicolon.csv"
    run = read_perf_stat(DATA / name)
    raw, rn, ena = truth_arrays(name, run)
    assert run.labels[:3] == ("S0:cycles", "S0:instructions", "S0:cache-misses")
    assert (run.n_aggregated == 4).all()
    np.testing.assert_array_equal(run.running_ns, rn)
    # perf sums per-CPU scaled values: value * pct / 100 is only close to the summed raw counts
    rel = np.abs(run.raw - raw) / raw
    assert rel.max() < 0.05
    # enabled_ns: interval length x the 4 aggregated CPUs = the true summed enabled time (to 1 ns/CPU)
    np.testing.assert_allclose(run.enabled_ns(), ena, atol=8)
    np.testing.assert_allclose(run.enabled_ns(cpus=1), ena / 4, atol=2)


def test_handmade_fixtures_are_up_to_date():
    spec = importlib.util.spec_from_file_location("make_handmade", DATA / "make_handmade.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    texts, truth_text = mod.build()
    for name, text in texts.items():
        assert (DATA / name).read_text() == text, f"{name}: run tests/data/perfstat/make_handmade.py"
    assert (DATA / "truth.json").read_text() == truth_text


# -- derived views ----------------------------------------------------------------------------------


def test_to_dataframe_is_tidy():
    run = read_perf_stat(DATA / "mux_percpu.jsonl")
    df = run.to_dataframe()
    assert len(df) == run.present.sum() == 3 * 8
    assert list(df.columns) == [
        "time", "interval_s", "column", "event", "aggr_id", "n_aggregated", "cgroup", "unit", "value",
        "raw", "running_ns", "pct_running", "enabled_ns", "variance_pct", "counted", "not_counted",
        "not_supported", "metric_value", "metric_unit", "line"]
    row = df[(df["column"] == "CPU1:instructions") & (df["time"] == run.timestamps[0])].iloc[0]
    e = run.column("CPU1:instructions")
    assert row["value"] == run.value[0, e] and row["raw"] == run.raw[0, e] and row["aggr_id"] == "CPU1"
    assert row["metric_unit"] == "insn per cycle" and row["line"] == run.lines[0, e]
    assert df["n_aggregated"].isna().all() and df["counted"].sum() == 23
    sock = read_perf_stat(DATA / "real_persocket_semicolon.csv").to_dataframe()
    assert sock["n_aggregated"].tolist()[:3] == [2, 2, 1]


def test_enabled_time_approximation_is_the_interval_length():
    run = read_perf_stat(DATA / "real_global_semicolon.csv")
    np.testing.assert_allclose(run.enabled_ns()[:, 0], run.interval_s * 1e9)
    np.testing.assert_allclose(run.enabled_ns(cpus=2)[:, 1], run.interval_s * 2e9)
    lo, hi = run.enabled_ns_bounds()
    np.testing.assert_array_equal(lo[:, 0], run.running_ns[:, 0])  # 100% → enabled == running
    assert np.isnan(lo[:, 3]).all()  # not supported: run 0, nothing known
    with pytest.raises(ValueError):
        run.enabled_ns(cpus=0)


def test_no_scale_option_makes_raw_the_value(tmp_path):
    text = "1.000000000;1000;;cycles;500;50.00;;\n"
    scaled = read_perf_stat(write(tmp_path, text))
    assert scaled.raw[0, 0] == 500
    raw = read_perf_stat(write(tmp_path, text), scaled=False)
    assert raw.raw[0, 0] == 1000 and raw.raw_bounds()[1][0, 0] == 1000


def test_arrays_are_read_only():
    run = read_perf_stat(DATA / "mux_global_semicolon.csv")
    with pytest.raises(ValueError):
        run.value[0, 0] = 1.0
    with pytest.raises(ValueError):
        run.timestamps[0] = 1.0


# -- layouts written inline -------------------------------------------------------------------------


def test_perf_61_continuation_rows_have_one_separator_less(tmp_path):
    # perf <= 6.1: new_line_csv printed 3 + aggr_fields separators (one fewer than 6.2+)
    text = ("1.000000000;CPU0;1000;;cycles;1000;100.00;;\n"
            "1.000000000;CPU0;1500;;instructions;1000;100.00;1.50;insn per cycle\n"
            "1.000000000;CPU0;;;;;0.20;stalled cycles per insn\n"
            "1.000000000;CPU0;300;;stalled-cycles-frontend;1000;100.00;30.00;frontend cycles idle\n")
    run = read_perf_stat(write(tmp_path, text))
    assert run.labels == ("CPU0:cycles", "CPU0:instructions", "CPU0:stalled-cycles-frontend")
    (m,) = run.extra_metrics
    assert (m.column, m.value, m.unit, m.line) == (1, 0.2, "stalled cycles per insn", 3)


def test_json_continuation_and_metricgroup_lines(tmp_path):
    text = (
        '{"interval" : 1.000000000, "counter-value" : "1500.000000", "unit" : "", "event" : "instructions", '
        '"event-runtime" : 1000, "pcnt-running" : 100.00, "metric-value" : 1.500000, '
        '"metric-unit" : "insn per cycle"}\n'
        '{"interval" : 1.000000000, "metric-value" : 0.200000, "metric-unit" : "stalled cycles per insn"}\n'
        '{"interval" : 1.000000000, "metricgroup" : "TopdownL1"}\n'
        '{"interval" : 1.000000000, "counter-value" : "1000", "event" : "cycles", "event-runtime" : 1000, '
        '"pcnt-running" : "100.00", "metric-threshold" : "good"}\n'
    )
    run = read_perf_stat(write(tmp_path, text, "perf.jsonl"))
    assert run.labels == ("instructions", "cycles") and run.units == ("", "")
    assert [(m.column, m.value, m.unit) for m in run.extra_metrics] == [(0, 0.2, "stalled cycles per insn")]
    whats = {d["what"] for d in run.dropped}
    assert whats == {"metric group headers", "JSON key 'metric-threshold'"}


def test_default_metric_group_metrics_attach_to_no_counter(tmp_path):
    """perf 6.5+ prints a default metric group's name row and then its metrics in place of its events' rows
    (``printout``: a ``default_metricgroup`` event is not printed; print_metricgroup_header_json/csv): the metrics
    belong to no counter, so none is attached to the counter printed above the group (issue 38)."""
    text = (
        '{"interval" : 1.000000000, "counter-value" : "1000", "unit" : "", "event" : "branch-misses", '
        '"event-runtime" : 1000, "pcnt-running" : "100.00", "metric-value" : "1.000000", '
        '"metric-unit" : "of all branches"}\n'
        '{"interval" : 1.000000000, "metricgroup" : "TopdownL1"}\n'
        '{"interval" : 1.000000000, "event-runtime" : 1000, "pcnt-running" : "100.00", '
        '"metric-value" : "30.500000", "metric-unit" : "retiring"}\n'
        '{"interval" : 1.000000000, "metric-value" : "12.000000", "metric-unit" : "frontend bound"}\n'
        '{"interval" : 1.000000000, "counter-value" : "5000", "unit" : "", "event" : "cycles", '
        '"event-runtime" : 1000, "pcnt-running" : "100.00", "metric-value" : "2.000000", "metric-unit" : "GHz"}\n'
        '{"interval" : 1.000000000, "metric-value" : "0.500000", "metric-unit" : "stalled cycles per insn"}\n'
    )
    run = read_perf_stat(write(tmp_path, text, "perf.jsonl"))
    assert run.labels == ("branch-misses", "cycles")
    assert [(m.column, m.value, m.unit) for m in run.extra_metrics] == [(1, 0.5, "stalled cycles per insn")]
    assert {d["what"]: d["count"] for d in run.dropped}["metric group metrics"] == 2
    csv = ("1.000000000;1000;;branch-misses;1000;100.00;1.00;of all branches\n"
           "1.000000000;;;;;TopdownL1\n"
           "1.000000000;;;;1000;100.00;30.5;retiring\n"
           "1.000000000;5000;;cycles;1000;100.00;2.00;GHz\n")
    run = read_perf_stat(write(tmp_path, csv))
    assert run.labels == ("branch-misses", "cycles") and run.extra_metrics == ()


def test_fractional_percentages_bracket_enabled_by_rounding(tmp_path):
    """perf <= 6.1 prints the running share rounded (%.2f), not truncated: a system-wide run whose counters were
    enabled for the whole interval is not taken for per-task counting (no note, enabled = the interval)."""
    # enabled 1e9 ns; running 333,260,000 ns: 33.326 % printed 33.33 (above the truncation rule's 100 run / pct)
    text = "".join(f"{t}.000000000;CPU0;{v};;cycles;333260000;33.33;;\n"
                   f"{t}.000000000;CPU0;{v};;instructions;500000000;50.00;;\n" for t, v in ((1, 9000), (2, 9100)))
    run = read_perf_stat(write(tmp_path, text))
    lo, hi = run.enabled_ns_bounds()
    assert np.all(lo[:, 0] <= 1e9) and np.all(hi[:, 0] >= 1e9)
    view = run.read_view()
    assert view.notes == () and np.allclose(view.enabled, 1e9)


def test_metric_units_with_commas_and_explicit_multichar_separator(tmp_path):
    text = "1.000000000,10,,LLC-misses,100,100.00,5.00,of all a, b\n"
    run = read_perf_stat(write(tmp_path, text))
    assert run.metric_unit[0, 0] == "of all a, b" and run.metric_value[0, 0] == 5.0
    multi = "1.000000000::10::::cycles::100::50.00::::\n2.000000000::12::::cycles::100::50.00::::\n"
    run = read_perf_stat(write(tmp_path, multi), sep="::")
    assert run.value[:, 0].tolist() == [10, 12] and run.separator == "::"


def test_tab_separator_and_per_thread(tmp_path):
    text = ("1.000000000\tperf-6033\t0.92\tmsec\ttask-clock\t922882\t100.00\t0.009\tCPUs utilized\n"
            "1.000000000\tkworker/1:2-events-81\t0.01\tmsec\ttask-clock\t9694\t100.00\t0.000\tCPUs utilized\n")
    run = read_perf_stat(write(tmp_path, text))
    assert run.separator == "\t" and run.aggregation == "thread"
    assert run.labels == ("perf-6033:task-clock", "kworker/1:2-events-81:task-clock")


def test_duplicate_events_in_an_interval_become_separate_columns(tmp_path):
    text = "".join(f"{t}.000000000;{v};;cycles;10;100.00;;\n" for t in (1, 2) for v in (5, 7))
    run = read_perf_stat(write(tmp_path, text))
    assert run.labels == ("cycles", "cycles#2") and run.value.tolist() == [[5, 7], [5, 7]]


def test_missing_cells_error_or_record(tmp_path):
    text = ("1.000000000;5;;a;10;100.00;;\n1.000000000;6;;b;10;100.00;;\n"
            "2.000000000;7;;a;10;100.00;;\n"
            "3.000000000;8;;a;10;100.00;;\n3.000000000;9;;b;10;100.00;;\n")
    bad(tmp_path, text, 3, "'b'", "missing", "2.0 s")
    run = read_perf_stat(write(tmp_path, text), missing="record")
    assert run.status[:, 1].tolist() == [COUNTED, MISSING, COUNTED]
    assert not run.present[1, 1] and math.isnan(run.value[1, 1]) and math.isnan(run.enabled_ns()[1, 1])
    assert run.dropped == ({"what": "missing cells", "why": run.dropped[0]["why"], "count": 1},)
    assert len(run.to_dataframe()) == 5
    with pytest.raises(ValueError):
        read_perf_stat(write(tmp_path, text), missing="zero")


# -- bad input: FormatError with file and line ------------------------------------------------------

GOOD = ("# started on Mon Mar  3 10:00:00 2025\n\n"
        "1.000000000;100;;cycles;1000;50.00;0.50;insn per cycle\n"
        "1.000000000;200;;instructions;1000;50.00;;\n"
        "2.000000000;100;;cycles;1000;50.00;;\n"
        "2.000000000;200;;instructions;1000;50.00;;\n")


def replace_line(text: str, lineno: int, new: str) -> str:
    lines = text.split("\n")
    lines[lineno - 1] = new
    return "\n".join(lines)


def test_good_base_text_reads(tmp_path):
    run = read_perf_stat(write(tmp_path, GOOD))
    assert run.labels == ("cycles", "instructions") and run.lines[1].tolist() == [5, 6]


@pytest.mark.parametrize("lineno,new,words", [
    (4, "this is not perf output", ["not a timestamp"]),
    (4, "1.000000000;200;;instructions;1000;50.00;", ["wrong number of fields"]),  # metric unit dropped
    (4, "1.000000000;200;;instructions;1000", ["wrong number of fields"]),
    (4, "1.000000000;200;;instructions;extra;1000;50.00;;", ["extra fields after the event"]),
    (4, "1.000000000;2x0;;instructions;1000;50.00;;", ["counter value '2x0' is not a number"]),
    (4, "1.000000000;nan;;instructions;1000;50.00;;", ["counter value 'nan'"]),
    (4, "1.000000000;1e999;;instructions;1000;50.00;;", ["not a number as perf prints it"]),
    (4, "1.000000000;200;;instructions;1000;150.00;;", ["outside 0..100"]),
    (4, "1.000000000;200;;;1000;50.00;;", ["empty event name"]),
    (4, "1.000000000;200;msec;instructions;1000;50.00;;", []),  # unit change is caught at line 6
    (5, "0.500000000;100;;cycles;1000;50.00;;", ["goes backwards"]),
    (5, "2.000000000;100;;cycles;1000;50.00;1.5;", ["without a metric unit"]),
    (5, "summary;100;;cycles;1000;50.00;;", []),  # then an interval row after the summary (line 6)
    (3, "0.000000000;100;;cycles;1000;50.00;;", ["not positive"]),
    (3, "1.000000000;;;;;;0.50;insn per cycle", ["before any counter row"]),
])
def test_bad_rows_name_their_line(tmp_path, lineno, new, words):
    text = replace_line(GOOD, lineno, new)
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as info:
        read_perf_stat(path)
    err = info.value
    expected_line = 6 if new.startswith(("summary", "1.000000000;200;msec")) else lineno
    assert err.path == str(path) and err.line == expected_line, str(err)
    for w in words:
        assert w in str(err), str(err)


def test_unit_change_and_interval_after_summary_messages(tmp_path):
    bad(tmp_path, replace_line(GOOD, 6, "2.000000000;200;msec;instructions;1000;50.00;;"), 6,
        "unit of 'instructions' changes", "line 4")
    bad(tmp_path, replace_line(GOOD, 5, "summary;100;;cycles;1000;50.00;;"), 6, "after the --summary")


def test_whole_file_problems(tmp_path):
    bad(tmp_path, "", None, "no perf stat rows")
    bad(tmp_path, "# only\n# comments\n\n", None, "no perf stat rows")
    bad(tmp_path, " time,insn per cycle,\n     0.100159758;1.2;\n", 1, "--metric-only")
    # issue 38: whole-run CSV (with or without --summary) and human-readable -I are read (test_perfstat_forms.py)
    assert read_perf_stat(write(tmp_path, "summary;100;;cycles;1000;50.00;;\n")).format == "csv"
    assert read_perf_stat(write(tmp_path, "1.06;msec;task-clock;1060596;100.00;0.011;CPUs utilized\n")).format == "csv"
    human = "     0.100225205               1.06 msec task-clock   #    0.011 CPUs utilized\n"
    assert read_perf_stat(write(tmp_path, human)).format == "plain"
    bad(tmp_path, "1.000000000;;;;;;0.50;insn per cycle\n", 1, "before any counter row")
    bad(tmp_path, "1.000000000;CPU0;;;;;0.50;insn per cycle\n", 1, "before any counter row")
    bad(tmp_path, "1.000000000;S0;x;100;;cycles;1000;50.00;;\n", 1, "CPU count")
    bad(tmp_path, "1.000000000;S0;2;100;;cycles;1000;50.00;;\n1.000000000;CPU1;100;;cycles;1000;50.00;;\n",
        2, "does not fit")


def test_bad_json_rows(tmp_path):
    good = ('{"interval" : 1.0, "counter-value" : "100", "unit" : "", "event" : "cycles", '
            '"event-runtime" : 1000, "pcnt-running" : 50.00}')

    def jbad(line2: str, *words: str) -> None:
        path = write(tmp_path, good + "\n" + line2 + "\n", "perf.jsonl")
        with pytest.raises(FormatError) as info:
            read_perf_stat(path)
        assert info.value.line == 2, str(info.value)
        for w in words:
            assert w in str(info.value), str(info.value)

    jbad('{"interval" : 2.0, "counter-value" : "100", "event" : "cycles"', "not a JSON object")
    jbad("[1, 2]", "expected an object")
    jbad(good.replace('"event-runtime" : 1000', '"event-runtime" : -5').replace("1.0", "2.0"), "event-runtime")
    jbad(good.replace('"100"', '"1oo"').replace("1.0", "2.0"), "not a number")
    jbad(good.replace('"100"', "true").replace("1.0", "2.0"), "neither a number nor a string")
    jbad(good.replace(', "pcnt-running" : 50.00', "").replace("1.0", "2.0"), "no 'pcnt-running'")
    jbad(good.replace('"interval" : 1.0', '"interval" : 0.5'), "goes backwards")
    jbad(good.replace('"interval" : 1.0', '"interval" : NaN'), "not finite")
    jbad('{"interval" : 2.0, "cpu" : "0", "socket" : "S0", "counter-value" : "1", "event" : "x", '
         '"event-runtime" : 1, "pcnt-running" : 1}', "several aggregation keys")
    jbad('{"interval" : 2.0, "cpu" : "0", "counter-value" : "1", "event" : "x", '
         '"event-runtime" : 1, "pcnt-running" : 1}', "aggregation changes")
    jbad('{"interval" : 2.0, "insn per cycle" : "1.2"}', "--metric-only")
    jbad('{"interval" : 2.0}{"metric-value" : "1.2"}', "--metric-only")
    jbad('{"interval" : 2.0, "foo" : 1}', "--metric-only")
    jbad('{"unrelated" : 1}', "no 'event'")


def test_compressed_input_reads_the_same(tmp_path):
    src = DATA / "mux_global_semicolon.csv"
    gz = tmp_path / "perf.csv.gz"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    a, b = read_perf_stat(src), read_perf_stat(gz)
    assert a.labels == b.labels
    np.testing.assert_array_equal(a.value, b.value)
    np.testing.assert_array_equal(a.lines, b.lines)


# -- format detection and the registry --------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_sniff_claims_every_fixture(name):
    assert sniff(DATA / name, head_text(DATA / name))


@pytest.mark.parametrize("head", [
    "---------- Begin Simulation Statistics ----------\nsimSeconds    0.000012  # Number of seconds (Second)\n",
    "\n---------- Begin Simulation Statistics ----------\nsim_seconds 0.1 # s\n",
    "# callgrind format\nversion: 1\ncreator: callgrind-3.22.0\npid: 1234\ncmd: ./a.out\npart: 1\n",
    "version: 1\ncreator: callgrind-3.22.0\nevents: Ir Dr Dw\n",
    # mpx-stats JSON lines (mpx/readers/jsonl.py): header, a record line alone, a truncated header
    '{"format": "mpx-stats", "version": 1, "time_unit": "cycles", "period": 10, "stats": [{"name": "a", '
    '"type": "scalar", "desc": "", "unit": null, "additive": true}]}\n'
    '{"start": 0, "end": 10, "stats": {"a": 1}}\n',
    '{"start": 0, "end": 10, "stats": {"a": 1}}\n',
    '{"format": "mpx-stats", "version": 1, "stats": [',
    '{"interval" : 1.0, "counter-value" : "5", "format": "mpx-stats"}\n',
    "time,counts\n1,2\n",
    "1.5;2.5\n",
    "",
    "{not json\n",
])
def test_sniff_rejects_other_formats(head, tmp_path):
    assert not sniff(tmp_path / "x", head)


def test_sniff_rejects_real_gem5_stats(shared):
    gem5 = shared("data", "gem5")
    files = [p for p in sorted(gem5.rglob("*")) if p.is_file() and p.suffix != ".md"]
    assert files
    for p in files:
        assert not sniff(p, head_text(p)), p


def test_read_trace_refuses_perfstat_output():
    from mpx.readers import read_trace

    with pytest.raises(FormatError, match="read_perf_stat"):
        read_trace(DATA / "real_global_semicolon.csv", format="perfstat")
    with pytest.raises(FormatError, match="read_perf_stat"):
        perfstat.read(DATA / "real_global_semicolon.csv")


def test_detect_format_picks_perfstat():
    from mpx.readers import REGISTRY, detect_format

    missing = [m for m in REGISTRY.builtin.values() if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"reader modules not written yet: {missing}")
    for name in ("real_global_semicolon.csv", "real_percpu.jsonl", "mux_stalled_comma.csv"):
        assert detect_format(DATA / name) == "perfstat", name


# -- property tests: mutated and truncated inputs raise only FormatError ------------------------------

BASES = [(DATA / n).read_text() for n in (
    "mux_global_semicolon.csv", "mux_stalled_comma.csv", "mux_percpu.jsonl", "real_percpu_comma.csv",
    "real_repeat_semicolon.csv", "real_nocsvsummary_semicolon.csv", "real_cgroup.jsonl",
    "mux_persocket_semicolon.csv")]


def read_or_format_error(path: Path, **options) -> None:
    try:
        run = read_perf_stat(path, **options)
    except FormatError as exc:
        assert exc.path == str(path)
        return
    # what succeeds is consistent
    assert run.value.shape == (run.n_intervals, run.n_columns)
    assert np.all(np.diff(run.timestamps) > 0)
    run.to_dataframe()


MUTATION = st.sampled_from(["truncate", "delete_line", "duplicate_line", "swap_lines", "replace_char",
                            "insert_text", "delete_field", "empty_field"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(range(len(BASES))), kind=MUTATION, a=st.integers(0, 10**6),
       b=st.integers(0, 10**6), junk=st.text(max_size=12))
def test_mutated_inputs_raise_only_format_error(tmp_path, base, kind, a, b, junk):
    text = BASES[base]
    lines = text.split("\n")
    i, j = a % len(lines), b % len(lines)
    if kind == "truncate":
        text = text[: a % (len(text) + 1)]
    elif kind == "delete_line":
        text = "\n".join(lines[:i] + lines[i + 1:])
    elif kind == "duplicate_line":
        text = "\n".join(lines[:i] + [lines[i]] + lines[i:])
    elif kind == "swap_lines":
        lines[i], lines[j] = lines[j], lines[i]
        text = "\n".join(lines)
    elif kind == "replace_char":
        k = a % max(len(text), 1)
        text = text[:k] + (junk[:1] or "x") + text[k + 1:]
    elif kind == "insert_text":
        k = b % (len(text) + 1)
        text = text[:k] + junk + text[k:]
    else:
        sep = ";" if ";" in lines[i] else ","
        parts = lines[i].split(sep)
        k = b % max(len(parts), 1)
        if kind == "delete_field":
            del parts[k]
        else:
            parts[k] = ""
        lines[i] = sep.join(parts)
        text = "\n".join(lines)
    path = tmp_path / "mutated.txt"
    path.write_text(text, encoding="utf-8")
    read_or_format_error(path)
    read_or_format_error(path, missing="record")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_random_bytes_raise_only_format_error(tmp_path, data):
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    read_or_format_error(path)
    sniff(path, data.decode("utf-8", errors="replace"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=st.lists(st.sampled_from(["1.000000000", "2.000000000", "CPU0", "S0", "2", "100", "", "cycles",
                                        "<not counted>", "<not supported>", "50.00", "1.5%", "msec",
                                        "insn per cycle", "summary", "/", "x-1"]),
                       min_size=1, max_size=11),
       rows=st.integers(1, 4), sep=st.sampled_from([";", ","]))
def test_plausible_field_soup_raises_only_format_error(tmp_path, fields, rows, sep):
    text = "\n".join(sep.join(fields) for _ in range(rows)) + "\n"
    path = tmp_path / "soup.csv"
    path.write_text(text)
    read_or_format_error(path)


def test_readers_are_found_through_their_registry():
    from mpx.readers import REGISTRY, formats, reader

    assert formats()[:5] == ["mpx", "jsonl", "gem5", "callgrind", "perfstat"]
    assert reader("perfstat") is perfstat and "perfstat" in REGISTRY
    with pytest.raises(FormatError, match="unknown format 'nope'; known: mpx, jsonl"):
        reader("nope")
