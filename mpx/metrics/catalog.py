"""Metrics, relations and catalogs.

A `Metric` is a named expression over events (`mpx.metrics.expr`). Its **hyperedge** is the set of PMU
events it needs, resolved recursively through references to other metrics: a metric is reliable only
when all of them are counted in the same quantum, which is what schedulers optimise.

What is *not* an event of a hyperedge:

- ``#literals`` (``#slots``, ``#SMT_on``, Arm's ``num_slots``, LIKWID's ``inverseClock``): constants
  the platform supplies (`Catalog.literals`). They never occupy a counter. A literal an evaluated
  metric needs but nobody supplied is a `ConfigError` naming it — there are no silent defaults. Known
  literals also *prune* the hyperedge the way perf does: ``A if #SMT_on else B`` needs only the events
  of ``B`` when ``#SMT_on`` is 0.
- pseudo-events (`PSEUDO_EVENTS`, e.g. ``duration_time``): values of the measurement window, not
  counters. They are listed in `Metric.pseudo_events` and must be present in the counts given to
  `evaluate_metrics` (``duration_time`` in seconds, as perf scales it inside metrics).

Software and uncore events (``cpu-clock``, ``msr/tsc/``, ``UNC_*``) *are* events of the hyperedge; the
per-event information (`EventInfo`, `mpx.metrics.eventinfo`: perf ``Counter`` masks, ``Unit``, hperf's pinned/other flags,
LIKWID's counter class) lets the PMU model decide which of them need a core counter.

A `Relation` (`mpx.metrics.relation`) is an exact linear identity or inequality among events, ``sum_i a_i x_i == 0`` or
``<= 0`` per interval (TMA slot identities, gem5 ``::total`` = sum of its parts, misses <= accesses).
BayesPerf-style estimators use them as factors; tests use them as sanity checks of ground truth.

A `Catalog` holds metrics by name, relations, per-event information, platform literals and
predefined groups (LIKWID event sets, hperf event groups, Arm and perf metric groups), loaded from any
supported format by `load_catalog` (formats: `mpx.metrics.formats`) or from the built-in TOML catalogs
by `builtin`; `resolve_catalog` takes either (a file or folder, or a built-in name).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError, MpxWarning, UnknownNameError
from mpx.metrics import expr as E
from mpx.metrics import formats
from mpx.metrics.evaluation import PSEUDO_EVENTS, CatalogEvaluator
from mpx.metrics.eventinfo import EventInfo, Group
from mpx.metrics.formats.common import read_source
from mpx.metrics.problems import LoadProblem, summary
from mpx.metrics.relation import Relation
from mpx.trace import SECONDS_PER_UNIT, Trace

__all__ = [
    "PSEUDO_EVENTS",
    "CONSTRAINTS",
    "Metric",
    "Catalog",
    "load_catalog",
    "detect_format",
    "evaluate_metrics",
    "evaluate_trace",
    "builtin",
    "builtin_names",
    "resolve_catalog",
]

CONSTRAINTS = ("NO_GROUP_EVENTS", "NO_GROUP_EVENTS_NMI", "NO_NMI_WATCHDOG", "NO_GROUP_EVENTS_SMT", "NO_THRESHOLD_AND_NMI")
"""perf ``MetricConstraint`` values: the metric's events must not be put in one group (always; when
the NMI watchdog is on — ``NO_NMI_WATCHDOG`` is its older name; when SMT is on; when thresholds are
computed and the watchdog is on) — ``metric_constraint_to_enum`` of ``tools/perf/pmu-events/jevents.py``,
``metric__group_events`` of ``tools/perf/util/metricgroup.c``. Other values are read too (perf groups
them), reported as a `LoadProblem`."""

# -- Metric -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A named expression over events.

    ``events`` (the hyperedge), ``pseudo_events``, ``literals`` and ``references`` are resolved by the
    `Catalog` holding the metric (recursively through references, pruned by known literals); a metric
    made alone by `Metric.from_expr` treats every name as an event.
    """

    name: str
    expr: str
    ast: E.Node = field(repr=False)
    description: str = field(default="", repr=False)
    groups: tuple[str, ...] = ()
    scale_unit: str | None = None
    constraint: str | None = None
    threshold: str | None = None
    source: str | None = field(default=None, compare=False)
    events: frozenset[str] = frozenset()
    pseudo_events: frozenset[str] = frozenset()
    literals: frozenset[str] = frozenset()
    references: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def from_expr(cls, name: str, expr: str, *, path=None, line: int | None = None, **fields: Any) -> Metric:
        """Parse ``expr`` (perf syntax) into an unresolved metric; syntax errors raise FormatError."""
        ast = E.parse(expr, path=path, line=line, what=f"metric {name!r}")
        return cls(name=name, expr=expr, ast=ast, **fields)._direct()

    @classmethod
    def from_ast(cls, name: str, ast: E.Node, **fields: Any) -> Metric:
        """A metric from an AST (e.g. a LIKWID formula with counters mapped to events)."""
        return cls(name=name, expr=E.to_text(ast), ast=ast, **fields)._direct()

    def _direct(self) -> Metric:
        used = E.names(self.ast)
        return dataclasses.replace(
            self,
            events=frozenset(used - PSEUDO_EVENTS.keys()),
            pseudo_events=frozenset(used & PSEUDO_EVENTS.keys()),
            literals=E.literal_names(self.ast),
        )

    @property
    def hyperedge(self) -> frozenset[str]:
        """The PMU events the metric needs (alias of ``events``)."""
        return self.events

    @property
    def scale(self) -> tuple[float, str]:
        """``ScaleUnit`` split into (factor, unit): ``"100%"`` → (100.0, "%"), ``"1MB/s"`` → (1.0, "MB/s");
        (1.0, unit) when the unit has no leading number."""
        if not self.scale_unit:
            return 1.0, ""
        m = re.match(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(.*)", self.scale_unit)
        if not m:
            return 1.0, self.scale_unit.strip()
        return float(m.group(1)), m.group(2).strip()

    def same_definition(self, other: Metric) -> bool:
        """Same name and the same expression tree (text formatting aside)."""
        return self.name == other.name and self.ast == other.ast

    def evaluate(self, counts: Mapping[str, Any], literals: Mapping[str, Any] | None = None) -> np.ndarray:
        """Value over ``counts`` (name → array); references to other metrics need a `Catalog`."""
        return evaluate_metrics([self], counts, literals)[self.name]


# -- Catalog ----------------------------------------------------------------------------------------


class Catalog:
    """Metrics by name, relations, per-event info, platform literals and predefined groups.

    Construction resolves every metric: references to other metrics (a name that is a metric of the
    catalog is a reference, as in perf), cycles (a FormatError naming the cycle), hyperedges pruned by
    the known ``literals``. Duplicate metric names must have the same definition.

    ``meta`` keys: ``sources`` (files read), ``format``, ``dropped`` (``{"what", "why"}`` items: input
    left out or overridden on purpose, e.g. a conflicting event field), ``warnings`` (oddities kept,
    e.g. a LIKWID metric name repeated in a group), ``skipped`` (files of a folder no format claims).
    ``problems``: `LoadProblem` per entry the loader repaired, dropped or zeroed as the tool does.
    """

    def __init__(
        self,
        metrics: Iterable[Metric] = (),
        relations: Iterable[Relation] = (),
        events: Iterable[EventInfo] = (),
        literals: Mapping[str, Any] | None = None,
        groups: Iterable[Group] = (),
        *,
        name: str | None = None,
        platform: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        problems: Iterable[LoadProblem] = (),
    ) -> None:
        self.name = name
        self.problems: list[LoadProblem] = list(problems)
        self.literals: dict[str, Any] = dict(literals or {})
        self.platform: dict[str, Any] = dict(platform or {})
        self.meta: dict[str, Any] = dict(meta or {})
        for key in ("sources", "dropped", "warnings"):
            self.meta.setdefault(key, [])
        raw: dict[str, Metric] = {}
        for m in metrics:
            if m.name in raw and not raw[m.name].same_definition(m):
                raise FormatError(
                    m.source, None,
                    f"metric {m.name!r} is defined twice with different expressions "
                    f"({raw[m.name].expr!r} in {raw[m.name].source}, {m.expr!r} here)",
                )
            if m.name in raw:
                old = raw[m.name]
                m = dataclasses.replace(old, groups=tuple(dict.fromkeys(old.groups + m.groups)))
            raw[m.name] = m
        self.events: dict[str, EventInfo] = {}
        for info in events:
            self._add_event(info)
        rels: dict[str, Relation] = {}
        for r in relations:
            if r.name in rels and rels[r.name] != r:
                raise FormatError(r.source, None, f"relation {r.name!r} is defined twice differently")
            rels[r.name] = r
        self.relations: tuple[Relation, ...] = tuple(rels.values())
        self.metrics: dict[str, Metric] = self._resolve(raw)
        self.groups: dict[str, Group] = {}
        for g in groups:
            self._add_group(g)
        self._fill_group_events()

    # -- construction helpers -------------------------------------------------------------------

    def _add_event(self, info: EventInfo) -> None:
        old = self.events.get(info.name)
        if old is None:
            self.events[info.name] = info
            return
        merged, conflict = old.merged(info)
        if conflict:
            self.meta["dropped"].append({"what": f"event info of {info.name!r}", "why": conflict + " (first kept)"})
        self.events[info.name] = merged

    def _add_group(self, g: Group) -> None:
        old = self.groups.get(g.name)
        if old is None:
            self.groups[g.name] = g
            return
        if old.kind == g.kind == "metric_group":
            self.groups[g.name] = dataclasses.replace(
                old,
                metrics=tuple(dict.fromkeys(old.metrics + g.metrics)),
                events=tuple(dict.fromkeys(old.events + g.events)),
                description=old.description or g.description,
            )
        elif old != g:
            raise FormatError(
                g.source, None, f"group {g.name!r} is defined twice differently (also in {old.source}); "
                "load catalogs of different platforms separately",
            )

    def _fill_group_events(self) -> None:
        for gname, g in list(self.groups.items()):
            if g.kind == "metric_group" and g.metrics:
                missing = [m for m in g.metrics if m not in self.metrics]
                if missing:
                    raise FormatError(g.source, None, f"group {gname!r} lists unknown metrics {missing[:5]}")
                evs: dict[str, None] = {}  # derived from the member metrics, so re-pruned with the literals
                for m in g.metrics:
                    evs.update(dict.fromkeys(sorted(self.metrics[m].events)))
                self.groups[gname] = dataclasses.replace(g, events=tuple(evs))

    def _resolve(self, raw: dict[str, Metric]) -> dict[str, Metric]:
        refs = {n: E.names(m.ast) & raw.keys() for n, m in raw.items()}
        # cycles over the full (unpruned) reference graph
        state: dict[str, int] = {}
        for start in raw:
            if state.get(start):
                continue
            stack: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(refs[start])))]
            path = [start]
            state[start] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                    path.pop()
                elif state.get(nxt) == 1:
                    cyc = path[path.index(nxt):] + [nxt]
                    raise FormatError(
                        raw[nxt].source, None, "metrics reference each other in a cycle: " + " -> ".join(cyc)
                    )
                elif not state.get(nxt):
                    state[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, iter(sorted(refs[nxt]))))
        memo: dict[str, tuple[float | None, frozenset[str]]] = {}
        lits: dict[str, frozenset[str]] = {}

        def ref(name: str) -> tuple[float | None, frozenset[str]]:
            if name not in raw:
                return None, frozenset((name,))
            if name not in memo:
                memo[name] = E.fold(raw[name].ast, self.literals, None, ref)
            return memo[name]

        def literals_of(name: str) -> frozenset[str]:
            if name not in lits:
                acc = set(E.literal_names(raw[name].ast))
                for r in refs[name]:
                    acc |= literals_of(r)
                lits[name] = frozenset(acc)
            return lits[name]

        out = {}
        for n, m in raw.items():
            _, deps = ref(n)
            out[n] = dataclasses.replace(
                m,
                events=frozenset(deps - PSEUDO_EVENTS.keys()),
                pseudo_events=frozenset(deps & PSEUDO_EVENTS.keys()),
                literals=literals_of(n),
                references=frozenset(refs[n]),
            )
        return out

    # -- access ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.metrics)

    def __iter__(self):
        return iter(self.metrics.values())

    def __contains__(self, name: object) -> bool:
        return name in self.metrics

    def __getitem__(self, name: str) -> Metric:
        return self.metric(name)

    def metric(self, name: str) -> Metric:
        """The metric ``name``; `UnknownNameError` (a KeyError) naming close matches when absent."""
        try:
            return self.metrics[name]
        except KeyError:
            near = difflib.get_close_matches(name, list(self.metrics), n=5)
            where = f"catalog {self.name!r}" if self.name else "the catalog"
            hint = (f"did you mean {', '.join(near)}?" if near else
                    f"its metrics: {', '.join(list(self.metrics)[:12])}{', ...' if len(self.metrics) > 12 else ''}")
            raise UnknownNameError(f"no metric {name!r} in {where}; {hint}") from None

    def __repr__(self) -> str:
        return (
            f"Catalog({self.name or '?'}: {len(self.metrics)} metrics, {len(self.relations)} relations, "
            f"{len(self.events)} events described, {len(self.groups)} groups, {len(self.literals)} literals)"
        )

    @property
    def used_events(self) -> frozenset[str]:
        """Every event some metric or relation needs."""
        out: set[str] = set()
        for m in self.metrics.values():
            out |= m.events
        for r in self.relations:
            out |= r.events
        return frozenset(out)

    def events_of(
        self,
        names: str | Iterable[str] | None = None,
        literals: Mapping[str, Any] | None = None,
        available: Iterable[str] | None = None,
    ) -> frozenset[str]:
        """Union of the hyperedges of metrics ``names`` (all when None), re-pruned with extra
        ``literals`` and, if given, the set of ``available`` events (makes ``has_event`` constant)."""
        if isinstance(names, str):
            names = [names]
        names = list(self.metrics) if names is None else list(names)
        for n in names:
            self.metric(n)
        if literals is None and available is None:
            out: set[str] = set()
            for n in names:
                out |= self.metrics[n].events
            return frozenset(out)
        lits = {**self.literals, **(literals or {})}
        avail = None if available is None else frozenset(available)
        memo: dict[str, tuple[float | None, frozenset[str]]] = {}

        def ref(name: str):
            if name not in self.metrics:
                return None, frozenset((name,))
            if name not in memo:
                memo[name] = E.fold(self.metrics[name].ast, lits, avail, ref)
            return memo[name]

        out = set()
        for n in names:
            out |= ref(n)[1]
        return frozenset(out - PSEUDO_EVENTS.keys())

    def hyperedges(self, names: Iterable[str] | None = None, literals: Mapping[str, Any] | None = None) -> dict[str, frozenset[str]]:
        """Metric name → its event set (the hypergraph schedulers and partitioners work on)."""
        names = list(self.metrics) if names is None else list(names)
        return {n: self.events_of([n], literals) for n in names}

    def with_literals(self, **literals: Any) -> Catalog:
        """A copy with more platform literals (hyperedges re-pruned)."""
        return self._copy(literals={**self.literals, **literals})

    def _copy(self, **changes: Any) -> Catalog:
        fields = dict(
            metrics=[dataclasses.replace(m) for m in self.metrics.values()],
            relations=self.relations,
            events=self.events.values(),
            literals=self.literals,
            groups=self.groups.values(),
            name=self.name,
            platform=self.platform,
            meta=json.loads(json.dumps(self.meta, default=str)), problems=self.problems,
        )
        fields.update(changes)
        return Catalog(**fields)

    def merge(self, *others: Catalog) -> Catalog:
        """One catalog holding this one and ``others``. Identical duplicates merge; conflicting
        metrics, relations, groups or literals raise FormatError naming both sources."""
        metrics = list(self.metrics.values())
        relations = list(self.relations)
        events = list(self.events.values())
        groups = list(self.groups.values())
        literals = dict(self.literals)
        platform = dict(self.platform)
        meta = json.loads(json.dumps(self.meta, default=str))
        for o in others:
            metrics += list(o.metrics.values())
            relations += list(o.relations)
            events += list(o.events.values())
            groups += list(o.groups.values())
            for k, v in o.literals.items():
                if k in literals and literals[k] != v:
                    raise FormatError(
                        (o.meta.get("sources") or [None])[0], None,
                        f"literal #{k} is {v!r} here but {literals[k]!r} in {self.name or 'another catalog'}; "
                        "load catalogs of different platforms separately",
                    )
                literals[k] = v
            for k, v in o.platform.items():
                platform.setdefault(k, v)
            for k, v in json.loads(json.dumps(o.meta, default=str)).items():
                if isinstance(v, list) and isinstance(meta.get(k), list):
                    meta[k] = meta[k] + v
                elif isinstance(v, dict) and isinstance(meta.get(k), dict):
                    meta[k] = {**v, **meta[k]}
                else:
                    meta.setdefault(k, v)
        names = [c.name for c in (self, *others) if c.name]
        return Catalog(metrics, relations, events, literals, groups, name=" + ".join(names) or None, platform=platform,
                       meta=meta, problems=[p for c in (self, *others) for p in c.problems])

    # -- evaluation -----------------------------------------------------------------------------

    def evaluate(
        self,
        counts: Mapping[str, Any],
        names: Iterable[str] | None = None,
        literals: Mapping[str, Any] | None = None,
        *,
        missing: str = "raise",
    ) -> dict[str, np.ndarray]:
        """See `evaluate_metrics`."""
        return evaluate_metrics(self, counts, literals, names=names, missing=missing)

    def check_relations(self, counts: Mapping[str, Any], *, rtol: float = 0.0, atol: float = 0.0) -> dict[str, np.ndarray]:
        """Relation name → per-interval booleans (does it hold?), for relations whose events are all in
        ``counts``."""
        return {r.name: r.holds(counts, rtol=rtol, atol=atol) for r in self.relations if r.events <= counts.keys()}

    def summary(self) -> str:
        lines = [repr(self)]
        if self.metrics:
            sizes = [len(m.events) for m in self.metrics.values()]
            lines.append(
                f"  hyperedge size: min {min(sizes)}, median {int(np.median(sizes))}, max {max(sizes)}; "
                f"{len(self.used_events)} distinct events used"
            )
        for item in self.meta.get("dropped", []):
            lines.append(f"  dropped: {item.get('what')} ({item.get('why')})")
        if self.problems:
            lines.append("  " + summary(self.problems))
        return "\n".join(lines)


# -- evaluation -------------------------------------------------------------------------------------


def evaluate_metrics(
    catalog_or_metrics: Catalog | Iterable[Metric] | Mapping[str, Metric],
    counts: Mapping[str, Any],
    literals: Mapping[str, Any] | None = None,
    *,
    names: Iterable[str] | None = None,
    missing: str = "raise",
) -> dict[str, np.ndarray]:
    """Value of each metric over windows: ``{name: float64 array [T]}``.

    ``counts`` maps event (and pseudo-event) names to arrays of length T — ground truth or estimates
    alike. ``literals`` add to (and override) the catalog's. Metrics are evaluated once each, references
    reuse the referenced value. Division by zero gives NaN, ``d_ratio`` gives 0 (see `mpx.metrics.expr`).
    ``missing="raise"`` (default) raises ConfigError naming the first missing event or literal;
    ``missing="skip"`` leaves out metrics that cannot be evaluated.
    """
    if missing not in ("raise", "skip"):
        raise ValueError(f"missing must be 'raise' or 'skip', got {missing!r}")
    if isinstance(catalog_or_metrics, Catalog):
        catalog = catalog_or_metrics
    elif isinstance(catalog_or_metrics, Mapping):
        catalog = Catalog(catalog_or_metrics.values())
    else:
        catalog = Catalog(catalog_or_metrics)
    lengths = {np.shape(v)[0] if np.ndim(v) else None for v in counts.values()}
    lengths.discard(None)
    if len(lengths) > 1:
        raise ConfigError(f"counts arrays have different lengths: {sorted(lengths)}")
    shape = (lengths.pop(),) if lengths else ()
    ev = CatalogEvaluator(catalog, counts, {**catalog.literals, **(literals or {})})
    out: dict[str, np.ndarray] = {}
    for name in (list(catalog.metrics) if names is None else list(names)):
        catalog.metric(name)
        try:
            value = ev.metric_value(name)
        except ConfigError:
            if missing == "skip":
                continue
            raise
        out[name] = np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), shape), dtype=np.float64)
    return out


def evaluate_trace(
    catalog_or_metrics: Catalog | Iterable[Metric] | Mapping[str, Metric],
    trace,
    literals: Mapping[str, Any] | None = None,
    *,
    names: Iterable[str] | None = None,
    seconds_per_unit: float | None = None,
    missing: str = "raise",
) -> dict[str, np.ndarray]:
    """`evaluate_metrics` over the intervals of a `mpx.trace.Trace`. ``duration_time`` is the interval
    length in seconds when the time axis is in s/ms/us/ns, or when ``seconds_per_unit`` converts it
    (e.g. 1e-12 for gem5 ticks at the default 1 THz tick rate — no silent default is assumed)."""
    if not isinstance(trace, Trace):
        raise TypeError(f"expected a Trace, got {type(trace).__name__}")
    counts: dict[str, Any] = {e: trace.counts[:, i] for i, e in enumerate(trace.events)}
    factor = seconds_per_unit if seconds_per_unit is not None else SECONDS_PER_UNIT.get(trace.time_unit)
    if factor is not None and "duration_time" not in counts:
        counts["duration_time"] = trace.durations * factor
    return evaluate_metrics(catalog_or_metrics, counts, literals, names=names, missing=missing)


# -- loading ----------------------------------------------------------------------------------------

def detect_format(path: str | os.PathLike, text: str | None = None, obj: Any = None) -> str | None:
    """The catalog format of file ``path`` by content (None when no format claims it)."""
    if text is None:
        text, obj = read_source(path)
    for name in formats.detection_order():
        if formats.get(name).sniff(path, text, obj):
            return name
    return None


def load_catalog(path: str | os.PathLike, format: str | None = None) -> Catalog:
    """Load a catalog file (format detected by content unless ``format`` is given) or every catalog
    file under a directory, merged. In a directory, files no format claims (e.g. ``SOURCES.md``) are
    listed in ``meta['skipped']``; a single file no format claims is a FormatError."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file or directory: {os.fspath(path)}")
    if p.is_dir():
        cats, skipped = [], []
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            text, obj = read_source(f)
            fmt = format or detect_format(f, text, obj)
            if fmt is None:
                skipped.append(str(f))
                continue
            cats.append(_load_one(fmt, f))
        if not cats:
            raise FormatError(path, None, "no metric catalog file in this directory")
        cat = cats[0].merge(*cats[1:]) if len(cats) > 1 else cats[0]
        cat.name = p.name
        cat.meta["skipped"] = cat.meta.get("skipped", []) + skipped
        return cat
    if format is None:
        format = detect_format(p)
        if format is None:
            raise FormatError(
                path, None, "not a metric catalog (perf pmu-events JSON, LIKWID group, Arm telemetry JSON, "
                "hperf JSON or mpx TOML)",
            )
    elif format not in formats.REGISTRY:
        known = ", ".join(formats.detection_order())
        raise FormatError(path, None, f"unknown catalog format {format!r}; known: {known}")
    return _load_one(format, p)


def _load_one(fmt: str, path: Path) -> Catalog:
    """One catalog file by its format; expressions too deep for Python's stack are a FormatError."""
    try:
        return formats.get(fmt).load(path)
    except RecursionError:
        raise FormatError(path, None, "metric expressions nest too deeply (references of references?)") from None


_BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"


def builtin_names() -> list[str]:
    """Names of the built-in catalogs (``mpx/metrics/builtin/*.toml``)."""
    return sorted(f.stem for f in _BUILTIN_DIR.glob("*.toml"))


def builtin(name: str) -> Catalog:
    """A built-in catalog by name, e.g. ``builtin("callgrind")``."""
    f = _BUILTIN_DIR / f"{name}.toml"
    if not f.is_file():
        raise KeyError(f"no built-in catalog {name!r}; available: {', '.join(builtin_names())}")
    return formats.get("toml").load(f)


def resolve_catalog(name_or_path: str | os.PathLike, *, what: str = "catalog") -> Catalog:
    """The one name-or-file resolver: `load_catalog` of an existing file or folder, else the built-in
    catalog of that name; anything else is a `ConfigError` (``what`` names the input, e.g. an option).
    Entry problems of a loaded file are one `MpxWarning` line (the list: `Catalog.problems`)."""
    if os.path.exists(name_or_path):
        cat = load_catalog(name_or_path)
        if cat.problems:
            warnings.warn(MpxWarning(f"{os.fspath(name_or_path)}: " + summary(cat.problems)), stacklevel=2)
        return cat
    if name_or_path in builtin_names():
        return builtin(os.fspath(name_or_path))
    raise ConfigError(f"{what} {os.fspath(name_or_path)!r} is neither an existing file or folder nor a built-in "
                      f"catalog ({', '.join(builtin_names())})")


