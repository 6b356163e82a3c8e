"""`experiments/analyses/fusion_bound.py`'s in-sample oracle: it crashed at 003088f on the guard that refuses to
estimate a trace a scaler was fitted on (issue 28); the oracle lifts that guard for itself alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from mpx import scalers

from mpx.datasets import shipped as datasets
from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import Problem

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "analyses" / "fusion_bound.py"


@pytest.fixture(scope="module")
def analysis():
    spec = importlib.util.spec_from_file_location("fusion_bound", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_in_sample_oracle_estimates_the_trace_it_was_fitted_on(analysis):
    tr = datasets.load("sort")
    obs = multiplex(tr, Problem(tr.events[:6], "generic-2"), "perf", quantum=float(np.median(np.diff(tr.edges))),
                    read_every=10)
    with pytest.raises(ConfigError, match="fitted on the trace it is asked to estimate"):
        scalers.get("fusion").fit([tr]).estimate(obs)          # the guard stays for every scaler
    est = analysis.in_sample(scalers.get("fusion").fit([tr])).estimate(obs)
    assert est.counts.shape == obs.reads.raw.shape and np.isfinite(est.counts).all()
