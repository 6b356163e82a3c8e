"""A run set: the same program run several times, ground truth for every run (`RunSet`).

Trace alignment (`mpx.aligners`) counts one group of events per run and merges the runs, so it needs
repeated runs that differ as real runs do. A run set is a folder::

    NAME.runs/
        runs.json          # {"format": "mpx-runs", "version": 1, "workload", "runs": [{"file", "varied"}...], "meta"}
        run-00.npz ...     # one native Trace per run

``varied`` says, per run, what was made to differ (a hash seed, the environment's size, ASLR): the
variation a reader must know to judge the runs. `RunSet.variation` measures how much they differ.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mpx import strict_json
from mpx.errors import FormatError
from mpx.trace import Trace, load_trace

MANIFEST = "runs.json"
FORMAT_NAME = "mpx-runs"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class RunSet:
    """``traces[i]`` is run ``i`` of one program; ``varied[i]`` what was made to differ in it."""

    workload: str
    traces: tuple[Trace, ...]
    varied: tuple[dict, ...]
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "traces", tuple(self.traces))
        object.__setattr__(self, "varied", tuple(dict(v) for v in self.varied))
        if len(self.traces) < 1:
            raise ValueError("a run set needs at least one run")
        if len(self.varied) != len(self.traces):
            raise ValueError(f"{len(self.traces)} runs but {len(self.varied)} 'varied' entries")
        first = self.traces[0]
        for i, t in enumerate(self.traces[1:], 1):
            if t.time_unit != first.time_unit:
                raise ValueError(f"run {i} has time unit {t.time_unit!r}, run 0 {first.time_unit!r}")
            if set(t.events) != set(first.events):
                diff = sorted(set(t.events) ^ set(first.events))[:5]
                raise ValueError(f"run {i} does not count the same events as run 0 (e.g. {diff})")

    def __len__(self) -> int:
        return len(self.traces)

    @property
    def events(self) -> tuple[str, ...]:
        return self.traces[0].events

    def save(self, folder: str | os.PathLike) -> Path:
        """Write the folder (traces first, the manifest last, so a half-written set has no manifest)."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        runs = []
        for i, (t, v) in enumerate(zip(self.traces, self.varied)):
            name = f"run-{i:02d}.npz"
            t.save(out / name)
            runs.append({"file": name, "varied": v})
        doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "workload": self.workload, "runs": runs,
               "meta": self.meta}
        tmp = out / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        tmp.replace(out / MANIFEST)
        return out

    @classmethod
    def load(cls, folder: str | os.PathLike) -> RunSet:
        """Read a run-set folder; a `FormatError` names the file and what is wrong."""
        folder = Path(folder)
        path = folder / MANIFEST
        if not path.is_file():
            raise FormatError(path, None, f"not a run set: no {MANIFEST} (a half-written set has none)")
        try:
            doc = strict_json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FormatError(path, getattr(exc, "lineno", None), f"not valid JSON: {exc}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
            raise FormatError(path, None, f"'format' must be {FORMAT_NAME!r}")
        if not isinstance(doc.get("version"), int) or doc["version"] > FORMAT_VERSION:
            raise FormatError(path, None, f"version {doc.get('version')!r}: this mpx reads up to {FORMAT_VERSION}")
        runs = doc.get("runs")
        if not isinstance(runs, list) or not runs:
            raise FormatError(path, None, "'runs' must be a non-empty list")
        traces, varied = [], []
        for i, r in enumerate(runs):
            if not isinstance(r, dict) or not isinstance(r.get("file"), str) or "/" in r["file"]:
                raise FormatError(path, None, f"runs[{i}] must be {{'file': NAME in this folder, 'varied': {{...}}}}")
            if not isinstance(r.get("varied", {}), dict):
                raise FormatError(path, None, f"runs[{i}].varied must be a table")
            traces.append(load_trace(folder / r["file"]))
            varied.append(r.get("varied", {}))
        try:
            return cls(str(doc.get("workload", folder.name)), tuple(traces), tuple(varied), dict(doc.get("meta", {})))
        except ValueError as exc:
            raise FormatError(path, None, str(exc)) from None

    def on_estimated_cycles(self) -> RunSet:
        """Every run on KCachegrind's estimated-cycle axis (`on_estimated_cycles`)."""
        return RunSet(self.workload, tuple(on_estimated_cycles(t) for t in self.traces), self.varied,
                      {**self.meta, "axis": "estimated cycles"})

    def variation(self, events: Sequence[str] | None = None, phases: int = 10) -> dict[str, Any]:
        """How much the runs differ, per event: of the whole-run totals and per phase.

        A phase is one of ``phases`` equal slices of each run's own time axis (so phase p of every run is
        the same share of its progress). ``total_cv``: coefficient of variation of an event's total across
        runs; ``phase_cv``: the median over phases of the coefficient of variation of the event's count in
        that phase; ``length_cv``: of the runs' lengths. With one run every figure is 0.
        """
        names = tuple(events) if events is not None else self.events
        totals = np.array([[t.counts[:, t.index(e)].sum() for e in names] for t in self.traces])
        per_phase = np.zeros((len(self.traces), phases, len(names)))
        for r, t in enumerate(self.traces):
            per_phase[r] = t.rebin(names, np.linspace(t.edges[0], t.edges[-1], phases + 1))
        lengths = np.array([t.edges[-1] - t.edges[0] for t in self.traces])
        return {"events": names, "runs": len(self.traces), "total_cv": _cv(totals),
                "phase_cv": np.median(_cv(per_phase), axis=0), "length_cv": float(_cv(lengths[:, None])[0])}


def _cv(a: np.ndarray) -> np.ndarray:
    """Coefficient of variation over the first axis (runs); 0 where the mean is 0."""
    mean = a.mean(axis=0)
    return np.divide(a.std(axis=0), mean, out=np.zeros(mean.shape), where=mean > 0)


CEST_WEIGHTS = {"Ir": 1, "Bim": 10, "Bcm": 10, "I1mr": 10, "D1mr": 10, "D1mw": 10, "Ge": 20,
                "ILmr": 100, "DLmr": 100, "DLmw": 100}
"""KCachegrind's "Cycle Estimation": ``CEst = Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm`` with
``Bm = Bim + Bcm``, ``L1m = I1mr + D1mr + D1mw``, ``LLm = ILmr + DLmr + DLmw`` (KDE/kcachegrind
``libcore/globalconfig.cpp``, ``GlobalConfig::knownFormula``; callgrind has no L2 level here)."""


def on_estimated_cycles(trace: Trace) -> Trace:
    """A callgrind trace moved onto KCachegrind's estimated-cycle axis (`CEST_WEIGHTS`).

    Callgrind's own axis is instructions retired, on which the instruction rate is constant: nothing to
    align on. A cost model of cycles turns it into a time axis on which instructions per cycle vary with
    the misses, as on hardware. Counts are unchanged; only the interval boundaries move."""
    missing = [e for e in CEST_WEIGHTS if e not in trace.events and e != "Ge"]
    if missing:
        raise ValueError(f"estimated cycles need the callgrind events {missing} (trace "
                         f"{trace.meta.get('workload', '?')!r} has {list(trace.events)[:8]}...)")
    cost = sum(w * trace.counts[:, trace.index(e)] for e, w in CEST_WEIGHTS.items() if e in trace.events)
    if np.any(cost <= 0):
        raise ValueError("an interval has no estimated cycles (no instructions): cannot be a time axis")
    edges = np.concatenate([[0.0], np.cumsum(cost)])
    meta = {**trace.meta, "time_axis": "KCachegrind's estimated cycles (mpx.recording.runset.CEST_WEIGHTS) over "
            f"callgrind's intervals; was: {trace.meta.get('time_axis', trace.time_unit)}"}
    return Trace(trace.events, trace.counts, edges, "cycles", meta=meta, aux_names=trace.aux_names, aux=trace.aux)


def vary(trace: Trace, runs: int, *, warp: float = 0.0, rate_noise: float = 0.0, offset: float = 0.0,
         segments: int = 20, seed: int = 0) -> RunSet:
    """A **synthetic** run set: ``runs`` copies of one real run, each perturbed independently (for controlled
    studies of how much run-to-run variation trace alignment tolerates; never instead of real runs).

    The run is cut into ``segments`` equal stretches of its intervals; in each copy and stretch:

    - ``warp``: the stretch lasts ``exp(N(0, warp))`` times as long (phases speed up and slow down, as
      with frequency changes or interference): edges move, counts do not;
    - ``rate_noise``: every event's counts in the stretch are multiplied by ``exp(N(0, rate_noise))``
      (the work done differs, as with other inputs or cache contention);
    - ``offset``: the copy starts after an idle interval of ``U(0, offset)`` times the median interval
      (a launch delay: the read windows fall at other points of the program).

    With all three 0 the copies equal the run. ``meta['synthetic']`` holds the model and its parameters.
    """
    if runs < 1 or segments < 1 or min(warp, rate_noise, offset) < 0:
        raise ValueError("vary: runs and segments must be >= 1, warp, rate_noise and offset >= 0")
    rng = np.random.default_rng(seed)
    n = trace.n_intervals
    seg = np.minimum(np.arange(n) * segments // max(n, 1), segments - 1)
    widths = np.diff(trace.edges)
    median = float(np.median(widths))
    traces, varied = [], []
    for i in range(runs):
        stretch = np.exp(rng.normal(0.0, warp, segments))[seg] if warp else np.ones(n)
        factor = np.exp(rng.normal(0.0, rate_noise, (segments, trace.n_events)))[seg] if rate_noise else 1.0
        delay = float(rng.uniform(0.0, offset)) * median if offset else 0.0
        counts = np.round(trace.counts * factor)
        w = widths * stretch
        if delay > 0:
            counts = np.vstack([np.zeros((1, trace.n_events)), counts])
            w = np.concatenate([[delay], w])
        edges = trace.edges[0] + np.concatenate([[0.0], np.cumsum(w)])
        model = {"model": "mpx.recording.runset.vary", "warp": warp, "rate_noise": rate_noise, "offset": offset,
                 "segments": segments, "seed": seed, "copy": i}
        traces.append(Trace(trace.events, counts, edges, trace.time_unit, meta={**trace.meta, "synthetic": model}))
        varied.append({"synthetic": True, "delay": delay})
    return RunSet(f"{trace.meta.get('workload', 'run')}~synthetic", tuple(traces), tuple(varied),
                  {"synthetic": {"warp": warp, "rate_noise": rate_noise, "offset": offset, "segments": segments,
                                 "seed": seed, "from": trace.meta.get("workload")}})


def is_runset(path: str | os.PathLike) -> bool:
    return (Path(path) / MANIFEST).is_file()
