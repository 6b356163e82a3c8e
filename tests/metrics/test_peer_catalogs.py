"""The peers' own catalog files load as their tools load them (issue 15, items 2 and 3): no file is refused
for one entry; each problem is reported per entry and the entry kept, repaired, zeroed or dropped as the
tool does. Real files from ``../shared/peers`` (skipped with the reason when absent) and hand-made cases
of each problem kind (always run)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import shared_path

from mpx.errors import MpxWarning
from mpx.metrics import load_catalog, resolve_catalog
from mpx.metrics.formats import likwid, perfjson
from mpx.metrics.problems import LoadProblem, summary
from mpx.problem.perf import perf_metric_groups


def write(tmp_path: Path, name: str, obj) -> Path:
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj, indent=1))
    return p


# -- the real files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["intel-perfmon", "arm-perf-json", "likwid-groups"])
def test_every_peer_file_loads(family):
    """Every .json/.txt file of the family loads alone, and every model folder loads merged (perf reads a
    model's folder together: process_one_file of jevents.py)."""
    root = shared_path("peers", family)
    files = sorted(p for p in root.rglob("*") if p.suffix in (".json", ".txt"))
    assert len(files) > 100
    kept = 0
    for f in files:
        cat = load_catalog(f)
        kept += len(cat.metrics)
    assert kept > 600
    for d in sorted({f.parent for f in files if not any(x.is_dir() for x in f.parent.iterdir())})[::7]:  # model folders
        load_catalog(d)


def test_intel_bare_equals_is_reescaped_as_jevents_does():
    """jevents.py metric.py: Event.__init__ → _FixEscapes(name) escapes every '=' of an event name, so
    'msr@tsc\\,cpu=cpu_atom@' is the event msr/tsc,cpu=cpu_atom/ (alderlake, arrowlake, lunarlake,
    meteorlake files)."""
    cat = load_catalog(shared_path("peers", "intel-perfmon", "alderlake", "adl-metrics.json"))
    m = cat["tma_info_system_cpu_utilization:cpu_atom"]
    assert m.events == {"msr/tsc,cpu=cpu_atom/", "cpu_atom/CPU_CLK_UNHALTED.REF_TSC/"}
    probs = [p for p in cat.problems if p.entry == "tma_info_system_cpu_utilization"]
    assert probs and probs[0].kind == "re-escaped" and probs[0].action == "kept" and probs[0].line == 556


def test_intel_hybrid_metrics_are_per_pmu():
    """A hybrid file defines tma_backend_bound once per Unit; jevents.py keys metrics by (pmu, name)
    (read_json_events) and resolves references within the PMU (metricgroup.c resolve_metric, pmu =
    pm->pmu), so references of a cpu_core metric go to cpu_core's."""
    cat = load_catalog(shared_path("peers", "intel-perfmon", "alderlake", "adl-metrics.json"))
    assert {"tma_backend_bound:cpu_atom", "tma_backend_bound:cpu_core"} <= cat.metrics.keys()
    assert "tma_backend_bound" not in cat
    core = cat["tma_backend_bound:cpu_core"]
    assert all(e.startswith("cpu_core/") for e in core.events)


@pytest.mark.parametrize("arch, prefix", [("sapphirerapids", "spr"), ("emeraldrapids", "emr")])
def test_new_metric_constraint_is_read(arch, prefix):
    """NO_THRESHOLD_AND_NMI (jevents.py metric_constraint_to_enum '4'; metricgroup.c metric__group_events:
    the events are not grouped when thresholds are computed and the NMI watchdog is on)."""
    folder = shared_path("peers", "intel-perfmon", arch)
    f = next(folder.glob("*metrics.json"))
    cat = load_catalog(f)
    m = cat["tma_ports_utilized_0"]
    assert m.constraint == "NO_THRESHOLD_AND_NMI" and not cat.problems
    assert len(perf_metric_groups([m], nmi_watchdog=True)) == len(m.events)  # one group per event
    assert len(perf_metric_groups([m], nmi_watchdog=False)) == 1


def test_likwid_real_groups():
    """LIKWID's counter list holds the whole EVENTSET token (perfgroup.c), so CBOX0C1:STATE=0x1 is a name
    in a formula; num_numadomains is a variable LIKWID supplies (perfmon.c:3365); a formula naming a
    counter the group lacks (zen3/L3CACHE.txt CPI uses FIXC1) evaluates to 0 (perfmon.c:3404-3408)."""
    cbox = load_catalog(shared_path("peers", "likwid-groups", "haswellEP", "CBOX.txt"))
    m = cbox["CBOX/LLC data written to MEM [MBytes]"]
    assert "LLC_LOOKUP_ANY:STATE=0x1" in m.events and not cbox.problems
    mem = load_catalog(shared_path("peers", "likwid-groups", "zen2", "MEM.txt"))
    assert "num_numadomains" in mem["MEM/Memory bandwidth [MBytes/s]"].literals
    l3 = load_catalog(shared_path("peers", "likwid-groups", "zen3", "L3CACHE.txt"))
    [p] = l3.problems
    assert (p.entry, p.kind, p.action) == ("L3CACHE/CPI", "unknown-name", "zero")
    assert l3["L3CACHE/CPI"].events == set() and l3.evaluate({}, ["L3CACHE/CPI"])["L3CACHE/CPI"] == 0
    assert len(l3.groups["L3CACHE"].events) == 4  # the group is kept whole
    flops = load_catalog(shared_path("peers", "likwid-groups", "atom", "FLOPS_SP.txt"))
    assert flops["FLOPS_SP/SP [MFLOP/s] (SP assumed)"].scale_unit == "MFLOP/s"


# -- hand-made cases of each kind ---------------------------------------------------------------------


def test_problem_kinds_by_hand(tmp_path):
    """One entry of each kind in one perf file: the file loads, the good entries are all there."""
    items = [
        {"MetricName": "cpu_util", "MetricExpr": "CPU_CLK_UNHALTED.REF_TSC / msr@tsc\\,cpu=cpu_core@"},
        {"MetricName": "future", "MetricExpr": "a / b", "MetricConstraint": "NO_GROUP_EVENTS_SOMEDAY"},
        {"MetricName": "broken", "MetricExpr": "a / (b"},
        {"MetricName": 7, "MetricExpr": "a"},
        {"MetricName": "fine", "MetricExpr": "a + b"},
    ]
    cat = perfjson.load(write(tmp_path, "m.json", items))
    got = {(p.entry, p.kind, p.action) for p in cat.problems}
    assert got == {("cpu_util", "re-escaped", "kept"), ("future", "new-constraint", "kept"),
                   ("broken", "unparsable", "dropped"), ("7", "bad-entry", "dropped")}
    assert set(cat.metrics) == {"cpu_util", "future", "fine"}
    assert cat["cpu_util"].events == {"CPU_CLK_UNHALTED.REF_TSC", "msr/tsc,cpu=cpu_core/"}
    assert len(perf_metric_groups([cat["future"]], nmi_watchdog=True)) == 1  # the C default: grouped
    assert "4 entry problem(s) in 1 file(s)" in summary(cat.problems)


def test_likwid_variables_and_options_by_hand(tmp_path):
    text = ("SHORT t\n\nEVENTSET\nFIXC0 INSTR\nCBOX0C1:STATE=0x1 LOOKUP\nCBOX1C1:STATE=0x1 LOOKUP\nPMC0 X\n\nMETRICS\n"
            "Lookups CBOX0C1:STATE=0x1+CBOX1C1:STATE=0x1\nPer socket PMC0/num_sockets\nFlag PMC0*true+FIXC0*false\n"
            "Typo PMC0/FIXCO\nLONG\n")
    cat = likwid.load(write(tmp_path, "T.txt", text))
    assert cat["T/Lookups"].events == {"LOOKUP:STATE=0x1"}
    out = cat.evaluate({"X": np.array([6.0]), "INSTR": np.array([5.0]), "LOOKUP:STATE=0x1": np.array([2.0])},
                       literals={"num_sockets": 2})
    assert out["T/Per socket"][0] == 3.0 and out["T/Flag"][0] == 6.0 and out["T/Typo"][0] == 0.0
    [p] = cat.problems
    assert (p.entry, p.kind, p.action, p.line) == ("T/Typo", "unknown-name", "zero", 13)


def test_arm64_metric_override(tmp_path):
    """Shape of the kernel's arch/arm64/arm/neoverse-n2-v2/metrics.json: {"ArchStdEvent": "FRONTEND_BOUND",
    "MetricExpr": ...} overrides the standard metric frontend_bound of arch/arm64/sbsa.json (jevents.py
    JsonEvent.__init__ copies the standard entry's unset fields), a bare {"ArchStdEvent": "BACKEND_BOUND"}
    takes it as is: four metrics, no events."""
    items = [
        {"ArchStdEvent": "FRONTEND_BOUND", "MetricExpr": "((stall_slot_frontend) if (#slots - 5) else "
         "(stall_slot_frontend - cpu_cycles)) / (#slots * cpu_cycles)"},
        {"ArchStdEvent": "BAD_SPECULATION", "MetricExpr": "(1 - op_retired / op_spec) * (1 - (stall_slot if "
         "(#slots - 5) else (stall_slot - cpu_cycles)) / (#slots * cpu_cycles))"},
        {"ArchStdEvent": "RETIRING", "MetricExpr": "(op_retired / op_spec) * (1 - (stall_slot if (#slots - 5) "
         "else (stall_slot - cpu_cycles)) / (#slots * cpu_cycles))"},
        {"ArchStdEvent": "BACKEND_BOUND"},
        {"MetricExpr": "L1D_TLB_REFILL / L1D_TLB", "MetricGroup": "TLB", "MetricName": "l1d_tlb_miss_rate"},
        {"ArchStdEvent": "L1D_TLB_REFILL"},
    ]
    cat = perfjson.load(write(tmp_path, "metrics.json", items))
    assert {"frontend_bound", "bad_speculation", "retiring", "backend_bound"} <= cat.metrics.keys()
    assert set(cat.events) == {"L1D_TLB_REFILL"} and not cat.problems
    assert cat["backend_bound"].events == {"stall_slot_backend", "cpu_cycles"}
    assert cat.with_literals(slots=5)["frontend_bound"].events == {"stall_slot_frontend", "cpu_cycles"}
    assert cat.groups["TopdownL1"].metrics == ("frontend_bound", "bad_speculation", "retiring", "backend_bound")


def test_counter_table_file(tmp_path):
    """counter.json: how many counters each PMU has (jevents.py reads CountersNumFixed/Generic)."""
    p = write(tmp_path, "counter.json", [{"Unit": "core", "CountersNumFixed": "3", "CountersNumGeneric": "4"},
                                         {"Unit": "cbox_0", "CountersNumFixed": 1, "CountersNumGeneric": "0"}])
    cat = load_catalog(p)
    assert cat.platform["counters"] == {"core": {"fixed": 3, "generic": 4}, "cbox_0": {"fixed": 1, "generic": 0}}


def test_a_command_is_told_in_one_warning(tmp_path):
    p = write(tmp_path, "m.json", [{"MetricName": "a", "MetricExpr": "x +"}, {"MetricName": "b", "MetricExpr": "y"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cat = resolve_catalog(p)
    [w] = [w for w in caught if issubclass(w.category, MpxWarning)]
    assert "1 entry problem(s)" in str(w.message) and "unparsable 1" in str(w.message) and "\n" not in str(w.message)
    assert isinstance(cat.problems[0], LoadProblem) and "b" in cat
    merged = cat.merge(perfjson.load(p))
    assert len(merged.problems) == 2
    with pytest.raises(ValueError, match="unknown problem kind"):
        LoadProblem("f", "e", "odd", "x", "kept")


def test_event_names_are_one_event_in_any_case(tmp_path):
    """perf matches event names case-insensitively (tools/perf/util/pmu.c, strcasecmp in the alias lookup):
    arm64's standard backend_bound (sbsa.json: ``stall_slot_backend / (#slots * cpu_cycles)``) overridden in a
    file that writes CPU_CYCLES (AmpereOne's metrics.json does) needs one cycles event, not two."""
    items = [{"ArchStdEvent": "backend_bound"},
             {"MetricName": "ipc", "MetricExpr": "INST_RETIRED / CPU_CYCLES"},
             {"MetricName": "wasted", "MetricExpr": "1 - (OP_RETIRED / (CPU_CYCLES * #slots))"}]
    cat = perfjson.load(write(tmp_path, "metrics.json", items))
    assert cat.metric("backend_bound").events == {"stall_slot_backend", "CPU_CYCLES"}
    assert [p.kind for p in cat.problems] == ["case-unified"]
    assert len({e.lower() for m in cat for e in m.events}) == len({e for m in cat for e in m.events})
