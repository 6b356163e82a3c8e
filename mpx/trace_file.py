"""The native trace file: a zip of ``.npy`` members, its versions and the limits its reader enforces.

``header.npy`` holds JSON (format, version, event names, time unit, aux names, meta; from version 2 the shapes
of the byte-plane members), then ``counts``, ``edges`` and ``aux``; deflate-compressed, fixed member timestamps,
no pickles. `mpx.trace.Trace.save` and ``load`` use it; nothing here knows what a trace means beyond its
members, so the format and its checks live in one place.
"""

from __future__ import annotations

import errno
import io
import json
import os
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Iterable
from typing import IO, Any

import numpy as np

from mpx import strict_json
from mpx.errors import FormatError, TraceError

FORMAT_NAME = "mpx-trace"
FORMAT_VERSION = 2
"""Version of the native on-disk format; readers of version N load every version <= N. Version 2 stores
``counts`` and ``aux`` as byte planes (`BYTE_PLANES`); version 1 stored them as float64 arrays in row order."""

BYTE_PLANES = ("counts", "aux")
"""Members a version-2 file stores as byte planes: the float64 matrix in column order (one event's intervals
together), little-endian, its 8 bytes split into 8 planes (a ``uint8`` array of shape ``(8, rows × columns)``;
the header's ``byte_planes`` gives each matrix's shape). Counts of one event change slowly and their high bytes
repeat, so deflate finds the runs: a 5,000 × 1,660 gem5 trace's counts take 2.4 MB instead of 4.9 MB, its file
4.3 MB instead of 6.9 MB, written in 3.1 s instead of 11.9 s and read in 0.32 s instead of 0.26 s. This is the
byte shuffle of HDF5's and Blosc's filters."""

SAVE_VERSIONS = (1, 2)
"""Format versions `write_trace_file` writes (1 for readers of an older mpx)."""

MAX_MEMBER_BYTES = 2**31
"""The largest array a native trace file may declare, per member (2 GiB): 16 times the largest real
trace (9,000 gem5 dumps × 1,500 events in float64 are 0.11 GB). A header declaring more, or more than
the member holds, is a `FormatError` before anything is allocated."""

MAX_HEADER_BYTES = 2**24
"""The largest JSON header a native trace file may declare (16 MiB): 80 times the largest real one (gem5 traces
with every event named, 0.2 MB). Checked like `MAX_MEMBER_BYTES`, before it is decompressed: a 0.36 MB file whose
header inflated to 300 MiB of JSON took 94 s and 1.2 GB to load."""

MEMBERS = {"header": "u", "counts": "iuf", "edges": "iuf", "aux": "iuf"}
"""Members of the native format and the numpy dtype kinds each may have (unsigned bytes of JSON; real
numbers — never strings, objects, booleans or complex)."""


def write_trace_file(path: str | os.PathLike, fields: dict, arrays: dict[str, np.ndarray],
                     version: int = FORMAT_VERSION) -> None:
    """Write a native trace file of format ``version``: the header holds ``fields`` (events, time_unit,
    aux_names, meta) and the format's own keys; ``arrays`` are ``counts``, ``edges`` and ``aux``. The bytes
    depend only on the arguments."""
    if version not in SAVE_VERSIONS:
        raise TraceError(f"trace format version {version!r}: this mpx writes versions {SAVE_VERSIONS}")
    header = dict(format=FORMAT_NAME, version=version, **fields)
    arrays = dict(arrays)
    if version >= 2:
        header["byte_planes"] = {name: list(arrays[name].shape) for name in BYTE_PLANES}
        arrays.update({name: to_byte_planes(arrays[name]) for name in BYTE_PLANES})
    members = {"header": np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8), **arrays}

    def write(fh: IO[bytes]) -> None:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            for name in MEMBERS:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.ascontiguousarray(members[name]), allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, buf.getvalue(), compresslevel=9)

    save_whole(path, write)


def read_trace_file(path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """The checked header and the arrays (``counts``, ``edges``, ``aux``; byte planes decoded) of a native trace
    file of any version up to `FORMAT_VERSION`; whatever is wrong is a `FormatError` naming the file."""
    arrays = _read_members(path)
    header = _header(path, arrays.pop("header"))
    for name, shape in header.get("byte_planes", {}).items():
        arrays[name] = _from_byte_planes(path, name, arrays.get(name) if name in BYTE_PLANES else None, shape)
    return header, arrays


def read_trace_head(path: str | os.PathLike) -> tuple[dict, np.ndarray]:
    """The checked header and the edges of a native trace file, its counts and aux left unread (what a trace is
    about, for a fraction of the cost of reading it)."""
    arrays = _read_members(path, ("header", "edges"))
    return _header(path, arrays["header"]), arrays["edges"]


def format_version(path: str | os.PathLike) -> int:
    """The format version of the native trace file ``path`` (its header alone is read)."""
    return _header(path, _read_members(path, ("header",))["header"])["version"]


def _header(path: Any, raw: np.ndarray) -> dict:
    """The JSON header of a native trace file, checked: its format, a version this mpx reads, the kinds of its
    keys."""
    try:
        header = strict_json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FormatError(path, None, f"header is not JSON: {str(exc)[:80]}") from None
    if not isinstance(header, dict):
        raise FormatError(path, None, f"header is a JSON {type(header).__name__}, not an object")
    if header.get("format") != FORMAT_NAME:
        raise FormatError(path, None, f"header names format {header.get('format')!r}, not {FORMAT_NAME!r}")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > FORMAT_VERSION:
        raise FormatError(
            path, None, f"trace format version {str(version)[:20]!r} is newer than this mpx reads "
            f"({FORMAT_VERSION}); upgrade mpx"
        )
    kinds = {"events": list, "time_unit": str, "meta": dict, "aux_names": list, "byte_planes": dict}
    for key, kind in kinds.items():
        if key in header and not isinstance(header[key], kind):
            raise FormatError(path, None, f"header {key!r} is a {type(header[key]).__name__}, not a "
                                          f"{kind.__name__}")
    return header


def to_byte_planes(matrix: np.ndarray) -> np.ndarray:
    """A 2-D matrix as `BYTE_PLANES` stores it: ``uint8[8, rows × columns]``, plane k holding byte k of every
    little-endian float64 value, the values in column order."""
    values = np.ascontiguousarray(np.asarray(matrix, dtype="<f8").T).reshape(-1)
    return np.ascontiguousarray(values.view(np.uint8).reshape(-1, 8).T)


def _from_byte_planes(path: Any, name: str, planes: np.ndarray | None, shape: Any) -> np.ndarray:
    """The float64 matrix of shape ``shape`` that `to_byte_planes` stored as ``planes``; a `FormatError` when
    the header's shape and the member disagree."""
    if planes is None:
        raise FormatError(path, None, f"header 'byte_planes' names {str(name)[:40]!r}, not one of {BYTE_PLANES}")
    if not (isinstance(shape, list) and len(shape) == 2
            and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
        raise FormatError(path, None, f"header 'byte_planes' gives {name} the shape {str(shape)[:60]}, not two "
                                      "non-negative integers")
    rows, cols = shape
    if planes.dtype != np.uint8 or planes.shape != (8, rows * cols):
        raise FormatError(path, None, f"member {name}.npy holds {planes.dtype.str} {planes.shape}; byte planes of a "
                                      f"{rows} x {cols} matrix are |u1 {(8, rows * cols)}")
    values = np.empty(rows * cols, dtype="<f8")
    value_bytes = values.view(np.uint8).reshape(-1, 8)
    for k in range(8):  # plane by plane: twice as fast as one transpose of the (8, n) bytes
        value_bytes[:, k] = planes[k]
    return np.ascontiguousarray(values.reshape(cols, rows).T)


def _read_members(path: str | os.PathLike, names: Iterable[str] = tuple(MEMBERS)) -> dict[str, np.ndarray]:
    """The arrays ``names`` of a native trace file, each checked before it is read: dtype kind (`MEMBERS`),
    declared size against `MAX_MEMBER_BYTES` and against the member's own size (numpy's ``.npy``
    layout, ``numpy/lib/format.py``: magic, header, then the raw data)."""
    out = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for name in names:
                kinds = MEMBERS[name]
                try:
                    info = zf.getinfo(f"{name}.npy")
                except KeyError:
                    raise FormatError(path, None, f"not an mpx trace file (no member {name}.npy)") from None
                with zf.open(info) as fh:
                    out[name] = _read_npy(path, name, fh, kinds, info.file_size)
    except FileNotFoundError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            SyntaxError, tokenize.TokenError) as exc:  # the last two: numpy's parse of a damaged .npy header
        if isinstance(exc, FormatError):
            raise
        raise FormatError(path, None, f"not an mpx trace file ({str(exc)[:120]})") from None
    return out


def _read_npy(path: Any, name: str, fh: Any, kinds: str, size: int) -> np.ndarray:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise FormatError(path, None, f"member {name}.npy: .npy format version {version} is not one numpy writes")
    if dtype.kind not in kinds or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise FormatError(path, None, f"member {name}.npy has dtype {dtype.str!r}: a trace holds only real "
                                      f"numbers there (kinds {kinds!r})")
    if any(d < 0 for d in shape) or (name == "header" and (dtype.itemsize != 1 or len(shape) != 1)):
        raise FormatError(path, None, f"member {name}.npy declares shape {shape} of {dtype.str!r}")
    n_items = 1
    for d in shape:
        n_items *= d
    n_bytes = n_items * dtype.itemsize
    holds = size - fh.tell()
    limit, what = (MAX_HEADER_BYTES, "as its header") if name == "header" else (MAX_MEMBER_BYTES, "per member")
    if n_bytes > limit:
        raise FormatError(path, None, f"member {name}.npy declares shape {shape}: {n_bytes:,} bytes, more than "
                                      f"the {limit:,} a trace file may hold {what}")
    if n_bytes != holds:
        raise FormatError(path, None, f"member {name}.npy declares shape {shape} ({n_bytes:,} bytes) but holds "
                                      f"{holds:,} bytes of data")
    data = fh.read(n_bytes)
    if len(data) != n_bytes:
        raise FormatError(path, None, f"member {name}.npy is truncated ({len(data):,} of {n_bytes:,} bytes)")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def save_whole(path: str | os.PathLike, write: Callable[[IO[bytes]], None]) -> None:
    """Write a file whole or not at all: ``write(fh)`` fills an *unnamed* file in the target's folder
    (Linux ``O_TMPFILE``), which gets a name only when complete (a link, then a rename over ``path``). A
    full disk, an error or a ``SIGKILL`` while writing leaves nothing behind: an unnamed file vanishes
    with its last descriptor. Where ``O_TMPFILE`` is missing, a named temporary file is removed on any
    error (a ``SIGKILL`` may then leave it). An ``OSError`` without a file name gets ``path``'s."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        fd = -1
        if hasattr(os, "O_TMPFILE"):
            try:
                fd = os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o666)
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                    raise
        if fd >= 0:
            with os.fdopen(fd, "w+b") as fh:
                write(fh)
                fh.flush()
                os.fsync(fh.fileno())
                proc_fd = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
                try:  # a dir_fd makes Python call linkat(..., AT_SYMLINK_FOLLOW): link() would not follow
                    os.link(str(fh.fileno()), tmp, src_dir_fd=proc_fd, follow_symlinks=True)
                finally:
                    os.close(proc_fd)
        else:
            with open(tmp, "w+b") as fh:
                write(fh)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), path) from None
        raise
