"""Record the same program several times, each run differing as real runs do (``mpx record --runs N``).

`mpx.recording.callgrind` makes one recording reproducible by switching off what changes the counts (ASLR, the
environment's size, interpreters' hash seeds). Trace alignment needs the opposite: runs that differ. Run
``i`` of ``record_runs`` changes exactly what the caller asks, and records it in the run set's ``varied``:

- ``aslr=True`` (default): address-space layout randomisation left on (the kernel's default), so the
  stack and mappings move between runs;
- ``seed_env=("PYTHONHASHSEED",)``: each named variable set to ``i + 1`` (CPython's and Perl's
  ``PERL_HASH_SEED`` hash randomisation: dict and set order, probe sequences; real runs of these
  interpreters are randomised by default, so a fixed seed per run reproduces a realistic set exactly);
- ``env_pad=64``: a variable ``MPX_RUN_PAD`` of ``i * env_pad`` bytes, as a different user name, shell
  or working directory would (the stack moves; see `mpx.recording.callgrind`'s measurements).

Everything else is `mpx.recording.callgrind.record`'s, run by run (in ``jobs`` parallel valgrind processes); a
``stdout`` file gets the run number (``out.txt`` → ``out.run03.txt``), so parallel runs never share one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mpx.errors import ConfigError
from mpx.recording.callgrind import record
from mpx.recording.runset import RunSet

PAD_VARIABLE = "MPX_RUN_PAD"


def run_variation(i: int, *, aslr: bool, seed_env: Sequence[str], env_pad: int) -> dict[str, Any]:
    """What run ``i`` changes: the environment it adds and the description stored in ``varied``."""
    env = {name: str(i + 1) for name in seed_env}
    if env_pad:
        env[PAD_VARIABLE] = "x" * (i * env_pad)
    return {"aslr": "enabled" if aslr else "disabled", **{k: v for k, v in env.items() if k != PAD_VARIABLE},
            "env_pad_bytes": i * env_pad, "env": env}


def record_runs(
    argv: Sequence[str],
    folder: str | os.PathLike,
    runs: int,
    *,
    aslr: bool = True,
    seed_env: Sequence[str] = (),
    env_pad: int = 64,
    jobs: int = 1,
    env: dict[str, str] | None = None,
    workload: str | None = None,
    log: Callable[[str], None] | None = print,
    **record_options: Any,
) -> RunSet:
    """Record ``argv`` ``runs`` times into the run-set folder ``folder`` (see the module docstring)."""
    if int(runs) != runs or runs < 1:
        raise ConfigError(f"runs: {runs!r} must be a positive integer")
    if int(jobs) != jobs or jobs < 1:
        raise ConfigError(f"jobs: {jobs!r} must be a positive integer")
    if not aslr and not seed_env and not env_pad:
        raise ConfigError("record_runs: nothing varies between the runs (aslr off, no seed_env, env_pad 0): "
                          "the runs would be identical")
    say = log or (lambda _m: None)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    name = workload or Path(argv[0]).name

    def one(i: int) -> tuple[Any, dict]:
        v = run_variation(i, aslr=aslr, seed_env=seed_env, env_pad=env_pad)
        options = dict(record_options)
        if options.get("stdout") is not None:  # one output file per run: parallel runs never share one
            out_path = Path(options["stdout"])
            options["stdout"] = str(out_path.with_name(f"{out_path.stem}.run{i:02d}{out_path.suffix}"))
        trace = record(argv, None, env={**(env or {}), **v["env"]}, aslr=aslr, workload=name, log=None,
                       extra_meta={"run": i}, **options)
        say(f"run {i + 1}/{runs}: {trace.n_intervals} intervals, {trace.edges[-1]:.4g} {trace.time_unit}")
        return trace, {k: val for k, val in v.items() if k != "env"}

    with ThreadPoolExecutor(max_workers=int(jobs)) as pool:
        done = list(pool.map(one, range(int(runs))))
    rs = RunSet(name, tuple(t for t, _ in done), tuple(v for _, v in done),
                {"command": list(argv), "seed_env": list(seed_env), "env_pad": env_pad, "aslr": aslr})
    rs.save(out)
    say(f"wrote {runs} runs of {name} to {out}")
    return rs
