"""A dense reference for the tests of BayesPerf's chain: the information of one sub-problem built naively,
independently of `mpx.scalers.inference` (shared by the EP and the mode tests)."""

from __future__ import annotations

import numpy as np


def dense_information(prec, y, p0, m0, q, r: int, s: int, e: int) -> tuple[np.ndarray, np.ndarray]:
    """``(P, b)``: the x-space information of window ``r``'s sub-problem over windows ``s..e`` — the prior
    of row ``r`` (``m0``, ``p0``) on window ``s``, the random walk (variances ``q``), the measurements
    (means ``y``, precisions ``prec``); all arrays ``[windows, variables]``."""
    n_var = prec.shape[1]
    n = e - s + 1
    P = np.zeros((n * n_var, n * n_var))
    b = np.zeros(n * n_var)
    for i, t in enumerate(range(s, e + 1)):
        cur = slice(i * n_var, (i + 1) * n_var)
        P[cur, cur] += np.diag(prec[t])
        b[cur] += prec[t] * y[t]
        if i == 0:
            P[cur, cur] += np.diag(1.0 / p0[r])
            b[cur] += m0[r] / p0[r]
        else:
            prev = slice((i - 1) * n_var, i * n_var)
            Qi = np.diag(1.0 / q[t])
            P[cur, cur] += Qi
            P[prev, prev] += Qi
            P[cur, prev] -= Qi
            P[prev, cur] -= Qi
    return P, b
