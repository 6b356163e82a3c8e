"""Conformance checks every plugin must pass, in the spirit of scikit-learn's ``check_estimator``.

They live above the layers they exercise (they run schedulers through `mpx.multiplex`, scalers on its
Observations, figures on a results store). One error (`common.ConformanceError`: kind, check, plugin,
failures) and one parameter-protocol check (`common.param_failures`) for every kind; each kind adds its
domain checks: `schedulers` (`check_scheduler`, `SCHEDULER_CHECKS`: the spy trace that may not be touched,
never reading counts it did not see), `scalers` (`check_scaler`, `SCALER_CHECKS`: never reading the truth,
causality under future perturbation), `aligners` (`check_aligner`, `ALIGNER_CHECKS`), `plugins` (readers,
catalog formats, figures, experiment kinds). `suites` lists them all: ``tests/conformance/test_all.py``
runs every (kind × registered plugin × check) triple as its own test item; third-party plugins call
``check_scheduler`` / ``check_scaler`` / ``check_aligner`` or `suites.run_check` in their own tests.
"""
