"""The numba decorator every compiled kernel uses, with a pure-Python fallback: one home for the rule.

numba compiles the hot loops (the partitioner's FM, label propagation, rating, contraction, Louvain; the
gem5 reader's tokenizer) and caches the machine code next to the sources (``cache=True``), so only the
first run in a checkout pays the compilation.
Setting ``MPX_NO_NUMBA=1`` (or not having numba installed) runs the very same functions as plain Python:
correct, only slow — useful for debugging a kernel with pdb.
"""

from __future__ import annotations

import os
from typing import Any, Callable

try:  # pragma: no cover - exercised implicitly by whichever branch is installed
    if os.environ.get("MPX_NO_NUMBA"):
        raise ImportError("disabled by MPX_NO_NUMBA")
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False


def njit(fn: Callable[..., Any] | None = None, *, inline: bool = False) -> Any:
    """Compile ``fn`` in nopython mode with an on-disk cache (identity when numba is unavailable).

    ``inline=True`` inlines a small helper into its callers at the numba IR level: a call passing arrays
    otherwise pays reference-count updates per array argument, which dominated the per-move cost of FM.
    """
    if fn is None:
        return lambda f: njit(f, inline=inline)
    if not HAVE_NUMBA:
        return fn
    return numba.njit(cache=True, nogil=True, inline="always" if inline else "never")(fn)
