"""Every catalog file of the peers' folders loaded as the tools load them: how many load, how many metrics
are kept, and the entry problems by kind (`mpx.metrics.problems`).

Folders (``../shared/peers/``, see its ``SOURCES.md``): ``intel-perfmon`` (perf pmu-events JSON from
Intel's generator), ``arm-perf-json`` (perf JSON from Arm's generator), ``likwid-groups`` (LIKWID group
files). Each ``.json``/``.txt`` file is loaded alone; other files (``mapfile.csv``) are listed as not
catalog files. Per family: files, files loaded, metric entries, metrics kept (computable), kept as 0
(LIKWID shows a metric it cannot compute as 0), dropped (perf skips an entry it cannot parse), the
share kept (computable / entries), and problems by kind.

Run: ``python benchmarks/peer_catalogs.py [--peers DIR] [--list]`` (``--list`` prints every problem).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from mpx.metrics import load_catalog
from mpx.metrics.problems import by_kind

FAMILIES = ("intel-perfmon", "arm-perf-json", "likwid-groups")


def family_stats(root: Path) -> tuple[dict, list]:
    """Counts of one family folder, and its problems."""
    stats = collections.Counter()
    problems, failures, other = [], [], []
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        if f.suffix not in (".json", ".txt"):
            other.append(f.name)
            continue
        stats["files"] += 1
        try:
            cat = load_catalog(f)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports every failure
            failures.append(f"{f}: {exc}")
            continue
        stats["loaded"] += 1
        zero = {p.entry for p in cat.problems if p.action == "zero"}
        dropped = sum(p.action == "dropped" for p in cat.problems)
        stats["kept"] += sum(m.name not in zero for m in cat.metrics.values())
        stats["zero"] += len(zero & cat.metrics.keys())
        stats["dropped"] += dropped
        stats["entries"] += len(cat.metrics) + dropped
        problems += cat.problems
    return {**stats, "failures": failures, "other": other}, problems


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "peers")
    ap.add_argument("--list", action="store_true", help="print every problem")
    args = ap.parse_args(argv)
    print(f"{'family':<15} {'files':>5} {'loaded':>6} {'entries':>7} {'kept':>6} {'as 0':>5} {'dropped':>7} "
          f"{'share kept':>10}  problems by kind")
    for fam in FAMILIES:
        st, problems = family_stats(args.peers / fam)
        share = st.get("kept", 0) / st["entries"] if st.get("entries") else float("nan")
        kinds = ", ".join(f"{k} {n}" for k, n in by_kind(problems).items()) or "none"
        print(f"{fam:<15} {st.get('files', 0):>5} {st.get('loaded', 0):>6} {st.get('entries', 0):>7} "
              f"{st.get('kept', 0):>6} {st.get('zero', 0):>5} {st.get('dropped', 0):>7} {share:>10.2%}  {kinds}")
        for line in st["failures"]:
            print(f"  FAILED {line[:300]}")
        if st["other"]:
            print(f"  not catalog files: {', '.join(sorted(set(st['other'])))}")
        if args.list:
            for p in problems:
                print(f"  {p}")


if __name__ == "__main__":
    main()
