"""The Trace contract: validation, selection, slicing, merging, re-timing and the native format."""

from __future__ import annotations

import hashlib
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mpx.errors import FormatError, TraceError
from mpx.readers import detect_format, read_trace
from mpx.trace import SECONDS_PER_UNIT, Trace, rebin_counts, split_edges
from mpx.trace_file import FORMAT_VERSION, format_version, to_byte_planes


def small() -> Trace:
    return Trace(
        events=["cycles", "insts", "misses"],
        counts=[[10, 20, 1], [10, 5, 0], [12, 30, 2], [8, 0, 0]],
        edges=[0, 10, 20, 32, 40],
        time_unit="cycles",
        meta={"workload": "toy", "source": "hand"},
        aux_names=["ipc"],
        aux=[[2.0], [0.5], [2.5], [np.nan]],
    )


class TestValidation:
    def test_ok(self):
        t = small()
        assert (t.n_intervals, t.n_events) == (4, 3)
        assert t.span == (0.0, 40.0)
        assert list(t.durations) == [10, 10, 12, 8]
        assert t.totals() == {"cycles": 40.0, "insts": 55.0, "misses": 3.0}
        assert not t.counts.flags.writeable

    @pytest.mark.parametrize(
        "kwargs, message",
        [
            (dict(edges=[0, 10, 10, 32, 40]), "strictly increasing"),
            (dict(edges=[0, 10, 5, 32, 40]), "interval 1 goes from 10.0 to 5.0"),
            (dict(edges=[0, 10, 20, 32]), "T \\+ 1 = 5"),
            (dict(events=["a", "a", "b"]), "duplicate event name 'a'"),
            (dict(events=["a", "", "b"]), "non-empty"),
            (dict(events=["a", "b"]), "3 columns but 2 events"),
            (dict(time_unit="fortnights"), "unknown time unit"),
            (dict(meta={"x": object()}), "JSON-serialisable"),
        ],
    )
    def test_rejects(self, kwargs, message):
        base = dict(
            events=["a", "b", "c"], counts=np.ones((4, 3)), edges=[0, 10, 20, 32, 40], time_unit="cycles"
        )
        base.update(kwargs)
        with pytest.raises(TraceError, match=message):
            Trace(**base)

    @pytest.mark.parametrize("bad, word", [(-1.0, "negative"), (np.nan, "not finite"), (np.inf, "not finite")])
    def test_rejects_bad_counts(self, bad, word):
        counts = np.ones((2, 2))
        counts[1, 0] = bad
        with pytest.raises(TraceError, match=f"'a' in interval 1 is {word}"):
            Trace(["a", "b"], counts, [0, 1, 2], "ticks")

    def test_aux_may_hold_nan_but_not_clash(self):
        with pytest.raises(TraceError, match="both events and aux"):
            Trace(["a"], [[1.0]], [0, 1], "ticks", aux_names=["a"], aux=[[0.5]])


class TestOperations:
    def test_lookup(self):
        t = small()
        assert list(t["insts"]) == [20, 5, 30, 0]
        assert np.isnan(t["ipc"][3])
        with pytest.raises(KeyError, match="did you mean"):
            t.index("inst")
        assert t.match("*s") == ["cycles", "insts", "misses"]
        assert t.match("m*", "c?cles") == ["cycles", "misses"]

    def test_select_and_drop(self):
        t = small()
        s = t.select(["misses", "cycles"])
        assert s.events == ("misses", "cycles")
        assert list(s.counts[:, 0]) == [1, 0, 2, 0]
        assert s.aux_names == ("ipc",)
        assert t.select(["insts"], keep_aux=False).aux_names == ()
        assert t.drop(["insts"]).events == ("cycles", "misses")
        with pytest.raises(KeyError):
            t.select(["nope"])

    def test_slices(self):
        t = small()
        s = t.interval_slice(1, 3)
        assert list(s.edges) == [10, 20, 32]
        assert s.counts.tolist() == [[10, 5, 0], [12, 30, 2]]
        assert t.interval_slice(-1).counts.tolist() == [[8, 0, 0]]
        assert t.time_slice(10, 32) == s
        assert t.time_slice(5, 33) == s  # only whole intervals
        with pytest.raises(TraceError, match="no whole interval"):
            t.time_slice(11, 19)
        with pytest.raises(TraceError, match="empty"):
            t.interval_slice(3, 1)

    def test_coarsen_keeps_totals_and_records_dropped_aux(self):
        t = small()
        c = t.coarsen(3)
        assert list(c.edges) == [0, 32, 40]
        assert c.counts.tolist() == [[32, 55, 3], [8, 0, 0]]
        assert c.totals() == t.totals()
        assert c.aux_names == ()
        assert any("aux" in d["what"] for d in c.meta["dropped"])
        assert c.coarsen(2).meta["coarsened"] == 6
        with pytest.raises(TraceError):
            t.coarsen(0)

    def test_with_time_axis_merges_stalled_intervals(self):
        t = small()
        r = t.with_time_axis("insts", "instructions")
        # interval 3 has no instructions: it folds into interval 2 (the last one that advanced)
        assert r.time_unit == "instructions"
        assert list(r.edges) == [0, 20, 25, 55]
        assert r.counts.tolist() == [[10, 20, 1], [10, 5, 0], [20, 30, 2]]
        assert r.totals() == t.totals()
        u = Trace(["x", "y"], [[5, 0], [1, 2], [3, 0], [4, 1]], [0, 1, 2, 3, 4], "ticks")
        v = u.with_time_axis("y", "instructions")
        assert v.counts.tolist() == [[6, 2], [7, 1]]  # a leading stall joins the next advancing one
        with pytest.raises(TraceError, match="never advances"):
            Trace(["z"], [[0], [0]], [0, 1, 2], "ticks").with_time_axis("z", "cycles")

    def test_dataframe(self):
        df = small().to_dataframe(aux=True)
        assert list(df.columns) == ["end", "cycles", "insts", "misses", "ipc"]
        assert df.index.name == "start [cycles]"
        assert df["insts"].sum() == 55


class TestNativeFormat:
    def test_round_trip_is_exact_and_byte_reproducible(self, tmp_path):
        t = small()
        a, b = tmp_path / "a.npz", tmp_path / "b.npz"
        t.save(a)
        t.save(b)
        assert Trace.load(a) == t
        assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()
        assert detect_format(a) == "mpx"
        assert read_trace(a) == t

    def test_checksum_ignores_meta(self):
        t = small()
        assert t.checksum() == Trace(t.events, t.counts, t.edges, t.time_unit, {}, t.aux_names, t.aux).checksum()
        assert t.checksum() != t.select(["cycles", "insts"]).checksum()

    def test_byte_planes_by_hand(self):
        """Plane k holds byte k of each little-endian float64, the values in column order (1.0 is 0x3FF0...)."""
        planes = to_byte_planes(np.array([[1.0, 2.0], [0.0, -1.0]]))
        assert planes.shape == (8, 4) and planes.dtype == np.uint8
        assert planes[7].tolist() == [0x3F, 0x00, 0x40, 0xBF] and planes[6].tolist() == [0xF0, 0x00, 0x00, 0xF0]
        assert not planes[:6].any()

    @pytest.mark.parametrize("version", [1, 2])
    def test_every_version_written_reads_back_exactly(self, tmp_path, version):
        t = small()
        path = tmp_path / f"v{version}.npz"
        t.save(path, version=version)
        back = Trace.load(path)
        assert format_version(path) == version and back.checksum() == t.checksum() and back.meta == t.meta
        assert back.counts.flags["C_CONTIGUOUS"] and back.aux.flags["C_CONTIGUOUS"]
        empty = Trace(["a"], np.zeros((0, 1)), [0.0], "cycles")  # no intervals, no aux
        empty.save(path, version=version)
        assert Trace.load(path).checksum() == empty.checksum()
        with pytest.raises(TraceError, match="this mpx writes versions"):
            t.save(path, version=FORMAT_VERSION + 1)

    def test_version_2_is_smaller_for_slowly_changing_counts(self, tmp_path):
        """The reason for byte planes: counts of one event over time share their high bytes."""
        rng = np.random.default_rng(0)
        counts = np.cumsum(rng.integers(0, 1000, size=(2000, 20)), axis=0).astype(float) + 1e9
        t = Trace([f"e{i}" for i in range(20)], counts, np.arange(2001.0), "cycles")
        t.save(tmp_path / "v1.npz", version=1)
        t.save(tmp_path / "v2.npz", version=2)
        assert (tmp_path / "v2.npz").stat().st_size < 0.8 * (tmp_path / "v1.npz").stat().st_size

    def test_byte_planes_that_disagree_with_the_header_are_clear_errors(self, tmp_path):
        import io
        import json

        path = tmp_path / "t.npz"
        small().save(path)
        with zipfile.ZipFile(path) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        header = json.loads(bytes(np.load(io.BytesIO(members["header.npy"]))).decode())

        def write(**changes: object) -> None:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.frombuffer(json.dumps({**header, **changes}).encode(), dtype=np.uint8))
            with zipfile.ZipFile(path, "w") as zf:
                for n, data in {**members, "header.npy": buf.getvalue()}.items():
                    zf.writestr(n, data)

        for planes, message in [({"counts": [3, 3], "aux": [4, 1]}, r"byte planes of a 3 x 3 matrix"),
                                ({"counts": [4, 3], "aux": [4, 1], "edges": [5, 1]}, "names 'edges'"),
                                ({"counts": [4, -3], "aux": [4, 1]}, "not two non-negative integers"),
                                ({"counts": "4x3", "aux": [4, 1]}, "not two non-negative integers")]:
            write(byte_planes=planes)
            with pytest.raises(FormatError, match=message):
                Trace.load(path)
        write(byte_planes=[1])
        with pytest.raises(FormatError, match="'byte_planes' is a list"):
            Trace.load(path)
        write()
        assert Trace.load(path) == small()

    def test_newer_version_and_garbage_are_clear_errors(self, tmp_path):
        import io
        import json

        t = small()
        path = tmp_path / "t.npz"
        t.save(path)
        with zipfile.ZipFile(path) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        header = json.loads(bytes(np.load(io.BytesIO(members["header.npy"]))).decode())
        header["version"] = FORMAT_VERSION + 1
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
        members["header.npy"] = buf.getvalue()
        with zipfile.ZipFile(path, "w") as zf:
            for n, data in members.items():
                zf.writestr(n, data)
        with pytest.raises(FormatError, match="newer than this mpx reads"):
            Trace.load(path)
        junk = tmp_path / "junk.npz"
        junk.write_bytes(b"PK\x03\x04 not really a zip")
        with pytest.raises(FormatError, match="not an mpx trace file"):
            Trace.load(junk)


@settings(max_examples=40, deadline=None)
@given(
    counts=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 5)),
                      elements=st.floats(0, 1e12, allow_nan=False)),
    factor=st.integers(1, 5),
    data=st.data(),
)
def test_round_trip_and_coarsen_properties(tmp_path_factory, counts, factor, data):
    n_t, n_e = counts.shape
    steps = data.draw(hnp.arrays(np.float64, n_t, elements=st.floats(1e-3, 1e6)))
    edges = np.concatenate([[0.0], np.cumsum(steps)])
    if not np.all(np.diff(edges) > 0):
        return  # float rounding made two edges equal: not a valid trace
    t = Trace([f"e{i}" for i in range(n_e)], counts, edges, "ns", {"k": [1, "x"]})
    path = tmp_path_factory.mktemp("rt") / "t.npz"
    t.save(path)
    assert Trace.load(path) == t
    c = t.coarsen(factor)
    assert c.n_intervals == -(-n_t // factor)
    np.testing.assert_allclose(c.counts.sum(axis=0), counts.sum(axis=0), rtol=1e-12)
    assert c.span == t.span


class TestRebin:
    def tr(self) -> Trace:
        return Trace(["a", "b"], [[10.0, 1.0], [20.0, 2.0], [30.0, 3.0]], [0.0, 1.0, 2.0, 4.0], "ms")

    def test_whole_intervals_are_exact_sums(self):
        tr = self.tr()
        np.testing.assert_array_equal(tr.rebin(["b", "a"], [0.0, 2.0, 4.0]), [[3.0, 30.0], [3.0, 30.0]])
        assert split_edges(tr.edges, np.array([0.0, 2.0, 4.0])) == 0

    def test_a_cut_interval_is_split_uniformly_in_time(self):
        tr = self.tr()
        out = tr.rebin(["a"], [0.0, 0.5, 3.0, 4.0])
        np.testing.assert_allclose(out[:, 0], [5.0, 5.0 + 20.0 + 15.0, 15.0])
        assert out.sum() == pytest.approx(60.0)
        assert split_edges(tr.edges, np.array([0.0, 0.5, 3.0, 4.0])) == 2

    def test_rebin_counts_is_the_same_rule_on_arrays(self):
        tr = self.tr()
        new = np.array([0.0, 1.5, 4.0])
        np.testing.assert_array_equal(rebin_counts(np.asarray(tr.counts), tr.edges, new), tr.rebin(tr.events, new))

    def test_unknown_event(self):
        with pytest.raises(KeyError, match="no event 'zz'"):
            self.tr().rebin(["zz"], [0.0, 4.0])


def test_checksum_is_computed_once_and_survives_pickling():
    import pickle

    tr = small()
    first = tr.checksum()
    assert tr.checksum() is first
    assert pickle.loads(pickle.dumps(tr)).checksum() == first
    assert tr.select(list(tr.events)[::-1]).checksum() != first


def test_seconds_per_unit_covers_the_wall_time_axes_only():
    assert SECONDS_PER_UNIT == {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def test_largest_totals_rank_counted_events_only(tmp_path, capsys):
    # issue 17: `mpx trace info` on a gem5 file listed pwrStateResidencyTicks (unit Tick) as the largest totals
    from mpx.cli import main

    units = {"a": "Count", "res.pwrStateResidencyTicks::ON": "Tick", "energy": "Joule", "cyc": "Cycle"}
    t = Trace(["a", "res.pwrStateResidencyTicks::ON", "energy", "cyc", "plain"],
              np.array([[5, 500, 300, 2, 1], [5, 500, 200, 2, 30]]), [0, 500, 1000], "ticks", {"units": units})
    assert t.largest_totals() == ([("plain", 31.0), ("a", 10.0), ("cyc", 4.0)], {"Tick": 1, "Joule": 1})
    no_units = Trace(["x", "y"], np.array([[1, 7]]), [0, 1], "ns")
    assert no_units.largest_totals() == ([("y", 7.0), ("x", 1.0)], {})
    path = tmp_path / "t.npz"
    t.save(path)
    assert main(["trace", "info", str(path), "--top", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    i = next(k for k, ln in enumerate(out) if "largest totals" in ln)
    assert out[i] == "  largest totals (2 of 3 counted events; left out, not counts of events: 1 Tick, 1 Joule):"
    assert out[i + 1].split() == ["plain", "31"] and out[i + 2].split() == ["a", "10"] and len(out) == i + 3


def test_a_npy_header_numpy_cannot_tokenize_is_a_format_error(tmp_path):
    """A flipped byte in a member's header (found by benchmarks/fuzz_readers.py on kernels.npz) made numpy's
    header parser raise tokenize.TokenError through Trace.load (issue 16)."""
    path = tmp_path / "t.npz"
    small().save(path)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    text = b"{'descr': '|u1', 'fortran_order': False, 'shape': (3,\x00 }"
    text += b" " * (63 - len(text) % 64) + b"\n"
    members["header.npy"] = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + b"abc"
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in members.items():
            zf.writestr(n, data)
    with pytest.raises(FormatError, match="not an mpx trace file"):
        Trace.load(path)
