"""Relations among events as linear constraints, the BayesPerf factor graph, and a discretised reference.

BayesPerf (Banerjee et al., ASPLOS 2021) takes relations among events from vendor metric formulas
and turns them into factors of a graph whose variables are the events. mpx's relations are already
linear (`mpx.metrics.Relation`: ``sum_i a_i x_i == 0`` or ``<= 0`` per interval), so a set of them is two
matrices over the variables: equalities ``A x = 0`` and inequalities ``B x <= 0`` (`RelationSet`).
They hold for counts in every interval, hence for rates in every read window too.

`relation_set` gathers relations from everything a user may have at hand:

- a `mpx.metrics.Catalog` (or the name of a built-in one, ``"tma"``, ``"callgrind"``): its relations,
  plus the identities its metric formulas imply — a metric whose name is also an event of the problem
  and whose formula is linear in events (references to other metrics inlined) gives
  ``event == formula`` (`metric_identities`), e.g. a measured uncore bandwidth event and the formula
  that predicts it;
- `mpx.metrics.Relation` objects, or text such as ``"a + b == c"``, ``"ILmr <= I1mr"``;
- the exact identities of a synthetic trace (`mpx.datasets.synthetic.identities`, or ``trace.meta['identities']``:
  ``(lhs, [(coef, event), ...])``);
- ``"gem5-totals"``: gem5's vector identities ``prefix::total == sum of the parts`` among the problem's
  events (`mpx.metrics.vector_total_relations`) — exact only when the problem has every part of the
  vector that counts; for a selection pass ``vector_total_relations(trace.events, within=events)``
  instead (the parts left out become latent variables), as ``mpx evaluate --relations gem5-totals`` does.

Variables are the problem's events followed by *latent* variables: events that relations mention but
the problem does not measure (a relation through a latent variable still ties the measured ones, e.g.
``slots_total == 4 * cycles`` and ``slots_total == issued + frontend + backend``).

`RelationSet.factor_graph` is the BayesPerf factor graph held in pgmpy's `FactorGraph` (variables ↔
relation factors, plus one measurement factor per event; pgmpy accepts only `DiscreteFactor` s, so the
structure graph carries one-state placeholders). `discretised_posterior` is the exact reference on
small graphs: every variable on a grid, Gaussian (or any) log-likelihoods as unary factors, relations as
discrete factors, exact inference with pgmpy's `BeliefPropagation` (junction tree). pgmpy is imported
only there: it takes seconds to import, the Gaussian EP does not need it.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.metrics import Catalog, Relation, builtin, builtin_names, load_catalog, vector_total_relations
from mpx.metrics import expr as E

__all__ = ["RelationSet", "discretised_posterior", "informative_identities", "marginalize_latent", "metric_identities",
           "relation_set"]


@dataclass(frozen=True, eq=False)
class RelationSet:
    """Linear relations over ``variables`` (the problem's ``n_events`` events first, then latent ones):
    ``eq @ x == 0`` (rows named ``eq_names``) and ``ineq @ x <= 0`` (``ineq_names``); ``notes`` say what
    was dropped or added and why."""

    variables: tuple[str, ...]
    n_events: int
    eq: np.ndarray
    ineq: np.ndarray
    eq_names: tuple[str, ...] = ()
    ineq_names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    dropped: tuple[dict, ...] = field(default_factory=tuple)

    @property
    def latent(self) -> tuple[str, ...]:
        return self.variables[self.n_events:]

    def components(self) -> list[np.ndarray]:
        """Variable indices of each connected component of the factor graph (variables joined by a
        relation), in order of their smallest index."""
        n = len(self.variables)
        parent = np.arange(n)

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return int(i)

        for row in np.vstack([self.eq, self.ineq]) if (self.eq.size or self.ineq.size) else ():
            idx = np.flatnonzero(row)
            for j in idx[1:]:
                a, b = find(int(idx[0])), find(int(j))
                if a != b:
                    parent[max(a, b)] = min(a, b)
        roots = np.array([find(i) for i in range(n)])
        return [np.flatnonzero(roots == r) for r in dict.fromkeys(roots.tolist())]

    def factor_graph(self) -> Any:
        """The BayesPerf factor graph as a pgmpy ``FactorGraph``: one variable node per variable, one
        factor node per relation (edges to its variables) and one measurement factor per event of the
        problem. The factors are one-state `DiscreteFactor` placeholders: the graph holds structure
        (see `discretised_posterior` for one with real discrete factors)."""
        FactorGraph, DiscreteFactor, _ = _pgmpy()
        fg = FactorGraph()
        fg.add_nodes_from(self.variables)
        factors = []
        for v in self.variables[: self.n_events]:
            factors.append(DiscreteFactor([v], [1], [1.0], state_names={v: [f"measure:{v}"]}))
        for rows in (self.eq, self.ineq):
            for row in rows:
                scope = [self.variables[i] for i in np.flatnonzero(row)]
                factors.append(DiscreteFactor(scope, [1] * len(scope), [1.0]))
        for f in factors:
            fg.add_node(f)
            fg.add_edges_from((v, f) for v in f.variables)
        fg.add_factors(*factors)
        return fg

    def __repr__(self) -> str:
        return (f"RelationSet({self.n_events} events + {len(self.latent)} latent, {self.eq.shape[0]} equalities, "
                f"{self.ineq.shape[0]} inequalities, {len(self.components())} components)")


_FACTOR_CLASS: Any = None


def _pgmpy() -> tuple[Any, Any, Any]:
    """pgmpy's ``FactorGraph``, a `DiscreteFactor` subclass with a cheap ``__str__`` and identity
    hashing, and ``BeliefPropagation``.

    pgmpy's own ``DiscreteFactor.__str__`` tabulates every value and its ``__hash__`` copies and hashes the
    whole table; factors are graph nodes, and networkx formats/hashes nodes while pgmpy checks and copies
    the graph, so a 10^5-entry factor made one small query take over a minute. A node is the same factor
    object throughout, so identity hashing is exact here; the arithmetic is pgmpy's, unchanged.
    """
    global _FACTOR_CLASS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.factors.discrete import DiscreteFactor
        from pgmpy.inference import BeliefPropagation
        from pgmpy.models import FactorGraph
    if _FACTOR_CLASS is None:
        class Factor(DiscreteFactor):
            __hash__ = object.__hash__

            def __eq__(self, other: object) -> bool:
                return self is other

            def __str__(self) -> str:
                return self.__repr__()

        _FACTOR_CLASS = Factor
    return FactorGraph, _FACTOR_CLASS, BeliefPropagation


# -- gathering relations ----------------------------------------------------------------------------


def metric_identities(catalog: Any, events: Iterable[str]) -> list[Any]:
    """Identities implied by metric formulas: for each metric whose name is one of ``events`` and
    whose formula is linear in events once references to other metrics are inlined, the relation
    ``name == formula`` (source: the metric). Non-linear metrics (ratios, ``if``...) imply nothing here."""

    metrics = catalog.metrics
    literals = dict(getattr(catalog, "literals", {}) or {})
    memo: dict[str, dict[str, float] | None] = {}

    def form(name: str, stack: tuple[str, ...]) -> dict[str, float] | None:
        if name in memo:
            return memo[name]
        if name in stack:
            return None
        try:
            raw = E.linear_form(metrics[name].ast, literals)
        except ValueError:
            memo[name] = None
            return None
        out: dict[str, float] = {}
        for k, v in raw.items():
            if k in metrics and k != name:
                sub = form(k, stack + (name,))
                if sub is None:
                    memo[name] = None
                    return None
                for kk, vv in sub.items():
                    out[kk] = out.get(kk, 0.0) + v * vv
            else:
                out[k] = out.get(k, 0.0) + v
        memo[name] = {k: v for k, v in out.items() if v != 0}
        return memo[name]

    out = []
    for ev in events:
        if ev not in metrics:
            continue
        f = form(ev, ())
        if not f or set(f) == {ev}:
            continue
        coeffs = {k: -v for k, v in f.items()}
        coeffs[ev] = coeffs.get(ev, 0.0) + 1.0
        if any(v != 0 for v in coeffs.values()):
            out.append(Relation.from_coeffs(f"metric:{ev}", coeffs, "==",
                                            description=f"{ev} == {metrics[ev].expr}",
                                            source=metrics[ev].source))
    return out


def _is_identity(item: Any) -> bool:
    """``(lhs, [(coef, event), ...])`` as in `mpx.datasets.synthetic.identities` / ``trace.meta['identities']``."""
    if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)):
        return False
    terms = item[1]
    return isinstance(terms, (tuple, list)) and all(
        isinstance(t, (tuple, list)) and len(t) == 2 and isinstance(t[1], str)
        and isinstance(t[0], (int, float)) and not isinstance(t[0], bool) for t in terms)


def _gather(spec: Any, events: tuple[str, ...], out: list[Any], notes: list[str]) -> None:

    if spec is None:
        return
    if isinstance(spec, Relation):
        out.append(spec)
    elif isinstance(spec, Catalog):
        out.extend(spec.relations)
        derived = metric_identities(spec, events)
        if derived:
            notes.append(f"{len(derived)} identities from metric formulas of catalog {spec.name!r}: "
                         + ", ".join(r.name for r in derived))
        out.extend(derived)
    elif isinstance(spec, str):
        text = spec.strip()
        if text == "gem5-totals":
            out.extend(vector_total_relations(events))
        elif any(op in text for op in ("==", "<=", ">=")):
            try:
                out.append(Relation.from_expr(text, text))
            except Exception as exc:  # FormatError from the expression parser
                raise ConfigError(f"relation {text!r}: {exc}") from None
        elif text in builtin_names():
            _gather(builtin(text), events, out, notes)
        elif os.path.exists(text):
            _gather(load_catalog(text), events, out, notes)
        else:
            raise ConfigError(f"relations: {text!r} is not a relation ('a + b == c', 'a <= b'), a built-in catalog "
                              f"({', '.join(builtin_names())}), 'gem5-totals' or a catalog file")
    elif _is_identity(spec):
        lhs, terms = spec
        coeffs: dict[str, float] = {lhs: -1.0}
        for c, e in terms:
            coeffs[e] = coeffs.get(e, 0.0) + float(c)
        if any(v != 0 for v in coeffs.values()):
            name = f"identity:{lhs}"
            taken = {r.name for r in out}
            n = 2
            while name in taken:
                name, n = f"identity:{lhs}#{n}", n + 1
            out.append(Relation.from_coeffs(name, coeffs, "==", description=f"{lhs} = "
                                            + " + ".join(f"{c:g}*{e}" for c, e in terms)))
    elif isinstance(spec, Mapping):
        raise ConfigError("relations: a mapping is ambiguous; pass a Catalog, Relation objects, relation text "
                          "or synthetic identities (trace.meta['identities'])")
    elif isinstance(spec, Iterable):
        for item in spec:
            _gather(item, events, out, notes)
    else:
        raise ConfigError(f"relations: cannot read relations from {spec!r} (a Catalog, a built-in catalog name, "
                          "Relation objects, relation text, synthetic identities or 'gem5-totals')")


def relation_set(spec: Any, events: Iterable[str]) -> RelationSet:
    """A `RelationSet` over ``events`` (plus latent variables) from ``spec`` (see the module docstring).

    Relations whose coefficients are not finite are dropped with a note, as are exact duplicates
    (rows equal after scaling). A relation that mentions no event of the problem and shares no latent
    variable with one that does carries no information about the problem and is dropped too.
    """
    events = tuple(events)
    rels: list[Any] = []
    notes: list[str] = []
    _gather(spec, events, rels, notes)
    dropped: list[dict] = []
    ok = []
    for r in rels:
        if not all(np.isfinite(c) for _, c in r.terms):
            dropped.append({"what": f"relation {r.name}", "why": "a coefficient is not finite"})
        else:
            ok.append(r)
    # keep relations connected (through latent variables) to some event of the problem
    evset = set(events)
    keep = [any(e in evset for e in r.events) for r in ok]
    reach = {e for r, k in zip(ok, keep) if k for e in r.events}
    changed = True
    while changed:
        changed = False
        for i, r in enumerate(ok):
            if not keep[i] and r.events & reach:
                keep[i] = True
                reach |= r.events
                changed = True
    for r, k in zip(ok, keep):
        if not k:
            dropped.append({"what": f"relation {r.name}", "why": "none of its events is in the problem or tied to one"})
    ok = [r for r, k in zip(ok, keep) if k]
    latent = tuple(dict.fromkeys(e for r in ok for e in sorted(r.events) if e not in evset))
    variables = events + latent
    index = {v: i for i, v in enumerate(variables)}
    rows: dict[str, list[tuple[str, np.ndarray]]] = {"==": [], "<=": []}
    seen: set[tuple] = set()
    for r in ok:
        row = np.zeros(len(variables))
        for e, c in r.terms:
            row[index[e]] += c
        scale = np.abs(row).max()
        if scale == 0:
            dropped.append({"what": f"relation {r.name}", "why": "all coefficients cancel"})
            continue
        key_row = row / scale
        if r.kind == "==":
            key_row = key_row * np.sign(key_row[np.flatnonzero(key_row)[0]])
        key = (r.kind, tuple(np.round(key_row, 12)))
        if key in seen:
            notes.append(f"relation {r.name} repeats another one: kept once")
            continue
        seen.add(key)
        rows[r.kind].append((r.name, row))
    if latent:
        notes.append(f"latent variables (in relations, not measured): {', '.join(latent)}")
    v = len(variables)
    eq = np.array([x for _, x in rows["=="]]).reshape(-1, v)
    ineq = np.array([x for _, x in rows["<="]]).reshape(-1, v)
    return RelationSet(variables, len(events), eq, ineq, tuple(n for n, _ in rows["=="]),
                       tuple(n for n, _ in rows["<="]), tuple(notes), tuple(dropped))


# -- discretised exact reference --------------------------------------------------------------------


def discretised_posterior(variables: Iterable[str], grids: Mapping[str, np.ndarray], loglik: Mapping[str, np.ndarray],
                          eq: np.ndarray | None = None, ineq: np.ndarray | None = None
                          ) -> dict[str, tuple[float, float]]:
    """Exact posterior mean and std of each variable on a discretised factor graph (pgmpy).

    Each variable ``v`` takes the values ``grids[v]``; its unary factor is ``exp(loglik[v])`` (e.g. a
    Gaussian measurement's log-density on the grid). Each row ``a`` of ``ineq`` is the factor
    ``1[a·x <= 0]`` (see below); each row of ``eq`` the hat kernel ``max(0, 1 - |a·x|/delta)`` with ``delta`` the
    largest ``|a_i| * step_i`` of its variables (on grids of one step whose offsets line up, e.g.
    ``c = a + b``, that is the exact indicator of ``a·x == 0``). Inference: pgmpy's `BeliefPropagation`
    on the factor graph (exact: it calibrates a junction tree). For small graphs only — a factor over
    ``n`` variables has ``prod(len(grid))`` entries.

    Each grid point stands for a cell, so an inequality counts a tie (``a·x == 0``) half and ramps
    linearly over ``±delta/2`` (second-order accurate in the step, where a hard ``<=`` is first-order).
    """
    FactorGraph, DiscreteFactor, BeliefPropagation = _pgmpy()
    variables = tuple(variables)
    fg = FactorGraph()
    fg.add_nodes_from(variables)
    factors = []
    for v in variables:
        g = np.asarray(grids[v], dtype=float)
        ll = np.asarray(loglik[v], dtype=float)
        if g.shape != ll.shape or g.ndim != 1:
            raise ConfigError(f"discretised_posterior: grid and log-likelihood of {v!r} differ in shape")
        factors.append(DiscreteFactor([v], [g.size], np.exp(ll - ll.max())))
    for rows, kind in ((eq, "=="), (ineq, "<=")):
        if rows is None:
            continue
        for row in np.atleast_2d(np.asarray(rows, dtype=float)):
            idx = np.flatnonzero(row)
            scope = [variables[i] for i in idx]
            mesh = np.meshgrid(*[np.asarray(grids[v], dtype=float) for v in scope], indexing="ij")
            res = sum(row[i] * m for i, m in zip(idx, mesh))
            delta = max(abs(row[i]) * float(np.min(np.diff(grids[variables[i]]))) for i in idx)
            if kind == "<=":
                val = np.clip(0.5 - res / delta, 0.0, 1.0)
            else:
                val = np.maximum(0.0, 1.0 - np.abs(res) / delta)
            factors.append(DiscreteFactor(scope, list(val.shape), val.ravel()))
    for f in factors:
        fg.add_node(f)
        fg.add_edges_from((v, f) for v in f.variables)
    fg.add_factors(*factors)
    fg.check_model()
    bp = BeliefPropagation(fg)
    out = {}
    for v in variables:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            marg = bp.query([v], show_progress=False) if _accepts_progress(bp) else bp.query([v])
        p = np.asarray(marg.values, dtype=float)
        p = p / p.sum()
        g = np.asarray(grids[v], dtype=float)
        mean = float(p @ g)
        out[v] = (mean, float(np.sqrt(max(p @ (g - mean) ** 2, 0.0))))
    return out


def _accepts_progress(bp: Any) -> bool:

    try:
        return "show_progress" in inspect.signature(bp.query).parameters
    except (TypeError, ValueError):
        return False


def marginalize_latent(rs: RelationSet, nonnegative: bool = True, tol: float = 1e-12) -> RelationSet:
    """``rs`` with every latent variable integrated out under a flat prior on ``x >= 0`` — the prior that
    says nothing about a count no counter ever measures, but that it is a count.

    A latent variable ``l`` in an identity ``a_l x_l + r·x = 0`` is ``x_l = -(r·x) / a_l``: substituted into
    the other relations, the identity itself leaves only what ``x_l >= 0`` implies, the inequality
    ``(r·x) / a_l <= 0`` (``demandAccesses == demandHits + demandMisses`` with ``demandHits`` never measured
    becomes ``demandMisses <= demandAccesses``: true, where a prior centred at 0 would pull ``demandMisses``
    towards ``demandAccesses``). A latent variable left only in inequalities (no identity to solve for it)
    takes those rows with it: one such row alone holds for some ``x_l >= 0`` whatever the measured events
    are; two of opposite sign could together bound measured events (Fourier-Motzkin, not done here), so
    dropping them may lose information but adds none that is false. With ``nonnegative=False`` (a flat prior on every real) an identity through a
    latent variable implies nothing and goes. The result has no latent variable; its notes say what was done."""
    n = rs.n_events
    if len(rs.variables) == n:
        return rs
    eq = [np.asarray(r, dtype=float) for r in rs.eq]
    ineq = [np.asarray(r, dtype=float) for r in rs.ineq]
    eq_names, ineq_names = list(rs.eq_names), list(rs.ineq_names)
    solved, gone = [], 0
    for col in range(n, len(rs.variables)):
        pivots = [i for i, r in enumerate(eq) if abs(r[col]) > tol]
        if not pivots:
            keep = [i for i, r in enumerate(ineq) if abs(r[col]) <= tol]
            gone += len(ineq) - len(keep)
            ineq, ineq_names = [ineq[i] for i in keep], [ineq_names[i] for i in keep]
            continue
        p = pivots[0]
        row, name = eq.pop(p), eq_names.pop(p)
        a = row[col]
        for rows in (eq, ineq):
            for i, r in enumerate(rows):
                if abs(r[col]) > tol:
                    rows[i] = r - (r[col] / a) * row
        if nonnegative:  # x_l = -(r·x)/a >= 0  <=>  (r·x)/a <= 0 (the row's own x_l column is dropped below)
            ineq.append(row / a)
            ineq_names.append(f"{rs.variables[col]} >= 0 in {name}")
        solved.append(rs.variables[col])

    def clean(rows: list[np.ndarray], names: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
        out, kept = [], []
        for r, nm in zip(rows, names):
            r = r[:n].copy()
            if np.abs(r).max(initial=0.0) > tol * max(1.0, np.abs(r).max(initial=0.0)):
                out.append(r)
                kept.append(nm)
        return (np.array(out, dtype=float).reshape(len(out), n), tuple(kept))

    new_eq, new_eq_names = clean(eq, eq_names)
    new_ineq, new_ineq_names = clean(ineq, ineq_names)
    notes = (*rs.notes, f"latent variables integrated out under a flat prior on x >= 0: {len(solved)} solved from an "
             f"identity (its identity became the inequality its x >= 0 implies), {len(rs.variables) - n - len(solved)} "
             f"only in inequalities ({gone} rows dropped: they bind no measured event)")
    return RelationSet(variables=rs.variables[:n], n_events=n, eq=new_eq, ineq=new_ineq, eq_names=new_eq_names,
                       ineq_names=new_ineq_names, notes=notes, dropped=rs.dropped)


def informative_identities(rs: RelationSet, ran: np.ndarray) -> RelationSet:
    """``rs`` without the identities that cannot inform under this schedule: an identity (over measured
    events only — integrate latent ones out first, `marginalize_latent`) pins a member in a read window only
    when every other member was counted in that window (``ran[W, E]``: the event ran in some quantum of it).
    An identity for which no window has all but one of its members counted never determines an uncounted
    member; conditioning on it only spreads the residual of its large terms onto its small ones (issue 28:
    ``serializeStallCycles`` 100 % -> 4,756 % on gem5-sqlite at 2 counters). The dropped identities are named
    in the notes. Inequalities stay: they only cut off what cannot be."""
    if not rs.eq.size or len(rs.variables) != rs.n_events:
        return rs
    ran = np.asarray(ran, dtype=bool)
    keep, gone = [], []
    for i, row in enumerate(rs.eq):
        members = np.flatnonzero(np.abs(row) > 0)
        counted = ran[:, members].sum(axis=1) if ran.size else np.zeros(1)
        (keep if counted.max(initial=0) >= members.size - 1 else gone).append(i)
    if not gone:
        return rs
    notes = (*rs.notes, f"{len(gone)} identit{'y' if len(gone) == 1 else 'ies'} dropped: no read window counts all but "
             f"one of its members, so it pins nothing ({', '.join(rs.eq_names[i] for i in gone[:4]) if rs.eq_names else ''})")
    return RelationSet(variables=rs.variables, n_events=rs.n_events, eq=rs.eq[keep], ineq=rs.ineq,
                       eq_names=tuple(rs.eq_names[i] for i in keep) if rs.eq_names else (), ineq_names=rs.ineq_names,
                       notes=notes, dropped=rs.dropped)
