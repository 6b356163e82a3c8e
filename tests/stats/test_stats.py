"""mpx.stats: the four stat types, the StatGroup hierarchy, dump/reset semantics, the periodic dumper."""

from __future__ import annotations

import gc
import importlib.util
import io
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import MpxWarning
from mpx.readers import detect_format, read_trace
from mpx.stats import (
    Distribution,
    Formula,
    PeriodicDumper,
    Scalar,
    StatGroup,
    StatsError,
    Vector,
    bucket_names,
)
from mpx.trace import Trace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


# -- the four types -----------------------------------------------------------------------------------


def test_scalar_inc_set_set_max_reset():
    s = Scalar("x", "a counter")
    s.inc()
    s.inc(4)
    assert s.value == 5
    s.set(2)
    assert s.value == 2
    s.set_max(7)
    s.set_max(3)
    assert s.value == 7
    s.reset()
    assert s.value == 0 and s.dump() == 0


def test_vector_bins_total_and_reset_keeps_labels():
    v = Vector("by_prec", labels=["BF16"])
    assert v.dump() == {"BF16": 0}
    v.inc("BF16", 12000)
    v.inc("INT8", 3200)
    v.inc("INT8")
    assert v.dump() == {"BF16": 12000, "INT8": 3201}
    assert v["INT8"] == 3201 and v["FP32"] == 0 and v.total == 15201
    v.reset()
    assert v.dump() == {"BF16": 0, "INT8": 0}


@pytest.mark.parametrize("label", ["", "a::b", " x", "x\n", 3, None])
def test_vector_rejects_bad_labels(label):
    with pytest.raises(StatsError):
        Vector("v").inc(label)


def test_distribution_buckets_underflow_overflow():
    d = Distribution("lat", edges=[0, 10, 100])
    for x in (-1, 0, 9.5, 10, 99, 100, 1000):
        d.sample(x)
    d.sample(5, n=3)
    out = d.dump()
    assert out["count"] == 10
    assert out["underflows"] == 1  # -1
    assert out["buckets"] == [5, 2]  # [0, 10): 0, 9.5, 5 x3 ; [10, 100): 10, 99
    assert out["overflows"] == 2  # 100 (the upper edge is exclusive) and 1000
    assert out["min"] == -1 and out["max"] == 1000
    assert out["sum"] == pytest.approx(-1 + 0 + 9.5 + 10 + 99 + 100 + 1000 + 15)
    assert out["mean"] == pytest.approx(out["sum"] / 10)
    assert out["count"] == out["underflows"] + sum(out["buckets"]) + out["overflows"]


def test_distribution_seed_example():
    """seeds/g5-stats-framework-design.md §2.3: two DMA transfers of 32 KiB and 256 B."""
    d = Distribution("transfer_size", "DMA transfer size", edges=[0, 1024, 4096, 65536, 262144])
    d.sample(32768)
    d.sample(256)
    out = d.dump()
    assert (out["min"], out["max"], out["mean"], out["count"], out["buckets"]) == (256, 32768, 16512, 2, [1, 0, 1, 0])


def test_distribution_reset_and_empty_values():
    d = Distribution("d", edges=[0, 1])
    d.sample(0.5)
    d.reset()
    out = d.dump()
    assert out["count"] == 0 and out["buckets"] == [0] and out["underflows"] == out["overflows"] == 0
    assert math.isnan(out["mean"]) and math.isnan(out["min"]) and math.isnan(out["max"])
    d.sample(0.25)
    assert d.dump()["min"] == d.dump()["max"] == 0.25  # min/max restart after a reset


@pytest.mark.parametrize("edges", [[], [1], [1, 1], [2, 1], [0, math.inf], ["a", "b"]])
def test_distribution_rejects_bad_edges(edges):
    with pytest.raises(StatsError):
        Distribution("d", edges=edges)


def test_distribution_rejects_bad_samples():
    d = Distribution("d", edges=[0, 1])
    for value, n in ((math.nan, 1), (math.inf, 1), (0.5, 0), (0.5, -2)):
        with pytest.raises(StatsError):
            d.sample(value, n)
    assert d.dump()["count"] == 0


def test_bucket_names():
    assert bucket_names([0, 1024, 4096]) == ["0-1024", "1024-4096"]
    assert bucket_names([0, 0.5, 1.0]) == ["0-0.5", "0.5-1"]


def test_formula_recomputed_after_reset():
    g = StatGroup("cpu")
    insts = g.scalar("insts")
    cycles = g.scalar("cycles")
    ipc = g.formula("ipc", "instructions per cycle", lambda: insts.value / cycles.value)
    insts.inc(30)
    cycles.inc(60)
    assert g.dump()["cpu.ipc"] == 0.5
    g.reset()
    assert math.isnan(g.dump()["cpu.ipc"])  # 0/0 -> NaN, as gem5 prints nan
    insts.inc(9)
    cycles.inc(10)
    assert ipc.value == 0.9 and g.dump()["cpu.ipc"] == 0.9


def test_formula_needs_a_callable():
    with pytest.raises(StatsError):
        Formula("f", "", 3)


# -- hierarchy --------------------------------------------------------------------------------------------


def _seed_hierarchy():
    """The structure of seeds/g5-stats-framework-design.md §3.2/§5.1 (parent= constructor style)."""
    kernel = StatGroup("kernel")
    kernel.scalar("total_events")
    core = StatGroup("core0", parent=kernel)
    core.scalar("total_instructions")
    tiu = StatGroup("tiu", parent=core)
    tiu.scalar("cmd_count").inc(4)
    tiu.vector("cycles_by_prec").inc("BF16", 12000)
    dma = core.group("dma")
    dma.distribution("transfer_size", edges=[0, 1024, 65536]).sample(2048)
    dma.formula("bw", "bytes per ns", lambda: 1.0)
    return kernel


def test_flattened_names_follow_the_seed():
    kernel = _seed_hierarchy()
    out = kernel.dump()
    assert list(out) == [
        "kernel.total_events",
        "kernel.core0.total_instructions",
        "kernel.core0.tiu.cmd_count",
        "kernel.core0.tiu.cycles_by_prec",
        "kernel.core0.dma.transfer_size",
        "kernel.core0.dma.bw",
    ]
    assert out["kernel.core0.tiu.cmd_count"] == 4
    assert out["kernel.core0.tiu.cycles_by_prec"] == {"BF16": 12000}
    assert kernel["core0.tiu.cmd_count"].full_name == "kernel.core0.tiu.cmd_count"
    assert kernel.children["core0"].children["tiu"].path == "kernel.core0.tiu"


def test_unnamed_root_adds_no_prefix():
    root = StatGroup("")
    root.scalar("simInsts")
    root.group("cpu").scalar("numCycles")
    assert list(root.dump()) == ["simInsts", "cpu.numCycles"]


def test_duplicate_and_invalid_names_are_errors():
    g = StatGroup("g")
    g.scalar("x")
    with pytest.raises(StatsError, match="duplicate"):
        g.scalar("x")
    with pytest.raises(StatsError, match="duplicate"):
        g.vector("x")
    with pytest.raises(StatsError, match="duplicate"):
        g.group("x")  # a child group may not shadow a stat
    g.group("c")
    with pytest.raises(StatsError, match="duplicate"):
        StatGroup("c", parent=g)
    with pytest.raises(StatsError, match="duplicate"):
        g.scalar("c")
    for bad in ("a.b", "", "a b", "a::b"):
        with pytest.raises(StatsError):
            g.scalar(bad)
    with pytest.raises(StatsError):
        StatGroup("x.y")
    with pytest.raises(KeyError):
        g["nope"]


def test_group_cannot_have_two_parents_or_cycles():
    a, b = StatGroup("a"), StatGroup("b")
    c = a.group("c")
    with pytest.raises(StatsError):
        b.add_child(c)
    with pytest.raises(StatsError, match="already has a parent"):
        a.add_child(c)
    with pytest.raises(StatsError, match="own descendant"):
        c.add_child(a)


def test_reset_of_nested_groups_zeroes_everything():
    kernel = _seed_hierarchy()
    before = kernel.dump()
    assert kernel.dump() == before  # dump changes nothing
    kernel.children["core0"].reset()
    out = kernel.dump()
    assert out["kernel.core0.tiu.cmd_count"] == 0
    assert out["kernel.core0.tiu.cycles_by_prec"] == {"BF16": 0}
    assert out["kernel.core0.dma.transfer_size"]["count"] == 0
    assert out["kernel.core0.dma.transfer_size"]["buckets"] == [0, 0]
    assert out["kernel.core0.dma.bw"] == 1.0  # formulas are recomputed, not reset


def test_reset_of_a_subgroup_leaves_the_rest():
    kernel = _seed_hierarchy()
    kernel["total_events"].inc(5)
    kernel.children["core0"].children["tiu"].reset()
    out = kernel.dump()
    assert out["kernel.total_events"] == 5
    assert out["kernel.core0.tiu.cmd_count"] == 0
    assert out["kernel.core0.dma.transfer_size"]["count"] == 1


# -- periodic dumper and round trip ----------------------------------------------------------------------------


def _toy_group():
    root = StatGroup("sim")
    cpu = root.group("cpu")
    s = dict(
        insts=cpu.scalar("insts", "instructions", unit="Count"),
        cycles=cpu.scalar("cycles", "cycles", unit="Cycle"),
        peak=cpu.scalar("peak_q", "peak queue depth", additive=False),
        ops=cpu.vector("by_op", "ops by class", labels=["ALU"]),
        lat=cpu.distribution("lat", "load latency", [0, 10, 100], unit="Cycle"),
    )
    s["ipc"] = cpu.formula("ipc", "instructions per cycle", lambda: s["insts"].value / s["cycles"].value)
    return root, s


def test_periodic_dump_round_trip_equals_expected_trace(tmp_path):
    root, s = _toy_group()
    path = tmp_path / "run.jsonl"
    with PeriodicDumper(root, path, "cycles", period=100, start=1000, meta={"simulator": "toy", "workload": "w"}) as d:
        # interval 1: [1000, 1100)
        s["insts"].inc(50); s["cycles"].inc(100); s["peak"].set_max(3); s["ops"].inc("ALU", 50)
        for x in (1, 2, 50):
            s["lat"].sample(x)
        assert not d.advance(1099)
        assert d.advance(1100)
        # interval 2: [1100, 1200) — a new bin appears, no samples
        s["insts"].inc(20); s["cycles"].inc(100); s["ops"].inc("LSU", 20)
        assert d.advance(1200)
        # interval 3: [1200, 1250), partial, closed explicitly
        s["cycles"].inc(50); s["lat"].sample(500); s["lat"].sample(-4)
        d.close(1250)
    assert detect_format(path) == "jsonl"
    got = read_trace(path)
    expected = Trace(
        events=[
            "sim.cpu.insts", "sim.cpu.cycles", "sim.cpu.by_op::ALU", "sim.cpu.by_op::LSU",
            "sim.cpu.lat::samples", "sim.cpu.lat::underflows", "sim.cpu.lat::0-10", "sim.cpu.lat::10-100",
            "sim.cpu.lat::overflows",
        ],
        counts=[
            [50, 100, 50, 0, 3, 0, 2, 1, 0],
            [20, 100, 0, 20, 0, 0, 0, 0, 0],
            [0, 50, 0, 0, 2, 1, 0, 0, 1],
        ],
        edges=[1000, 1100, 1200, 1250],
        time_unit="cycles",
        aux_names=["sim.cpu.peak_q", "sim.cpu.lat::mean", "sim.cpu.lat::min_value", "sim.cpu.lat::max_value",
                   "sim.cpu.ipc"],
        aux=[
            [3, 53 / 3, 1, 50, 0.5],
            [0, np.nan, np.nan, np.nan, 0.2],
            [0, 248.0, -4, 500, 0.0],
        ],
        meta={
            "simulator": "toy",
            "workload": "w",
            "source": str(path),
            "format": "jsonl",
            "time_axis": "[start, end) of each mpx-stats record, in cycles",
            "dump_period": 100,
            "units": {"sim.cpu.insts": "Count", "sim.cpu.cycles": "Cycle", "sim.cpu.lat::mean": "Cycle",
                      "sim.cpu.lat::min_value": "Cycle", "sim.cpu.lat::max_value": "Cycle"},
            "descriptions": {"sim.cpu.insts": "instructions", "sim.cpu.cycles": "cycles",
                             "sim.cpu.peak_q": "peak queue depth", "sim.cpu.by_op": "ops by class",
                             "sim.cpu.lat": "load latency", "sim.cpu.ipc": "instructions per cycle"},
            "dropped": [{"what": "the 'sum' of 1 distribution(s)",
                         "why": "not a counter (may be negative); ::mean x ::samples recovers it"}],
        },
    )
    assert got == expected


def test_dumper_header_and_records(tmp_path):
    root, s = _toy_group()
    buf = io.StringIO()
    d = PeriodicDumper(root, buf, "ns", meta={"k": 1})
    s["insts"].inc(3)
    d.dump(5.5)
    lines = buf.getvalue().splitlines()
    header, rec = json.loads(lines[0]), json.loads(lines[1])
    assert list(header)[:2] == ["format", "version"]  # sniffable from the first bytes
    assert header["format"] == "mpx-stats" and header["version"] == 1 and header["time_unit"] == "ns"
    assert header["period"] is None and header["meta"] == {"k": 1}
    decl = {x["name"]: x for x in header["stats"]}
    assert decl["sim.cpu.insts"] == {"name": "sim.cpu.insts", "type": "scalar", "desc": "instructions",
                                     "unit": "Count", "additive": True}
    assert decl["sim.cpu.by_op"]["labels"] == ["ALU"] and decl["sim.cpu.lat"]["edges"] == [0, 10, 100]
    assert decl["sim.cpu.ipc"]["additive"] is False
    assert rec["start"] == 0 and rec["end"] == 5.5
    assert rec["stats"]["sim.cpu.insts"] == 3
    assert rec["stats"]["sim.cpu.ipc"] == "nan"  # 3 / 0: ZeroDivisionError -> NaN, written as "nan"
    assert s["insts"].value == 0  # reset after the dump


def test_dumper_refuses_bad_counters_and_late_stats():
    root, s = _toy_group()
    d = PeriodicDumper(root, io.StringIO(), "cycles")
    s["insts"].inc(-1)
    with pytest.raises(StatsError, match="sim.cpu.insts"):
        d.dump(1)
    s["insts"].set(math.nan)
    with pytest.raises(StatsError):
        d.dump(1)
    s["insts"].set(1)
    d.dump(1)
    root.scalar("late")
    with pytest.raises(StatsError, match="declare every stat before the first dump"):
        d.dump(2)


def test_dumper_rejects_bad_arguments():
    root, _ = _toy_group()
    with pytest.raises(StatsError):
        PeriodicDumper(root, io.StringIO(), "fortnights")
    with pytest.raises(StatsError):
        PeriodicDumper(root, io.StringIO(), "cycles", period=0)
    with pytest.raises(StatsError):
        PeriodicDumper(root, io.StringIO(), "cycles", meta={"x": object()})
    d = PeriodicDumper(root, io.StringIO(), "cycles", start=10)
    with pytest.raises(StatsError):
        d.dump(10)  # empty interval
    with pytest.raises(StatsError):
        d.advance(20)  # no period


def test_advance_refuses_time_going_backwards():
    # issue 17: advance() accepted time going backwards, also between two dumps
    root = StatGroup("")
    root.scalar("c")
    d = PeriodicDumper(root, io.StringIO(), "ticks", period=10)
    assert d.advance(12) and not d.advance(14)
    with pytest.raises(StatsError, match=r"advance\(13\): time went backwards \(already advanced to 14\)"):
        d.advance(13)
    with pytest.raises(StatsError, match="time went backwards"):
        d.advance(float("nan"))
    d.close(15)


def test_a_dumper_dropped_unclosed_warns():
    # issue 17: a forgotten close() dropped the last interval silently
    root = StatGroup("")
    root.scalar("c").inc()
    d = PeriodicDumper(root, io.StringIO(), "ticks", period=10)
    d.advance(10)
    with pytest.warns(MpxWarning, match=r"dropped without close\(\) after 1 record\(s\): what was counted after 10"):
        del d
        gc.collect()
    early = PeriodicDumper(root, io.StringIO(), "ticks", period=10)
    early.advance(5)  # no record yet, but time [0, 5) was counted
    with pytest.warns(MpxWarning, match=r"after 0 record\(s\): what was counted after 0 is not written"):
        del early
        gc.collect()
    closed = PeriodicDumper(root, io.StringIO(), "ticks", period=10)
    closed.close(5)
    unused = PeriodicDumper(root, io.StringIO(), "ticks", period=10)  # nothing counted, nothing lost
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        del closed, unused
        gc.collect()
    assert not [w for w in seen if issubclass(w.category, MpxWarning)]


def test_advance_keeps_boundaries_aligned_when_called_late():
    root = StatGroup("")
    c = root.scalar("c")
    buf = io.StringIO()
    d = PeriodicDumper(root, buf, "ticks", period=10)
    for now in (3, 12, 14, 35, 41):
        c.inc()
        d.advance(now)
    recs = [json.loads(x) for x in buf.getvalue().splitlines()[1:]]
    # boundaries at 10, 20, 30, 40: dumps happen at the first call at or after each, ending there
    assert [(r["start"], r["end"]) for r in recs] == [(0, 12), (12, 35), (35, 41)]


def test_compressed_output_is_read_back(tmp_path):
    for suffix in (".gz", ".xz"):
        root, s = _toy_group()
        path = tmp_path / f"run.jsonl{suffix}"
        with PeriodicDumper(root, path, "cycles") as d:
            s["insts"].inc(7)
            d.dump(10)
        trace = read_trace(path)
        assert trace["sim.cpu.insts"].tolist() == [7.0]


def test_additive_formula_is_an_event_and_gauges_are_aux(tmp_path):
    root = StatGroup("")
    issued, commit = root.scalar("slots_issued"), root.scalar("commit_num")
    root.formula("slots_bad_speculation", "issued - commit", lambda: issued.value - commit.value, additive=True)
    root.vector("occupancy_peak", additive=False).inc("rob", 12)
    path = tmp_path / "x.jsonl"
    with PeriodicDumper(root, path, "cycles") as d:
        issued.inc(10); commit.inc(7)
        d.dump(1)
    t = read_trace(path)
    assert t.events == ("slots_issued", "commit_num", "slots_bad_speculation")
    assert t["slots_bad_speculation"].tolist() == [3.0]
    assert t.aux_names == ("occupancy_peak::rob",) and t["occupancy_peak::rob"].tolist() == [12.0]


# -- the toy RISC-V simulator: PerfCount one-to-one -------------------------------------------------------------


def _load_example():
    spec = importlib.util.spec_from_file_location("toy_riscv_tma", EXAMPLES / "toy_riscv_tma.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_toy_riscv_perfcount_one_to_one(tmp_path):
    toy = _load_example()
    path = tmp_path / "tma.jsonl"
    toy.simulate(path, cycles=6_000, period=1_000, phase_length=2_500, seed=3)
    t = read_trace(path)
    # every PerfCount counter is exactly one event, under its own name
    for name in toy.PERFCOUNT:
        assert f"perf.{name}" in t.events
    assert len(t.events) == len(toy.PERFCOUNT) + 2  # plus perf.cycles and perf.total_slots
    assert set(t.aux_names) == {"perf.frontend_bound_pct", "perf.backend_bound_pct", "perf.retiring_pct"}
    assert t.n_intervals == 6 and t.edges.tolist() == list(range(0, 6001, 1000))
    e = {name.split(".", 1)[1]: t[name] for name in t.events}
    # the TMA identities of tma-profiling.md hold exactly in every interval
    np.testing.assert_array_equal(e["total_slots"], e["slots_issued"] + e["slots_frontend_bound"] + e["slots_backend_bound"])
    np.testing.assert_array_equal(e["total_slots"], toy.FETCH_WIDTH * e["cycles"])
    np.testing.assert_array_equal(e["slots_frontend_bound"], e["slots_fetch_latency"] + e["slots_fetch_bandwidth"])
    np.testing.assert_array_equal(e["slots_backend_bound"],
                                  e["slots_mem_bound_lsu"] + e["slots_core_bound_rob"] + e["slots_core_bound_iq"])
    np.testing.assert_array_equal(e["slots_mem_bound_lsu"], e["slots_mem_l1_bound"] + e["slots_mem_ext_bound"])
    np.testing.assert_array_equal(e["slots_bad_speculation"], e["slots_issued"] - e["commit_num"])
    np.testing.assert_allclose(t["perf.retiring_pct"], 100 * e["commit_num"] / e["total_slots"])
    # the memory phase is visible: more ext-memory-bound slots than in the compute phase
    assert e["slots_mem_ext_bound"][3] > 3 * e["slots_mem_ext_bound"][0]

    # periodic dumps are per-interval increments: they sum to what one whole-run dump reports
    whole = tmp_path / "whole.jsonl"
    toy.simulate(whole, cycles=6_000, period=6_000, phase_length=2_500, seed=3)
    w = read_trace(whole)
    assert w.n_intervals == 1
    assert t.totals() == w.totals()


def test_example_main_runs(tmp_path, capsys):
    toy = _load_example()
    assert toy.main([str(tmp_path / "out.jsonl"), "--cycles", "2000", "--period", "500"]) == 0
    assert "slots_backend_bound" in capsys.readouterr().out
