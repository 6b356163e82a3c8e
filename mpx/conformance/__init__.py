"""Conformance checks every plugin must pass, in the spirit of scikit-learn's ``check_estimator``.

They live above the layers they exercise (they run schedulers through `mpx.multiplex`, scalers on its
Observations, figures on a results store). One entry for every kind (`check`: ``check("scaler", MyScaler)``,
a class, an instance or a registry name; one `ConformanceError` naming each failed check), one item per
check for a plugin author's own tests (`plugin_checks`, `parametrize_with_checks`), and `check_figure`.
One error (`common.ConformanceError`: kind, check, plugin, failures) and one parameter-protocol check
(`common.param_failures`) for every kind; each kind adds its domain checks: `schedulers`
(`SCHEDULER_CHECKS`: the spy trace that may not be touched, never reading counts it did not see), `scalers`
(`SCALER_CHECKS`: never reading the truth, causality under future perturbation), `aligners`
(`ALIGNER_CHECKS`), `plugins` (readers, catalog formats, figures, experiment kinds); every kind shares
``class_tags`` (the registry reads its tags from the class). `suites` holds the table and the verbs:
``tests/conformance/test_all.py`` runs every (kind × built-in × check) triple as its own test item. The
per-kind entries of earlier releases (`scalers.check_scaler`, `schedulers.check_scheduler`,
`aligners.check_aligner`) are `check` of their kind.
"""

from mpx.conformance.common import ConformanceError
from mpx.conformance.suites import SUITES, check, check_figure, parametrize_with_checks, plugin_checks, run_one

__all__ = ["SUITES", "ConformanceError", "check", "check_figure", "parametrize_with_checks", "plugin_checks", "run_one"]
