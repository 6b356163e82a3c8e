"""Write the hand-made multiplexed ``perf stat -I`` fixtures of this folder (and their hidden truth).

The machine these fixtures were made on has no hardware PMU (a VM: every hardware event is
``<not supported>``), so multiplexed output could not be captured. This script writes it the way perf does,
from chosen raw counts, running and enabled times per interval (``tools/perf/util/stat.c``,
``stat-display.c``, ``stat-shadow.c``, perf 6.2+):

- scaled value = ``(u64)(raw * enabled / running)`` per CPU, printed ``%.0f`` (``%.2f`` msec for task-clock);
- aggregation (``--per-socket``, ``-a``): per-CPU scaled values, enabled and running times are summed;
- percent = ``100 * run / ena`` in u64 arithmetic (truncated), 100 when run == ena, printed ``%.2f``;
- ``<not counted>`` when run == 0, metric fields empty; percent 0.00 without aggregation (enabled > 0),
  100.00 under CPU aggregation (``-A``, ``--per-*``) where perf zeroes the failed aggregate;
- metrics as perf prints them in CSV (digits and '.' only, e.g. ``%7.2f%%`` → ``2.15``).

``truth.json`` keeps, per fixture, interval and column label, the true ``raw`` (summed over CPUs),
``run`` and ``ena``: the tests check what the reader reconstructs against it, never the reader against
itself. Run ``python make_handmade.py`` to rewrite the files; the tests check they are up to date.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scale(raw: int, run: int, ena: int) -> int:
    if run == 0:
        return 0
    if run < ena:
        return int(raw * ena / run)  # (u64)((double)val * ena / run)
    return raw


def pct(run: int, ena: int) -> int:
    return 100 if run == ena else (100 * run) // ena


def fmt_metric(fmt: str, val: float) -> str:
    """perf's print_metric_csv: format, then keep the leading digits and dots."""
    s = (fmt % val).strip()
    out = ""
    for ch in s:
        if ch.isdigit() or ch == ".":
            out += ch
        else:
            break
    return out


def ts(t: float) -> str:
    return f"{t:.9f}"


# -- fixture 1: global, per-task, 10 hardware events on 4 counters + task-clock -------------------------

EVENTS_1 = ["cycles", "instructions", "branches", "branch-misses", "cache-references", "cache-misses",
            "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses"]
RATES_1 = {  # events per ns of task time (a ~3 GHz core, IPC ~1.5)
    "cycles": 3.0, "instructions": 4.5, "branches": 0.9, "branch-misses": 0.018,
    "cache-references": 0.06, "cache-misses": 0.012, "L1-dcache-loads": 1.4,
    "L1-dcache-load-misses": 0.07, "LLC-loads": 0.02, "LLC-load-misses": 0.006,
}


def fixture_global(rng: random.Random) -> tuple[str, dict]:
    ends = [0.100123456, 0.200250391, 0.300371108, 0.400497882, 0.436912004]
    lines, truth = [f"# started on Mon Mar  3 10:00:00 2025", ""], {}
    prev = 0.0
    for k, end in enumerate(ends):
        wall = round((end - prev) * 1e9)
        ena = int(wall * rng.uniform(0.985, 0.998))  # task on CPU most of the interval
        task_clock = ena  # software event: always running
        scaled: dict[str, int] = {}
        rows = []
        for j, ev in enumerate(EVENTS_1):
            frac = 0.4 * rng.uniform(0.93, 1.07)  # 4 of 10 events at a time
            run = int(ena * frac)
            if ev == "LLC-load-misses" and k == 3:
                run = 0  # never scheduled in this interval
            raw = int(RATES_1[ev] * run * rng.uniform(0.8, 1.2))
            scaled[ev] = scale(raw, run, ena)
            rows.append((ev, raw, run, ena))
            truth[f"{k}:{ev}"] = {"raw": raw, "run": run, "ena": ena}
        truth[f"{k}:task-clock"] = {"raw": task_clock, "run": task_clock, "ena": task_clock}
        lines.append(f"{ts(end)};{task_clock / 1e6:.2f};msec;task-clock;{task_clock};100.00;"
                     f"{fmt_metric('%8.3f', task_clock / wall)};CPUs utilized")
        secs = task_clock / 1e9
        metric = {
            "cycles": ("%8.3f", lambda: scaled["cycles"] / task_clock, "GHz"),
            "instructions": ("%7.2f", lambda: scaled["instructions"] / scaled["cycles"], "insn per cycle"),
            "branches": ("%8.3f", lambda: scaled["branches"] / secs / 1e6, "M/sec"),
            "branch-misses": ("%7.2f%%", lambda: 100 * scaled["branch-misses"] / scaled["branches"],
                              "of all branches"),
            "cache-references": ("%8.3f", lambda: scaled["cache-references"] / secs / 1e6, "M/sec"),
            "cache-misses": ("%7.2f%%", lambda: 100 * scaled["cache-misses"] / scaled["cache-references"],
                             "of all cache refs"),
            "L1-dcache-loads": ("%8.3f", lambda: scaled["L1-dcache-loads"] / secs / 1e6, "M/sec"),
            "L1-dcache-load-misses": ("%7.2f%%",
                                      lambda: 100 * scaled["L1-dcache-load-misses"] / scaled["L1-dcache-loads"],
                                      "of all L1-dcache accesses"),
            "LLC-loads": ("%8.3f", lambda: scaled["LLC-loads"] / secs / 1e6, "M/sec"),
            "LLC-load-misses": ("%7.2f%%", lambda: 100 * scaled["LLC-load-misses"] / scaled["LLC-loads"],
                                "of all LL-cache accesses"),
        }
        for ev, raw, run, ena_ in rows:
            if run == 0:
                lines.append(f"{ts(end)};<not counted>;;{ev};0;{pct(run, ena_)}.00;;")
                continue
            f, fn, unit = metric[ev]
            lines.append(f"{ts(end)};{scaled[ev]};;{ev};{run};{pct(run, ena_)}.00;{fmt_metric(f, fn())};{unit}")
        prev = end
    return "\n".join(lines) + "\n", truth


# -- fixture 2: -x ',' with a raw PMU event (commas in its name) and continuation metric rows -----------

RAW_EVENT = "cpu/event=0xc4,umask=0x00/"


def fixture_stalled(rng: random.Random) -> tuple[str, dict]:
    ends = [0.100098765, 0.200187654, 0.300276543]
    lines, truth = [], {}
    prev = 0.0
    for k, end in enumerate(ends):
        ena = int(round((end - prev) * 1e9) * 0.99)
        evs = {"cycles": 3.1, "stalled-cycles-frontend": 0.6, "instructions": 3.9, RAW_EVENT: 0.8}
        sc, rr = {}, {}
        for ev, rate in evs.items():
            run = int(ena * rng.uniform(0.7, 0.8))
            raw = int(rate * run * rng.uniform(0.9, 1.1))
            sc[ev] = scale(raw, run, ena)
            rr[ev] = run
            truth[f"{k}:{ev}"] = {"raw": raw, "run": run, "ena": ena}
        p = {ev: pct(rr[ev], ena) for ev in evs}
        # cycles has no GHz metric without task-clock: empty metric fields
        lines.append(f"{ts(end)},{sc['cycles']},,cycles,{rr['cycles']},{p['cycles']}.00,,")
        lines.append(f"{ts(end)},{sc['stalled-cycles-frontend']},,stalled-cycles-frontend,"
                     f"{rr['stalled-cycles-frontend']},{p['stalled-cycles-frontend']}.00,"
                     f"{fmt_metric('%7.2f%%', 100 * sc['stalled-cycles-frontend'] / sc['cycles'])},"
                     "frontend cycles idle")
        lines.append(f"{ts(end)},{sc['instructions']},,instructions,{rr['instructions']},"
                     f"{p['instructions']}.00,{fmt_metric('%7.2f', sc['instructions'] / sc['cycles'])},"
                     "insn per cycle")
        # perf >= 6.2 new_line_csv: prefix, then 4 separators, then ",value,unit"
        lines.append(f"{ts(end)},,,,,,"
                     f"{fmt_metric('%7.2f', sc['stalled-cycles-frontend'] / sc['instructions'])},"
                     "stalled cycles per insn")
        lines.append(f"{ts(end)},{sc[RAW_EVENT]},,{RAW_EVENT},{rr[RAW_EVENT]},{p[RAW_EVENT]}.00,,")
        prev = end
    return "\n".join(lines) + "\n", truth


# -- fixture 3: JSON (perf 6.12+ style: metric-value a string, no metric keys without a metric), -A ------------------------


def fixture_percpu_json(rng: random.Random) -> tuple[str, dict]:
    ends = [0.100201123, 0.200399870, 0.300612345]
    evs = {"cycles": 2.9, "instructions": 3.6, "branches": 0.7, "branch-misses": 0.011}
    lines, truth = [], {}
    prev = 0.0
    for k, end in enumerate(ends):
        ena = round((end - prev) * 1e9)  # system-wide: enabled for the whole interval
        sc: dict[tuple[str, int], int] = {}
        rows = []
        for ev, rate in evs.items():
            for cpu in (0, 1):
                run = int(ena * rng.uniform(0.45, 0.55))
                if ev == "branch-misses" and cpu == 1 and k == 1:
                    run = 0
                raw = int(rate * run * rng.uniform(0.5, 1.5))
                sc[ev, cpu] = scale(raw, run, ena)
                rows.append((ev, cpu, raw, run))
                truth[f"{k}:CPU{cpu}:{ev}"] = {"raw": raw, "run": run, "ena": ena}
        for ev, cpu, raw, run in rows:
            obj = f'{{"interval" : {ts(end)}, "cpu" : "{cpu}", '
            if run == 0:
                # perf >= 6.2, CPU aggregation modes (-A too): a failed count zeroes the aggregate's
                # value, enabled and running (evsel__count_has_error), so the percent prints as 100
                obj += (f'"counter-value" : "<not counted>", "unit" : "", "event" : "{ev}", '
                        f'"event-runtime" : 0, "pcnt-running" : {pct(0, 0)}.00}}')
                lines.append(obj)
                continue
            if ev == "instructions":
                mv, mu = sc["instructions", cpu] / sc["cycles", cpu], "insn per cycle"
            elif ev == "branch-misses":
                mv, mu = 100 * sc["branch-misses", cpu] / sc["branches", cpu], "of all branches"
            else:
                mv, mu = 0.0, None
            obj += (f'"counter-value" : "{sc[ev, cpu]:.6f}", "unit" : "", "event" : "{ev}", '
                    f'"event-runtime" : {run}, "pcnt-running" : {pct(run, ena)}.00')
            # perf 6.12+: no metric keys when there is no metric (json_sep puts the commas)
            obj += "}" if mu is None else f', "metric-value" : "{mv:f}", "metric-unit" : "{mu}"}}'

            lines.append(obj)
        prev = end
    return "\n".join(lines) + "\n", truth


# -- fixture 4: --per-socket on 2 sockets x 4 CPUs, -x ';' ---------------------------------------------


def fixture_persocket(rng: random.Random) -> tuple[str, dict]:
    ends = [0.100077001, 0.200161002, 0.300240003, 0.400322004]
    evs = {"cycles": 2.5, "instructions": 2.0, "cache-misses": 0.01}
    lines, truth = [], {}
    prev = 0.0
    for k, end in enumerate(ends):
        ena_cpu = round((end - prev) * 1e9)
        agg: dict[tuple[str, int], tuple[int, int, int]] = {}
        for ev, rate in evs.items():
            for sock in (0, 1):
                val = run_sum = ena_sum = raw_sum = 0
                for _cpu in range(4):
                    run = int(ena_cpu * rng.uniform(0.6, 0.7))
                    raw = int(rate * run * rng.uniform(0.5, 1.5))
                    val += scale(raw, run, ena_cpu)
                    run_sum += run
                    ena_sum += ena_cpu
                    raw_sum += raw
                agg[ev, sock] = (val, run_sum, ena_sum)
                truth[f"{k}:S{sock}:{ev}"] = {"raw": raw_sum, "run": run_sum, "ena": ena_sum}
        for sock in (0, 1):  # print_aggr: ids outside, events inside
            for ev in evs:
                val, run_sum, ena_sum = agg[ev, sock]
                metric = ";"
                if ev == "instructions":
                    ipc = val / agg["cycles", sock][0]
                    metric = f"{fmt_metric('%7.2f', ipc)};insn per cycle"
                lines.append(f"{ts(end)};S{sock};4;{val};;{ev};{run_sum};{pct(run_sum, ena_sum)}.00;{metric}")
        prev = end
    return "\n".join(lines) + "\n", truth


FIXTURES = {
    "mux_global_semicolon.csv": fixture_global,
    "mux_stalled_comma.csv": fixture_stalled,
    "mux_percpu.jsonl": fixture_percpu_json,
    "mux_persocket_semicolon.csv": fixture_persocket,
}


def build() -> tuple[dict[str, str], str]:
    """The text of every hand-made fixture and of truth.json."""
    texts, truth = {}, {}
    for i, (name, fn) in enumerate(FIXTURES.items()):
        texts[name], truth[name] = fn(random.Random(1000 + i))
    return texts, json.dumps(truth, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    texts, truth_text = build()
    for name, text in texts.items():
        (HERE / name).write_text(text)
    (HERE / "truth.json").write_text(truth_text)
    print("wrote", ", ".join(texts), "and truth.json")
