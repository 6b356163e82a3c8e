"""BayesPerf scaler: truncated-Gaussian moments, the windowed chain against dense constrained least
squares, EP against a discretised exact posterior (pgmpy), the measurement model, relations, and the
scaler end to end (identities hold, it beats linear scaling on the synthetic TMA trace, causality)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import truncnorm

from mpx import scalers

from mpx.datasets import synthetic
from mpx.errors import ConfigError
from mpx.metrics import Catalog, Metric, Relation
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.scalers.bayesperf import BayesPerfScaler, BayesPerfSmoother, window_measurements
from mpx.conformance.scalers import check_scaler, observation_from_quanta
from mpx.scalers.inference.ep import chain_information, ep_chain, information_to_moments, truncnorm_upper_moments
from mpx.scalers.linear import LinearScaler
from mpx.scalers.inference.relations import discretised_posterior, metric_identities, relation_set
from mpx.trace import Trace
from tests.scalers.dense_chain import dense_information

TMA_IDS = synthetic.identities(synthetic.preset("tma"))


# -- truncated Gaussian moments -----------------------------------------------------------------------


def test_truncnorm_moments_match_scipy():
    b = np.concatenate([np.linspace(-30, 10, 401), [-5.0, -4.999, -5.001]])
    for mean, sd in ((0.0, 1.0), (1.3, 2.7), (-40.0, 0.01)):
        m, v = truncnorm_upper_moments(np.full(b.size, mean), np.full(b.size, sd**2), mean + b * sd)
        sm, sv = truncnorm.stats(-np.inf, b, loc=mean, scale=sd, moments="mv")
        np.testing.assert_allclose(m, sm, rtol=1e-9, atol=1e-9 * sd)
        np.testing.assert_allclose(v, sv, rtol=1e-6)


def test_truncnorm_moments_far_tail_against_quadrature():
    # scipy's truncnorm loses digits beyond ~40 std; integrate y = bound - X >= 0 directly instead
    for x in (8.0, 40.0, 100.0, 1000.0):
        dens = lambda y, p: y**p * np.exp(-x * y - y * y / 2)  # noqa: E731
        z, m1, m2 = (quad(dens, 0, 50 / x, args=(p,), epsabs=0, epsrel=1e-13)[0] for p in (0, 1, 2))
        mean, var = -x - m1 / z, m2 / z - (m1 / z) ** 2
        m, v = truncnorm_upper_moments(np.array([0.0]), np.array([1.0]), -x)
        assert abs(m[0] - mean) <= 1e-12 * x
        assert abs(v[0] - var) <= 1e-9 * var


# -- the windowed chain is exact Gaussian inference ------------------------------------------------------


def random_chain(rng, n_ev, n_win, identities):
    """A random linear-Gaussian chain in x-space (some events unmeasured in some windows)."""
    A = rng.integers(-2, 3, size=(identities, n_ev)).astype(float)
    A = A[np.abs(A).sum(axis=1) > 0]
    N = scipy.linalg.null_space(A) if A.shape[0] else np.eye(n_ev)
    prec = rng.uniform(0.2, 5.0, (n_win, n_ev)) * (rng.random((n_win, n_ev)) > 0.3)
    return dict(A=A, N=N, prec=prec, y=rng.normal(3.0, 1.0, (n_win, n_ev)), q=rng.uniform(0.05, 2.0, (n_win, n_ev)),
                p0=rng.uniform(1.0, 50.0, (n_win, n_ev)), m0=rng.normal(3.0, 1.0, (n_win, n_ev)))


def chain_arrays(c):
    """The chain of `random_chain` in null-space coordinates (what `BayesPerfScaler` builds)."""
    N, Nt = c["N"], c["N"].T
    J = (Nt[None] * c["prec"][:, None, :]) @ N
    h = (c["prec"] * c["y"]) @ N
    W = (Nt[None] * (1.0 / c["q"])[:, None, :]) @ N
    J0 = (Nt[None] * (1.0 / c["p0"])[:, None, :]) @ N
    h0 = (c["m0"] / c["p0"]) @ N
    return J, h, W, J0, h0


def dense_posterior(c, s, e, r):
    """Mean and covariance of window ``r`` given windows ``s..e``: the Gaussian over every x_t (prior of
    row r on window s, random walk, measurements), conditioned on ``A x_t = 0`` for every t (KKT form of
    constrained least squares), all in one dense solve (independent of the information-form chain and of the
    null-space parametrisation it uses)."""
    n_ev = c["prec"].shape[1]
    n = e - s + 1
    P, b = dense_information(c["prec"], c["y"], c["p0"], c["m0"], c["q"], r, s, e)
    S = np.linalg.inv(P)
    mu = S @ b
    if c["A"].shape[0]:
        # condition on an orthonormal basis of A's row space: random integer identities may repeat
        # (rank-deficient A), which would make the KKT matrix below singular; the constraint set is the same
        big = np.kron(np.eye(n), scipy.linalg.orth(c["A"].T).T)
        G = S @ big.T @ np.linalg.inv(big @ S @ big.T)
        mu, S = mu - G @ (big @ mu), S - G @ big @ S
    i = r - s
    sl = slice(i * n_ev, (i + 1) * n_ev)
    return mu[sl], S[sl, sl]


def sub_problem(r, k, n_win, smooth):
    return (max(0, r - k), min(n_win - 1, r + k)) if smooth else (max(0, r - k + 1), r)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_ev=st.integers(1, 4), n_win=st.integers(1, 7), k=st.integers(1, 8),
       smooth=st.booleans(), identities=st.integers(0, 2))
def test_chain_equals_dense_constrained_least_squares(seed, n_ev, n_win, k, smooth, identities):
    c = random_chain(np.random.default_rng(seed), n_ev, n_win, min(identities, n_ev - 1))
    if c["N"].shape[1] == 0:
        return
    mz, cz = information_to_moments(*chain_information(*chain_arrays(c), k, smooth))
    N = c["N"]
    for r in range(n_win):
        mu, S = dense_posterior(c, *sub_problem(r, k, n_win, smooth), r)
        sd = np.sqrt(np.maximum(np.diag(S), 1e-300))
        assert np.all(np.abs(N @ mz[r] - mu) <= 1e-8 * (1 + np.abs(mu)))
        np.testing.assert_allclose(N @ cz[r] @ N.T, S, atol=1e-9 * sd.max() ** 2 + 1e-12)


@pytest.mark.parametrize("smooth", [False, True])
def test_chain_rows_subset_and_kalman_limit(smooth):
    rng = np.random.default_rng(7)
    c = random_chain(rng, 5, 30, 2)
    arrays = chain_arrays(c)
    full = chain_information(*arrays, 4, smooth)
    rows = np.array([0, 3, 17, 29])
    part = chain_information(*arrays, 4, smooth, rows=rows)  # the gather path (fewer than half the rows)
    np.testing.assert_allclose(part[0], full[0][rows], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(part[1], full[1][rows], rtol=1e-12, atol=1e-12)
    # k >= R: the filter is the Kalman filter of the whole run, the smoother the full smoother
    mz, _ = information_to_moments(*chain_information(*arrays, 30, smooth))
    for r in (0, 12, 29):
        mu, _ = dense_posterior(c, 0, 29 if smooth else r, r)
        np.testing.assert_allclose(c["N"] @ mz[r], mu, rtol=1e-9)


def test_ep_with_truncations_far_away_is_the_gaussian_posterior():
    c = random_chain(np.random.default_rng(3), 4, 12, 0)
    c["A"] = np.array([[1.0, 1.0, -1.0, 0.0]])  # a + b == c keeps every rate positive
    c["N"] = scipy.linalg.null_space(c["A"])
    c["y"][:, 2] = c["y"][:, 0] + c["y"][:, 1]
    c["y"] = c["y"] + 100.0  # every rate far above 0
    c["m0"] = c["m0"] + 100.0
    arrays = chain_arrays(c)
    mean, cov = information_to_moments(*chain_information(*arrays, 3, False))
    post = ep_chain(*arrays, -c["N"], 3, False)
    assert post.converged and not post.tau.any() and not post.nu.any()
    np.testing.assert_array_equal(post.mean, mean)
    np.testing.assert_array_equal(post.cov, cov)


# -- EP against the discretised exact posterior (pgmpy) ----------------------------------------------------


def ep_one_window(mu, sd, eq, ineq):
    """EP posterior of one window: Gaussian measurements ``mu``/``sd``, identities ``eq``, truncations
    ``ineq @ x <= 0``; returns means and standard deviations."""
    n = len(mu)
    N = scipy.linalg.null_space(eq) if eq is not None else np.eye(n)
    prec = 1.0 / np.asarray(sd) ** 2
    J = ((N.T * prec) @ N)[None]
    h = ((prec * mu) @ N)[None]
    J0 = ((N.T * 1e-8) @ N)[None]
    W = np.eye(N.shape[1])[None]
    post = ep_chain(J, h, W, J0, np.zeros_like(h), ineq @ N, 1, False, tol=1e-10, max_iter=200, inner=500)
    assert post.converged
    mean = N @ post.mean[0]
    return mean, np.sqrt(np.diag(N @ post.cov[0] @ N.T))


def grid_reference(names, grids, mu, sd, eq=None, ineq=None):
    loglik = {v: -0.5 * ((grids[v] - m) / s) ** 2 for v, m, s in zip(names, mu, sd)}
    out = discretised_posterior(names, grids, loglik, eq=eq, ineq=ineq)
    return np.array([out[v][0] for v in names]), np.array([out[v][1] for v in names])


def test_ep_equals_discretised_reference_with_an_identity_and_an_inequality():
    # c = a + b exactly, a <= b binding (a measured above b): one truncation factor, so EP is exact in
    # the first two moments and only the grid's resolution separates them
    names = ("a", "b", "c")
    mu, sd = np.array([1.6, 1.0, 2.9]), np.array([0.4, 0.35, 0.5])
    eq, ineq = np.array([[1.0, 1.0, -1.0]]), np.array([[1.0, -1.0, 0.0]])
    step = 0.05
    grids = {"a": np.arange(-40, 81) * step, "b": np.arange(-40, 81) * step, "c": np.arange(-80, 161) * step}
    ref_m, ref_s = grid_reference(names, grids, mu, sd, eq, ineq)
    m, s = ep_one_window(mu, sd, eq, ineq)
    assert np.all(np.abs(m - ref_m) < 0.01 * sd)
    assert np.all(np.abs(s / ref_s - 1) < 0.02)
    # and the truncation matters: the plain Gaussian answer is far off
    m0, _ = ep_one_window(mu, sd, eq, np.zeros((0, 3)))
    assert np.abs(m0 - ref_m).max() > 0.25 * sd.min()


def test_ep_close_to_discretised_reference_with_two_inequalities():
    # a <= b <= c with the measurements in the opposite order: two coupled truncations, EP approximate
    names = ("a", "b", "c")
    mu, sd = np.array([1.3, 1.0, 0.8]), np.array([0.3, 0.3, 0.3])
    ineq = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
    grids = {v: np.linspace(-1.0, 3.0, 121) for v in names}
    ref_m, ref_s = grid_reference(names, grids, mu, sd, None, ineq)
    m, s = ep_one_window(mu, sd, None, ineq)
    assert np.all(np.abs(m - ref_m) < 0.05 * sd)
    assert np.all(np.abs(s / ref_s - 1) < 0.1)
    assert np.all(np.diff(m) > 0)  # the order the inequalities impose


# -- the measurement model ------------------------------------------------------------------------------


def test_window_measurements_student_t_and_finite_population():
    # one event, two windows of four 1-us quanta; it runs quanta 0,1,2 then 5,6
    running = np.zeros((8, 1), dtype=bool)
    running[[0, 1, 2, 5, 6], 0] = True
    counts = np.where(running, np.array([[10.0], [14.0], [12.0], [0], [0], [20.0], [26.0], [0]]), np.nan)
    edges = np.arange(9, dtype=float)
    rq = np.array([0, 4, 8])
    nu0 = 4.0
    ss = np.array([8.0, 18.0])  # sums of squared deviations of the rates from the window means
    df = np.array([2.0, 1.0])
    mu = np.array([12.0, 23.0])
    for causal, pool in ((True, "variance"), (False, "variance"), (True, "dispersion"), (False, "dispersion")):
        m = window_measurements(counts, running, edges, rq, prior_dof=nu0, min_rel_std=0.0, causal=causal,
                                pool=pool)
        np.testing.assert_allclose(m.mu[:, 0], mu)
        if pool == "variance":  # one within-window variance per event
            pooled = np.cumsum(ss) / np.cumsum(df) if causal else np.full(2, ss.sum() / df.sum())
        else:  # quasi-Poisson: dispersion phi = sum(ss * d) / sum(df * mu), variance phi * mu / d (d = 1 here)
            phi = np.cumsum(ss) / np.cumsum(df * mu) if causal else np.full(2, ss.sum() / (df * mu).sum())
            pooled = phi * mu
        s_eff = (ss + nu0 * pooled) / (df + nu0)
        n, n_all = np.array([3.0, 2.0]), 4.0
        expected = s_eff * (1 / n - 1 / n_all) * (df + nu0) / (df + nu0 - 2)
        np.testing.assert_allclose(m.var[:, 0], expected, rtol=1e-12)
        np.testing.assert_allclose(m.white[:, 0], 1 / n - 1 / n_all, rtol=1e-12)


def test_window_measurements_edge_cases():
    running = np.zeros((6, 3), dtype=bool)
    running[:, 0] = True  # always runs: no sampling error left
    running[2, 1] = True  # one sample only
    counts = np.where(running, 5.0, np.nan)
    counts[3, 0] = np.nan  # a broken read while running
    m = window_measurements(counts, running, np.arange(7.0), np.array([0, 3, 6]), prior_dof=4.0,
                            min_rel_std=1e-3, causal=True)
    assert m.broken == 1
    assert np.isfinite(m.var[0, 0]) and m.var[0, 0] <= (1e-3 * 5.0) ** 2 * 1.0001
    assert np.isfinite(m.var[0, 1]) and np.isinf(m.var[1, 1])
    assert np.all(np.isnan(m.mu[:, 2])) and np.all(np.isinf(m.var[:, 2]))


def test_drift_factor_is_the_variance_of_a_weighted_mean_of_brownian_motion():
    # G = int_0^T W(t)^2 dt with W(t) = int_t^T (1r/run - 1/T): brute force on a fine time grid
    rng = np.random.default_rng(5)
    dur = rng.uniform(0.5, 2.0, 12)
    edges = np.concatenate([[0.0], np.cumsum(dur)])
    running = rng.random((12, 2)) < 0.5
    running[0] = True
    counts = np.where(running, rng.poisson(50, (12, 2)).astype(float), np.nan)
    rq = np.array([0, 5, 12])
    m = window_measurements(counts, running, edges, rq, prior_dof=4.0, min_rel_std=0.0, causal=False, drift=True)
    for r in range(2):
        t0, t1 = edges[rq[r]], edges[rq[r + 1]]
        t = np.linspace(t0, t1, 200_001)
        q = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, 11)
        for e in range(2):
            ran = running[q, e]
            if not ran.any():
                continue
            dt = t[1] - t[0]
            w = ran / (ran[:-1].sum() * dt) - 1.0 / (t1 - t0)
            tail = np.concatenate([np.cumsum(w[::-1][1:])[::-1] * dt, [0.0]])
            brute = np.sum(tail[:-1] ** 2) * dt
            assert m.drift_factor[r, e] == pytest.approx(brute, rel=2e-3)


# -- relations -----------------------------------------------------------------------------------------


def test_relation_set_from_synthetic_identities_and_catalogs():
    events = synthetic.preset("tma").events
    rs = relation_set(TMA_IDS, events)
    assert rs.eq.shape == (7, 20) and rs.ineq.shape == (0, 20) and not rs.latent
    assert len(set(rs.eq_names)) == 7
    comps = [sorted(rs.variables[i] for i in c) for c in rs.components()]
    assert len(comps) == 6 and len(comps[0]) == 15 and ["exceptions"] in comps
    tma = relation_set("tma", events)  # the built-in catalog: 4 identities and retired <= issued
    assert set(tma.eq_names) == {"frontend_split", "backend_split", "memory_split", "bad_speculation_definition"}
    assert tma.ineq_names == ("retired_le_issued",)
    row = dict(zip(tma.variables, tma.ineq[0]))
    assert row["commit_num"] == 1.0 and row["slots_issued"] == -1.0
    # three catalog identities repeat synthetic ones exactly (dropped with a note); backend_split is
    # implied by them but is not the same row: kept (the null space absorbs the redundancy)
    both = relation_set([TMA_IDS, "tma"], events)
    assert both.eq.shape[0] == 8 and "backend_split" in both.eq_names
    assert sum("repeats another one" in n for n in both.notes) == 3
    assert np.linalg.matrix_rank(both.eq) == 7


def test_relation_set_text_latent_duplicates_and_drops():
    rs = relation_set(["t == a + b", "t == 2 * c", "p >= q", "a + b == t", "x + y == w"], ["a", "b", "c", "p", "q"])
    assert rs.latent == ("t",)
    assert rs.eq.shape[0] == 2 and rs.ineq.shape[0] == 1
    assert dict(zip(rs.variables, rs.ineq[0])) == {"a": 0, "b": 0, "c": 0, "p": -1.0, "q": 1.0, "t": 0}
    assert any("repeats" in n for n in rs.notes)
    assert [d["what"] for d in rs.dropped] == ["relation x + y == w"]
    assert relation_set("gem5-totals", ["m::a", "m::b", "m::total", "other"]).eq_names == ("m::total",)
    for bad in ("not a relation", {"a": 1}, 3.5, "a * b == c"):
        with pytest.raises(ConfigError):
            relation_set(bad, ["a", "b", "c"])


def test_identities_from_metric_formulas():
    cat = Catalog([Metric.from_expr("total", "a + b"), Metric.from_expr("grand", "total + 2 * c"),
                   Metric.from_expr("ratio", "a / total")])
    rels = {r.name: r for r in metric_identities(cat, ["total", "grand", "ratio", "a", "b", "c"])}
    assert set(rels) == {"metric:total", "metric:grand"}  # ratio is not linear
    assert rels["metric:grand"].coeffs == {"grand": 1.0, "a": -1.0, "b": -1.0, "c": -2.0}
    rs = relation_set(cat, ["total", "a", "b"])  # a catalog: its relations plus these
    assert rs.eq_names == ("metric:total",) and any("metric formulas" in n for n in rs.notes)
    assert relation_set(Relation.at_most("r", "a", "b"), ["a", "b"]).ineq.shape == (1, 2)


def test_factor_graph_in_pgmpy_has_the_same_components():
    import networkx as nx

    rs = relation_set(["t == a + b", "t == 2 * c", "p <= q"], ["a", "b", "c", "p", "q", "r"])
    fg = rs.factor_graph()
    assert fg.check_model()
    graph_comps = sorted(sorted(n for n in c if isinstance(n, str)) for c in nx.connected_components(fg))
    ours = sorted(sorted(rs.variables[i] for i in c) for c in rs.components())
    assert graph_comps == ours == [["a", "b", "c", "t"], ["p", "q"], ["r"]]


# -- the scaler end to end ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tma_run():
    tr = synthetic.synth("tma", intervals=6000, seed=3)
    obs = multiplex(tr, Problem(tr.events, "generic-4"), "perf", quantum=10_000.0, read_every=20)
    truth = np.add.reduceat(tr.counts, obs.reads.quanta[:-1], axis=0)
    return tr, obs, truth


def window_error(counts, truth, cols=slice(None)):
    counts, truth = counts[:, cols], truth[:, cols]
    ok = (truth >= 50) & np.isfinite(counts)
    return float((np.abs(counts - truth) / np.where(ok, truth, 1.0))[ok].mean())


def test_bayesperf_beats_linear_on_the_tma_trace(tma_run):
    tr, obs, truth = tma_run
    linear = window_error(LinearScaler().estimate(obs).counts, truth)
    alone = window_error(BayesPerfScaler().estimate(obs).counts, truth)
    filt = BayesPerfScaler(relations=TMA_IDS).estimate(obs)
    smooth = BayesPerfSmoother(relations=TMA_IDS).estimate(obs)
    assert window_error(filt.counts, truth) < 0.9 * linear
    assert window_error(smooth.counts, truth) < 0.9 * linear
    # the relations carry information: over the events they tie (seeds 1-3 give 0.92-0.93 of the
    # error without relations; the untied events are the same estimate either way)
    tied = sorted({tr.events.index(e) for lhs, terms in TMA_IDS for e in [lhs] + [x for _, x in terms]})
    alone_tied = window_error(BayesPerfScaler().estimate(obs).counts, truth, tied)
    assert window_error(filt.counts, truth, tied) < 0.95 * alone_tied
    assert window_error(filt.counts, truth) < alone
    # the identities hold in every estimated window (counts are rates times the same window length)
    col = {e: filt.counts[:, i] for i, e in enumerate(tr.events)}
    for lhs, terms in TMA_IDS:
        resid = col[lhs] - sum(c * col[e] for c, e in terms)
        assert np.abs(resid).max() <= 1e-8 * np.abs(col[lhs]).max()
    assert filt.std is not None and np.all(filt.std[~filt.not_estimated] >= 0)
    assert not filt.not_estimated.any()


def test_without_binding_truncation_the_estimate_is_the_exact_gaussian_posterior(tma_run):
    # end to end: the model the scaler built (model_), solved densely per sub-problem, is what it returned
    tr, obs, truth = tma_run
    short = multiplex(synthetic.synth("tma", intervals=240, seed=3), Problem(tr.events, "generic-4"), "perf",
                      quantum=10_000.0, read_every=20)
    for cls in (BayesPerfScaler, BayesPerfSmoother):
        sc = cls(relations=TMA_IDS, k=3, nonnegative=False)
        est = sc.estimate(short)
        mdl = sc.model_
        rs = sc.relations_
        n_ev = len(tr.events)
        c = dict(A=rs.eq, prec=mdl["precision"], y=mdl["mu"], q=mdl["q"], p0=mdl["p0"], m0=mdl["m0"])
        n_win = est.counts.shape[0]
        for r in range(n_win):
            mu, S = dense_posterior(c, *sub_problem(r, 3, n_win, cls is BayesPerfSmoother), r)
            sd = np.sqrt(np.maximum(np.diag(S), 0.0))[:n_ev] * mdl["length"][r]
            got = est.counts[r]
            assert np.all(np.abs(got - mu[:n_ev] * mdl["length"][r]) <= 1e-6 * sd + 1e-9 * np.abs(got))
            np.testing.assert_allclose(est.std[r], sd, rtol=1e-6, atol=1e-9)


def test_filter_is_causal_and_identical_on_a_shorter_run(tma_run):
    tr, obs, _ = tma_run
    full = BayesPerfScaler(relations=TMA_IDS).estimate(obs)
    head = Trace(tr.events, tr.counts[:2000], tr.edges[:2001], tr.time_unit, meta=dict(tr.meta))
    cut = multiplex(head, Problem(tr.events, "generic-4"), "perf", quantum=10_000.0, read_every=20)
    part = BayesPerfScaler(relations=TMA_IDS).estimate(cut)
    w = part.counts.shape[0]
    np.testing.assert_array_equal(part.counts, full.counts[:w])
    np.testing.assert_array_equal(part.std, full.std[:w])


def test_never_counted_event_is_estimated_through_an_identity():
    rng = np.random.default_rng(11)
    n_q = 40
    a, b = rng.poisson(400, n_q).astype(float), rng.poisson(250, n_q).astype(float)
    counts = np.column_stack([a, b, a + b, rng.poisson(30, n_q).astype(float)])
    running = np.zeros((n_q, 4), dtype=bool)
    running[:, 0] = np.arange(n_q) % 2 == 0
    running[:, 1] = np.arange(n_q) % 2 == 1  # c never runs; d never runs and no relation names it
    obs = observation_from_quanta(["a", "b", "c", "d"], np.arange(n_q + 1, dtype=float), counts, running, 4)
    est = BayesPerfScaler(relations="c == a + b").estimate(obs)
    assert not est.not_estimated[:, :3].any() and est.not_estimated[:, 3].all()
    assert np.all(np.isnan(est.counts[:, 3]))
    np.testing.assert_allclose(est.counts[:, 2], est.counts[:, 0] + est.counts[:, 1], rtol=1e-9)
    truth = np.add.reduceat(counts, np.arange(0, n_q, 4), axis=0)[:, 2]
    assert np.all(np.abs(est.counts[:, 2] - truth) < 4 * est.std[:, 2] + 1)
    alone = BayesPerfScaler().estimate(obs)
    assert alone.not_estimated[:, 2].all()


def test_rare_event_stays_nonnegative(tma_run):
    _, obs, _ = tma_run
    j = obs.events.index("exceptions")
    with_t = BayesPerfScaler().estimate(obs).counts[:, j]
    without = BayesPerfScaler(nonnegative=False).estimate(obs).counts[:, j]
    assert np.nanmin(with_t) > -1e-6 * np.nanmax(np.abs(with_t))
    assert np.nanmin(with_t) >= np.nanmin(without)


def test_registry_conformance_with_relations_and_options():
    assert isinstance(scalers.get("bayesperf"), BayesPerfScaler)
    assert scalers.get_class("bayesperf_smooth").causal is False
    # causal to the last bit: the check compares estimates exactly (this case once differed by 3e-15
    # relative, from a 2-D BLAS product whose rounding depended on how many later windows EP updated)
    for pool in ("dispersion", "variance"):
        info = check_scaler("bayesperf", {"relations": ["a + b == g", "h <= a"], "drift": True, "k": 2, "pool": pool})
        assert info["behaves_causally"]
    check_scaler("bayesperf_smooth", {"relations": "g + h == c", "ep_iterations": 0})
    check_scaler("bayesperf", {"relations": ["a + b == g", "h <= a"], "point": "mean"})
    # a relation through the never-counted z estimates it (by design: see
    # test_never_counted_event_is_estimated_through_an_identity), so the check's "z stays flagged" rule
    # does not apply to such relations; without them it does (above)


@pytest.mark.parametrize("params", [
    {"k": 0}, {"k": 2.5}, {"prior_dof": 2.0}, {"damping": 0.0}, {"damping": 1.5}, {"tol": -1.0},
    {"process": "fast"}, {"process": -0.1}, {"nonnegative": 1}, {"drift": "yes"}, {"ep_iterations": -1},
    {"min_rel_std": float("nan")}, {"relations": 42}, {"pool": "median"}, {"point": "median"},
])
def test_bad_parameters_raise_config_error(params, tma_run):
    _, obs, _ = tma_run
    with pytest.raises(ConfigError):
        BayesPerfScaler(**params).estimate(obs)


@pytest.mark.parametrize("dataset", ["gem5-chase", "gem5-compute"])
def test_gem5_relations_on_runs_with_rare_events(dataset):
    """gem5's exact relations tie events that count (almost) nothing to busy ones: on gem5-chase never
    counted events, on gem5-compute icache ``demandMisses`` (< 1 count per window) beside
    ``demandAccesses``. A walk frozen at 1e-3 counts per window made EP's information matrices singular
    (LinAlgError; both failed before their fixes); every event now walks by at least one count per window."""
    from mpx.datasets import shipped as datasets
    from mpx.metrics import builtin
    from mpx.pmu import preset

    if dataset not in datasets.names(None):
        pytest.skip("the gem5 datasets are not in this checkout's manifest")
    cat = builtin("gem5")
    tr = datasets.load(dataset)
    obs = multiplex(tr, Problem.from_catalog(cat, preset("gem5-o3-g4")), "perf",
                    quantum=float(np.median(np.diff(tr.edges))), read_every=10)
    sc = scalers.get("bayesperf", relations=cat)
    e = sc.estimate(obs)
    assert np.isfinite(e.counts[~e.not_estimated]).all()
    q = sc.model_["q"][:, :len(obs.events)]
    assert np.all(q >= (1.0 / sc.model_["length"][:, None]) ** 2)


def test_marginalize_latent_turns_an_identity_into_the_inequality_it_implies():
    from mpx.scalers.inference.relations import marginalize_latent

    rs = relation_set(["a == h + m", "m2 <= a", "m2 <= g"], ["a", "m", "m2"])   # h, g: never measured
    assert rs.latent == ("h", "g")
    flat = marginalize_latent(rs)
    assert flat.variables == ("a", "m", "m2") and flat.eq.shape == (0, 3)
    # h >= 0 in a == h + m is m <= a; m2 <= g holds for some g >= 0 whatever m2 is: gone
    rows = {tuple(np.round(r, 12) + 0.0) for r in flat.ineq}
    assert rows == {(-1.0, 1.0, 0.0), (-1.0, 0.0, 1.0)}
    assert "1 solved from an identity" in flat.notes[-1] and "1 rows dropped" in flat.notes[-1]
    # a flat prior on every real: the identity implies nothing
    assert {tuple(r + 0.0) for r in marginalize_latent(rs, nonnegative=False).ineq} == {(-1.0, 0.0, 1.0)}
    # two identities through one latent: solved from the first, the second becomes an identity of measured events
    two = marginalize_latent(relation_set(["a == h + m", "b == h + m2"], ["a", "m", "b", "m2"]))
    assert two.eq.shape == (1, 4) and np.allclose(two.eq[0] / two.eq[0][0], [1, -1, -1, 1])


def test_a_latent_member_no_longer_pulls_the_measured_ones_towards_the_identity():
    # issue 28: `demandAccesses == demandHits + demandMisses` with demandHits never measured: a prior centred
    # at 0 on the latent pulled the misses towards the accesses in the windows where they were not counted
    rng = np.random.default_rng(3)
    n_q = 96
    a, m = rng.poisson(1000, n_q).astype(float), rng.poisson(10, n_q).astype(float)
    m[40:60] = rng.poisson(300, 20)
    running = np.column_stack([np.ones(n_q, dtype=bool), np.arange(n_q) % 24 == 5])
    obs = observation_from_quanta(["a", "m"], np.arange(n_q + 1, dtype=float), np.column_stack([a, m]), running, 4)
    truth = np.add.reduceat(m, np.arange(0, n_q, 4))

    def wape(e):
        return np.abs(np.nan_to_num(e.counts[:, 1]) - truth).sum() / truth.sum()

    zero = BayesPerfScaler(relations="a == h + m", latent="zero").estimate(obs)
    flat = BayesPerfScaler(relations="a == h + m").estimate(obs)
    assert wape(zero) > 2 * wape(flat)
    assert np.nanmax(zero.counts[:, 1]) > 1500 > np.nanmax(flat.counts[:, 1])  # pulled towards a's ~4,000
    # the flat prior is exactly the inequality its non-negativity implies
    ineq = BayesPerfScaler(relations="m <= a").estimate(obs)
    np.testing.assert_allclose(flat.counts, ineq.counts, rtol=1e-9, equal_nan=True)


def test_an_identity_is_used_only_where_a_window_counts_all_but_one_of_its_members():
    from mpx.scalers.inference.relations import informative_identities

    rs = relation_set(["c == a + b", "d <= a"], ["a", "b", "c", "d"])
    apart = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], dtype=bool)   # never two members together
    got = informative_identities(rs, apart)
    assert got.eq.shape == (0, 4) and got.ineq.shape == rs.ineq.shape and "1 identity dropped" in got.notes[-1]
    together = apart.copy()
    together[1, 0] = True                                                       # a and b in one window: c is pinned
    assert informative_identities(rs, together) is rs
