#!/usr/bin/env python3
"""Measure which callgrind events are deterministic: record the same program twice, compare.

Usage (from the repository root, valgrind installed)::

    /work/venv/bin/python datasets/determinism.py [--groups base,bus,systime,wb,cacheuse,hwpref] [--aslr]
        [--cwd DIR] -- PROGRAM ARGS

For each option group the program is run twice under ``valgrind --tool=callgrind --cache-sim=yes
--branch-sim=yes --dump-every-bb=300000`` (fixed geometry, clean environment, ASLR off unless
``--aslr``); the script prints, per group, whether the interval boundaries agree and which events
differ in any interval. This is how `mpx.recording.callgrind.EXTRA_EVENTS` was decided (see datasets/README.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpx.readers import callgrind  # noqa: E402
from mpx.recording.callgrind import CLEAN_ENV, DEFAULT_CACHE, _no_aslr, resolve_program  # noqa: E402

BASIC = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")
GROUPS = {
    "base": [],
    "bus": ["--collect-bus=yes"],
    "systime": ["--collect-systime=nsec"],
    "wb": ["--simulate-wb=yes"],
    "cacheuse": ["--cacheuse=yes"],
    "hwpref": ["--simulate-hwpref=yes"],
}


def run_once(argv: list[str], options: list[str], cwd: str, env: dict, aslr: bool) -> object:
    with tempfile.TemporaryDirectory(prefix="mpx-det-") as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes", *DEFAULT_CACHE.options(),
               "--dump-every-bb=300000", "--dump-line=no", *options, f"--callgrind-out-file={tmp}/cg.out",
               f"--log-file={tmp}/valgrind.log", "--", *argv]
        subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True,
                       preexec_fn=None if aslr else _no_aslr)
        return callgrind.read(tmp)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", default=",".join(GROUPS))
    p.add_argument("--aslr", action="store_true", help="leave ASLR on (to see what it changes)")
    p.add_argument("--cwd", default=os.getcwd())
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("program", nargs=argparse.REMAINDER)
    a = p.parse_args()
    argv = a.program[1:] if a.program[:1] == ["--"] else a.program
    argv = resolve_program(argv, path_env=os.environ.get("PATH"), cwd=a.cwd).argv
    env = dict(CLEAN_ENV, **dict(kv.split("=", 1) for kv in a.env))
    for group in a.groups.split(","):
        one = run_once(argv, GROUPS[group], a.cwd, env, a.aslr)
        two = run_once(argv, GROUPS[group], a.cwd, env, a.aslr)
        same_bounds = one.n_intervals == two.n_intervals and np.array_equal(one.aux, two.aux)
        if one.n_intervals != two.n_intervals:
            differ = list(one.events)
        else:
            differ = [e for e in one.events if not np.array_equal(one[e], two[e])]
        print(f"{group:>9}: {one.n_intervals} / {two.n_intervals} intervals, block ranges "
              f"{'identical' if same_bounds else 'DIFFER'}; extra events {' '.join(e for e in one.events if e not in BASIC) or 'none'}; "
              f"differing: {', '.join(differ) or 'none'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
