"""Reproducible benchmark of mpx's costs, measured in one run on one machine: `run_bench`.

What is timed (wall clock, best of ``repeat`` calls after one untimed warm-up call that loads numba's
compiled kernels):

- **replay**: one `mpx.multiplex.multiplex` call (schedule, quanta, apportioning, read view) of a trace
  with a static scheduler (perf's rotation); reported as quanta per second and event-quanta per second.
  Default input: the synthetic ``tma`` trace and its built-in catalog's 11 events on N generic counters,
  plus cycles on a fixed counter (as on real cores, so the scalers that need a cycles count run too);
- **each registered scaler**: ``estimate(observation)`` on that replay (learned scalers are first fitted,
  untimed, on a second trace of the same kind with another seed); reported as read windows per second and
  event-windows per second, and as ratios to the ``linear`` scaler and to the replay measured in the run;
- **grouping**: `mpx.grouping.partitioned.group_events` on the benchmark's problem (the ``hypergraph`` scheduler's work);
- **partitioners**: `mpx.partition.partition` (with `mpx.grouping.partitioned.grouping_context`) against KaHyPar and
  Mt-KaHyPar, when importable (`mpx.partition.external`, each in a subprocess, timed around its partition
  call), on one random event instance (`mpx.grouping.instances`: n events, n metrics of 2–4 events, caps C)
  and optionally on an hMetis file (e.g. ISPD98 ibm01) under ε = 0.03; km1 and time relative to mpx's.

The report describes the machine (CPU model, logical cores and the cores this process may use, load
average before and after, Python, numpy, numba and scipy versions, mpx code version): absolute numbers
only compare on one machine, ratios measured in the same run travel better.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable

from mpx.errors import ConfigError, MpxError
from mpx.util.fmt import eng

__all__ = ["machine", "run_bench", "format_report"]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _version(mod: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(mod)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine() -> dict[str, Any]:
    """The machine and software the numbers were measured on."""
    from mpx import code_version

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    return {"cpu_model": _cpu_model(), "logical_cores": os.cpu_count(), "usable_cores": usable,
            "platform": platform.platform(), "python": platform.python_version(),
            "numpy": _version("numpy"), "numba": _version("numba"), "scipy": _version("scipy"),
            "mpx": code_version(), "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(best seconds, median seconds, last result) of ``repeat`` calls."""
    import numpy as np

    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times)), out


def _inputs(preset: str | None, dataset: str | None, intervals: int | None, counters: int) -> tuple[Any, Any, Any, str]:
    """(trace, training trace, problem, description) of the benchmark input."""
    from mpx.metrics import builtin
    from mpx.pmu import preset as pmu_preset
    from mpx.problem import Problem
    from mpx.scoring.replay import other_workloads

    pmu = pmu_preset(f"generic-{counters}")
    if dataset is not None:
        from mpx.datasets import shipped as datasets

        names = datasets.names()
        if dataset not in names:
            raise ConfigError(f"--dataset {dataset!r}: not a shipped dataset; shipped: {', '.join(names)}")
        trace = datasets.load(dataset)
        other = other_workloads(names, dataset, workload_of=lambda n: n)[0]
        train = datasets.load(other)
        problem = Problem.from_catalog(builtin("callgrind"), pmu)
        desc = f"shipped dataset {dataset} ({trace.n_intervals} intervals; learned scalers fitted on {other})"
    else:
        from mpx.datasets.synthetic import PRESETS, synth

        if preset != "tma" or preset not in PRESETS:
            raise ConfigError(f"--preset {preset!r}: the benchmark needs a preset with a built-in metric catalog: tma")
        trace = synth(preset, intervals=intervals, seed=0)
        train = synth(preset, intervals=intervals, seed=1)
        # cycles on a fixed counter, as on real cores: the scalers that need a cycles count (papi_sw) run too
        from mpx.pmu import PMU

        pmu = PMU.from_dict({"name": f"generic-{counters}+fixed-cycles",
                             "units": {"cpu": {"generic": counters, "fixed": {"fixed0": ["cycles"]}}}})
        p = Problem.from_catalog(builtin(preset), pmu)
        problem = Problem(p.events + ("cycles",), pmu, groups=p.groups, metrics=p.metrics, software=p.software,
                          meta=p.meta, relations=p.relations)
        desc = f"synthetic preset {preset}, {trace.n_intervals} intervals (learned scalers fitted on seed 1)"
    missing = [e for e in problem.events if e not in trace.events]
    if missing:
        raise ConfigError(f"benchmark input lacks the problem's events {missing}")
    return trace, train, problem, desc


#: scalers timed with other than their defaults, and why: PAPI's 25,000-cycle slice threshold is above the
#: cycles of this synthetic quantum, so with it papi_sw has no rate and declines (timing nothing)
SCALER_PARAMS: dict[str, dict[str, Any]] = {"papi_sw": {"min_cycles": 0}}


def run_bench(*, quick: bool = False, preset: str = "tma", dataset: str | None = None, intervals: int | None = None,
              counters: int = 4, read_every: int = 4, repeat: int | None = None, events_n: int | None = None,
              events_cap: int | None = None, hgr: str | None = None, hgr_k: int = 8, kahypar_ini: str | None = None,
              tools: tuple[str, ...] = ("kahypar", "mtkahypar"), scalers_use: list[str] | None = None,
              log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure everything (see the module docstring) and return a JSON-able report.

    ``quick``: 2,000 intervals, one timed call each, a 200-event partitioning instance — a few seconds.
    Defaults otherwise: 50,000 intervals, best of 3, 2,000 events with caps of 8. ``kahypar_ini`` is
    KaHyPar's configuration file (without it KaHyPar is reported as skipped)."""
    from mpx import scalers
    from mpx.scoring.replay import scaler_spec
    from mpx.multiplex import multiplex, resolve_quantum

    say = log or (lambda s: None)
    intervals = intervals or (2000 if quick else 50_000)
    repeat = repeat or (1 if quick else 3)
    events_n = events_n or (200 if quick else 2000)
    events_cap = events_cap or (4 if quick else 8)
    for name, v, lo in (("intervals", intervals, 10), ("repeat", repeat, 1), ("counters", counters, 1),
                        ("read_every", read_every, 1), ("events_cap", events_cap, 1), ("events_n", events_n, 2),
                        ("hgr_k", hgr_k, 2)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ConfigError(f"bench: {name} must be an integer >= {lo}, got {v!r}")
    if events_n <= events_cap:
        raise ConfigError(f"bench: the event instance needs more events ({events_n}) than the cap ({events_cap})")
    names = scalers_use or scalers.REGISTRY.select("all")
    unknown = [n for n in names if n not in scalers.available()]
    if unknown:
        raise ConfigError(f"bench: unknown scaler(s) {unknown}; available: {', '.join(scalers.available())}")
    if hgr is not None and not Path(hgr).is_file():
        raise ConfigError(f"bench: --hgr {hgr!r}: no such file")
    report: dict[str, Any] = {"machine": machine()}
    t_all = time.perf_counter()
    trace, train, problem, desc = _inputs(None if dataset else preset, dataset, intervals, counters)
    quantum, _ = resolve_quantum(None, trace)  # one median trace interval
    report["settings"] = {"input": desc, "events": problem.n_events, "counters": counters,
                          "pmu": problem.pmu.name, "scheduler": "perf", "quantum": "1 median trace interval",
                          "read_every": read_every, "repeat": repeat, "quick": quick,
                          "timing": f"wall clock, best of {repeat} after one untimed warm-up call"}

    # -- replay ------------------------------------------------------------------------------------
    say("replay ...")
    run = lambda: multiplex(trace, problem, "perf", quantum, read_every)  # noqa: E731
    t = time.perf_counter()
    obs = run()
    warm = time.perf_counter() - t
    best, med, obs = _best(run, repeat)
    nq, ne = obs.n_quanta, problem.n_events
    report["replay"] = {"seconds": best, "median_seconds": med, "first_call_seconds": warm, "quanta": nq,
                        "events": ne, "read_windows": int(obs.reads.n_reads), "quanta_per_s": nq / best, "event_quanta_per_s": nq * ne / best}

    # -- scalers -----------------------------------------------------------------------------------
    names = scalers_use or scalers.REGISTRY.select("all")
    rows = []
    for name in names:
        say(f"scaler {name} ...")
        row: dict[str, Any] = {"scaler": name}
        try:
            _, params = scaler_spec(name, SCALER_PARAMS.get(name, {}))
            s = scalers.get(name, **params)
            row["causal"] = s.tags().causal
            if s.tags().learned:
                t = time.perf_counter()
                s.fit([train])
                row["fit_seconds"] = time.perf_counter() - t
            s.estimate(obs)  # warm-up
            best, med, est = _best(lambda: s.estimate(obs), repeat)
            w, e = est.counts.shape
            row.update(status="done", seconds=best, median_seconds=med, read_windows=w,
                       windows_per_s=w / best, event_windows_per_s=w * e / best,
                       seconds_vs_replay=best / report["replay"]["seconds"])
        except MpxError as exc:
            row.update(status="skipped", reason=f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # a broken scaler must not stop the benchmark: reported as such
            row.update(status="error", reason=f"{type(exc).__name__}: {exc}")
        rows.append(row)
    lin = next((r for r in rows if r["scaler"] == "linear" and r["status"] == "done"), None)
    for r in rows:
        if lin is not None and r["status"] == "done":
            r["throughput_vs_linear"] = r["event_windows_per_s"] / lin["event_windows_per_s"]
    report["scalers"] = rows

    # -- grouping (the hypergraph scheduler's work) -------------------------------------------------
    from mpx.grouping.partitioned import group_events

    say("grouping ...")
    group_events(problem, seed=0)
    best, med, g = _best(lambda: group_events(problem, seed=0), repeat)
    report["grouping"] = {"seconds": best, "median_seconds": med, "events": problem.n_events,
                          "groups": len(g.groups), "seconds_vs_replay": best / report["replay"]["seconds"]}

    # -- partitioners ------------------------------------------------------------------------------
    report["partitioners"] = _partitioners(events_n, events_cap, hgr, hgr_k, kahypar_ini, tools, repeat, say)
    report["machine"]["load_average_after"] = (list(os.getloadavg()) if hasattr(os, "getloadavg") else None)
    report["total_seconds"] = time.perf_counter() - t_all
    return report


def _partitioners(n: int, cap: int, hgr: str | None, hgr_k: int, ini: str | None, tools: tuple[str, ...],
                  repeat: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    from mpx.grouping.partitioned import grouping_context
    from mpx.partition import Context, block_weights, imbalance, km1, partition, read_hmetis
    from mpx.partition.external import job_from_hypergraph, run_external, tool_status
    from mpx.grouping.instances import load_instance

    cases = []
    hg, k, _, caps = load_instance({"family": "events", "n": n, "cap": cap, "instance_seed": 0})
    cases.append((f"events n={n} C={cap} k={k}", hg, k, 0.0, caps, None))
    if hgr:
        h = read_hmetis(hgr)
        cases.append((f"{Path(hgr).name} k={hgr_k} eps=0.03", h, hgr_k, 0.03, None, str(Path(hgr).resolve())))
    out = []
    for case, hg, k, eps, caps, path in cases:
        say(f"partition {case}: mpx ...")
        ctx = grouping_context(hg.num_vertices) if caps else Context()
        partition(hg, k, epsilon=eps, seed=0, max_block_weights=caps, context=ctx)  # warm-up
        best, med, res = _best(lambda: partition(hg, k, epsilon=eps, seed=0, max_block_weights=caps, context=ctx),
                               repeat)
        base = {"instance": case, "n": hg.num_vertices, "k": k}
        mpx_row = {**base, "tool": "mpx", "status": "done", "km1": int(res.km1), "seconds": best,
                   "median_seconds": med, "feasible": _feasible(hg, res.blocks, k, eps, caps, block_weights, imbalance)}
        out.append(mpx_row)
        for tool in tools:
            ver, why = tool_status(tool)
            row = {**base, "tool": tool, "version": ver}
            if why is None and tool == "kahypar" and not ini:
                why = "no KaHyPar .ini configuration given (--kahypar-ini)"
            if why is not None:
                out.append({**row, "status": "skipped", "reason": why})
                continue
            say(f"partition {case}: {tool} ...")
            job = {"k": k, "epsilon": eps, "seed": 0, "caps": caps, "ini": ini, "preset": "quality", "threads": 1,
                   **({"path": path} if path else job_from_hypergraph(hg))}
            runs = [run_external(tool, job) for _ in range(repeat)]
            bad = next((r for r in runs if "error" in r), None)
            if bad is not None:
                out.append({**row, "status": "failed", "reason": bad["error"]})
                continue
            import numpy as np

            secs = [r["seconds"] for r in runs]
            blocks = np.asarray(runs[-1]["blocks"], dtype=np.int64)
            q = km1(hg, blocks, k)
            out.append({**row, "status": "done", "km1": int(q), "seconds": min(secs),
                        "median_seconds": float(np.median(secs)),
                        "feasible": _feasible(hg, blocks, k, eps, caps, block_weights, imbalance),
                        "km1_vs_mpx": q / mpx_row["km1"] if mpx_row["km1"] else None,
                        "mpx_seconds_vs_tool": mpx_row["seconds"] / min(secs)})
    return out


def _feasible(hg: Any, blocks: Any, k: int, eps: float, caps: list[int] | None, bw: Any, imb: Any) -> bool:
    import numpy as np

    if caps is not None:
        return bool(np.all(bw(hg, blocks, k) <= np.asarray(caps)))
    return bool(imb(hg, blocks, k) <= eps + 1e-12)


def format_report(r: dict[str, Any]) -> str:
    """The report as text tables."""
    m, s = r["machine"], r["settings"]
    la = m.get("load_average")
    lines = [f"machine: {m['cpu_model']}, {m['logical_cores']} logical cores ({m['usable_cores']} usable), "
             f"{m['platform']}",
             f"software: Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}, scipy {m['scipy']}, "
             f"mpx {m['mpx']}",
             f"load average (1/5/15 min) before: {'/'.join(f'{x:.2f}' for x in la) if la else 'n/a'}, after: "
             f"{'/'.join(f'{x:.2f}' for x in m['load_average_after']) if m.get('load_average_after') else 'n/a'}"
             + (" (a loaded machine: compare ratios, not absolute numbers)"
                if la and la[0] > 0.5 * (m['usable_cores'] or 1) else ""),
             f"input: {s['input']}; {s['events']} events on {s['pmu']} ({s['counters']} counters), {s['scheduler']} "
             f"scheduler, quantum {s['quantum']}, read every {s['read_every']} quanta; {s['timing']}", ""]
    rp = r["replay"]
    lines.append(f"replay (multiplex): {rp['seconds'] * 1e3:.1f} ms for {rp['quanta']} quanta x {rp['events']} events "
                 f"= {eng(rp['quanta_per_s'])} quanta/s, {eng(rp['event_quanta_per_s'])} event-quanta/s "
                 f"(first call {rp['first_call_seconds'] * 1e3:.0f} ms)")
    lines += ["", f"{'scaler':<18}{'ms':>10}{'windows/s':>12}{'event-win/s':>13}{'vs linear':>11}{'vs replay':>11}"]
    for x in sorted(r["scalers"], key=lambda x: -x.get("event_windows_per_s", -1)):
        if x["status"] != "done":
            lines.append(f"{x['scaler']:<18}{x['status']}: {x['reason'][:90]}")
            continue
        vl = x.get("throughput_vs_linear")
        lines.append(f"{x['scaler']:<18}{x['seconds'] * 1e3:>10.2f}{eng(x['windows_per_s']):>12}"
                     f"{eng(x['event_windows_per_s']):>13}{(f'{vl:.3g}x' if vl else '-'):>11}"
                     f"{x['seconds_vs_replay']:>10.3g}x")
    gr = r["grouping"]
    lines += ["", "(vs linear: throughput relative to the linear scaler; vs replay: estimate() time / replay time)",
              f"grouping (hypergraph scheduler's group_events): {gr['seconds'] * 1e3:.1f} ms for {gr['events']} events "
              f"-> {gr['groups']} groups ({gr['seconds_vs_replay']:.3g}x the replay)", "",
              f"{'instance':<30}{'tool':<11}{'km1':>8}{'seconds':>10}{'km1/mpx':>9}{'mpx s/tool s':>14}  feasible"]
    for p in r["partitioners"]:
        if p["status"] != "done":
            lines.append(f"{p['instance']:<30}{p['tool']:<11}{p['status']}: {p['reason'][:80]}")
            continue
        kv, sv = p.get("km1_vs_mpx"), p.get("mpx_seconds_vs_tool")
        lines.append(f"{p['instance']:<30}{p['tool']:<11}{p['km1']:>8}{p['seconds']:>10.3f}"
                     f"{(f'{kv:.3f}' if kv else '-'):>9}{(f'{sv:.2f}' if sv else '-'):>14}  {p['feasible']}")
    lines.append(f"\ntotal {r['total_seconds']:.1f} s")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    print(format_report(run_bench(quick="--quick" in sys.argv)))
