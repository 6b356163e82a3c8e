"""Inference kernels the model-based scalers are built on: no scaler lives here.

- `mpx.scalers.inference.kalman`: Kalman filter and RTS smoother for a multivariate random walk with
  missing data (numba kernels; used by `mpx.scalers.fusion`);
- `mpx.scalers.inference.ep`: Expectation Propagation on a Gaussian chain with truncations (used by
  `mpx.scalers.bayesperf`);
- `mpx.scalers.inference.mode`: the posterior mode of that chain under its truncations, a convex QP
  per sub-problem (BayesPerf's point estimate);
- `mpx.scalers.inference.relations`: catalog relations as linear constraints over event counts
  (`relation_set`), shared by BayesPerf and fusion.
"""
