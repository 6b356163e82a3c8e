"""Conformance checks every plugin must pass, in the spirit of scikit-learn's ``check_estimator``.

They live above the layers they exercise (they run schedulers through `mpx.multiplex` and scalers on
its Observations): `mpx.conformance.schedulers` (`check_scheduler`, and each check alone in
`SCHEDULER_CHECKS`) and `mpx.conformance.scalers` (`check_scaler`, `SCALER_CHECKS`). Each check is a
small named function; ``tests/conformance/test_schedulers.py`` and ``tests/conformance/test_scalers.py``
run every (registered plugin × check) pair as its own test item; third-party plugins call
``check_scheduler`` / ``check_scaler`` in their own tests.
"""
