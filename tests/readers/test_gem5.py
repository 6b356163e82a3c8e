"""The gem5 ``stats.txt`` reader: six real files, a periodic series, inline edge cases, bad inputs.

Expected values are quoted from the raw files (line numbers in comments) and, more broadly, checked
against an independent, deliberately naive reading of the text (`_naive_dumps`).
"""

from __future__ import annotations

import gzip
import lzma
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.readers import detect_format, gem5, read_trace
from tests.readers.gem5_parsers import every_parser

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"


def _naive_dumps(path) -> list[dict[str, float]]:
    """Each dump as {name: value}, read with a regex over the whole text (no shared code)."""
    text = open(path, encoding="utf-8").read()
    out = []
    for body in re.findall(r"Begin Simulation Statistics -+\n(.*?)\n-+ End Simulation", text, re.S):
        dump = {}
        for line in body.splitlines():
            parts = line.split()
            if len(parts) >= 2 and not parts[1].startswith("|"):
                dump[parts[0]] = float(parts[1])
        out.append(dump)
    return out


def _check_against_naive(trace, dumps, modes):
    """Every event of every interval equals the raw value (delta) or the raw difference (cumulative)."""
    for t, mode in enumerate(modes):
        for e, name in enumerate(trace.events):
            now = dumps[t].get(name, 0.0)
            want = now - dumps[t - 1].get(name, 0.0) if mode == "cumulative" else now
            assert trace.counts[t, e] == pytest.approx(want, rel=1e-12, abs=1e-9), (name, t)


def _stats(body: str, final: int, sim: int, **extra) -> str:
    lines = [f"simTicks {sim} # Number of ticks simulated (Tick)",
             f"finalTick {final} # Number of ticks from beginning of simulation (Tick)",
             "simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))"]
    return "\n".join([BEGIN, *lines, body.strip("\n"), "", END, ""]) + "\n"


def _write(tmp_path, text: str, name: str = "stats.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- the six real files -------------------------------------------------------------------------------


def test_bcheung_delta_three_dumps(shared):
    path = shared("data", "gem5", "bcheung_rob.txt")
    tr = gem5.read(path)
    m = tr.meta
    assert m["format"] == "gem5" and m["naming"].startswith("snake_case") and m["units_printed"] is False
    assert m["stats_per_dump"] == [887, 718, 934]  # formats.md; lines 3-889, 894-1611, 1616-2549
    assert m["dump_modes"] == [["first", 1], ["delta", 2]]
    # sim_ticks/final_tick (lines 4-5, 895-896, 1617-1618): 13270500 | 52000 ending 13322500 | ...
    assert tr.edges.tolist() == [0.0, 13270500.0, 13322500.0, 72725941500.0]
    assert m["sim_freq"] == 10**12 and tr.time_unit == "ticks"
    assert tr["system.cpu.numCycles"].tolist() == [26542.0, 104.0, 145425238.0]  # lines 366, 1227, 2005
    assert tr["system.cpu.committedInsts"][1] == 1.0  # line 1493
    # 170 stats are printed in dumps 1 and 3 but not 2 (nozero): they count 0 there
    assert tr["system.mem_ctrls.bytes_read::cpu.inst"][1] == 0.0
    assert tr["system.mem_ctrls.bytes_read::cpu.inst"][0] > 0 and tr["system.mem_ctrls.bytes_read::cpu.inst"][2] > 0
    dumps = _naive_dumps(path)
    assert sum(1 for k in dumps[0] if k in dumps[2] and k not in dumps[1]) == 170
    _check_against_naive(tr, dumps, ["first", "delta", "delta"])
    # distributions: counts are events, moments are aux; formulas and never-reset stats are aux
    assert "system.cpu.iq.issued_per_cycle::samples" in tr and "system.cpu.iq.issued_per_cycle::0" in tr
    for name in ("system.cpu.iq.issued_per_cycle::mean", "system.cpu.iq.issued_per_cycle::stdev",
                 "system.cpu.ipc", "system.cpu.dcache.overall_miss_rate::total", "system.mem_ctrls.bw_read::total",
                 "system.cpu.icache.tags.occ_task_id_blocks::1024", "sim_insts", "host_seconds"):
        assert name not in tr and name in tr.aux_names, name
    assert "system.cpu.commit.bw_lim_events" in tr  # a counter despite 'bw' in its name
    assert np.isnan(tr["system.cpu.icache.tags.avg_refs"]).any()  # nan printed -> aux keeps it
    assert sorted(m["never_reset"]) == ["host_mem_usage", "sim_insts", "sim_ops"]


def test_netperf_delta_after_checkpoint_and_sim_insts_never_reset(shared):
    path = shared("data", "gem5", "gem5test_netperf.txt")
    tr = gem5.read(path)
    assert tr.meta["dump_modes"] == [["first", 1], ["delta", 1]]
    assert tr.meta["stats_per_dump"] == [686, 629]
    # final_tick - sim_ticks (lines 4-5): 4321213476000 - 200409271000; dump 2 ends at 4321620817500
    assert tr.edges.tolist() == [4120804205000.0, 4321213476000.0, 4321620817500.0]
    # sim_insts (lines 12, 702) is not reset: raw values in aux, never an event
    assert "sim_insts" not in tr and "sim_ops" not in tr
    assert tr["sim_insts"].tolist() == [523780905.0, 523853183.0]
    assert tr.meta["classification"]["never_reset"] == 3
    _check_against_naive(tr, _naive_dumps(path), ["first", "delta"])


def test_msharma_cumulative_and_exact_big_integers(shared):
    path = shared("data", "gem5", "msharma_e2cda.txt")
    tr = gem5.read(path)
    assert tr.meta["dump_modes"] == [["first", 1], ["cumulative", 1]]
    assert tr.meta["stats_per_dump"] == [2264, 2264]
    assert tr.edges.tolist() == [0.0, 15973878096204314.0, 18579849819712896.0]
    # system.cpu0.numCycles, lines 563 and 2831: the interval increment is dump 2 - dump 1
    assert tr["system.cpu0.numCycles"].tolist() == [55852720279509.0, 64964509503191.0 - 55852720279509.0]
    # beyond 2**53 the difference is taken on exact integers (float64 would be off by a few)
    assert int(tr["system.mem_ctrls.pwrStateResidencyTicks::UNDEFINED"][1]) == 18579849819712896 - 15973878096204314
    _check_against_naive(tr, _naive_dumps(path), ["first", "cumulative"])


def test_muneeb_single_dump_and_name_clash(shared):
    path = shared("data", "gem5", "muneeb_single.txt")
    tr = gem5.read(path)
    assert tr.n_intervals == 1 and tr.edges.tolist() == [0.0, 29118000.0]
    assert tr.meta["naming"].startswith("camelCase") and tr.meta["units"]["system.cpu.numCycles"] == "Cycle"
    # gem5 printed two stats as system.cpu.idleCycles (line 165: IEW idle, 0; line 196: CPU unscheduled, 10899)
    assert tr["system.cpu.idleCycles"].tolist() == [0.0]
    assert tr["system.cpu.idleCycles#2"].tolist() == [10899.0]
    assert [r["stat"] for r in tr.meta["renamed"]] == ["system.cpu.idleCycles#2"]
    assert tr["system.cpu.committedInsts"].tolist() == [5774.0]


def test_neel_cumulative_with_units_and_known_formulas(shared):
    path = shared("data", "gem5", "neel_default_atomic_fmm.txt")
    tr = gem5.read(path)
    assert tr.meta["dump_modes"] == [["first", 1], ["cumulative", 1]]
    assert tr.edges[0] == 2405184127000 - 1918578944250  # finalTick - simTicks, lines 4-5
    # cpus0.numCycles lines 16 and 1604
    assert tr["testsys.cpu_cluster.cpus0.numCycles"].tolist() == [7674479977.0, 7675059020.0 - 7674479977.0]
    # numBusyCycles is idleFraction * numCycles (a formula labelled Cycle): aux, not an event
    busy = "testsys.cpu_cluster.cpus1.exec_context.thread_0.numBusyCycles"
    assert busy in tr.aux_names and tr.meta["classification"]["known_formula"] == 8
    assert np.isnan(tr["testsys.mem_ctrls.dram.pageHitRate"]).all()
    _check_against_naive(tr, _naive_dumps(path), ["first", "cumulative"])


def test_polpetras_needs_a_mode_and_reads_oneline_vectors(shared):
    path = shared("data", "gem5", "polpetras_sim0001.txt")
    with pytest.raises(FormatError, match="cannot tell delta from cumulative"):
        gem5.read(path)
    # ROI dumps (reset, ROI, dump), then the exit dump, cumulative since the last reset: the data agree
    # (simSeconds and many counters of dump 2 are below dump 1; dump 3 >= dump 2 everywhere)
    with pytest.raises(FormatError, match="positive length"):
        gem5.read(path, mode="cumulative")
    tr = gem5.read(path, mode=["delta", "delta", "cumulative"])
    assert tr.time_unit == "s" and "simSeconds" in tr.meta["time_axis"]
    assert tr.edges == pytest.approx([0.0, 4.037717, 4.037717 + 4.006580, 4.037717 + 4.043274])
    # lines 7, 264, 521
    assert tr["system.cpu0.l1d.cache.m_demand_accesses"].tolist() == [627032.0, 530064.0, 1010122.0 - 530064.0]
    # one-line vector (line 194): bins become ::0 ... ::3
    flits = [tr[f"system.ruby.network.router_flits_received::{i}"][0] for i in range(4)]
    assert flits == [859243618.0, 736362.0, 634654641.0, 625598970.0]
    assert "system.ruby.network.average_packet_vnet_latency::0" in tr.aux_names
    assert "system.ruby.RequestType.LD.latency_hist_seqr::mean" in tr.aux_names


def test_every_real_file_is_detected_and_the_parsers_agree(shared):
    for name in ("bcheung_rob.txt", "gem5test_netperf.txt", "msharma_e2cda.txt", "muneeb_single.txt",
                 "neel_default_atomic_fmm.txt"):
        path = shared("data", "gem5", name)
        assert detect_format(path) == "gem5"
        assert every_parser(path, read_trace) == read_trace(path)


# -- the periodic series ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compute(request):
    from tests.conftest import shared_path

    return gem5.read(shared_path("data", "gem5-periodic", "compute.stats.txt.xz"))


def test_compute_intervals_and_cycles(compute):
    tr = compute
    assert tr.n_intervals == 647 and tr.meta["dump_modes"] == [["first", 1], ["delta", 646]]
    d = tr.durations
    assert (d[:-1] == 5_000_000).all() and 0 < d[-1] < 5_000_000  # the last dump: program exit
    cycles = tr["board.processor.cores.core.numCycles"]
    full = cycles[:-1]
    # 5,000,000 ticks / 333 = 15015.015 cycles: 15015, and 15016 about every 67 intervals; intervals in which
    # the core went idle book their idle cycles late (gem5 counts them at wake-up)
    idle = tr["board.processor.cores.core.idleCycles"][:-1] > 0
    assert set(np.unique(full[~idle])) <= {15015.0, 15016.0}
    assert 0.95 < np.mean(full == 15015) and np.sum(full[~idle] == 15016) in range(8, 12)
    assert abs(cycles.sum() - tr.edges[-1] / 333) <= 1


def test_compute_never_reset_and_classification(compute):
    tr = compute
    insts = tr["board.processor.cores.core.commitStats0.numInsts"]
    sim_insts = tr["simInsts"]  # aux, raw: never reset, so its differences are the committed instructions
    assert "simInsts" not in tr and sim_insts[0] == insts[0] and np.array_equal(np.diff(sim_insts), insts[1:])
    core, l1d = "board.processor.cores.core.", "board.cache_hierarchy.l1d-cache-0."
    events = [l1d + "demandMisses::total", core + "lsq0.loadToUse::samples", core + "lsq0.loadToUse::0-9",
              "board.memory.mem_ctrl.dram.rank0.totalEnergy", core + "statIssuedInstType_0::IntAlu",
              "board.cache_hierarchy.l2buses.pktCount_board.cache_hierarchy.l1d-cache-0.mem_side_port"
              "::board.cache_hierarchy.l2-cache-0.cpu_side_port"]
    aux = [core + "ipc", l1d + "demandMissRate::total", core + "lsq0.loadToUse::mean",
           "board.cache_hierarchy.l2-cache-0.tags.occupanciesTaskId::1024", l1d + "prefetcher.accuracy",
           "board.memory.mem_ctrl.avgRdBWSys", "board.clk_domain.clock", l1d + "tags.warmupTick", "simSeconds",
           "hostMemory"]
    assert all(e in tr for e in events) and all(a in tr.aux_names and a not in tr for a in aux)
    ipc = tr["board.processor.cores.core.ipc"]
    assert np.nanmax(np.abs(ipc - insts / tr["board.processor.cores.core.numCycles"])) < 1e-5
    # every vector's ::total equals the sum of its bins in every interval
    names = set(tr.events)
    checked = 0
    for base in {e.rpartition("::")[0] for e in tr.events if e.endswith("::total")}:
        parts = [e for e in tr.events if e.startswith(base + "::") and e != base + "::total"]
        if parts and base + "::samples" not in names:
            assert np.allclose(tr.select(parts).counts.sum(axis=1), tr[base + "::total"]), base
            checked += 1
    assert checked > 100
    assert tr.meta["sim_freq"] == 10**12 and tr.meta["dropped"] == []


# -- inline files: semantics -----------------------------------------------------------------------


DELTA = (_stats("a::x 3 # a counter (Count)\na::total 3 # a counter (Count)\nb 7 # b (Count)\n"
                "ipc 0.5 # IPC: instructions per cycle ((Count/Cycle))\nsimInsts 10 # Number of instructions (Count)",
                final=100, sim=100)
         + _stats("a::y 4 # a counter (Count)\na::total 4 # a counter (Count)\n"
                  "simInsts 15 # Number of instructions (Count)", final=150, sim=50))


def test_stats_come_and_go(tmp_path):
    tr = gem5.read(_write(tmp_path, DELTA))
    assert tr.events == ("a::x", "a::total", "b", "a::y")
    assert tr["a::x"].tolist() == [3.0, 0.0] and tr["a::y"].tolist() == [0.0, 4.0] and tr["b"].tolist() == [7.0, 0.0]
    assert tr["ipc"].tolist()[0] == 0.5 and np.isnan(tr["ipc"][1])
    assert tr["simInsts"].tolist() == [10.0, 15.0] and "simInsts" not in tr
    assert tr.edges.tolist() == [0.0, 100.0, 150.0]


def test_cumulative_increments_and_decrease_error(tmp_path):
    text = (_stats("c 10 # c (Count)\nd 1 # d (Count)", final=100, sim=100)
            + _stats("c 25 # c (Count)\nd 1 # d (Count)", final=180, sim=180))
    tr = gem5.read(_write(tmp_path, text))
    assert tr.meta["dump_modes"] == [["first", 1], ["cumulative", 1]]
    assert tr["c"].tolist() == [10.0, 15.0] and tr["d"].tolist() == [1.0, 0.0]
    # a counter absent from a later cumulative dump went back to 0: impossible
    bad = _stats("c 10 # c (Count)\nd 1 # d (Count)", final=100, sim=100) + _stats("c 25 # c (Count)", 180, 180)
    with pytest.raises(FormatError, match=r"\bd decreases from 1 to 0") as err:
        gem5.read(_write(tmp_path, bad))
    assert err.value.line == 10  # the Begin marker of the dump where d is missing (dump 1: lines 1-9)


def test_mixed_modes_roi_style(tmp_path):
    text = (_stats("c 10 # c (Count)", final=100, sim=100) + _stats("c 5 # c (Count)", final=130, sim=30)
            + _stats("c 7 # c (Count)", final=140, sim=40))
    tr = gem5.read(_write(tmp_path, text))
    assert tr.meta["dump_modes"] == [["first", 1], ["delta", 1], ["cumulative", 1]]
    assert tr["c"].tolist() == [10.0, 5.0, 2.0] and tr.edges.tolist() == [0.0, 100.0, 130.0, 140.0]


def test_vectors_2d_distributions_oneline(tmp_path):
    body = """
pkt_cpu::mem 4 # Packet count (Count)
pkt_cpu::io 1 # Packet count (Count)
pkt_dma::mem 2 # Packet count (Count)
pkt::total 7 # Packet count (Count)
lat::samples 13.00 # Latency (Tick)
lat::mean 2.5 # Latency (Tick)
lat::gmean 2.1 # Latency (Tick)
lat::stdev nan # Latency (Tick)
lat::underflows 0 0.00% 0.00% # Latency (Tick)
lat::0-4 10 76.92% 76.92% # Latency (Tick)
lat::5-9 3 23.08% 100.00% # Latency (Tick)
lat::overflows 0 0.00% 100.00% # Latency (Tick)
lat::min_value 0 # Latency (Tick)
lat::max_value 9 # Latency (Tick)
lat::total 13 # Latency (Tick)
flits |  859243618     40.53%     40.53% |      736362      0.03%     40.56% (Unspecified)
avg_lat | 3214.64 | 1807.27 (Unspecified)
miss_rate::total 0.25 # miss rate for demand accesses (Ratio)
"""
    tr = gem5.read(_write(tmp_path, _stats(body, final=10, sim=10)))
    for name, value in [("pkt_cpu::mem", 4), ("pkt_cpu::io", 1), ("pkt_dma::mem", 2), ("pkt::total", 7),
                        ("lat::samples", 13), ("lat::underflows", 0), ("lat::0-4", 10), ("lat::5-9", 3),
                        ("lat::overflows", 0), ("lat::total", 13), ("flits::0", 859243618), ("flits::1", 736362)]:
        assert tr[name].tolist() == [value], name
    assert set(tr.aux_names) >= {"lat::mean", "lat::gmean", "lat::stdev", "lat::min_value", "lat::max_value",
                                 "avg_lat::0", "avg_lat::1", "miss_rate::total", "simFreq", "finalTick", "simTicks"}
    assert tr.meta["units"]["lat::samples"] == "Tick" and tr.meta["units"]["flits::0"] == "Unspecified"


def test_nan_or_negative_in_a_counter_goes_to_aux(tmp_path):
    text = _stats("good 3 # a counter (Count)\nodd nan # a counter (Count)\nneg -2 # a counter (Count)", 10, 10)
    tr = gem5.read(_write(tmp_path, text))
    assert tr.events == ("good",) and {"odd", "neg"} <= set(tr.aux_names)
    why = " ".join(item["why"] for item in tr.meta["dropped"])
    assert {item["what"] for item in tr.meta["dropped"]} == {"event odd", "event neg"}
    assert "line 6" in why and "line 7" in why
    assert tr.meta["classification"]["reclassified_nonfinite_or_negative"] == 2


def test_zero_length_dump_dropped_or_refused(tmp_path):
    text = _stats("c 1 # c (Count)", 10, 10) + _stats("c 0 # c (Count)", 10, 0) + _stats("c 2 # c (Count)", 20, 10)
    tr = gem5.read(_write(tmp_path, text))
    assert tr["c"].tolist() == [1.0, 2.0] and "zero length" in tr.meta["dropped"][0]["why"]
    bad = _stats("c 1 # c (Count)", 10, 10) + _stats("c 4 # c (Count)", 10, 0)
    with pytest.raises(FormatError, match="covers zero ticks"):
        gem5.read(_write(tmp_path, bad))


def test_old_era_without_units(tmp_path):
    body = """
sim_insts 100 # Number of instructions simulated
system.cpu.numCycles 50 # number of cpu cycles simulated
system.cpu.ipc 2.0 # IPC: Instructions Per Cycle
system.mem_ctrls.bw_read::total 123 # Total read bandwidth from this memory (bytes/s)
system.cpu.dcache.overall_miss_rate::total 0.1 # miss rate for overall accesses
system.cpu.dcache.overall_avg_miss_latency::total 99 # average overall miss latency
system.cpu.num_busy_cycles 12.5 # Number of busy cycles
system.cpu.kern.mode_good::kernel 3
"""
    text = f"{BEGIN}\nsim_ticks 10 # Number of ticks simulated\nfinal_tick 10 # Number of ticks\n{body}\n{END}\n"
    tr = gem5.read(_write(tmp_path, text))
    assert tr.meta["naming"].startswith("snake_case") and not tr.meta["units_printed"]
    assert set(tr.events) == {"system.cpu.numCycles", "system.cpu.kern.mode_good::kernel"}


def test_dumps_selection_and_forced_modes(tmp_path):
    text = (_stats("c 10 # c (Count)", final=100, sim=100) + _stats("c 5 # c (Count)", final=150, sim=50)
            + _stats("c 7 # c (Count)", final=200, sim=50))
    path = _write(tmp_path, text)
    tr = gem5.read(path, dumps=(1, 3))
    assert tr["c"].tolist() == [5.0, 7.0] and tr.edges.tolist() == [100.0, 150.0, 200.0]
    assert tr.meta["dumps"] == [1, 3] and tr.meta["n_dumps_read"] == 3 and tr.meta["stopped_after_selection"]
    first = gem5.read(path, dumps=slice(0, 1))  # stops reading after the first dump
    assert first["c"].tolist() == [10.0] and first.meta["n_dumps_read"] == 1
    assert not gem5.read(path).meta["stopped_after_selection"]
    assert gem5.read(path, mode="delta") == gem5.read(path)
    with pytest.raises(FormatError, match="mode says"):
        gem5.read(path, mode="cumulative")
    with pytest.raises(ValueError, match="selects"):
        gem5.read(path, dumps=(5, 9))
    with pytest.raises(ValueError):
        gem5.read(path, mode="sometimes")


def test_compressed_files_read_the_same(tmp_path):
    plain = _write(tmp_path, DELTA)
    (tmp_path / "s.txt.gz").write_bytes(gzip.compress(DELTA.encode()))
    (tmp_path / "s.txt.xz").write_bytes(lzma.compress(DELTA.encode()))
    want = gem5.read(plain)
    for name in ("s.txt.gz", "s.txt.xz"):
        got = read_trace(tmp_path / name)
        assert got.events == want.events and np.array_equal(got.counts, want.counts)
    (tmp_path / "bad.xz").write_bytes(lzma.compress(DELTA.encode())[:-30])
    with pytest.raises(FormatError, match="decompress"):
        gem5.read(tmp_path / "bad.xz")


def test_sniff():
    assert gem5.sniff("x", "\n" + BEGIN + "\nsimSeconds 1\n")
    assert not gem5.sniff("x", '{"format": "mpx-stats"}\n')


# -- inline files: bad input ---------------------------------------------------------------------------

GOOD = _stats("c 1 # c (Count)", 10, 10) + _stats("c 2 # c (Count)", 20, 10)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("", None, "no gem5 dump"),
        ("\n\n", None, "no gem5 dump"),
        # GOOD: dump 1 is lines 1-8 (Begin, simTicks, finalTick, simFreq, c, blank, End, blank), dump 2 lines 9-16
        (GOOD.rsplit(END, 1)[0], 9, "no End marker"),  # truncated: last dump unfinished
        (GOOD[: GOOD.index("c 2") + 1], 13, "name and a value"),  # truncated inside a line
        (GOOD.replace("c 2 #", "c 2x #"), 13, "not a number"),
        (GOOD.replace("c 2 # c (Count)", "garbage"), 13, "name and a value"),
        (GOOD.replace("c 2 # c (Count)", "c 2 # c (Count)\nc 3 # c (Count)"), 14, "appears twice"),
        (GOOD.replace("finalTick 20", "finalTick 5"), 10, "does not fit"),
        (GOOD.replace("finalTick 20 ", "finalTick 9 ").replace("simTicks 10 #", "simTicks 1 #", 2)
         .replace("simTicks 1 #", "simTicks 10 #", 1), 11, "backwards"),
        (GOOD.replace("finalTick 20", "finalTick 30"), 10, "gap"),
        (GOOD.replace("simTicks 10 #", "simTicks 4 #", 2).replace("simTicks 4 #", "simTicks 10 #", 1)
         .replace("finalTick 20", "finalTick 12"), 10, "inside the previous dump"),
        ("stray 1\n" + GOOD, 1, "outside a dump"),
        (GOOD + "c 3\n", 17, "outside a dump"),
        (END + "\n" + GOOD, 1, "End marker without"),
        (GOOD.replace(END, "---------- End Simulation", 1), 7, "malformed dump marker"),
        (GOOD.replace("simTicks 10 #", "simTicks 10.5 #", 1), 2, "whole number"),
        (GOOD.replace("finalTick 20 # Number of ticks from beginning of simulation (Tick)\n", ""), 9,
         "has no finalTick"),
        (GOOD.replace("c 2 #", "-c 2 #"), 13, "not a gem5 stat name"),
    ],
)
def test_bad_inputs_raise_format_error_with_line(tmp_path, text, line, message):
    with pytest.raises(FormatError, match=message) as err:
        gem5.read(_write(tmp_path, text))
    assert err.value.line == line and err.value.path.endswith("stats.txt")


# -- property tests ------------------------------------------------------------------------------------

SAMPLE = (
    "\n" + _stats("""
system.cpu.numCycles 26542 # number of cpu cycles simulated (Cycle)
system.cpu.committedInsts 15923 # Number of Instructions Simulated (Count)
system.cpu.ipc 0.59 # IPC (Count/Cycle)
system.cpu.iq.issued_per_cycle::samples 18876 # insts issued each cycle (Count)
system.cpu.iq.issued_per_cycle::mean 0.84 # insts issued each cycle (Count)
system.cpu.iq.issued_per_cycle::0 12000 63.57% 63.57% # insts issued each cycle (Count)
system.cpu.iq.issued_per_cycle::1-2 6876 36.43% 100.00% # insts issued each cycle (Count)
system.cpu.dcache.overall_miss_rate::total nan # miss rate for overall accesses (Ratio)
system.ruby.flits |  85     40.53%     40.53% |      73      59.47%     100.00% (Unspecified)
simInsts 15923 # Number of instructions simulated (Count)""", 13270500, 13270500)
    + _stats("""
system.cpu.numCycles 104 # number of cpu cycles simulated (Cycle)
system.cpu.committedInsts 1 # Number of Instructions Simulated (Count)
simInsts 15924 # Number of instructions simulated (Count)""", 13322500, 52000)
)


def _read_or_format_error(tmp_path, data: bytes):
    path = tmp_path / "mutant.txt"
    path.write_bytes(data)
    try:
        return gem5.read(path)
    except FormatError:
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutations_raise_only_format_error(tmp_path, data):
    raw = SAMPLE.encode()
    kind = data.draw(st.sampled_from(["truncate", "byte", "delete_line", "dup_line", "swap_lines", "insert",
                                      "number", "number"]))
    lines = raw.split(b"\n")
    if kind == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    elif kind == "byte":
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([data.draw(st.integers(0, 255))]) + raw[i + 1:]
    elif kind == "delete_line":
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        raw = b"\n".join(lines)
    elif kind == "dup_line":
        i = data.draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
        raw = b"\n".join(lines)
    elif kind == "swap_lines":
        i, j = data.draw(st.integers(0, len(lines) - 1)), data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        raw = b"\n".join(lines)
    elif kind == "number":  # another value for one stat: ticks, counters and formulas out of line
        numbers = list(re.finditer(rb"(?<= )[-+]?[0-9][0-9.e+-]*(?= )", raw))
        m = numbers[data.draw(st.integers(0, len(numbers) - 1))]
        new = data.draw(st.one_of(st.integers(-10**20, 10**20), st.integers(2**53, 2**70), st.floats(),
                                  st.sampled_from([0, 1, -1, 52000, 13270500, 13322500])))
        raw = raw[: m.start()] + str(new).encode() + raw[m.end():]
    else:
        i = data.draw(st.integers(0, len(lines)))
        lines.insert(i, data.draw(st.binary(max_size=40)))
        raw = b"\n".join(lines)
    _read_or_format_error(tmp_path, raw)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(alphabet="0123456789.eE+-naifINAF_x |#", min_size=1, max_size=12))
def test_the_parsers_agree_on_any_value(tmp_path, value):
    """The compiled tokenizer converts values itself (Clinger's fast path); any token reads as Python's
    float reads it, or is refused by all three parsers alike."""
    path = tmp_path / "value.txt"
    path.write_text(SAMPLE.replace("system.cpu.committedInsts 1 #", f"system.cpu.committedInsts {value} #"))
    every_parser(path)
