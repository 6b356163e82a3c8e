"""BayesPerf's point estimate: the posterior mode (`mpx.scalers.inference.mode`) against hand-worked truncated
posteriors, its KKT conditions, an independent solver on a real run, and ``point="mean"`` (EP's mean)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st

from mpx.datasets import shipped as datasets
from mpx.conformance.scalers import observation_from_quanta
from mpx.metrics import builtin
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.scalers.bayesperf import BayesPerfScaler, BayesPerfSmoother
from mpx.scalers.inference.ep import ep_chain, information_to_moments
from mpx.scalers.inference.mode import chain_mode, qp_mode
from mpx.scalers.linear import LinearScaler
from tests.scalers.dense_chain import dense_information


def one_window(mean, var):
    """The chain arrays of one window with independent Gaussian measurements ``N(mean, var)`` and no prior."""
    prec = 1.0 / np.asarray(var, dtype=float)
    d = prec.size
    J = np.diag(prec)[None]
    h = (prec * np.asarray(mean, dtype=float))[None]
    return J, h, np.eye(d)[None], np.zeros((1, d, d)), np.zeros((1, d))


# -- hand-worked truncated posteriors ---------------------------------------------------------------------


def test_one_event_truncated_at_zero():
    # N(-2, 1) truncated to x >= 0: the density decreases on [0, inf), so its maximum is at 0; its mean
    # is mu + sigma * phi(a) / (1 - Phi(a)) with a = (0 - mu) / sigma = 2 (Johnson, Kotz & Balakrishnan
    # §10.1): -2 + 0.0539910 / 0.0227501 = 0.3732155
    phi2 = math.exp(-2.0) / math.sqrt(2.0 * math.pi)
    tail2 = 0.5 * math.erfc(2.0 / math.sqrt(2.0))
    mean = -2.0 + phi2 / tail2
    assert mean == pytest.approx(0.3732155, abs=1e-7)
    arrays = one_window([-2.0], [1.0])
    C = -np.ones((1, 1))
    mode, binding = chain_mode(*arrays, C, 1, False)
    assert mode[0, 0] == 0.0 and binding == 1
    post = ep_chain(*arrays, C, 1, False, tol=1e-12, max_iter=200, inner=500)
    assert post.converged
    assert post.mean[0, 0] == pytest.approx(mean, abs=1e-9)  # one truncation: EP's mean is exact


def test_two_events_with_a_binding_inequality():
    # x1 ~ N(3, 1), x2 ~ N(1, 4) with x1 <= x2 (and x >= 0): the unconstrained optimum (3, 1) violates it,
    # so the mode is on the line x1 = x2 at the precision-weighted average (3 * 1 + 1 * 1/4) / (1 + 1/4)
    arrays = one_window([3.0, 1.0], [1.0, 4.0])
    C = np.array([[1.0, -1.0], [-1.0, 0.0], [0.0, -1.0]])
    mode, binding = chain_mode(*arrays, C, 1, False)
    np.testing.assert_allclose(mode[0], [2.6, 2.6], rtol=1e-12)
    assert binding == 1
    # the mean of the truncated posterior is not on the boundary: x1 < x2 almost surely
    post = ep_chain(*arrays, C, 1, False, tol=1e-10, max_iter=200, inner=500)
    assert post.mean[0, 0] < post.mean[0, 1] - 0.1


def test_interior_mode_is_the_mean_is_the_gaussian_mean():
    # x1 ~ N(10, 1), x2 ~ N(30, 1), x1 <= x2, x >= 0: every truncation is 10+ std away, nothing binds
    arrays = one_window([10.0, 30.0], [1.0, 1.0])
    C = np.array([[1.0, -1.0], [-1.0, 0.0], [0.0, -1.0]])
    mode, binding = chain_mode(*arrays, C, 1, False)
    post = ep_chain(*arrays, C, 1, False)
    gauss, _ = information_to_moments(arrays[0], arrays[1])
    assert binding == 0
    np.testing.assert_array_equal(post.mean, gauss)
    np.testing.assert_allclose(mode, gauss, rtol=1e-15)
    np.testing.assert_allclose(mode[0], [10.0, 30.0], rtol=1e-15)


def test_chain_mode_windows_of_a_sub_problem_bind_jointly():
    # two windows, one event, random walk of precision 1, measurements -3 then +1 (variance 1 each), the
    # smoother's sub-problem holds both: unconstrained maximum solves [[2, -1], [-1, 2]] z = [-3, 1], i.e.
    # z = (-5/3, -1/3): both negative. With z >= 0 the first is at 0 and the second maximises
    # -(z2 - 1)^2/2 - z2^2/2 alone: 1/2 (its multiplier is positive, the first's: 3 - 1/2 > 0)
    J = np.ones((2, 1, 1))
    h = np.array([[-3.0], [1.0]])
    W = np.ones((2, 1, 1))
    J0, h0 = np.zeros((2, 1, 1)), np.zeros((2, 1))
    mode, binding = chain_mode(J, h, W, J0, h0, -np.ones((1, 1)), 1, True)
    np.testing.assert_allclose(mode[:, 0], [0.0, 0.5], atol=1e-15)
    assert binding == 2
    # the causal filter: window 0 alone (-3 -> 0); window 1 alone with no prior (J0 = 0 and k = 1: +1)
    mode, _ = chain_mode(J, h, W, J0, h0, -np.ones((1, 1)), 1, False)
    np.testing.assert_allclose(mode[:, 0], [0.0, 1.0], atol=1e-15)


# -- the QP solver: KKT conditions ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000), n=st.integers(1, 8), p=st.integers(0, 14))
def test_qp_mode_meets_the_kkt_conditions(seed, n, p):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n))
    lam = a @ a.T + 0.1 * np.eye(n)
    eta = rng.normal(0.0, 3.0, n)
    G = rng.normal(size=(p, n))
    if p > 2:
        G[-1] = G[0]  # a repeated constraint: the multipliers are not unique, the solution is
    z, mult = qp_mode(lam, eta, G)
    scale = 1.0 + np.abs(eta).sum() + np.abs(lam).sum()
    g = G @ z
    assert np.all(g <= 1e-9 * scale)  # primal feasibility
    assert np.all(mult >= 0)  # dual feasibility
    assert np.all(np.abs(mult * g) <= 1e-8 * scale**2)  # complementary slackness
    np.testing.assert_allclose(lam @ z - eta + G.T @ mult, 0.0, atol=1e-8 * scale)  # stationarity
    # and nothing feasible nearby is better (the QP is convex: KKT is optimality; a spot check)
    f = lambda x: 0.5 * x @ lam @ x - eta @ x  # noqa: E731
    for _ in range(20):
        y = z + rng.normal(0.0, 0.1, n)
        if np.all(G @ y <= 0):
            assert f(y) >= f(z) - 1e-9 * scale


def test_qp_mode_rejects_an_indefinite_matrix():
    with pytest.raises(np.linalg.LinAlgError):
        qp_mode(np.diag([1.0, -1.0]), np.array([5.0, 5.0]), np.array([[1.0, 0.0]]))


# -- the scaler ------------------------------------------------------------------------------------------


def two_events(mu_p, mu_q, relations, point, n_q=8):
    """Events p, q alternating quanta (p on even, q on odd), Poisson-free counts (rates ``mu_p``, ``mu_q``
    per quantum with a small ripple so the variances are finite), reads every 4 quanta, k = 1."""
    ripple = np.array([1.0, -1.0, 0.5, -0.5] * (n_q // 4))
    counts = np.column_stack([mu_p + ripple, mu_q + ripple])
    running = np.column_stack([np.arange(n_q) % 2 == 0, np.arange(n_q) % 2 == 1])
    obs = observation_from_quanta(["p", "q"], np.arange(n_q + 1, dtype=float), counts, running, 4)
    sc = BayesPerfScaler(relations=relations, k=1, point=point)
    return sc, sc.estimate(obs)


def test_scaler_mode_on_a_binding_inequality_is_the_precision_weighted_average():
    # p <= q measured the other way round: the mode puts p = q at the average of the measurements and the
    # priors (each window's sub-problem: its measurement and the diffuse prior centred on the carried rate),
    # weighted by their precisions, read from the model the scaler solved
    sc, est = two_events(200.0, 100.0, "p <= q", "mode")
    mdl = sc.model_
    prec, mu, p0, m0 = mdl["precision"], mdl["mu"], mdl["p0"], mdl["m0"]
    x = (prec * mu + m0 / p0).sum(axis=1) / (prec + 1.0 / p0).sum(axis=1)
    rate = est.counts / mdl["length"][:, None]
    np.testing.assert_allclose(rate[:, 0], x, rtol=1e-12)
    np.testing.assert_allclose(rate[:, 1], x, rtol=1e-12)
    assert sc.components_[0]["binding"] == 2
    _, mean = two_events(200.0, 100.0, "p <= q", "mean")
    assert np.all(mean.counts[:, 0] < mean.counts[:, 1])  # EP's mean is inside the feasible set
    np.testing.assert_array_equal(mean.std, est.std)  # std: EP's, whatever the point estimate


def test_without_relations_and_binding_truncation_mode_and_mean_are_linear_scaling():
    rng = np.random.default_rng(4)
    n_q = 60
    counts = rng.poisson([5000.0, 800.0, 20_000.0], (n_q, 3)).astype(float)
    running = rng.random((n_q, 3)) < 0.5
    running[0] = True
    obs = observation_from_quanta(["a", "b", "c"], np.arange(n_q + 1, dtype=float), counts, running, 6)
    lin = LinearScaler(integer=False).estimate(obs).counts
    ran = np.isfinite(lin)
    assert ran.sum() > 20
    for cls in (BayesPerfScaler, BayesPerfSmoother):
        mode = cls(k=1, point="mode").estimate(obs).counts
        mean = cls(k=1, point="mean").estimate(obs).counts
        if cls is BayesPerfScaler:  # k = 1: each window alone, prior centred on its own measurement
            np.testing.assert_allclose(mode[ran], lin[ran], rtol=1e-12)
        np.testing.assert_allclose(mode, mean, rtol=1e-12)


@pytest.mark.parametrize("smooth", [False, True])
def test_scaler_mode_matches_an_independent_solver_on_callgrind(smooth):
    # sqlite with the callgrind catalog's inequalities (D1mr <= Dr ...): truncations bind in some windows;
    # each window's sub-problem, built here in x-space and solved by SLSQP in whitened coordinates, has the
    # scaler's estimate as the block of its window
    cat = builtin("callgrind")
    tr = datasets.load("sqlite")
    obs = multiplex(tr, Problem.from_catalog(cat, "generic-4"), "perf", quantum=float(np.median(np.diff(tr.edges))),
                    read_every=10)
    k = 2
    sc = (BayesPerfSmoother if smooth else BayesPerfScaler)(relations=cat, k=k)
    est = sc.estimate(obs)
    assert sum(c.get("binding", 0) for c in sc.components_) > 0
    mdl, rs = sc.model_, sc.relations_
    n_win, n_var = mdl["mu"].shape
    B = np.vstack([rs.ineq, -np.eye(n_var)])
    B = B / np.linalg.norm(B, axis=1, keepdims=True)
    rate = est.counts / mdl["length"][:, None]
    checked = 0
    for r in range(n_win):
        s, e = (max(0, r - k), min(n_win - 1, r + k)) if smooth else (max(0, r - k + 1), r)
        P, b = dense_information(mdl["precision"], mdl["mu"], mdl["p0"], mdl["m0"], mdl["q"], r, s, e)
        L = scipy.linalg.cholesky(P, lower=True)
        x_free = scipy.linalg.cho_solve((L, True), b)
        G = np.kron(np.eye(e - s + 1), B)
        if np.all(G @ x_free <= 1e-12 * np.abs(x_free).max()):
            continue  # nothing binds: the chain tests cover the Gaussian mean
        # x = x_free + L^-T v: minimise |v|^2 / 2 subject to G x <= 0
        Lt_inv = scipy.linalg.solve_triangular(L.T, np.eye(P.shape[0]), lower=False)
        res = scipy.optimize.minimize(lambda v: 0.5 * v @ v, np.zeros(P.shape[0]), jac=lambda v: v,
                                      constraints={"type": "ineq", "fun": lambda v: -(G @ (x_free + Lt_inv @ v)),
                                                   "jac": lambda v: -(G @ Lt_inv)},
                                      method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
        assert res.success
        x = (x_free + Lt_inv @ res.x).reshape(e - s + 1, n_var)[r - s]
        sd = np.sqrt(np.diag(np.linalg.inv(P)).reshape(e - s + 1, n_var)[r - s])
        n_ev = rate.shape[1]
        ok = np.isfinite(rate[r])  # NaN: never ran so far and nothing informs it (the not-estimated rule)
        assert ok.sum() >= n_ev - 3
        assert np.all(np.abs(rate[r] - x[:n_ev])[ok] <= 1e-5 * sd[:n_ev][ok] + 1e-9 * np.abs(x[:n_ev][ok]))
        checked += 1
        if checked >= 12:
            break
    assert checked >= 5
