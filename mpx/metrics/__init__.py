"""Metrics, relations and catalogs: what a study measures, as expressions over events.

- `expr`: perf ``MetricExpr`` parser, printer and vectorised evaluator (no ``eval``).
- `catalog`: `Metric` (expression + hyperedge of events), `Catalog` (metrics, relations, event info,
  literals, groups), `load_catalog` (format detected by content, folders merged), `evaluate_metrics`,
  `resolve_catalog` (a file or folder, or a built-in name: the one resolver).
- `evaluation`: the evaluator behind `evaluate_metrics`, and `PSEUDO_EVENTS`.
- `problems`: `LoadProblem`, one entry of a file the loader repaired, zeroed or dropped as the file's tool
  does (`Catalog.problems`; `benchmarks/peer_catalogs.py` loads the peers' real files).
- `relation`: `Relation` (linear identities and inequalities among events); `eventinfo`: `EventInfo`
  (perf ``Counter`` masks, unit, kind) and `Group`.
- `formats`: one module per catalog format, found through `mpx.metrics.formats.REGISTRY`: `perfjson`
  (Linux perf pmu-events), `likwid` (LIKWID groups), `armtelemetry` (Arm Top-down Tool specifications),
  `hperf` (hperf configurations), `toml` (mpx's own format, schema in its docstring).
- `builtin(name)`: built-in catalogs (``callgrind``, ``gem5``, ``gem5_near``, ``tma``, ``yitian710``;
  `builtin_names`) in ``builtin/*.toml``.
"""

from __future__ import annotations

from mpx.metrics.catalog import (
    CONSTRAINTS,
    PSEUDO_EVENTS,
    Catalog,
    Metric,
    builtin,
    builtin_names,
    detect_format,
    evaluate_metrics,
    evaluate_trace,
    load_catalog,
    resolve_catalog,
)
from mpx.metrics.eventinfo import EventInfo, Group
from mpx.metrics.problems import LoadProblem
from mpx.metrics.relation import Relation, vector_total_relations
from mpx.metrics.expr import parse as parse_expr
from mpx.metrics.expr import to_text as expr_text

__all__ = [
    "CONSTRAINTS",
    "PSEUDO_EVENTS",
    "Catalog",
    "EventInfo",
    "Group",
    "LoadProblem",
    "Metric",
    "Relation",
    "builtin",
    "builtin_names",
    "detect_format",
    "evaluate_metrics",
    "evaluate_trace",
    "load_catalog",
    "resolve_catalog",
    "parse_expr",
    "expr_text",
    "vector_total_relations",
]
