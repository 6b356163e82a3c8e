"""``mpx datasets``: list, inspect, verify and rebuild the shipped ground-truth datasets."""

from __future__ import annotations

import argparse

#: events whose totals `mpx datasets show` prints without --all (a gem5 dataset has ~1,500)
SHOW_EVENTS = 25


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("datasets", help="list, show, verify or rebuild the shipped real-program datasets")
    dsub = p.add_subparsers(dest="datasets_command", metavar="ACTION", required=True)
    dsub.add_parser("list", help="table of datasets: name, description, events, intervals")
    show = dsub.add_parser("show", help="one dataset: events, intervals, time span, totals, how it was made")
    show.add_argument("name")
    show.add_argument("--all", action="store_true", help=f"every event's total (default: the {SHOW_EVENTS} largest "
                      "when there are more)")
    dsub.add_parser("verify", help="check every trace file's sha256 against the manifest")
    reb = dsub.add_parser("rebuild", help="re-run a dataset's recipe (generate inputs, record with callgrind)")
    reb.add_argument("name", nargs="+", help="dataset name(s), or 'all'")
    reb.add_argument("--check", action="store_true",
                     help="only compare the rebuilt file's sha256 with the manifest; change nothing")
    reb.add_argument("--keep-workdir", action="store_true", help="keep the working directory with the inputs")


#: the width the command's tables keep (descriptions are wrapped under their column)
WIDTH = 120


def _fit_row(prefix: str, text: str) -> str:
    """``prefix`` then ``text`` wrapped under its column within `WIDTH` columns (on lines of its own, indented,
    when the column starts too far right)."""
    import textwrap

    if len(prefix) + len(text) <= WIDTH:
        return prefix + text
    indent = " " * len(prefix) if WIDTH - len(prefix) >= 30 else "    "
    lines = textwrap.wrap(text, WIDTH - len(indent), break_long_words=True) or [""]
    if indent == "    ":
        return prefix.rstrip() + "\n" + "\n".join(indent + ln for ln in lines)
    return prefix + lines[0] + "".join("\n" + indent + ln for ln in lines[1:])


def run(args: argparse.Namespace) -> int:
    import textwrap

    import numpy as np

    from mpx.datasets import shipped as datasets
    from mpx.util.progress import bar as progress_bar

    cmd = args.datasets_command
    if cmd == "list":
        rows = []
        for name in datasets.names(None):
            e = datasets.entry(name)
            t = e.get("trace") or {}
            rows.append((name, e.get("behaviour", ""), str(len(t.get("events", [])) or "-"),
                         f"{t['intervals']:,}" if "intervals" in t else "not recorded", *_grain_span_skipped(e),
                         e.get("description", "")))
        recorded = set(datasets.names(None))
        for e in datasets.recipes():  # recipes not recorded yet (mpx datasets rebuild NAME records one)
            if e["name"] not in recorded:
                rows.append((e["name"], e.get("behaviour", ""), "-", "not recorded", *_grain_span_skipped(e),
                             e.get("description", "")))
        head = ("name", "behaviour", "events", "intervals", "grain", "span", "skipped", "description")
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head) - 1)]
        for r in [head, *rows]:
            print(_fit_row("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  ", r[-1]))
        return 0
    if cmd == "show":
        e = datasets.entry(args.name)
        trace = datasets.load(args.name)
        lo, hi = trace.span
        print(f"{args.name}: {e.get('description', '')}")
        print(f"  behaviour: {e.get('behaviour', '')}")
        print(f"  file: {datasets.path(args.name)} (sha256 {e['trace']['sha256'][:16]}…)")
        command = trace.meta.get("command") or trace.meta.get("recording", {}).get("command", [])
        print(f"  command: {' '.join(command)}")
        print(f"  inputs: {e.get('inputs_doc', '')}")
        if datasets.is_gem5(e["recipe"]):
            print(_gem5_machine(trace.meta))
        else:
            cfg = trace.meta.get("config", {})
            caches = ", ".join(f"{k} {v['size_bytes']} B {v['assoc']}-way {v['line_bytes']} B" for k, v in cfg.items()
                               if k in ("I1", "D1", "LL"))
            print(f"  recorded with {trace.meta.get('simulator')}, dump every {cfg.get('dump_every_bb'):,} blocks; {caches}")
        print(f"  intervals: {trace.n_intervals:,}; time span {lo:,.0f} .. {hi:,.0f} {trace.time_unit}")
        d = trace.durations
        print(f"  interval length: min {d.min():,.0f}, median {float(np.median(d)):,.0f}, "
              f"max {d.max():,.0f} {trace.time_unit}")
        for item in trace.meta.get("dropped", []):
            print(textwrap.fill(f"dropped: {item.get('what')} ({item.get('why')})", 118, initial_indent="  ",
                                subsequent_indent="    "))
        totals = trace.totals()
        if args.all or len(totals) <= SHOW_EVENTS:
            shown = totals
            print(f"  events ({trace.n_events}) and totals:")
        else:  # the largest counts (a Tick or Byte stat sums time or bytes: left out, as mpx trace info does)
            ranked, left_out = trace.largest_totals()
            shown = dict(ranked[:SHOW_EVENTS])
            zero = sum(1 for v in totals.values() if v == 0)
            other = "; not counts of events: " + ", ".join(f"{n} {u}" for u, n in left_out.items()) if left_out else ""
            print(f"  events: {trace.n_events:,} ({zero:,} never count{other})")
            print(f"  the {len(shown)} largest totals of the {len(ranked):,} counted events (--all for every event):")
        width = min(max(len(n) for n in shown), 90)
        for name, total in shown.items():
            print(f"    {name:<{width}}  {total:>20,.0f}")
        return 0
    if cmd == "verify":
        bad = 0
        for c in datasets.verify():
            if c.ok:
                print(f"ok       {c.name}")
            else:
                bad += 1
                got = c.actual[:16] + "…" if c.actual else "missing"
                print(f"DIFFERS  {c.name}: {c.message or 'sha256 differs'} (manifest {str(c.expected)[:16]}…, file {got})")
        n_all = len(datasets.names(None))
        print(f"{n_all - bad} of {n_all} datasets match the manifest")
        return 1 if bad else 0
    names = datasets.names(None) if args.name == ["all"] else args.name
    for n in names:
        datasets.entry_or_recipe(n)  # an unknown name: a user error before any rebuild starts
    status = 0
    shown = progress_bar(total=len(names), desc="rebuilding", unit=" datasets")
    for n in names:
        shown.set_postfix_str(n)
        r = datasets.rebuild(n, check=args.check, keep_workdir=args.keep_workdir)
        shown.update(1)
        if not args.check:
            continue
        if r.same:
            print(f"[{n}] SAME: the rebuilt trace is byte-identical to the shipped one (sha256 {r.sha256[:16]}…)")
            continue
        status = 1
        print(f"[{n}] DIFFERS: rebuilt sha256 {r.sha256[:16]}…, manifest {str(r.expected_sha256)[:16]}…")
        if r.content_same is not None:
            print(f"[{n}]   counts/edges/names: {'identical' if r.content_same else 'different'}; "
                  f"meta keys that differ: {', '.join(r.meta_differ) or 'none'}")
        if r.difference:
            print(f"[{n}]   how much: {r.difference}")
        if r.kept:
            print(f"[{n}]   the rebuilt trace is kept: {r.kept} (mpx trace info {r.kept}; the shipped one is unchanged)")
        for k in r.inputs_differ:
            print(f"[{n}]   input {k} differs from the manifest's")
        for k, (old, new) in r.tools_differ.items():
            print(f"[{n}]   tool version differs: {k}: manifest {old!r}, here {new!r}")
        hashes = [k for k in r.meta_differ if k.endswith("_sha256")]
        if r.content_same and hashes and len(hashes) == len(r.meta_differ):
            print(f"[{n}]   only the checksums the recording keeps of its own files differ ({', '.join(hashes)}): "
                  "a file of the recorder changed since the recording (see its git log); the counts are identical")
        elif not r.tools_differ and not r.inputs_differ:
            print(f"[{n}]   same inputs and tool versions: the difference comes from the host "
                  "(CPU features, kernel) or from non-determinism in the program")
    shown.close()
    return status


def _grain_span_skipped(e: dict) -> tuple[str, str, str]:
    """A manifest entry's interval (gem5: dump period; callgrind: basic blocks), recorded span (gem5:
    simulated time; callgrind: instructions) and what was skipped before the first interval (gem5
    fast-forward + warm-up instructions)."""
    recipe, t = e.get("recipe", {}), e.get("trace") or {}
    span = t.get("span")
    if recipe.get("simulator") == "gem5":
        grain = f"{recipe.get('period_ps', 0) / 1e6:g} us"
        length = f"{(span[1] - span[0]) / 1e9:g} ms" if span else "-"
        sk = (e.get("recording") or {}).get("skipped") or {}
        ff, wu = sk.get("fast_forward_insts", recipe.get("fast_forward_insts", 0)), sk.get(
            "warmup_insts", recipe.get("warmup_insts", 0))
        skipped = f"{ff / 1e6:g}M+{wu / 1e6:g}M insts" if ff else "none"
        return grain, length, skipped
    grain = f"{recipe['interval_bb']:,} bb" if "interval_bb" in recipe else "-"
    length = f"{(span[1] - span[0]) / 1e6:,.0f}M insts" if span else "-"
    return grain, length, "none"


def _gem5_machine(meta: dict) -> str:
    """Two lines on how a gem5 dataset was recorded: simulator, period, core, caches, memory."""
    rec, hw = meta.get("recording", {}), meta.get("hardware", {})
    core, caches = hw.get("core", {}), hw.get("caches", {})
    cache = ", ".join(f"{k.upper()} {v.get('size')} {v.get('assoc')}-way" for k, v in caches.items())
    return (f"  recorded with gem5 {rec.get('gem5_version')} ({rec.get('mode')}), stats dumped and reset every "
            f"{rec.get('period_ps', 0) / 1e6:g} us ({rec.get('period_cycles')} cycles)\n"
            f"  machine: {hw.get('cpu_model')} at {hw.get('clock')}, {core.get('renameWidth')}-wide, ROB "
            f"{core.get('numROBEntries')}\n  caches: {cache}; memory {hw.get('memory', {}).get('dram')}"
            + _skipped_line(rec.get("skipped") or {}))


def _skipped_line(sk: dict) -> str:
    """How a steady-state recording started (empty for one that starts at the program's first instruction)."""
    if not sk.get("fast_forward_insts"):
        return ""
    return (f"\n  steady state: {sk['fast_forward_insts']:,} instructions fast-forwarded ({sk.get('fast_forward_cpu')}, "
            f"to {sk.get('fast_forward_ticks', 0) / 1e9:.3f} ms), {sk.get('warmup_insts', 0):,} of warm-up on the O3 core; "
            f"first interval at {sk.get('ticks_before_first_interval', 0) / 1e9:.3f} ms")
