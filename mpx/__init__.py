"""mpx: score hardware performance-counter multiplexing against simulator ground truth.

The data path goes one way: readers → `Trace` → multiplex → scalers → evaluate → experiments → figures.
Heavy submodules are imported lazily so that ``import mpx`` and ``mpx --help`` stay fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["Trace", "read_trace", "load_trace", "__version__", "code_version", "git_commit"]

_CODE_VERSION: str | None = None


def git_commit(short: int = 12) -> str | None:
    """The commit of the git checkout mpx is imported from (``short`` hex digits at least), or None when
    there is none: the one place that asks git which code is running."""
    import subprocess
    from pathlib import Path

    try:
        head = subprocess.run(["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", f"--short={short}",
                               "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() if head.returncode == 0 and head.stdout.strip() else None


def code_version() -> str:
    """``__version__`` plus the git commit of the package checkout when there is one
    (``0.1.0+g1a2b3c4d5e6f``); ``MPX_CODE_VERSION`` overrides it (pin it to reuse results across
    commits that do not change numbers, or in tests). It is part of every experiment cell's key."""
    import os

    global _CODE_VERSION
    env = os.environ.get("MPX_CODE_VERSION")
    if env:
        return env
    if _CODE_VERSION is None:
        head = git_commit()
        _CODE_VERSION = __version__ if head is None else f"{__version__}+g{head}"
    return _CODE_VERSION


def __getattr__(name: str):
    if name in ("Trace", "load_trace"):
        from mpx import trace

        return getattr(trace, name)
    if name == "read_trace":
        from mpx.readers import read_trace

        return read_trace
    raise AttributeError(f"module 'mpx' has no attribute {name!r}")
