"""mpx: score hardware performance-counter multiplexing against simulator ground truth.

The data path goes one way: readers → `Trace` → multiplex → scalers → evaluate → experiments → figures.
Heavy submodules are imported lazily so that ``import mpx`` and ``mpx --help`` stay fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["Trace", "read_trace", "load_trace", "__version__"]


def __getattr__(name: str):
    if name in ("Trace", "load_trace"):
        from mpx import trace

        return getattr(trace, name)
    if name == "read_trace":
        from mpx.readers import read_trace

        return read_trace
    raise AttributeError(f"module 'mpx' has no attribute {name!r}")
