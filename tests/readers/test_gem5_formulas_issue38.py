"""Issue 38: gem5 formulas are never events, with or without descriptions; sim_ticks gives the time axis when
final_tick is absent (not the rounded sim_seconds)."""

from __future__ import annotations

from mpx.readers import read_trace

# the shape of an old regression reference printed without descriptions (values of the example)
NO_DESC = """
---------- Begin Simulation Statistics ----------
sim_seconds                                  0.000003
sim_ticks                                     3170500
sim_freq                                 1000000000000
system.mem_ctrls.bw_read::tgen            24313088000
system.mem_ctrls.bw_total::tgen           24313088000
system.mem_ctrls.num_reads::tgen                 1204
system.mem_ctrls.avgQLat                     12345.67
system.cpu.committedInsts                        5000
system.cpu.lsq0.loadToUse                    3.250000
---------- End Simulation Statistics   ----------
"""


def test_formulas_without_descriptions_go_to_aux(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_text(NO_DESC)
    trace = read_trace(path)
    assert set(trace.events) == {"system.mem_ctrls.num_reads::tgen", "system.cpu.committedInsts"}
    assert {"system.mem_ctrls.bw_read::tgen", "system.mem_ctrls.bw_total::tgen", "system.mem_ctrls.avgQLat",
            "system.cpu.lsq0.loadToUse"} <= set(trace.aux_names)
    said = [d["what"] for d in trace.meta.get("dropped", [])]
    assert "event system.cpu.lsq0.loadToUse" in said  # a name that says nothing: its non-integer value does


def test_time_axis_from_sim_ticks_without_final_tick(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_text(NO_DESC)
    trace = read_trace(path)
    assert trace.time_unit == "ticks" and trace.edges.tolist() == [0.0, 3170500.0]
    assert dict(zip(trace.events, trace.counts[0].tolist())) == {"system.mem_ctrls.num_reads::tgen": 1204,
                                                                 "system.cpu.committedInsts": 5000}
