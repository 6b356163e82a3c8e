"""Issue 40, item 9: the header member of a native trace file is bounded like its counts."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import FormatError


def test_a_header_decompression_bomb_is_refused_before_it_is_read(tmp_path):
    """Issue 40, item 9: a 0.36 MB trace whose header member held 300 MiB of JSON loaded in 94 s and 1.2 GB; the
    header is bounded like the counts (`MAX_HEADER_BYTES`), checked from its declared size before reading it."""
    import zipfile

    from mpx.trace import Trace
    from mpx.trace_file import MAX_HEADER_BYTES

    t = Trace(["a"], np.array([[1], [2]]), [0, 1, 2], "cycles", {"workload": "w"})
    p = tmp_path / "t.npz"
    t.save(p)
    with np.load(p) as z:
        members = {k: z[k] for k in z.files}
    head = members["header"].tobytes().decode()
    pad = MAX_HEADER_BYTES + 1 - len(head)
    members["header"] = np.frombuffer((head[:-1] + ', "pad": "' + " " * (pad - 11) + '"}').encode(), dtype=np.uint8)
    assert members["header"].size == MAX_HEADER_BYTES + 1
    q = tmp_path / "bomb.npz"
    np.savez_compressed(q, **members)
    assert q.stat().st_size < 200_000 and zipfile.ZipFile(q).getinfo("header.npy").file_size > MAX_HEADER_BYTES
    with pytest.raises(FormatError, match="as its header"):
        Trace.load(q)
