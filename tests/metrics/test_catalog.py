"""Metrics, relations and catalogs: reference resolution, cycles, hyperedges, evaluation, relations,
the five catalog formats (malformed inputs included) and every real catalog file in ../shared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SHARED

from mpx.errors import ConfigError, FormatError
from mpx.metrics import (
    Catalog,
    EventInfo,
    Group,
    Metric,
    Relation,
    detect_format,
    evaluate_metrics,
    evaluate_trace,
    load_catalog,
    vector_total_relations,
)
from mpx.metrics.formats import armtelemetry, hperf, likwid, perfjson
from mpx.metrics.formats import toml as mtoml
from mpx.trace import Trace

M = Metric.from_expr

# -- Metric and Catalog -----------------------------------------------------------------------------


def test_metric_alone_treats_names_as_events():
    m = M("bw", "hif_rd * 64 / 1e6 / duration_time", scale_unit="1MB/s")
    assert m.events == {"hif_rd"} and m.pseudo_events == {"duration_time"} and m.hyperedge == m.events
    assert m.scale == (1.0, "MB/s")
    assert M("f", "a / b", scale_unit="100%").scale == (100.0, "%")
    assert M("r", "x * #slots").literals == {"slots"}


def test_references_resolve_recursively():
    cat = Catalog([
        M("slots", "4 * clks"),
        M("clks", "CYCLES"),
        M("fe", "NOT_DELIVERED / slots"),
        M("be", "1 - fe - (ISSUED + 4 * (REC_ANY / 2 if #SMT_on else REC)) / slots"),
    ])
    assert cat["be"].events == {"NOT_DELIVERED", "CYCLES", "ISSUED", "REC_ANY", "REC"}
    assert cat["be"].references == {"fe", "slots"}
    assert cat["be"].literals == {"SMT_on"}
    assert cat.events_of("be", {"SMT_on": 0}) == {"NOT_DELIVERED", "CYCLES", "ISSUED", "REC"}
    assert cat.with_literals(SMT_on=1)["be"].events == {"NOT_DELIVERED", "CYCLES", "ISSUED", "REC_ANY"}
    counts = {"CYCLES": np.array([100.0, 50.0]), "NOT_DELIVERED": np.array([40.0, 20.0]),
              "ISSUED": np.array([300.0, 100.0]), "REC": np.array([10.0, 5.0])}
    out = cat.evaluate(counts, literals={"SMT_on": 0})
    # by hand: slots = 400, 200; fe = 0.1, 0.1; be = 1 - 0.1 - (300 + 40) / 400 = 0.05 and 1 - 0.1 - 120/200 = 0.3
    np.testing.assert_allclose(out["slots"], [400, 200])
    np.testing.assert_allclose(out["fe"], [0.1, 0.1])
    np.testing.assert_allclose(out["be"], [0.05, 0.3])
    with pytest.raises(ConfigError, match="#SMT_on"):
        cat.evaluate(counts)
    with pytest.raises(ConfigError, match="REC_ANY"):
        cat.evaluate(counts, literals={"SMT_on": 1})
    assert set(cat.evaluate(counts, literals={"SMT_on": 1}, missing="skip")) == {"slots", "clks", "fe"}


@pytest.mark.parametrize(
    "defs, cycle",
    [
        ([("a", "b + 1"), ("b", "c * 2"), ("c", "a / 3")], "a -> b -> c -> a"),
        ([("a", "a + 1")], "a -> a"),
        ([("x", "y"), ("a", "b"), ("b", "a + x")], "a -> b -> a"),
    ],
)
def test_reference_cycles_are_errors(defs, cycle):
    with pytest.raises(FormatError, match=re.escape(cycle)):
        Catalog([M(n, e, source="t.toml") for n, e in defs])


def test_metric_group_events_follow_literals():
    cat = Catalog([M("x", "a if #SMT_on else b", groups=("g",)), M("y", "c", groups=("g",))],
                  groups=[Group("g", "metric_group", metrics=("x", "y"))])
    assert set(cat.groups["g"].events) == {"a", "b", "c"}
    assert set(cat.with_literals(SMT_on=0).groups["g"].events) == {"b", "c"}


def test_duplicate_metrics():
    cat = Catalog([M("a", "x + y", groups=("g1",)), M("a", "x+y", groups=("g2",))])
    assert cat["a"].groups == ("g1", "g2")
    with pytest.raises(FormatError, match="defined twice"):
        Catalog([M("a", "x + y"), M("a", "x - y")])


def test_evaluate_metrics_shapes_and_pseudo_events():
    ms = [M("k", "2"), M("bw", "n * 64 / duration_time")]
    out = evaluate_metrics(ms, {"n": np.array([1.0, 2.0, 3.0]), "duration_time": np.array([1.0, 2.0, 0.0])})
    np.testing.assert_array_equal(out["k"], [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(out["bw"], [64.0, 64.0, np.nan])
    with pytest.raises(ConfigError, match="pseudo-event"):
        evaluate_metrics(ms, {"n": np.array([1.0])})
    with pytest.raises(ConfigError, match="different lengths"):
        evaluate_metrics(ms, {"n": np.array([1.0]), "duration_time": np.array([1.0, 2.0])})


def test_evaluate_trace_gives_duration_in_seconds():
    tr = Trace(["n"], [[10.0], [20.0]], [0.0, 1e6, 3e6], "ns")
    out = evaluate_trace([M("rate", "n / duration_time")], tr)
    np.testing.assert_allclose(out["rate"], [10.0 / 1e-3, 20.0 / 2e-3])
    ticks = Trace(["n"], [[10.0]], [0.0, 1e9], "ticks")
    with pytest.raises(ConfigError, match="duration_time"):
        evaluate_trace([M("rate", "n / duration_time")], ticks)
    np.testing.assert_allclose(evaluate_trace([M("rate", "n / duration_time")], ticks, seconds_per_unit=1e-12)["rate"], [10.0 / 1e-3])


# -- relations --------------------------------------------------------------------------------------


def test_relation_forms():
    r = Relation.from_expr("2 * a + b / 4 == c", "r")
    assert r.coeffs == {"a": 2.0, "b": 0.25, "c": -1.0} and r.kind == "=="
    ge = Relation.from_expr("I1mr >= ILmr", "ge")
    assert ge.kind == "<=" and ge.coeffs == {"ILmr": 1.0, "I1mr": -1.0}
    assert Relation.from_expr("total == #w * cycles", "w", literals={"w": 4}).coeffs == {"total": 1.0, "cycles": -4.0}
    assert Relation.identity("t", "x::total", ["x::a", "x::b"]).to_expr() == "x::a + x::b == x::total"
    assert Relation.at_most("m", "miss", "acc").to_expr() == "miss <= acc"
    for bad in ("a * b == c", "a + 1 == b", "a < b", "a + b", "a == a", "min(a, b) <= c"):
        with pytest.raises(FormatError):
            Relation.from_expr(bad, "bad")
    with pytest.raises(FormatError, match="#w"):
        Relation.from_expr("t == #w * c", "w")


def test_relation_checks():
    counts = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.0, 5.0]), "c": np.array([2.0, 3.0, 7.0])}
    ident = Relation.identity("c=a+b", "c", ["a", "b"])
    np.testing.assert_array_equal(ident.residual(counts), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(ident.holds(counts), [True, True, False])
    np.testing.assert_array_equal(ident.holds(counts, rtol=0.1), [True, True, True])
    le = Relation.at_most("b<=a", "b", "a")
    np.testing.assert_array_equal(le.violation(counts), [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(le.holds(counts, atol=2.0), [True, True, True])
    with pytest.raises(ConfigError, match="'z'"):
        Relation.at_most("z", "z", "a").residual(counts)


def test_vector_total_relations_on_names():
    names = ["v::a", "v::b", "v::total", "d::samples", "d::0-3", "d::total", "w::total", "x"]
    rels = vector_total_relations(names)
    assert [r.name for r in rels] == ["v::total"]
    assert rels[0].coeffs == {"v::a": 1.0, "v::b": 1.0, "v::total": -1.0}
    # within: only the vectors with a selected event, over all their parts (the unselected ones included)
    names2 = names + ["u::a", "u::total"]
    assert [r.name for r in vector_total_relations(names2, within=["v::a", "x"])] == ["v::total"]
    assert vector_total_relations(names2, within=["v::total"])[0].coeffs == rels[0].coeffs
    assert vector_total_relations(names2, within=["x"]) == []


def test_vector_total_relations_hold_on_real_gem5_counts(shared):
    path = shared("data", "gem5", "muneeb_single.txt")
    counts = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^(\S+::\S+)\s+(-?[0-9.]+)\s.*\((Count|Tick)\)\s*$", line)
        if m:
            counts[m.group(1)] = np.array([float(m.group(2))])
    rels = vector_total_relations(counts)
    assert len(rels) >= 10
    for r in rels:
        assert r.holds(counts, atol=1e-6)[0], (r.name, r.residual(counts))


# -- per-event info ---------------------------------------------------------------------------------


def test_event_info_counters():
    e = EventInfo("X", counter="0,1,2,3", counter_ht_off="0,1,2,3,4,5,6,7")
    assert e.counters == {0, 1, 2, 3} and e.counters_ht_off == set(range(8)) and not e.is_fixed
    f = EventInfo("INST_RETIRED.ANY", counter="Fixed counter 0")
    assert f.is_fixed and f.fixed_counter == 0 and f.counters is None
    u = EventInfo("UNC_CLOCK.SOCKET", counter="FIXED")
    assert u.is_fixed and u.fixed_counter is None


# -- formats: small hand-written files --------------------------------------------------------------


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


LIKWID_GROUP = """SHORT Toy group
REQUIRE_NOHT

EVENTSET
FIXC0 INSTR_RETIRED_ANY
FIXC1 CPU_CLK_UNHALTED_CORE
PMC0  L2_RQSTS_MISS
PMC3:EDGEDETECT  STALLS
PWR0  PWR_PKG_ENERGY

METRICS
Runtime (RDTSC) [s] time
CPI  FIXC1/FIXC0
Clock [MHz]  1.E-06*(FIXC1/FIXC0)/inverseClock
L2 MPKI 1000*PMC0/FIXC0
Avg stall [cycles] FIXC1/PMC3:EDGEDETECT
Power [W] PWR0/time

LONG
Formulas:
CPI = CPU_CLK_UNHALTED_CORE/INSTR_RETIRED_ANY
--
free text
"""


def test_likwid_group(tmp_path):
    p = write(tmp_path, "TOY.txt", LIKWID_GROUP)
    assert detect_format(p) == "likwid"
    cat = load_catalog(p)
    assert cat["TOY/CPI"].events == {"CPU_CLK_UNHALTED_CORE", "INSTR_RETIRED_ANY"}
    assert cat["TOY/CPI"].description == "CPI = CPU_CLK_UNHALTED_CORE/INSTR_RETIRED_ANY"
    assert cat["TOY/Avg stall [cycles]"].events == {"CPU_CLK_UNHALTED_CORE", "STALLS:EDGEDETECT"}
    assert cat["TOY/Runtime (RDTSC) [s]"].events == set() and cat["TOY/Runtime (RDTSC) [s]"].pseudo_events == {"duration_time"}
    assert cat["TOY/Clock [MHz]"].literals == {"inverseClock"} and cat["TOY/Clock [MHz]"].scale_unit == "MHz"
    g = cat.groups["TOY"]
    assert g.kind == "eventset" and g.requires == ("NOHT",) and dict(g.counters)["STALLS:EDGEDETECT"] == "PMC3:EDGEDETECT"
    assert [cat.events[e].kind for e in g.events] == ["fixed", "fixed", "general", "general", "energy"]
    counts = {"INSTR_RETIRED_ANY": np.array([2e9]), "CPU_CLK_UNHALTED_CORE": np.array([3e9]), "L2_RQSTS_MISS": np.array([4e6]),
              "STALLS:EDGEDETECT": np.array([1e6]), "PWR_PKG_ENERGY": np.array([50.0]), "duration_time": np.array([2.0])}
    out = cat.evaluate(counts, literals={"inverseClock": 1 / 3e9})
    assert out["TOY/CPI"][0] == pytest.approx(1.5)
    assert out["TOY/Clock [MHz]"][0] == pytest.approx(4500.0)  # 1e-6 * 1.5 / (1 / 3 GHz)
    assert out["TOY/L2 MPKI"][0] == pytest.approx(2.0)
    assert out["TOY/Avg stall [cycles]"][0] == pytest.approx(3000.0)
    assert out["TOY/Power [W]"][0] == pytest.approx(25.0)


@pytest.mark.parametrize(
    "text, line, words",
    [
        (LIKWID_GROUP.replace("PMC0  L2_RQSTS_MISS", "PMC0 L2 RQSTS"), 7, "COUNTER EVENT"),
        (LIKWID_GROUP.replace("PMC0  L2_RQSTS_MISS", "FIXC0 L2_RQSTS_MISS"), 7, "assigned twice"),
        (LIKWID_GROUP.replace("SHORT Toy group\nREQUIRE_NOHT\n", ""), 2, "before the SHORT"),
        (LIKWID_GROUP.replace("SHORT Toy group\n", ""), 1, "outside a section"),
        ("SHORT x\nEVENTSET\nMETRICS\nA time\n", None, "EVENTSET"),
        (LIKWID_GROUP.replace("METRICS\n", "METRICS\nlonely\n"), 12, "name formula"),
    ],
)
def test_likwid_errors(tmp_path, text, line, words):
    """A file that is not a group at all is refused; a bad metric is an entry problem (next test)."""
    p = write(tmp_path, "BAD.txt", text)
    with pytest.raises(FormatError) as info:
        likwid.load(p)
    assert info.value.line == line and words in str(info.value)


@pytest.mark.parametrize(
    "text, line, kind, action, words",
    [
        # LIKWID computes a metric it cannot evaluate as 0 and keeps the group (src/perfmon.c:3404-3408)
        (LIKWID_GROUP.replace("1000*PMC0/FIXC0", "1000*PMC1/FIXC0"), 15, "unknown-name", "zero", "'PMC1' is not a counter"),
        (LIKWID_GROUP.replace("CPI  FIXC1/FIXC0", "CPI  FIXC1/(FIXC0"), 13, "unparsable", "zero", "metric 'CPI'"),
        # two metric lines merged by a lost newline (found by benchmarks/fuzz_readers.py on ICL/BRANCH.txt):
        # read as one metric named 'Runtime (RDTSC) [s] timeCPI' until the name was checked
        (LIKWID_GROUP.replace("[s] time\n", "[s] time"), 12, "bad-entry", "dropped", "goes on after its unit"),
        (LIKWID_GROUP.replace("FIXC1/FIXC0\n", "FIXC1/FIXC0"), 13, "bad-entry", "dropped", "holds the counter FIXC"),
    ],
)
def test_likwid_entry_problems(tmp_path, text, line, kind, action, words):
    cat = likwid.load(write(tmp_path, "BAD.txt", text))
    [p] = cat.problems
    assert (p.line, p.kind, p.action) == (line, kind, action) and words in p.what
    assert "BAD/Power [W]" in cat and len(cat.groups["BAD"].events) == 5  # the rest of the group is kept


PERF_JSON = [
    {"MetricName": "ipc", "MetricExpr": "INST_RETIRED.ANY / cycles_m", "MetricGroup": "Summary;Pipeline", "ScaleUnit": "1per_cycle"},
    {"MetricName": "cycles_m", "MetricExpr": "CPU_CLK_UNHALTED.THREAD", "MetricGroup": "Summary"},
    {"MetricName": "ret", "MetricExpr": "UOPS_RETIRED.RETIRE_SLOTS / (#slots * cycles_m)", "MetricConstraint": "NO_GROUP_EVENTS",
     "MetricThreshold": "ret > 0.7 | ipc > 1", "BriefDescription": "retiring"},
]


def test_perf_json(tmp_path):
    p = write(tmp_path, "m.json", json.dumps(PERF_JSON, indent=1))
    cat = load_catalog(p)
    assert cat["ipc"].events == {"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD"}
    assert cat["ret"].constraint == "NO_GROUP_EVENTS" and cat["ret"].threshold == "ret > 0.7 | ipc > 1"
    assert cat.groups["Summary"].metrics == ("ipc", "cycles_m") and cat.groups["Summary"].kind == "metric_group"
    assert set(cat.groups["Summary"].events) == {"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD"}
    assert cat["ret"].source.endswith("m.json:14")
    ev = write(tmp_path, "e.json", json.dumps([
        {"EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0", "BriefDescription": "insts"},
        {"EventName": "UNC_X", "Counter": "0,1", "Unit": "CBO"},
        {"EventName": "L2.MISS", "Counter": "0,1,2,3", "CounterHTOff": "0,1,2,3,4,5,6,7", "EventCode": "0x24"},
    ]))
    ec = load_catalog(ev)
    assert [ec.events[n].kind for n in ("INST_RETIRED.ANY", "UNC_X", "L2.MISS")] == ["fixed", "uncore", "general"]
    assert ec.events["L2.MISS"].counters_ht_off == set(range(8)) and ec.events["L2.MISS"].code == "0x24"


@pytest.mark.parametrize(
    "items, line, kind, words",
    [
        ([{"MetricName": "a"}], 3, "bad-entry", "no MetricExpr"),
        ([{"MetricName": "a", "MetricExpr": "x +"}], 3, "unparsable", "position 3"),
        ([{"MetricName": "a", "MetricExpr": "x", "MetricThreshold": "a >"}], 3, "unparsable", "MetricThreshold"),
        ([{"MetricName": "a", "MetricExpr": 3}], 3, "bad-entry", "MetricExpr must be a string"),
        ([{"EventName": "E", "Counter": "zero"}], 3, "bad-entry", "Counter"),
        ([{"MetricName": "ok", "MetricExpr": "y"}, [1, 2]], None, "bad-entry", "not an object"),
    ],
)
def test_perf_json_entry_problems(tmp_path, items, line, kind, words):
    """perf skips a metric it cannot parse ('Broken metric' in __add_metric, tools/perf/util/metricgroup.c);
    the rest of the file is read and the skipped entry is reported."""
    p = write(tmp_path, "bad.json", json.dumps(items + [{"MetricName": "good", "MetricExpr": "z"}], indent=1))
    cat = perfjson.load(p)
    [prob] = cat.problems
    assert prob.kind == kind and prob.action == "dropped" and words in prob.what and "good" in cat
    if line is not None:
        assert prob.line == line


def test_perf_json_errors(tmp_path):
    p = write(tmp_path, "bad.json", json.dumps([{"MetricName": "a", "MetricExpr": "b"}, {"MetricName": "b", "MetricExpr": "a"}]))
    with pytest.raises(FormatError, match="cycle"):
        perfjson.load(p)


def test_invalid_json_names_line(tmp_path):
    p = write(tmp_path, "broken.json", '[\n {"MetricName": "a",\n  "MetricExpr": "x" \n')
    with pytest.raises(FormatError) as info:
        load_catalog(p)
    assert info.value.line == 4 and "invalid JSON" in str(info.value)


TOML_CAT = """
[catalog]
name = "toy"
sources = ["hand"]

[literals]
width = 4

[events.cycles]
description = "clock cycles"
counter = "Fixed counter 1"

[metrics.slots]
expr = "#width * cycles"

[metrics."fe.bound"]
expr = "fe_slots / slots"
unit = "100%"
groups = ["L1"]
threshold = "fe.bound > 0.2"

[relations.slot_identity]
expr = "fe_slots + be_slots + issued == #width * cycles"
description = "every slot is one of three kinds"

[groups.sched]
kind = "event_group"
events = ["cycles", "fe_slots"]
"""


def test_toml_catalog(tmp_path):
    p = write(tmp_path, "toy.toml", TOML_CAT)
    cat = load_catalog(p)
    assert cat.name == "toy" and cat.literals == {"width": 4}
    assert cat["fe.bound"].events == {"fe_slots", "cycles"} and cat["fe.bound"].scale == (100.0, "%")
    assert cat.relations[0].coeffs == {"fe_slots": 1.0, "be_slots": 1.0, "issued": 1.0, "cycles": -4.0}
    assert cat.groups["L1"].metrics == ("fe.bound",) and cat.groups["sched"].kind == "event_group"
    assert cat.events["cycles"].fixed_counter == 1
    assert cat["fe.bound"].source.endswith("toy.toml:16")


@pytest.mark.parametrize(
    "text, line, words",
    [
        (TOML_CAT.replace('unit = "100%"', 'unti = "100%"'), 16, "unknown keys ['unti']"),
        (TOML_CAT.replace('expr = "fe_slots / slots"', 'expr = "fe_slots / (slots"'), 16, "position"),
        (TOML_CAT.replace("== #width * cycles", "== cycles * cycles"), 22, "not linear"),
        (TOML_CAT.replace('kind = "event_group"', 'kind = "bag"'), 26, "kind"),
        (TOML_CAT.replace("width = 4", "width = [4]"), None, "[literals]"),
        (TOML_CAT.replace("[metrics.slots]", "[metrics.slots"), 13, "invalid TOML"),
        (TOML_CAT.replace('counter = "Fixed counter 1"', 'counter = "one"'), 9, "Counter"),
        (TOML_CAT + '\n[metrics.loop]\nexpr = "loop + 1"\n', None, "cycle"),
    ],
)
def test_toml_errors(tmp_path, text, line, words):
    p = write(tmp_path, "bad.toml", text)
    with pytest.raises(FormatError) as info:
        mtoml.load(p)
    assert words in str(info.value)
    if line is not None:
        assert info.value.line == line


HPERF = {
    "events": [
        {"id": 0, "perf_name": "cpu-clock", "name": "CPU TIME"},
        {"id": 1, "perf_name": "duration_time", "name": "WALL CLOCK TIME", "type": "SYSTEM"},
        {"id": 20, "perf_name": "cycles", "name": "CYCLES"},
        {"id": 21, "perf_name": "instructions", "name": "INSTRUCTIONS"},
        {"id": 30, "perf_name": "r08d1", "name": "L1 CACHE MISSES"},
        {"id": 100, "perf_name": "cha/event=0x34,umask=0x1fe001/", "name": "LL CACHE MISSES", "type": "SOCKET"},
    ],
    "other_events": [0, 1, 100],
    "pinned_events": [20, 21],
    "event_groups": [[30, 20]],
    "metrics": [
        {"metric": "FREQUENCY", "expression": "e20 / (e1 / 1000000000)"},
        {"metric": "L1 MPKI", "expression": "(1000 * e30) / e21"},
        {"metric": "LLC MPKI", "expression": "(1000 * e100) / e21"},
    ],
    "available_GP": 4,
}


def test_hperf(tmp_path):
    p = write(tmp_path, "toy_hperf.json", json.dumps(HPERF, indent=1))
    assert detect_format(p) == "hperf"
    cat = load_catalog(p)
    assert cat["L1 MPKI"].events == {"r08d1", "instructions"}
    assert cat["LLC MPKI"].events == {"cha/event=0x34,umask=0x1fe001/", "instructions"}
    assert cat["FREQUENCY"].events == {"cycles"} and cat["FREQUENCY"].pseudo_events == {"duration_time"}
    assert cat.platform == {"available_GP": 4}
    assert cat.groups["event_group_0"].events == ("r08d1", "cycles")
    kinds = {n: e.kind for n, e in cat.events.items()}
    assert kinds == {"cpu-clock": "software", "cycles": "pinned", "instructions": "pinned", "r08d1": "general",
                     "cha/event=0x34,umask=0x1fe001/": "other"}
    # hperf's duration_time is perf's raw value in ns; mpx's pseudo-event is in seconds: same frequency
    out = cat.evaluate({"cycles": np.array([3e9]), "duration_time": np.array([1.5])}, names=["FREQUENCY"])
    assert out["FREQUENCY"][0] == pytest.approx(2e9)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d["metrics"].append({"metric": "X", "expression": "e99 / e21"}), "'e99'"),
        (lambda d: d["event_groups"].append([30, 77]), "event id 77"),
        (lambda d: d.update(pinned_events=[20, "21"]), "integer"),
        (lambda d: d["events"].append({"id": 20, "perf_name": "dup"}), "used twice"),
        (lambda d: d.update(extra_key=1), "unknown hperf keys"),
        (lambda d: d["metrics"].append({"metric": "Y"}), "metrics[3]"),
    ],
)
def test_hperf_errors(tmp_path, change, words):
    d = json.loads(json.dumps(HPERF))
    change(d)
    p = write(tmp_path, "bad_hperf.json", json.dumps(d, indent=1))
    with pytest.raises(FormatError, match=re.escape(words)):
        hperf.load(p)


def test_unknown_file_is_a_format_error(tmp_path):
    p = write(tmp_path, "notes.md", "# hello\n")
    with pytest.raises(FormatError, match="not a metric catalog"):
        load_catalog(p)
    with pytest.raises(FormatError, match="unknown catalog format"):
        load_catalog(p, format="yaml")


# -- every real catalog file --------------------------------------------------------------------------

REAL = SHARED / "data" / "metrics"
REAL_FILES = sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.is_file() and p.name != "SOURCES.md") if REAL.exists() else []


def independent_counts(path: Path) -> tuple[int, int]:
    """(metrics, events) counted straight from the file, without mpx's readers."""
    if path.suffix == ".txt":
        lines = path.read_text().splitlines()
        sec, nm, ne = None, 0, 0
        for ln in lines:
            s = ln.strip()
            if s in ("EVENTSET", "METRICS", "LONG"):
                sec = s
            elif s and sec == "EVENTSET":
                ne += 1
            elif s and sec == "METRICS":
                nm += 1
        return nm, ne
    obj = json.loads(path.read_text())
    if isinstance(obj, list):
        return sum("MetricName" in x for x in obj), sum("EventName" in x for x in obj)
    if "product_configuration" in obj:
        return len(obj["metrics"]), len(obj["events"])
    if "available_GP" in obj:
        return len(obj.get("metrics", [])), sum(e["perf_name"] != "duration_time" for e in obj.get("events", []))
    if all(isinstance(v, dict) for v in obj.values()):
        return 0, len(obj)
    return 0, 0


@pytest.mark.parametrize("rel", REAL_FILES or ["<absent>"])
def test_every_real_catalog_file_loads(shared, rel):
    path = shared("data", "metrics", *rel.split("/"))
    cat = load_catalog(path)
    n_metrics, n_events = independent_counts(path)
    assert (len(cat.metrics), len(cat.events)) == (n_metrics, n_events)
    for m in cat:
        assert isinstance(m.events, frozenset)
        assert not (m.events & {"duration_time", "time"})


@pytest.mark.parametrize(
    "folder, n_metrics, n_groups",
    [("linux-perf/x86/skylake", 201, None), ("likwid/skylake", 265, 29), ("likwid/ICL", 179, 18), ("likwid/arm8_n1", 54, 8)],
)
def test_real_folders_merge(shared, folder, n_metrics, n_groups):
    cat = load_catalog(shared("data", "metrics", *folder.split("/")))
    assert len(cat.metrics) == n_metrics
    if n_groups:
        assert len([g for g in cat.groups.values() if g.kind == "eventset"]) == n_groups


def test_different_platforms_do_not_merge_silently(shared):
    with pytest.raises(FormatError, match="num_slots"):
        load_catalog(shared("data", "metrics", "arm-telemetry"))
    with pytest.raises(FormatError, match="defined twice"):
        load_catalog(shared("data", "metrics", "likwid"))


@pytest.fixture(scope="module")
def skylake():
    from tests.conftest import shared_path

    return load_catalog(shared_path("data", "metrics", "linux-perf", "x86", "skylake"))


def test_skylake_tma_hyperedges_by_hand(skylake):
    # tma_backend_bound = 1 - tma_frontend_bound - (UOPS_ISSUED.ANY + 4 * (INT_MISC.RECOVERY_CYCLES_ANY / 2
    #   if #SMT_on else INT_MISC.RECOVERY_CYCLES)) / tma_info_thread_slots
    # tma_frontend_bound = IDQ_UOPS_NOT_DELIVERED.CORE / tma_info_thread_slots
    # tma_info_thread_slots = 4 * tma_info_core_core_clks
    # tma_info_core_core_clks = (CPU_CLK_UNHALTED.THREAD / 2 * (1 + CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE /
    #   CPU_CLK_UNHALTED.REF_XCLK) if #core_wide < 1 else (CPU_CLK_UNHALTED.THREAD_ANY / 2 if #SMT_on else
    #   tma_info_thread_clks));  tma_info_thread_clks = CPU_CLK_UNHALTED.THREAD
    clks = {"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_UNHALTED.REF_XCLK",
            "CPU_CLK_UNHALTED.THREAD_ANY"}
    m = skylake["tma_backend_bound"]
    assert m.events == clks | {"IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY", "INT_MISC.RECOVERY_CYCLES_ANY",
                               "INT_MISC.RECOVERY_CYCLES"}
    assert m.references == {"tma_frontend_bound", "tma_info_thread_slots"}
    assert m.literals == {"SMT_on", "core_wide"}
    assert skylake.events_of("tma_backend_bound", {"SMT_on": 0, "core_wide": 1}) == {
        "CPU_CLK_UNHALTED.THREAD", "IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY", "INT_MISC.RECOVERY_CYCLES"}
    assert skylake.events_of("tma_backend_bound", {"SMT_on": 1, "core_wide": 1}) == {
        "CPU_CLK_UNHALTED.THREAD_ANY", "IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY", "INT_MISC.RECOVERY_CYCLES_ANY"}
    # tma_fb_full = tma_info_memory_load_miss_real_latency * cpu@L1D_PEND_MISS.FB_FULL\,cmask\=1@ / tma_info_thread_clks
    # tma_info_memory_load_miss_real_latency = L1D_PEND_MISS.PENDING / (MEM_LOAD_RETIRED.L1_MISS + MEM_LOAD_RETIRED.FB_HIT)
    assert skylake["tma_fb_full"].events == {"L1D_PEND_MISS.PENDING", "MEM_LOAD_RETIRED.L1_MISS", "MEM_LOAD_RETIRED.FB_HIT",
                                             "cpu/L1D_PEND_MISS.FB_FULL,cmask=1/", "CPU_CLK_UNHALTED.THREAD"}
    assert skylake["tma_fb_full"].constraint == "NO_GROUP_EVENTS_NMI"
    # smt_2t_utilization is 0 with SMT off, so the L0 core-bound bottleneck needs no event at all
    assert skylake.events_of("tma_info_botlnk_l0_core_bound_likely", {"SMT_on": 0, "core_wide": 1}) == frozenset()


def test_skylake_tma_level1_sums_to_one(skylake):
    rng = np.random.default_rng(0)
    clk = rng.uniform(1e6, 2e6, 5)
    counts = {"CPU_CLK_UNHALTED.THREAD": clk, "IDQ_UOPS_NOT_DELIVERED.CORE": 0.2 * 4 * clk,
              "UOPS_ISSUED.ANY": 0.5 * 4 * clk, "UOPS_RETIRED.RETIRE_SLOTS": 0.45 * 4 * clk,
              "INT_MISC.RECOVERY_CYCLES": 0.01 * clk}
    names = ["tma_frontend_bound", "tma_bad_speculation", "tma_retiring", "tma_backend_bound"]
    out = skylake.evaluate(counts, names, literals={"SMT_on": 0, "core_wide": 1})
    np.testing.assert_allclose(out["tma_frontend_bound"], 0.2)
    np.testing.assert_allclose(out["tma_retiring"], 0.45)
    np.testing.assert_allclose(out["tma_bad_speculation"], 0.05 + 0.01)
    np.testing.assert_allclose(sum(out[n] for n in names), 1.0)


def test_skylake_event_counters(skylake):
    assert skylake.events["INST_RETIRED.ANY"].fixed_counter == 0
    assert skylake.events["CPU_CLK_UNHALTED.THREAD"].fixed_counter == 1
    assert skylake.events["INST_RETIRED.PREC_DIST"].counters == {1}
    assert skylake.events["INST_RETIRED.TOTAL_CYCLES_PS"].counters == {0, 2, 3}
    assert skylake.events["L2_RQSTS.DEMAND_DATA_RD_MISS"].counters_ht_off == set(range(8))
    assert skylake.events["UNC_ARB_COH_TRK_REQUESTS.ALL"].kind == "uncore"
    # the old uncore.json disagrees with the newer split files on some Unit fields: recorded, not hidden
    assert any("UNC_CLOCK.SOCKET" in d["what"] for d in skylake.meta["dropped"])


def test_real_likwid_mapping(shared):
    tma = load_catalog(shared("data", "metrics", "likwid", "skylake", "TMA.txt"))
    fe = tma["TMA/Front End [%]"]  # PMC2/(4*FIXC1)*100
    assert fe.events == {"IDQ_UOPS_NOT_DELIVERED_CORE", "CPU_CLK_UNHALTED_CORE"}
    out = tma.evaluate({"IDQ_UOPS_NOT_DELIVERED_CORE": np.array([800.0]), "CPU_CLK_UNHALTED_CORE": np.array([1000.0])},
                       names=["TMA/Front End [%]"])
    assert out["TMA/Front End [%]"][0] == pytest.approx(20.0)
    assert tma["TMA/Speculation [%]"].events == {"UOPS_ISSUED_ANY", "UOPS_RETIRED_RETIRE_SLOTS", "INT_MISC_RECOVERY_CYCLES",
                                                  "CPU_CLK_UNHALTED_CORE"}
    port = load_catalog(shared("data", "metrics", "likwid", "skylake", "PORT_USAGE.txt"))
    assert port.groups["PORT_USAGE"].requires == ("NOHT",)
    tlb = load_catalog(shared("data", "metrics", "likwid", "arm8_n1", "TLB.txt"))
    assert tlb["TLB/L1 DTLB refill ratio #2"].events == {"L2D_TLB_REFILL", "L2D_TLB"}
    assert tlb.meta["warnings"]
    icl = load_catalog(shared("data", "metrics", "likwid", "ICL", "TMA.txt"))
    assert icl.events["TOPDOWN_SLOTS"].kind == "fixed" and icl.events["RETIRING"].kind == "topdown"


def test_real_hperf(shared):
    cl = load_catalog(shared("data", "metrics", "hperf", "intel_cascadelake.json"))
    assert cl["CPI"].events == {"cycles", "instructions"}
    assert cl["BRANCH MISS RATE"].events == {"r00c5", "r00c4"}
    assert cl["CPU UTILIZATION"].events == {"ref-cycles", "msr/tsc/"}
    assert [g.events for g in cl.groups.values()] == [("r08d1", "r10d1", "r20d1"), ("r00c4", "r00c5")]
    assert cl.platform["available_GP"] == 4
    icl = load_catalog(shared("data", "metrics", "hperf", "intel_icelake.json"))
    assert icl["MEM BANDWITH"].events == {"imc/event=0x04,umask=0x0f/", "imc/event=0x04,umask=0x30/"}
    amd = load_catalog(shared("data", "metrics", "hperf", "amd.json"))
    assert len(amd) == 0 and amd.platform == {"available_GP": 4}


def test_real_arm_groups(shared):
    v1 = load_catalog(shared("data", "metrics", "arm-telemetry", "neoverse-v1.json"))
    g = v1.groups["Topdown_L1"]
    assert g.metrics == ("frontend_bound", "backend_bound", "retiring", "bad_speculation")
    assert set(g.events) == {"BR_MIS_PRED", "CPU_CYCLES", "STALL_SLOT_FRONTEND", "STALL_SLOT_BACKEND", "OP_RETIRED",
                             "OP_SPEC", "STALL_SLOT"}
    assert v1.literals == {"num_slots": 8, "num_bus_slots": 0} and v1.platform["product_name"] == "Neoverse V1"
    assert v1.groups["function:General"].kind == "function"
    assert "topdown_methodology" in v1.meta["methodologies"]
    assert v1["ipc"].groups == ("General",)


def test_arm_declared_events_must_match_formula(tmp_path, shared):
    d = json.loads(shared("data", "metrics", "arm-telemetry", "neoverse-n1.json").read_text())
    d["metrics"]["ipc"]["events"] = ["CPU_CYCLES"]
    p = write(tmp_path, "n1.json", json.dumps(d, indent=1))
    with pytest.raises(FormatError, match="declares"):
        armtelemetry.load(p)


def test_resolve_catalog_takes_a_file_or_a_builtin_name(tmp_path):
    from mpx.errors import ConfigError
    from mpx.metrics import builtin, resolve_catalog

    assert resolve_catalog("tma").name == builtin("tma").name
    f = tmp_path / "c.toml"
    f.write_text(TOML_CAT)
    assert resolve_catalog(f).metrics.keys() == load_catalog(f).metrics.keys()
    with pytest.raises(ConfigError, match=r"--metrics 'nope' is neither an existing file or folder nor a built-in"):
        resolve_catalog("nope", what="--metrics")


def test_catalog_formats_are_found_through_their_registry():
    from mpx.metrics import formats

    assert formats.detection_order()[:5] == ["perfjson", "likwid", "armtelemetry", "hperf", "toml"]
    assert formats.get("likwid") is likwid and formats.get("toml") is mtoml
    with pytest.raises(ConfigError, match="unknown catalog format 'nope'"):
        formats.get("nope")


def test_toml_literal_beyond_a_double_is_a_format_error(tmp_path):
    """A fuzz finding: ``line_bytes = 6999...4`` (400 digits) made expression folding raise OverflowError."""
    from mpx.errors import FormatError
    from mpx.metrics.formats import toml as T

    path = tmp_path / "c.toml"
    path.write_text('[catalog]\nname = "c"\n\n[literals]\nline_bytes = ' + "9" * 400 + "\n")
    with pytest.raises(FormatError, match="line_bytes .*not a finite number") as err:
        T.load(path)
    assert err.value.line == 5
