"""Top-down verdict measures on hand-made windows (`mpx.scoring.verdicts`), and the hierarchy catalogs declare
(`mpx.metrics.topdown`)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.metrics import resolve_catalog
from mpx.metrics.topdown import TopDown
from mpx.scoring.verdicts import verdict_scores

TD = TopDown(("fe", "bs", "be", "ret"), {"be": ("mem", "core"), "fe": ("lat", "bw")})


def _w(**cols):
    return {k: np.asarray(v, dtype=float) for k, v in cols.items()}


def test_flipped_order_of_two_nodes_is_a_wrong_verdict():
    """Window 0: truth backend 0.40 > frontend 0.35; the estimate flips them (0.34 / 0.41): wrong, but the
    named node's true share is only 5 points below — not serious. Window 1: agree. Window 2: the estimate
    names retiring, 30 points below the true bottleneck: serious."""
    true = _w(fe=[0.35, 0.1, 0.1], bs=[0.05, 0.1, 0.1], be=[0.40, 0.6, 0.6], ret=[0.20, 0.2, 0.2],
              mem=[0.3, 0.5, 0.5], core=[0.1, 0.1, 0.1], lat=[0.2, 0.05, 0.05], bw=[0.15, 0.05, 0.05])
    est = _w(fe=[0.41, 0.1, 0.1], bs=[0.05, 0.1, 0.1], be=[0.34, 0.6, 0.2], ret=[0.20, 0.2, 0.6],
             mem=[0.3, 0.5, 0.1], core=[0.04, 0.1, 0.1], lat=[0.3, 0.05, 0.05], bw=[0.11, 0.05, 0.05])
    s = verdict_scores(TD, true, est)
    assert s["n_verdict_windows"] == 3
    assert s["l1_agreement"] == pytest.approx(1 / 3)
    assert s["l1_serious"] == pytest.approx(1 / 3)
    assert s["l2_agreement"] == pytest.approx(1 / 3)  # window 1: backend, then memory, both sides
    conf = s["l1_confusion"]
    assert conf[2, 0] == 1 and conf[2, 2] == 1 and conf[2, 3] == 1 and conf.sum() == 3


def test_level2_wrong_under_the_right_level1():
    true = _w(fe=[0.1], bs=[0.1], be=[0.6], ret=[0.2], mem=[0.4], core=[0.2])
    est = _w(fe=[0.1], bs=[0.1], be=[0.6], ret=[0.2], mem=[0.25], core=[0.35])
    s = verdict_scores(TD, true, est)
    assert s["l1_agreement"] == 1.0 and s["l2_agreement"] == 0.0


def test_negative_derived_value_is_out_of_range_and_a_missing_share_is_no_verdict():
    true = _w(fe=[0.3, 0.3], bs=[0.1, 0.1], be=[0.4, 0.4], ret=[0.2, 0.2])
    est = _w(fe=[0.5, np.nan], bs=[-0.1, 0.1], be=[0.4, 0.4], ret=[0.2, 0.2])
    s = verdict_scores(TD, true, est)
    assert s["no_verdict"] == 0.5 and s["l1_agreement"] == 0.0
    assert s["out_of_range"] == pytest.approx(1 / 7)  # 7 finite estimated values, one negative
    assert s["out_of_range_true"] == 0.0
    assert s["l1_confusion"][2, 4] == 1  # the second window: no verdict


def test_whole_run_verdict_is_one_window_of_totals():
    s = verdict_scores(TD, _w(fe=[0.2], bs=[0.1], be=[0.5], ret=[0.2]), _w(fe=[0.2], bs=[0.1], be=[0.5], ret=[0.2]))
    assert s["l1_agreement"] == 1.0 and s["n_verdict_windows"] == 1


def test_windows_without_true_shares_are_not_scored():
    s = verdict_scores(TD, _w(fe=[np.nan], bs=[0.1], be=[0.5], ret=[0.2]), _w(fe=[0.2], bs=[0.1], be=[0.5], ret=[0.2]))
    assert s["n_verdict_windows"] == 0 and np.isnan(s["l1_agreement"])


def test_the_gem5_catalog_declares_levels_1_and_2():
    td = TopDown.from_catalog(resolve_catalog("gem5"))
    assert set(td.level1) == {"tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound"}
    assert td.children["tma_backend_bound"] == ("tma_memory_bound", "tma_core_bound")
    assert TopDown.from_catalog(resolve_catalog("callgrind")) is None


def test_intel_perf_json_declares_its_hierarchy(shared):
    from mpx.metrics import load_catalog

    td = TopDown.from_catalog(load_catalog(shared("peers", "intel-perfmon", "skylakex", "skx-metrics.json")))
    assert "tma_backend_bound" in td.level1 and "tma_memory_bound" in td.children["tma_backend_bound"]


def test_summary_columns_and_the_whole_run_verdict():
    from mpx.scoring.verdicts import SUMMARY_KEYS, verdict_summary

    names = ("fe", "bs", "be", "ret", "mem", "core", "lat", "bw")
    tw = np.array([[0.1, 0.1, 0.6, 0.2, 0.4, 0.2, 0.05, 0.05]])
    ew = np.array([[0.1, 0.1, 0.2, 0.6, 0.1, 0.1, 0.05, 0.05]])
    out, s = verdict_summary(TD, names, tw, ew, dict(zip(names, tw[0])), dict(zip(names, tw[0])))
    assert set(out) == set(SUMMARY_KEYS)
    assert out["verdict_l1_agreement"] == 0.0 and out["verdict_l1_serious"] == 1.0
    assert out["verdict_run_l1"] == 1.0 and out["verdict_run_l2"] == 1.0
    # the window's confusion travels as text in the stored score row (the verdicts figure reads it back): true
    # be, estimated ret
    from mpx.scoring.verdicts import confusion_counts, confusion_text

    nodes, counts = confusion_counts(confusion_text(s))
    assert nodes == list(TD.level1) and counts.shape == (4, 5) and counts.sum() == 1
    assert counts[nodes.index("be"), nodes.index("ret")] == 1
    none, _ = verdict_summary(None, names, tw, ew)
    assert all(v is None for v in none.values())
    partial, _ = verdict_summary(TD, names[:4], tw[:, :4], ew[:, :4])  # level-2 nodes not scored
    assert all(v is None for v in partial.values())


def test_score_carries_the_verdicts_of_a_catalog_with_a_hierarchy():
    """On a gem5 trace with the gem5 catalog the score has the verdict columns and the confusion; on the
    callgrind catalog (no hierarchy) they are None."""
    from mpx import scalers
    from mpx.datasets import shipped as datasets
    from mpx.scoring.score import score
    from mpx.multiplex import multiplex
    from mpx.problem import Problem

    cat = resolve_catalog("gem5")
    tr = datasets.load("gem5-phases").interval_slice(0, 200)
    events = sorted(cat.used_events)
    obs = multiplex(tr, Problem(events, "gem5-o3-g8"), "perf", quantum=tr.edges[1] - tr.edges[0], read_every=10)
    sc = score(scalers.get("dcam").estimate(obs), tr, cat)
    assert sc.summary["verdict_l1_agreement"] is not None and 0 <= sc.summary["verdict_l1_agreement"] <= 1
    assert sc.summary["verdict_run_l1"] in (0.0, 1.0)
    assert sc.verdicts["l1_confusion"].sum() == sc.verdicts["n_verdict_windows"] == 20
    plain = score(scalers.get("dcam").estimate(obs), tr, resolve_catalog("callgrind"))
    assert plain.summary["verdict_l1_agreement"] is None and plain.verdicts is None


def test_contested_windows_are_close_calls_or_changes_of_the_true_bottleneck():
    """Five windows of true shares: 0 be clear (not contested: the first window is no change); 1 be by 3
    points over fe (close); 2 be clear again, the same node (not contested); 3 fe clear (a change); 4 no
    true verdict (not scored)."""
    from mpx.scoring.verdicts import contested

    t1 = np.array([[0.20, 0.37, 0.20, 0.60, np.nan],   # fe
                   [0.10, 0.10, 0.10, 0.10, 0.1],      # bs
                   [0.50, 0.40, 0.50, 0.10, 0.5],      # be
                   [0.20, 0.13, 0.20, 0.20, 0.2]])     # ret
    assert contested(t1).tolist() == [False, True, False, True, False]
    assert contested(t1, contest=0.02).tolist() == [False, False, False, True, False]


def test_the_constant_verdict_and_agreement_on_contested_windows():
    """The truth: be, be (close to fe), be, fe. The estimate names be in every window: right 3 of 4, on the
    contested windows (1 and 3) right 1 of 2. The constant verdict fe: right 1 of 4, 1 of 2 contested."""
    true = _w(fe=[0.2, 0.37, 0.2, 0.6], bs=[0.1] * 4, be=[0.5, 0.40, 0.5, 0.1], ret=[0.2, 0.13, 0.2, 0.2])
    est = _w(fe=[0.1] * 4, bs=[0.1] * 4, be=[0.6] * 4, ret=[0.2] * 4)
    s = verdict_scores(TD, true, est, constant="fe")
    assert s["l1_agreement"] == pytest.approx(0.75)
    assert s["contested_share"] == pytest.approx(0.5) and s["l1_contested"] == pytest.approx(0.5)
    assert s["const_l1"] == pytest.approx(0.25) and s["const_l1_contested"] == pytest.approx(0.5)
    assert np.isnan(verdict_scores(TD, true, est)["const_l1"])  # no constant given


def test_summary_names_the_estimates_whole_run_verdict_in_every_window():
    """verdict_summary's constant verdict is the estimate's whole-run level-1 node: here be, right in the
    two windows whose true bottleneck is be."""
    from mpx.scoring.verdicts import verdict_summary

    names = ("fe", "bs", "be", "ret", "mem", "core", "lat", "bw")
    tw = np.array([[0.1, 0.1, 0.6, 0.2, 0.4, 0.2, 0.05, 0.05], [0.6, 0.1, 0.1, 0.2, 0.05, 0.05, 0.3, 0.3],
                   [0.1, 0.1, 0.6, 0.2, 0.4, 0.2, 0.05, 0.05]])
    run_est = dict(zip(names, [0.2, 0.1, 0.5, 0.2, 0.3, 0.2, 0.1, 0.1]))
    out, _ = verdict_summary(TD, names, tw, tw, dict(zip(names, tw.mean(axis=0))), run_est)
    assert out["verdict_const_l1"] == pytest.approx(2 / 3)
    assert out["verdict_contested_share"] == pytest.approx(2 / 3)  # windows 1 and 2 change the bottleneck
    assert out["verdict_const_l1_contested"] == pytest.approx(0.5) and out["verdict_l1_contested"] == 1.0
