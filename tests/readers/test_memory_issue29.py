"""Issue 29, item 3: reading memory follows the data. A gem5 ``stats.txt`` with one 1 MiB line among ~3,000
normal ones made the bulk parser allocate longest line × lines (3.1 GiB, ``MemoryError`` under a 2 GiB bound);
each case runs in a child process under an address-space bound (RLIMIT_AS) and must end in one error or a
load, never ``MemoryError``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHILD = textwrap.dedent("""
    import resource, sys
    lim = int(sys.argv[3]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    from mpx.errors import MpxError
    from mpx.readers import read_trace
    from mpx.metrics.formats import get
    try:
        if sys.argv[2] == "likwid":
            get("likwid").load(sys.argv[1])
        else:
            read_trace(sys.argv[1], format=sys.argv[2])
        print("LOADED")
    except MpxError as exc:
        print("ERROR", str(exc)[:300])
""")


def run_bounded(path: Path, fmt: str, mib: int = 1024) -> str:
    env = dict(os.environ, MPX_NO_NUMBA="1")  # the pure-Python parsers: no compiler under the bound
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), fmt, str(mib)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


@pytest.mark.parametrize("kind", ["value", "garbage"])
def test_gem5_one_huge_line_is_refused_within_the_bound(tmp_path, shared, kind):
    lines = shared("data", "gem5", "neel_default_atomic_fmm.txt").read_bytes().split(b"\n")
    k = next(i for i in range(len(lines) // 2, len(lines)) if len(lines[i].split()) >= 2 and not lines[i].startswith(b"-"))
    big = b"9" * 2**20 if kind == "value" else bytes((i * 37) % 251 + 1 for i in range(2**20)).replace(b"\n", b" ")
    lines[k] = (lines[k].split()[0] + b" " + big) if kind == "value" else big
    p = tmp_path / "stats.txt"
    p.write_bytes(b"\n".join(lines))
    out = run_bounded(p, "gem5")
    assert out.startswith("ERROR") and str(p) in out and f":{k + 1}:" in out, out


def test_likwid_huge_number_is_read_within_the_bound(tmp_path, shared):
    """A METRICS line holding a 16 MiB number: loads or is refused, within the bound."""
    src = shared("data", "metrics", "likwid", "skylake", "DATA.txt").read_text()
    p = tmp_path / "DATA.txt"
    p.write_text(src.replace("CPI  FIXC1/FIXC0", "CPI  FIXC1/FIXC0*" + "9" * 2**24, 1))
    out = run_bounded(p, "likwid")
    assert out.startswith(("ERROR", "LOADED")), out
