"""The shipped ground-truth datasets: real programs recorded with `mpx.recording.callgrind` (callgrind) or
`mpx.recording.gem5` (gem5, recipes with ``"simulator": "gem5"``; their recipes live in
``datasets/gem5/recipes.json`` until recorded, see `recipes`).

``datasets/manifest.json`` lists every dataset with its recipe (input generators, the command,
the recording settings) and what the recording gave (events, interval count, sha256 of the trace
file, tool versions, host). The trace files are in ``datasets/traces/``; the seeded input generators
and our own workload programs in ``datasets/generate.py`` and ``datasets/workloads/``.

API: `names`, `path`, `load` (checks the sha256 against the manifest), `entry`, `manifest`, `verify`,
`rebuild` (re-run the recipe; ``check=True`` compares with the shipped file instead of replacing it).

Recordings run in a fixed working directory (`WORKDIR_ROOT`/NAME) because the working directory
path changes the counts (see `mpx.recording.callgrind`); a rebuild reproduces the shipped file byte for byte only
with the same tool versions (valgrind, the program, libc, gcc for compiled workloads) and a CPU with
the same features (glibc picks string routines by CPUID), which the manifest records.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mpx import strict_json
from mpx.errors import ConfigError, FormatError, MpxError, UnknownNameError
from mpx.trace import Trace
from mpx.trace_file import FORMAT_VERSION, format_version

__all__ = ["MAIN", "SIMULATORS", "WORKDIR_ROOT", "collection", "collections", "differing_keys", "entry",
           "entry_or_recipe",
           "host_info", "is_gem5", "load", "manifest", "manifest_path", "names", "path", "rebuild", "recipes",
           "recipes_path", "root", "sha256_file", "tool_versions", "trace_difference", "verified_path", "verify"]


WORKDIR_ROOT = Path("/tmp/mpx-datasets")
"""Fixed parent of the recording working directories (its path is part of what is recorded)."""

_CPU_FLAGS = ("sse4_2", "avx", "avx2", "avx512f", "avx512bw", "aes", "vaes", "sha_ni", "bmi2", "erms", "fsrm")


def root() -> Path:
    """The datasets folder: ``$MPX_DATASETS`` or ``datasets/`` next to the ``mpx`` package."""
    env = os.environ.get("MPX_DATASETS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "datasets"


def manifest_path() -> Path:
    return root() / "manifest.json"


_MANIFEST: dict[tuple, dict] = {}  # (path, mtime, size) -> the parsed manifest (2 MB: parsed once, not per entry)


def manifest(fresh: bool = False) -> dict:
    """The parsed manifest (``{"format": ..., "datasets": [entry, ...]}``): shared by every reader in the process
    until the file changes (do not modify it); ``fresh``: a new parse, for a writer."""
    p = manifest_path()
    try:
        st = p.stat()
        key = (str(p), st.st_mtime_ns, st.st_size)
        if not fresh and key in _MANIFEST:
            return _MANIFEST[key]
        data = strict_json.loads(p.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no dataset manifest at {p} (set MPX_DATASETS to the datasets folder)") from None
    except json.JSONDecodeError as exc:
        raise FormatError(p, exc.lineno, f"manifest is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("datasets"), list):
        raise FormatError(p, None, "manifest has no 'datasets' list")
    if not fresh:
        _MANIFEST.clear()
        _MANIFEST[key] = data
    return data


SIMULATORS = ("callgrind", "gem5")


MAIN = "main"
"""The collection of a manifest entry without a ``collection`` key: the datasets experiments mean by
``all`` / ``all-gem5``. Other collections (``gem5-long``: steady-state 50 ms gem5 recordings;
``callgrind-grains``: the callgrind workloads at other intervals) are named explicitly
(``all-gem5-long``), so adding one moves no experiment that uses the main sets."""


def collection(e: dict) -> str:
    """The collection of a manifest entry or recipe (`MAIN` when it names none)."""
    return str(e.get("collection", MAIN))


def names(simulator: str | None = "callgrind", collection_name: str | None = MAIN) -> list[str]:
    """Names of the shipped datasets recorded with ``simulator``, in manifest order; ``None``: all of them
    (every collection; ``names(None, "gem5-long")``: one collection of any simulator).

    The default is the callgrind datasets of the main collection, the meaning "all shipped datasets" has
    had everywhere (experiments' ``datasets = ["all"]``, benchmarks): their traces share one event set and
    catalog, which the gem5 traces do not. ``collection_name``: which collection (``None``: any).
    """
    if simulator is not None and simulator not in SIMULATORS:
        raise ValueError(f"simulator must be one of {', '.join(SIMULATORS)} or None, got {simulator!r}")
    if simulator is None and collection_name == MAIN:
        return [d["name"] for d in manifest()["datasets"]]
    return [d["name"] for d in manifest()["datasets"]
            if (simulator is None or d.get("recipe", {}).get("simulator", "callgrind") == simulator)
            and (collection_name is None or collection(d) == collection_name)]


def collections() -> list[str]:
    """The collections other than `MAIN` in the manifest and the recipes, in first-appearance order."""
    out: list[str] = []
    for d in [*manifest()["datasets"], *recipes()]:
        c = collection(d)
        if c != MAIN and c not in out:
            out.append(c)
    return out


def entry(name: str) -> dict:
    """The manifest entry of ``name``; KeyError listing the known names otherwise."""
    for d in manifest()["datasets"]:
        if d["name"] == name:
            return d
    raise UnknownNameError(f"no dataset {name!r}; known: {', '.join(names(None))}")


def recipes_path() -> Path:
    """Recipes of datasets that need not be recorded yet (``gem5/recipes.json``: gem5 takes minutes per
    dataset); `rebuild` records one and adds it to the manifest."""
    return root() / "gem5" / "recipes.json"


def recipes() -> list[dict]:
    """The entries of `recipes_path` (name, behaviour, description, inputs_doc, recipe), in file order."""
    p = recipes_path()
    if not p.is_file():
        return []
    try:
        data = strict_json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise FormatError(p, exc.lineno, f"recipes file is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("datasets"), list):
        raise FormatError(p, None, "recipes file has no 'datasets' list")
    return data["datasets"]


def entry_or_recipe(name: str) -> dict:
    """The manifest entry, else the recipe of a dataset not recorded yet."""
    try:
        return entry(name)
    except KeyError:
        for d in recipes():
            if d["name"] == name:
                return d
        raise UnknownNameError(f"no dataset {name!r}; known: {', '.join(names(None))}; "
                       f"recipes: {', '.join(d['name'] for d in recipes())}") from None


def path(name: str) -> Path:
    """The trace file of dataset ``name``."""
    e = entry(name)
    trace = e.get("trace") or {}
    if "file" not in trace:
        raise FileNotFoundError(f"dataset {name!r} has not been recorded yet (mpx datasets rebuild {name})")
    return root() / trace["file"]


def sha256_file(p: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load(name: str, verify: bool = True) -> Trace:
    """The Trace of dataset ``name``; with ``verify`` the file's sha256 must match the manifest."""
    return Trace.load(verified_path(name) if verify else path(name))


def verified_path(name: str) -> Path:
    """The trace file of dataset ``name``, its sha256 checked against the manifest's (a `FormatError` if it
    differs): what the manifest says of its content then holds."""
    p = path(name)
    want = entry(name)["trace"].get("sha256")
    got = sha256_file(p)
    if got != want:
        raise FormatError(p, None, f"sha256 {got[:16]}… differs from the manifest's {str(want)[:16]}… "
                          "(file changed: restore it, or `mpx datasets rebuild` it)")
    return p


@dataclass
class Check:
    """Result of comparing one dataset file with the manifest."""

    name: str
    ok: bool
    expected: str | None
    actual: str | None
    message: str = ""


def verify(which: list[str] | None = None) -> list[Check]:
    """Compare the sha256 of every (or the given) dataset file with the manifest."""
    out = []
    for name in which or names(None):
        want = (entry(name).get("trace") or {}).get("sha256")
        try:
            got = sha256_file(path(name))
        except FileNotFoundError as exc:
            out.append(Check(name, False, want, None, str(exc)))
            continue
        out.append(Check(name, got == want, want, got, "" if got == want else "sha256 differs"))
    return out


# -- rebuilding -------------------------------------------------------------------------------------


def tool_versions(recipe: dict) -> dict[str, str]:
    """Versions of what a recording depends on: the simulator (valgrind, or gem5's binary digest), libc,
    and the recipe's own version commands."""
    out: dict[str, str] = {}

    def first_line(cmd: list[str]) -> str:
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        except OSError as exc:
            return f"unavailable ({exc.strerror})"
        text = (res.stdout or res.stderr).strip()
        return text.splitlines()[0].strip() if text else f"unavailable (exit {res.returncode})"

    if is_gem5(recipe):
        from mpx.recording.gem5 import find_gem5

        try:
            out["gem5_binary_sha256"] = sha256_file(find_gem5())
        except MpxError as exc:
            out["gem5_binary_sha256"] = f"unavailable ({str(exc).split(';')[0]})"
    else:
        out["valgrind"] = first_line(["valgrind", "--version"])
    libc = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else None
    out["libc"] = libc or "unknown"
    for key, cmd in sorted(recipe.get("versions", {}).items()):
        out[key] = first_line(_expand(cmd, _placeholders(recipe)))
    return out


def host_info() -> dict:
    """The machine facts that can change counts (CPU features pick libc routines) — informative."""
    cpu, flags = "unknown", []
    try:
        text = Path("/proc/cpuinfo").read_text()
        m = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
        cpu = m.group(1).strip() if m else cpu
        f = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
        have = set(f.group(1).split()) if f else set()
        flags = [x for x in _CPU_FLAGS if x in have]
    except OSError:
        pass
    return {"machine": platform.machine(), "kernel": platform.release(), "cpu": cpu, "cpu_flags": flags}


def is_gem5(recipe: dict) -> bool:
    """Is this a gem5 recipe (``"simulator": "gem5"``) rather than a callgrind one?"""
    return recipe.get("simulator", "callgrind") == "gem5"


def _placeholders(recipe: dict) -> dict[str, str]:
    values = {"python": sys.executable, "datasets": str(root())}
    for key, cmd in recipe.get("resolve", {}).items():
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=60)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise ConfigError(f"resolve.{key}: {' '.join(cmd)} failed: {exc}") from None
        values[key] = res.stdout.strip()
    return values


def _expand(items: list[str], values: dict[str, str]) -> list[str]:
    """A recipe's arguments with its placeholders (``{python}``, ``{datasets}``, ``resolve`` keys) filled in;
    a literal brace is written twice (``{{``), as in Python's `str.format`."""
    out = []
    for x in items:
        try:
            out.append(str(x).format(**values))
        except (KeyError, IndexError) as exc:
            raise ConfigError(f"recipe argument {x!r} names an unknown placeholder {exc} (placeholders: "
                              f"{', '.join(sorted(values))}; a literal brace is written {{{{ or }}}})") from None
        except ValueError as exc:
            raise ConfigError(f"recipe argument {x!r}: {exc} (a literal brace is written {{{{ or }}}})") from None
    return out


def _inputs(workdir: Path) -> dict[str, dict]:
    return {
        p.name: {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(workdir.iterdir())
        if p.is_file()
    }


def trace_difference(old: Trace, new: Trace) -> str:
    """How much ``new``'s counts differ from ``old``'s, in one line: events and intervals added or
    missing, then over the common events (same intervals) the cells that differ, the events whose total
    differs and the largest relative difference of a total."""
    import numpy as np

    parts = []
    gone, added = [e for e in old.events if e not in new], [e for e in new.events if e not in old]
    if gone or added:
        parts.append(f"{len(gone)} event(s) missing {gone[:3]}, {len(added)} new {added[:3]}")
    if old.n_intervals != new.n_intervals or not np.allclose(old.edges, new.edges, rtol=1e-12, atol=0):
        parts.append(f"intervals {old.n_intervals:,} -> {new.n_intervals:,} (edges differ)")
        return "; ".join(parts)
    common = [e for e in old.events if e in new]
    a = np.asarray(old.counts)[:, [old.index(e) for e in common]]
    b = np.asarray(new.counts)[:, [new.index(e) for e in common]]
    cells = int((a != b).sum())
    ta, tb = a.sum(axis=0), b.sum(axis=0)
    moved = ta != tb
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(tb - ta) / np.where(ta != 0, np.abs(ta), 1.0)
    worst = int(np.argmax(rel)) if moved.any() else None
    parts.append(f"{cells:,} of {a.size:,} cells differ; {int(moved.sum())} of {len(common)} event totals"
                 + (f", at most {100 * rel[worst]:.3g} % ({common[worst]}: {ta[worst]:,.0f} -> {tb[worst]:,.0f})"
                    if worst is not None else ""))
    return "; ".join(parts)


def differing_keys(a: Any, b: Any, prefix: str = "") -> list[str]:
    """The dotted paths (``recording.config_sha256``) at which two metadata dicts differ, nested dicts
    followed down to the differing leaf."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return [] if a == b else [prefix or "(meta)"]
    out = []
    for k in sorted(set(a) | set(b), key=str):
        out += differing_keys(a.get(k), b.get(k), f"{prefix}.{k}" if prefix else str(k))
    return out


@dataclass
class RebuildResult:
    """What a rebuild produced and how it compares with the manifest."""

    name: str
    sha256: str
    expected_sha256: str | None
    trace: Trace
    inputs_differ: list[str] = field(default_factory=list)
    tools_differ: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    content_same: bool | None = None
    meta_differ: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: how the rebuilt counts differ from the shipped ones (`trace_difference`), "" when they do not
    difference: str = ""
    #: ``check=True`` and the file differs from the manifest: where the rebuilt trace was kept
    kept: Path | None = None

    @property
    def same(self) -> bool:
        return self.sha256 == self.expected_sha256


def rebuild(
    name: str, check: bool = False, keep_workdir: bool = False, log: Callable[[str], None] | None = print
) -> RebuildResult:
    """Re-run the recipe of ``name``: generate the inputs, record, and either replace the shipped
    trace and update the manifest (``check=False``) or only compare with it (``check=True``)."""
    import time

    from mpx.recording.callgrind import parse_cache, record

    say = log or (lambda _m: None)
    e = entry_or_recipe(name)
    recipe = e["recipe"]
    values = _placeholders(recipe)
    WORKDIR_ROOT.mkdir(parents=True, exist_ok=True)
    workdir = WORKDIR_ROOT / name
    lock_path = WORKDIR_ROOT / f".{name}.lock"
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(f"dataset {name!r} is being rebuilt by another process ({lock_path})") from None
        if workdir.exists():
            shutil.rmtree(workdir)
        workdir.mkdir()
        try:
            say(f"[{name}] preparing inputs in {workdir}")
            for step in recipe.get("steps", []):
                _run_step(step, workdir, values)
            inputs = _inputs(workdir)
            shipped_inputs = e.get("inputs") or {}
            inputs_differ = sorted(
                k for k in set(inputs) | set(shipped_inputs)
                if (inputs.get(k) or {}).get("sha256") != (shipped_inputs.get(k) or {}).get("sha256")
            ) if shipped_inputs else []
            for k in inputs_differ:
                say(f"[{name}] input {k} differs from the manifest's (generator or build tool changed?)")
            out_tmp = WORKDIR_ROOT / f"{name}.npz.new"
            t0 = time.perf_counter()
            trace = _record_gem5(name, recipe, values, workdir, out_tmp, say) if is_gem5(recipe) else record(
                _expand(recipe["program"], values),
                out_tmp,
                interval_bb=int(recipe["interval_bb"]),
                cache=parse_cache(recipe["cache"]),
                extra_events=recipe.get("extra_events", ()),
                env=recipe.get("env", {}),
                cwd=workdir,
                stdin=recipe.get("stdin"),
                stdout=recipe.get("stdout"),
                ok_status=tuple(recipe.get("ok_status", (0,))),
                workload=name,
                log=lambda m: say(f"[{name}] {m}"),
            )
            seconds = time.perf_counter() - t0
        finally:
            if not keep_workdir and workdir.exists():
                shutil.rmtree(workdir)
    shipped = e.get("trace") or {}
    shipped_path = root() / shipped["file"] if shipped.get("file") else None
    if check and shipped_path is not None and shipped_path.exists():
        version = format_version(shipped_path)
        if version != FORMAT_VERSION:  # compared byte for byte in the format the shipped file was written in
            trace.save(out_tmp, version=version)
    digest = sha256_file(out_tmp)
    versions = tool_versions(recipe)
    old_versions = e.get("tools") or {}
    result = RebuildResult(
        name=name, sha256=digest, expected_sha256=shipped.get("sha256"), trace=trace,
        inputs_differ=inputs_differ, seconds=seconds,
        tools_differ={k: (old_versions.get(k), v) for k, v in versions.items() if old_versions.get(k) != v},
    )
    if shipped_path is not None and shipped_path.exists():
        old = Trace.load(shipped_path)
        result.content_same = old.checksum() == trace.checksum()
        result.meta_differ = differing_keys(old.meta, trace.meta)
        if not result.content_same:
            result.difference = trace_difference(old, trace)
    if check:
        if digest == result.expected_sha256:
            out_tmp.unlink()
        else:  # kept for a look (mpx trace info, a diff of totals): the check changes nothing else
            result.kept = out_tmp.with_name(f"{name}.rebuilt.npz")
            out_tmp.replace(result.kept)
        return result
    dest = root() / "traces" / f"{name}.npz"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(out_tmp), dest)
    if is_gem5(recipe):
        versions["gem5"] = trace.meta.get("recording", {}).get("gem5_version", "unknown")
    _update_manifest(name, e, {
        "inputs": inputs,
        "tools": versions,
        "host": host_info(),
        "trace": {
            "file": str(dest.relative_to(root())),
            "sha256": digest,
            "bytes": dest.stat().st_size,
            "content_sha256": trace.checksum(),
            "events": list(trace.events),
            "intervals": trace.n_intervals,
            "time_unit": trace.time_unit,
            "span": list(trace.span),
            "dropped": trace.meta.get("dropped", []),
            "aux": len(trace.aux_names),
        },
        **({"hardware": trace.meta["hardware"], "recording": _recording_summary(trace)} if is_gem5(recipe) else {}),
        "record_seconds": round(seconds, 1),
    })
    say(f"[{name}] wrote {dest} ({dest.stat().st_size:,} bytes, sha256 {digest[:16]}…) and updated the manifest")
    return result


def _record_gem5(name: str, recipe: dict, values: dict[str, str], workdir: Path, out: Path,
                 say: Callable[[str], None]) -> Trace:
    """Record a gem5 recipe: the machine is ``recipe['hardware']`` (``"default"``: `mpx.recording.gem5.HARDWARE`)."""
    from mpx.recording.gem5 import HARDWARE, checkpoints_root, record_gem5

    hw = recipe.get("hardware", "default")
    return record_gem5(
        _expand(recipe["program"], values),
        out,
        period_ps=int(recipe["period_ps"]),
        max_dumps=recipe.get("max_dumps"),
        fast_forward_insts=int(recipe.get("fast_forward_insts", 0)),
        warmup_insts=int(recipe.get("warmup_insts", 0)),
        checkpoint_dir=(checkpoints_root() / name) if recipe.get("checkpoint") else None,
        hardware=HARDWARE if hw == "default" else hw,
        env=recipe.get("env", {}),
        cwd=workdir,
        stdin=recipe.get("stdin"),
        stdout=recipe.get("stdout"),
        workload=name,
        log=lambda m: say(f"[{name}] {m}"),
    )


def _recording_summary(trace: Trace) -> dict:
    rec = trace.meta.get("recording", {})
    keep = ("gem5_version", "config", "config_sha256", "config_ini_sha256", "mode", "period_ps", "period_cycles",
            "max_dumps", "skipped", "exit", "checkpoint")
    return {k: rec.get(k) for k in keep}


def _run_step(step: dict, workdir: Path, values: dict[str, str]) -> None:
    if "generate" in step:
        cmd = [sys.executable, str(root() / "generate.py"), *_expand(step["generate"], values)]
    elif "copy" in step:
        src = root() / step["copy"]
        shutil.copyfile(src, workdir / src.name)
        return
    elif "run" in step:
        cmd = _expand(step["run"], values)
    else:
        raise ConfigError(f"recipe step {step} is not generate/copy/run")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "SOURCE_DATE_EPOCH": "0"}
    res = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise ConfigError(f"recipe step {' '.join(cmd)} failed (exit {res.returncode}): {res.stderr.strip()[-500:]}")


def _update_manifest(name: str, e: dict, fields: dict) -> None:
    """Write what a recording gave into the manifest entry of ``name`` (appended from its recipe ``e`` if new)."""
    with open(manifest_path().with_suffix(".json.lock"), "w") as lock:  # parallel rebuilds write one file
        fcntl.flock(lock, fcntl.LOCK_EX)
        _update_manifest_locked(name, e, fields)


def _update_manifest_locked(name: str, e: dict, fields: dict) -> None:
    data = manifest(fresh=True)
    if not any(d["name"] == name for d in data["datasets"]):
        data["datasets"].append({k: v for k, v in e.items()})
    for d in data["datasets"]:
        if d["name"] == name:
            d.update(fields)
    tmp = manifest_path().with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, manifest_path())
