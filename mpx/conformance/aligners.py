"""Conformance checks every aligner must pass (`mpx.aligners`), like `mpx.conformance.scalers`.

Each check ``check_<name>(aligner)`` is listed in `ALIGNER_CHECKS` and runs the aligner on three small
runs of one generic trace (`mpx.conformance.scalers.generic_trace`), each counting one group of its
events for the whole run plus the anchor ``cycles``:

1. **interface**: ``name`` and ``source`` are set, the constructor stores its parameters unchanged,
   ``param_constraints`` name parameters, ``clone`` works;
2. **identical_runs**: on three identical runs every event's estimate is its true count (to 1e-9) in every
   window — or, for an aligner that declares ``exact_on_identical_runs = False`` (Fuse: clusters ignore
   order on purpose), in the whole run;
3. **keeps_reference** (``merge="reference"``): the reference's own counts come out unchanged, whatever
   the other runs hold;
4. **deterministic**: two calls and a clone give identical estimates;
5. **anchor**: a run without the anchor in every window is refused with a ConfigError, and so is the
   time axis when the aligner needs a rate (``needs_rate``).

``check_aligner(aligner)`` runs them all and raises one `~mpx.conformance.common.ConformanceError` listing
every failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mpx.aligners.base import Aligner
from mpx.conformance.common import ConformanceError, param_failures
from mpx.conformance.scalers import generic_trace
from mpx.errors import ConfigError
from mpx.aligners.measure import TIME_ANCHOR
from mpx.scalers.base import Estimate

_GROUPS = (("a", "b"), ("c", "d"), ("e",))


def _runs(seeds: tuple[int, int, int] = (0, 0, 0)) -> tuple[list[Estimate], np.ndarray]:
    """Three runs, run i counting group i and the anchor ``cycles`` exactly on read windows of 2 intervals."""
    out = []
    truth = None
    for i, seed in enumerate(seeds):
        t = generic_trace(seed)
        events = ("cycles", "a", "b", "c", "d", "e")
        edges = t.edges[::2]
        counts = t.rebin(events, edges)
        if i == 0:
            truth = counts
        mask = np.array([e == "cycles" or e in _GROUPS[i] for e in events])
        shown = np.where(mask, counts, np.nan)
        out.append(Estimate(events, edges, shown, np.broadcast_to(~mask, counts.shape).copy(),
                            ran=np.broadcast_to(mask, counts.shape).copy()))
    return out, truth


def _anchor(a: Aligner) -> str:
    return "cycles"


def _fail(check: str, a: Aligner, failures: list[str] | str) -> ConformanceError:
    return ConformanceError("aligner", check, f"{type(a).__name__}({a.name or '?'})", failures)


def check_interface(a: Aligner) -> None:
    """``name`` and ``source`` set; the parameter protocol (`mpx.conformance.common.param_failures`)."""
    fails = [] if a.name and a.source else ["name and source must be set"]
    fails += param_failures(a)
    if fails:
        raise _fail("interface", a, fails)


def check_identical_runs(a: Aligner) -> None:
    runs, truth = _runs()
    est = a.align(runs, _anchor(a))
    exact = a.tags().exact_on_identical_runs
    got, want = (est.counts, truth) if exact else (est.counts.sum(0), truth.sum(0))
    if est.not_estimated.any() or not np.allclose(got, want, rtol=1e-12, atol=1e-9):
        raise _fail("identical_runs", a, f"identical runs: estimate differs from the truth by up to "
                          f"{np.nanmax(np.abs(got - want)):.3g}"
                          + ("" if exact else " (whole-run totals)"))


def check_keeps_reference(a: Aligner) -> None:
    if a.get_params().get("merge", "reference") != "reference":
        return
    runs, _ = _runs((0, 1, 2))
    est = a.align(runs, _anchor(a))
    own = ~runs[0].not_estimated
    if not np.array_equal(est.counts[own], runs[0].counts[own]):
        raise _fail("keeps_reference", a, "merge='reference' changed the reference's own counts")


def check_deterministic(a: Aligner) -> None:
    runs, _ = _runs((0, 1, 2))
    x, y, z = a.align(runs, _anchor(a)), a.align(runs, _anchor(a)), a.clone().align(runs, _anchor(a))
    if not (np.array_equal(x.counts, y.counts, equal_nan=True) and np.array_equal(x.counts, z.counts, equal_nan=True)):
        raise _fail("deterministic", a, "two calls (or a clone) gave different estimates")


def check_anchor(a: Aligner) -> None:
    runs, _ = _runs()
    try:
        a.align(runs, "a")  # counted by run 0 only
    except ConfigError:
        pass
    else:
        raise _fail("anchor", a, "accepted an anchor that not every run counted")
    if a.tags().needs_rate:
        try:
            a.align(runs, TIME_ANCHOR)
        except ConfigError:
            return
        raise _fail("anchor", a, "needs a rate but accepted the time axis as anchor")


ALIGNER_CHECKS: dict[str, Callable[[Aligner], None]] = {
    "interface": check_interface, "identical_runs": check_identical_runs,
    "keeps_reference": check_keeps_reference, "deterministic": check_deterministic, "anchor": check_anchor}


def check_aligner(aligner: Any, **params: Any) -> dict[str, Any]:
    """Every aligner check (`mpx.conformance.suites.check` of kind ``"aligner"``) on ``aligner`` (an instance,
    a class or a registry name, with ``params``); one `ConformanceError` listing every failure."""
    from mpx.conformance.suites import check

    return check("aligner", aligner, params or None)
