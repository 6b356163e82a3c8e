"""What is measured on which hardware: the `Problem` (`mpx.problem.core`), perf's grouping syntax
(`mpx.problem.perf`), event groups and metric edges (`mpx.problem.groups`), the catalog adapter
(`mpx.problem.from_catalog`) and the PMU adapter (`mpx.problem.hardware`)."""

from mpx.problem.core import Problem
from mpx.problem.groups import EventGroup, MetricEdge
from mpx.problem.perf import PERF_MODIFIERS, SOFTWARE_EVENTS, TOOL_EVENTS, parse_event_list, perf_metric_groups

__all__ = [
    "EventGroup",
    "MetricEdge",
    "Problem",
    "parse_event_list",
    "perf_metric_groups",
    "PERF_MODIFIERS",
    "SOFTWARE_EVENTS",
    "TOOL_EVENTS",
]
