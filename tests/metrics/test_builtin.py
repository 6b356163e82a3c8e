"""Built-in catalogs: callgrind (checked against a real callgrind run and callgrind's own printed
summary), TMA over the seed simulator's slot counters (identities on a synthetic slot-level simulation)
and the Yitian 710 DDR bandwidth (consistent with perf's metrics.json)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.metrics import builtin, builtin_names, load_catalog

EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim".split()

# Real callgrind output (valgrind-3.19.0), a qsort of 200,000 ints (gcc -O1), produced by
#   valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
#     --LL=8388608,16,64 --dump-every-bb=5000000 --callgrind-out-file=cgi.out ./prog
# `totals:` line of each part in `part:` order (trailing zero events omitted by callgrind, padded here).
REAL_PARTS = [
    [21228033, 5484894, 2872785, 1129, 16594, 26317, 1113, 751, 14643, 3219955, 380389, 678160, 151],
    [19550281, 5681670, 2886634, 0, 26094, 23836, 0, 0, 1563, 3274935, 373385, 680558, 0],
    [19059591, 5656545, 2931099, 0, 31909, 30040, 0, 0, 3125, 3348565, 360920, 665779, 0],
    [19783343, 5730486, 2907003, 0, 24900, 22670, 0, 0, 0, 3284881, 377422, 686598, 0],
    [18577963, 5563237, 2903896, 0, 34421, 32565, 0, 0, 0, 3332848, 350144, 651016, 0],
    [6214973, 2111935, 1282917, 194, 55003, 26332, 185, 19, 6252, 1511383, 100172, 200035, 30],
]
# The same program without dumps: `totals:` and the summary callgrind printed on exit.
REAL_TOTAL = [104414130, 30228754, 15784328, 1315, 188921, 161760, 1290, 770, 25583, 17972562, 1942429, 3562146, 181]


def as_counts(rows):
    rows = np.asarray(rows, dtype=float)
    return {e: rows[:, i] for i, e in enumerate(EVENTS)}


def test_builtin_names_and_unknown():
    assert {"callgrind", "tma", "yitian710"} <= set(builtin_names())
    with pytest.raises(KeyError, match="available"):
        builtin("nope")


def test_callgrind_relations_hold_on_real_parts():
    cat = builtin("callgrind")
    assert len(cat.relations) == 8
    counts = as_counts(REAL_PARTS)
    checks = cat.check_relations(counts)
    assert set(checks) == {r.name for r in cat.relations}
    for name, ok in checks.items():
        assert ok.all(), name
    # and a count that breaks one is caught
    bad = dict(counts)
    bad["ILmr"] = counts["I1mr"] + 1
    assert not cat.check_relations(bad)["ILmr_le_I1mr"].any()


def test_callgrind_metrics_match_callgrinds_summary():
    cat = builtin("callgrind")
    out = {k: v[0] for k, v in cat.evaluate(as_counts([REAL_TOTAL]), missing="skip").items()}
    # callgrind printed: D1 misses 350,681; LL refs 351,996; LL misses 27,643; D1 miss rate 0.8%;
    # LL miss rate 0.0%; Mispred rate 9.0% (10.8% cond + 0.0% ind)
    assert out["L1m"] == 351996 and out["LLm"] == 27643 and out["Bm"] == 1942610
    assert round(100 * out["d1_miss_ratio"], 1) == 0.8
    assert round(100 * out["ll_miss_ratio"], 1) == 0.0
    assert round(100 * out["branch_mispredict_rate"], 1) == 9.0
    assert round(100 * out["cond_mispredict_rate"], 1) == 10.8
    assert round(100 * out["ind_mispredict_rate"], 1) == 0.0
    # the classic estimate, by hand: (Ir + 10 (I1mr + D1mr + D1mw + Bcm + Bim) + 100 (ILmr + DLmr + DLmw)) / Ir
    ir = 104414130
    est = ir + 10 * (1315 + 188921 + 161760 + 1942429 + 181) + 100 * (1290 + 770 + 25583)
    assert out["CEst"] == est == ir + 10 * 1942610 + 10 * 351996 + 100 * 27643
    assert out["est_cpi"] == pytest.approx(est / ir, rel=1e-15)
    assert "CEst_bus" not in cat.evaluate(as_counts([REAL_TOTAL]), missing="skip")  # needs Ge (--collect-bus)
    assert out["ll_mpki"] == pytest.approx(1000 * 27643 / ir)


def test_callgrind_metrics_per_interval_add_up():
    cat = builtin("callgrind")
    counts = as_counts(REAL_PARTS)
    out = cat.evaluate(counts, missing="skip")
    assert out["CEst"].shape == (6,)
    # additive metrics over intervals sum to the metric of the summed counts
    total = as_counts([np.sum(REAL_PARTS, axis=0)])
    np.testing.assert_allclose(out["CEst"].sum(), cat.evaluate(total, ["CEst"])["CEst"][0])
    assert cat["est_cpi"].events == {"Ir", "I1mr", "D1mr", "D1mw", "Bcm", "Bim", "ILmr", "DLmr", "DLmw"}
    assert cat["CEst_bus"].events == cat["CEst"].events | {"Ge"}


def simulate_tma_slots(seed=1, t=20, cycles=500, width=4):
    """Slot-level simulation of the seed's Dispatch.cpp classification (tma-profiling.md §3.1)."""
    rng = np.random.default_rng(seed)
    shape = (t, cycles, width)
    valid = rng.random(shape) < 0.7
    rob_ready = rng.random(shape) < 0.8
    dispatch_ok = rng.random(shape) < 0.85
    fire = valid & rob_ready & dispatch_ok
    head_mem, head_miss = rng.random(shape) < 0.5, rng.random(shape) < 0.3
    ldst_full, icache_busy = rng.random(shape) < 0.4, rng.random(shape) < 0.35
    backend = valid & ~fire
    rob_block = backend & ~rob_ready
    res_block = backend & rob_ready & ~dispatch_ok
    ext = rob_block & head_mem & head_miss
    l1 = (rob_block & head_mem & ~head_miss) | (res_block & ldst_full)
    core_rob = rob_block & ~head_mem
    core_iq = res_block & ~ldst_full
    frontend = ~valid
    committed = fire & (rng.random(shape) < 0.9)
    s = lambda m: m.sum(axis=(1, 2)).astype(float)  # noqa: E731
    counts = {
        "slots_issued": s(fire), "slots_backend_bound": s(backend), "slots_frontend_bound": s(frontend),
        "commit_num": s(committed), "slots_fetch_latency": s(frontend & icache_busy),
        "slots_fetch_bandwidth": s(frontend & ~icache_busy), "slots_mem_bound_lsu": s(l1 | ext),
        "slots_mem_l1_bound": s(l1), "slots_mem_ext_bound": s(ext), "slots_core_bound_rob": s(core_rob),
        "slots_core_bound_iq": s(core_iq),
    }
    counts["slots_bad_speculation"] = counts["slots_issued"] - counts["commit_num"]
    return counts, float(cycles * width)


def test_tma_identities_hold_exactly_on_slot_simulation():
    cat = builtin("tma")
    counts, total = simulate_tma_slots()
    for name, ok in cat.check_relations(counts).items():
        assert ok.all(), name
    assert len(cat.check_relations(counts)) == len(cat.relations) == 5
    out = cat.evaluate(counts)
    np.testing.assert_array_equal(out["tma_total_slots"], total)
    l1 = ["tma_frontend_bound", "tma_backend_bound", "tma_bad_speculation", "tma_retiring"]
    np.testing.assert_allclose(sum(out[n] for n in l1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(out["tma_fetch_latency"] + out["tma_fetch_bandwidth"], out["tma_frontend_bound"], rtol=1e-12)
    np.testing.assert_allclose(out["tma_memory_bound"] + out["tma_core_bound"], out["tma_backend_bound"], rtol=1e-12)
    np.testing.assert_allclose(out["tma_l1_bound"] + out["tma_ext_memory_bound"], out["tma_memory_bound"], rtol=1e-12)
    np.testing.assert_allclose(out["tma_core_bound_rob"] + out["tma_core_bound_iq"], out["tma_core_bound"], rtol=1e-12)
    # a counter that loses slots breaks its identity
    broken = dict(counts)
    broken["slots_fetch_latency"] = counts["slots_fetch_latency"] - 1
    assert not cat.check_relations(broken)["frontend_split"].any()
    assert cat.check_relations(broken)["backend_split"].all()


def test_tma_hyperedges():
    cat = builtin("tma")
    total = {"slots_issued", "slots_backend_bound", "slots_frontend_bound"}
    assert cat["tma_retiring"].events == total | {"commit_num"}
    assert cat["tma_core_bound"].events == total | {"slots_core_bound_rob", "slots_core_bound_iq"}
    assert cat.groups["TopdownL1"].metrics == ("tma_total_slots", "tma_frontend_bound", "tma_backend_bound",
                                               "tma_bad_speculation", "tma_retiring")


def test_yitian_bandwidth():
    cat = builtin("yitian710")
    counts = {"hif_rd": np.array([1.5625e7, 0.0]), "hif_wr": np.array([1e6, 2e6]), "hif_rmw": np.array([5e5, 0.0]),
              "cycle": np.array([2e9, 1e9]), "duration_time": np.array([1.0, 0.5])}
    out = cat.evaluate(counts, literals={"ddrc_freq": 2e9})
    np.testing.assert_allclose(out["ddr_read_bandwidth.all"], [1000.0, 0.0])  # 1.5625e7 * 64 B / 1 s = 1000 MB/s
    np.testing.assert_allclose(out["ddr_write_bandwidth.all"], [96.0, 256.0])
    np.testing.assert_allclose(out["ddr_bandwidth.all"], [1096.0, 256.0])
    # with the DDRC clock the cycle counter gives the same time base: 2e9 cycles at 2 GHz = 1 s, 1e9 = 0.5 s
    np.testing.assert_allclose(out["ddr_read_bandwidth.cycles"], out["ddr_read_bandwidth.all"])
    np.testing.assert_allclose(out["ddr_write_bandwidth.cycles"], out["ddr_write_bandwidth.all"])
    with pytest.raises(ConfigError, match="#ddrc_freq"):
        cat.evaluate(counts)


def test_yitian_consistent_with_perf_metrics_json(shared):
    perf = load_catalog(shared("data", "metrics", "linux-perf", "arm64", "thead", "yitian710", "sys", "metrics.json"))
    ours = builtin("yitian710")
    assert set(perf.metrics) <= set(ours.metrics)
    for name, m in perf.metrics.items():
        assert ours[name].same_definition(m), name
        assert ours[name].scale_unit == m.scale_unit and ours[name].events == m.events
