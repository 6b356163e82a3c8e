"""Problems found in one entry of a catalog file, kept or dropped as the tool that reads the file does.

A real catalog is read the way its own tool reads it: one bad entry never refuses the whole file.
perf skips a metric it cannot parse (``__add_metric`` of ``tools/perf/util/metricgroup.c``: "Broken
metric" fails that metric only), LIKWID keeps a group whose metric it cannot compute and shows the
metric as 0 (``perfmon_getMetric`` of ``src/perfmon.c``: ``calc_metric`` failing gives ``result =
0.0``). Each such entry becomes a `LoadProblem` on `Catalog.problems` (file, entry, kind, what, and
what was done), summarised in one line by `summary` (the command line prints it as an
`~mpx.errors.MpxWarning`), never silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["ACTIONS", "KINDS", "LoadProblem", "by_kind", "summary"]

KINDS = {
    "re-escaped": "an unescaped '=' in an event term, re-escaped as perf's jevents.py does (metric.py _FixEscapes)",
    "runtime-param": "perf's runtime parameter '?' in an event term, substituted by 0 (expr.l normalize; one instance, "
                     "metricgroup.c add_metric with the default arch_get_runtimeparam of 1)",
    "new-constraint": "a MetricConstraint value mpx does not know; perf's metric__group_events groups by default",
    "unparsable": "an expression the tool's parser refuses",
    "unknown-name": "a name that is neither a counter of the group nor a variable the tool supplies",
    "std-metric-missing": "an arm64 override of a standard metric (ArchStdEvent) whose standard definition is absent",
    "bad-entry": "an entry with wrong field types or no name",
    "case-unified": "an event spelled in another case than elsewhere in the file, made one event (perf matches "
                    "event names case-insensitively: tools/perf/util/pmu.c)",
}
"""Problem kinds and what each means."""

ACTIONS = ("kept", "dropped", "zero")
"""``kept``: the entry is in the catalog (possibly repaired); ``dropped``: it is not (perf skips it);
``zero``: kept as the constant 0 with no events (LIKWID shows a metric it cannot compute as 0)."""


@dataclass(frozen=True)
class LoadProblem:
    """One problem of one entry: ``file`` and ``line``, the ``entry`` (metric or event name), its
    ``kind`` (a key of `KINDS`), ``what`` is wrong, and the ``action`` taken (one of `ACTIONS`)."""

    file: str
    entry: str
    kind: str
    what: str
    action: str
    line: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown problem kind {self.kind!r}; known: {', '.join(KINDS)}")
        if self.action not in ACTIONS:
            raise ValueError(f"unknown action {self.action!r}; known: {', '.join(ACTIONS)}")

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.entry}: {self.kind} ({self.action}): {self.what}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def by_kind(problems: Iterable[LoadProblem]) -> dict[str, int]:
    """Problem count per kind, most frequent first."""
    return dict(Counter(p.kind for p in problems).most_common())


def summary(problems: Iterable[LoadProblem], name: str | None = None) -> str:
    """One line: how many entries of how many files had problems, by kind and action."""
    problems = list(problems)
    if not problems:
        return f"catalog {name or ''} loaded with no problems".replace("  ", " ")
    kinds = ", ".join(f"{k} {n}" for k, n in by_kind(problems).items())
    actions = ", ".join(f"{n} {a}" for a, n in Counter(p.action for p in problems).most_common())
    files = len({p.file for p in problems})
    return (f"catalog {name + ' ' if name else ''}has {len(problems)} entry problem(s) in {files} file(s) "
            f"({kinds}; {actions}); the tools keep the file: see Catalog.problems")
