"""The numba decorator every compiled kernel uses, with a pure-Python fallback: one home for the rule.

numba compiles the hot loops (the partitioner's FM, label propagation, rating, contraction, Louvain; the
gem5 reader's tokenizer) and caches the machine code on disk (``cache=True``). mpx's kernels are cached
once per machine, not per checkout (`ContentCacheLocator`): under ``~/.cache/mpx/numba`` (``$XDG_CACHE_HOME``
is followed; ``MPX_NUMBA_CACHE`` names another folder, ``MPX_NUMBA_CACHE=""`` falls back to numba's own
place next to the sources) in a folder named after the source file's path inside the package and a hash
of its content. A fresh clone, a second worktree or a reinstall of the same code finds the kernels
compiled; an edited source compiles anew beside the old one.
Setting ``MPX_NO_NUMBA=1`` (or not having numba installed) runs the very same functions as plain Python:
correct, only slow — useful for debugging a kernel with pdb.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable

from mpx.util import machine_cache

try:  # pragma: no cover - exercised implicitly by whichever branch is installed
    if os.environ.get("MPX_NO_NUMBA"):
        raise ImportError("disabled by MPX_NO_NUMBA")
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False


PACKAGE = Path(__file__).resolve().parents[1]  # the mpx package (this module is in mpx/util/)


def cache_root() -> Path | None:
    """The folder of mpx's compiled kernels (None: numba's own place, next to the sources)."""
    return machine_cache("numba", "MPX_NUMBA_CACHE")


def _install_locator() -> None:
    """Put `ContentCacheLocator` first among numba's cache locators (it claims mpx's sources only)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)  # named so since 0.60
    _CacheLocator = getattr(caching, "_CacheLocator", None)
    if impl is None or _CacheLocator is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return  # pragma: no cover - another numba layout: its own locators

    class ContentCacheLocator(_CacheLocator):
        """numba cache locator keyed on content: ``cache_root()/<path in the package>-<sha256[:16]>``;
        the source stamp is the content's hash too, so neither the checkout's path nor file times matter."""

        def __init__(self, py_func: Any, py_file: str, root: Path) -> None:
            src = Path(py_file).resolve()
            self._stamp = hashlib.sha256(src.read_bytes()).hexdigest()
            self._lineno = py_func.__code__.co_firstlineno
            rel = "_".join(src.relative_to(PACKAGE.parent).with_suffix("").parts)
            self._cache_path = str(root / f"{rel}-{self._stamp[:16]}")

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return self._stamp

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            root = cache_root()
            try:
                if root is None or not Path(py_file).resolve().is_relative_to(PACKAGE):
                    return None
                self = cls(py_func, py_file, root)
                self.ensure_cache_path()
            except OSError:  # not writable, source unreadable: numba's own locators
                return None
            return self

    if not any(c.__name__ == "ContentCacheLocator" for c in impl._locator_classes):
        impl._locator_classes.insert(0, ContentCacheLocator)


if HAVE_NUMBA:
    _install_locator()


def kernel_folder(py_file: str | Path) -> Path | None:
    """The cache folder of the kernels of source ``py_file`` (None: numba's own place, or not mpx's)."""
    root = cache_root()
    src = Path(py_file).resolve()
    if root is None or not src.is_relative_to(PACKAGE):
        return None
    stamp = hashlib.sha256(src.read_bytes()).hexdigest()
    return root / f"{'_'.join(src.relative_to(PACKAGE.parent).with_suffix('').parts)}-{stamp[:16]}"


def compile_notice(source: str | Path, what: str, show: bool = True) -> bool:
    """One line on stderr before the kernels of ``source`` (a module, or every module of a folder that uses
    this one) are compiled for the first time on this machine (a kernel module with no index in its cache
    folder): a user sees why the first call is slow. Shown where progress bars are (`mpx.util.progress`:
    a terminal, or ``MPX_PROGRESS=1``; never with ``show`` False). Returns whether something is to be compiled."""
    if not HAVE_NUMBA:
        return False
    src = Path(source)
    files = ([f for f in sorted(src.rglob("*.py")) if "mpx.util.jit" in f.read_text(errors="replace")]
             if src.is_dir() else [src])
    folders = [kernel_folder(f) for f in files]
    cold = [f for f in folders if f is not None and not any(f.glob("*.nbi"))]
    if not cold:
        return False
    from mpx.util.progress import enabled

    if show and enabled():
        import sys

        print(f"mpx: compiling {what} once for this machine (numba, up to a few minutes; cached under "
              f"{cold[0].parent})", file=sys.stderr, flush=True)
    return True


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
