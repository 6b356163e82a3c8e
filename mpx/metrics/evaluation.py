"""Evaluating metric expressions over a catalog: `CatalogEvaluator` (used by
`mpx.metrics.evaluate_metrics`) and the pseudo-events a window supplies (`PSEUDO_EVENTS`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.metrics import expr as E

__all__ = ["PSEUDO_EVENTS", "CatalogEvaluator"]

PSEUDO_EVENTS: dict[str, str] = {
    "duration_time": "length of the window in seconds (perf's tool event; perf scales it to seconds in metrics)",
    "user_time": "user CPU time of the window in seconds (perf tool event)",
    "system_time": "system CPU time of the window in seconds (perf tool event)",
}
"""Names that are properties of the measurement window, not counters."""


class CatalogEvaluator(E.Evaluator):
    """An `mpx.metrics.expr.Evaluator` over a catalog (anything with ``metrics``: name → `Metric`):
    references to other metrics are evaluated once each and reused; a missing event or literal is a
    `ConfigError` naming the metric that needs it."""

    def __init__(self, catalog: Any, env: Mapping[str, Any], literals: Mapping[str, Any]) -> None:
        super().__init__(env, literals)
        self.catalog = catalog
        self.values: dict[str, Any] = {}
        self.stack: list[str] = []

    def _missing(self, kind: str, name: str) -> ConfigError:
        who = f"metric {self.stack[-1]!r}" if self.stack else "the expression"
        hint = ""
        if name in PSEUDO_EVENTS:
            hint = f"; it is a pseudo-event ({PSEUDO_EVENTS[name]}): put it in the counts"
        elif kind == "literal":
            hint = "; the platform must supply it (no default)"
        return ConfigError(f"{kind} {name!r} needed by {who} is not available{hint}")

    def name_value(self, name: str):
        if name in self.catalog.metrics:
            return self.metric_value(name)
        return super().name_value(name)

    def has(self, name: str) -> bool:
        return name in self.env or name in self.catalog.metrics

    def metric_value(self, name: str):
        if name not in self.values:
            self.stack.append(name)
            try:
                with np.errstate(all="ignore"):
                    self.values[name] = self._eval(self.catalog.metrics[name].ast)
            finally:
                self.stack.pop()
        return self.values[name]
