"""The hypergraph type (CSR pins plus the inverse vertex→nets incidence) and the partition objectives.

Layout as in KaHyPar and hMetis: net ``e`` has the pins ``pins[net_offsets[e]:net_offsets[e+1]]``; vertex
``v`` lies in the nets ``incident_nets[vertex_offsets[v]:vertex_offsets[v+1]]``. All arrays are int64 numpy
arrays, so the numba kernels take them as they are. Objectives follow KaHyPar's definitions
(Schlag et al., "High-Quality Hypergraph Partitioning", ACM JEA 2022, section 2):
km1 = Σ ω(e)(λ(e) − 1), cut = Σ_{λ(e) > 1} ω(e), imbalance = max_b c(V_b) / ⌈c(V)/k⌉ − 1.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from mpx.errors import ConfigError

_INT = np.int64


def _int_array(values, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ConfigError(f"{what}: expected a 1-D array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(_INT)
        elif arr.dtype == bool:
            arr = arr.astype(_INT)
        else:
            raise ConfigError(f"{what}: expected integers, got dtype {arr.dtype}")
    return np.array(arr, dtype=_INT)  # a copy: the arrays are frozen below, never the caller's


class Hypergraph:
    """An immutable weighted hypergraph: ``num_vertices`` vertices, nets given as CSR ``net_offsets``/``pins``.

    Vertex weights (default 1) and net weights (default 1) are non-negative integers. A pin may not repeat
    inside a net (λ and the FM gain bookkeeping count pins, so a duplicate would be counted twice).
    ``names`` optionally labels the vertices (e.g. event names) and is carried through untouched.
    """

    __slots__ = ("net_offsets", "pins", "vertex_weights", "net_weights", "_vertex_offsets", "_incident_nets",
                 "names", "_total_weight")

    def __init__(
        self,
        num_vertices: int,
        net_offsets: Sequence[int] | np.ndarray,
        pins: Sequence[int] | np.ndarray,
        vertex_weights: Sequence[int] | np.ndarray | None = None,
        net_weights: Sequence[int] | np.ndarray | None = None,
        names: Sequence[str] | None = None,
        *,
        validate: bool = True,
    ) -> None:
        n = int(num_vertices)
        offsets = _int_array(net_offsets, "net_offsets")
        pins_arr = _int_array(pins, "pins")
        if validate:
            if n < 0:
                raise ConfigError(f"num_vertices must be >= 0, got {n}")
            if offsets.size == 0 or offsets[0] != 0:
                raise ConfigError("net_offsets must start with 0 (CSR layout, length = nets + 1)")
            if np.any(np.diff(offsets) < 0):
                raise ConfigError("net_offsets must be non-decreasing")
            if offsets[-1] != pins_arr.size:
                raise ConfigError(f"net_offsets ends at {offsets[-1]} but there are {pins_arr.size} pins")
            if pins_arr.size and (pins_arr.min() < 0 or pins_arr.max() >= n):
                bad = int(pins_arr[(pins_arr < 0) | (pins_arr >= n)][0])
                raise ConfigError(f"pin {bad} out of range for {n} vertices")
        m = offsets.size - 1
        vw = np.ones(n, _INT) if vertex_weights is None else _int_array(vertex_weights, "vertex_weights")
        nw = np.ones(m, _INT) if net_weights is None else _int_array(net_weights, "net_weights")
        if validate:
            if vw.size != n:
                raise ConfigError(f"vertex_weights has {vw.size} entries for {n} vertices")
            if nw.size != m:
                raise ConfigError(f"net_weights has {nw.size} entries for {m} nets")
            if vw.size and vw.min() < 0:
                raise ConfigError(f"vertex {int(np.argmin(vw))} has a negative weight {int(vw.min())}")
            if nw.size and nw.min() < 0:
                raise ConfigError(f"net {int(np.argmin(nw))} has a negative weight {int(nw.min())}")
            dup = _first_duplicate_pin(offsets, pins_arr, n)
            if dup is not None:
                raise ConfigError(f"net {dup[0]} lists vertex {dup[1]} more than once")
            if names is not None and len(names) != n:
                raise ConfigError(f"names has {len(names)} entries for {n} vertices")
        self.net_offsets = offsets
        self.pins = pins_arr
        self.vertex_weights = vw
        self.net_weights = nw
        self.names = None if names is None else list(names)
        self._vertex_offsets: np.ndarray | None = None
        self._incident_nets: np.ndarray | None = None
        self._total_weight = int(vw.sum())
        for arr in (offsets, pins_arr, vw, nw):
            arr.flags.writeable = False

    @classmethod
    def from_nets(
        cls,
        nets: Iterable[Sequence[int]],
        num_vertices: int | None = None,
        vertex_weights: Sequence[int] | np.ndarray | None = None,
        net_weights: Sequence[int] | np.ndarray | None = None,
        names: Sequence[str] | None = None,
    ) -> "Hypergraph":
        """Build from a list of pin lists (0-based); ``num_vertices`` defaults to the largest pin + 1."""
        nets = [np.asarray(list(net), dtype=_INT) for net in nets]
        sizes = np.array([len(p) for p in nets], dtype=_INT)
        offsets = np.zeros(len(nets) + 1, dtype=_INT)
        np.cumsum(sizes, out=offsets[1:])
        pins = np.concatenate(nets) if nets else np.zeros(0, _INT)
        if num_vertices is None:
            if vertex_weights is not None:
                num_vertices = len(vertex_weights)
            elif names is not None:
                num_vertices = len(names)
            else:
                num_vertices = int(pins.max()) + 1 if pins.size else 0
        return cls(num_vertices, offsets, pins, vertex_weights, net_weights, names)

    # --- sizes --------------------------------------------------------------------------------------
    @property
    def num_vertices(self) -> int:
        return self.vertex_weights.size

    @property
    def num_nets(self) -> int:
        return self.net_offsets.size - 1

    @property
    def num_pins(self) -> int:
        return self.pins.size

    @property
    def total_weight(self) -> int:
        """c(V): the sum of the vertex weights."""
        return self._total_weight

    @property
    def net_sizes(self) -> np.ndarray:
        return np.diff(self.net_offsets)

    # --- inverse incidence (built on first use) -----------------------------------------------------
    def _build_incidence(self) -> None:
        n, m = self.num_vertices, self.num_nets
        net_of_pin = np.repeat(np.arange(m, dtype=_INT), self.net_sizes)
        order = np.argsort(self.pins, kind="stable")
        counts = np.bincount(self.pins, minlength=n).astype(_INT)
        voff = np.zeros(n + 1, dtype=_INT)
        np.cumsum(counts, out=voff[1:])
        inc = np.ascontiguousarray(net_of_pin[order])
        voff.flags.writeable = False
        inc.flags.writeable = False
        self._vertex_offsets, self._incident_nets = voff, inc

    @property
    def vertex_offsets(self) -> np.ndarray:
        """CSR offsets of the vertex→nets incidence (length ``num_vertices + 1``)."""
        if self._vertex_offsets is None:
            self._build_incidence()
        return self._vertex_offsets

    @property
    def incident_nets(self) -> np.ndarray:
        """Nets of each vertex, concatenated in vertex order (see ``vertex_offsets``)."""
        if self._incident_nets is None:
            self._build_incidence()
        return self._incident_nets

    @property
    def degrees(self) -> np.ndarray:
        return np.diff(self.vertex_offsets)

    def net(self, e: int) -> np.ndarray:
        """The pins of net ``e``."""
        return self.pins[self.net_offsets[e]: self.net_offsets[e + 1]]

    def nets_of(self, v: int) -> np.ndarray:
        """The nets vertex ``v`` is a pin of."""
        return self.incident_nets[self.vertex_offsets[v]: self.vertex_offsets[v + 1]]

    def nets(self) -> list[list[int]]:
        """All nets as Python lists of pins (for small hypergraphs and tests)."""
        return [self.net(e).tolist() for e in range(self.num_nets)]

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(net_offsets, pins, vertex_offsets, incident_nets, vertex_weights, net_weights)`` for kernels."""
        return (self.net_offsets, self.pins, self.vertex_offsets, self.incident_nets, self.vertex_weights,
                self.net_weights)

    def __repr__(self) -> str:
        return (f"Hypergraph({self.num_vertices} vertices, {self.num_nets} nets, {self.num_pins} pins, "
                f"c(V)={self.total_weight})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hypergraph):
            return NotImplemented
        return (self.num_vertices == other.num_vertices and np.array_equal(self.net_offsets, other.net_offsets)
                and np.array_equal(self.pins, other.pins)
                and np.array_equal(self.vertex_weights, other.vertex_weights)
                and np.array_equal(self.net_weights, other.net_weights))

    __hash__ = None  # type: ignore[assignment]

    def subhypergraph(self, vertices: np.ndarray, min_net_size: int = 2) -> tuple["Hypergraph", np.ndarray]:
        """The hypergraph induced by ``vertices`` (cut-net splitting: each net keeps its pins inside).

        Returns it and ``nets_kept`` (the original id of each of its nets). Nets left with fewer than
        ``min_net_size`` pins are dropped: a net with one pin can never be cut, so it does not change km1
        (this is how recursive bisection splits nets for the km1 objective, KaHyPar's cut-net splitting).
        """
        vertices = np.asarray(vertices, dtype=_INT)
        new_id = np.full(self.num_vertices, -1, dtype=_INT)
        new_id[vertices] = np.arange(vertices.size, dtype=_INT)
        mapped = new_id[self.pins]
        keep_pin = mapped >= 0
        net_of_pin = np.repeat(np.arange(self.num_nets, dtype=_INT), self.net_sizes)
        sizes = np.bincount(net_of_pin[keep_pin], minlength=self.num_nets)
        keep_net = sizes >= min_net_size
        keep_pin &= keep_net[net_of_pin]
        new_sizes = sizes[keep_net]
        offsets = np.zeros(new_sizes.size + 1, dtype=_INT)
        np.cumsum(new_sizes, out=offsets[1:])
        sub = Hypergraph(vertices.size, offsets, mapped[keep_pin], self.vertex_weights[vertices],
                         self.net_weights[keep_net], validate=False)
        return sub, np.flatnonzero(keep_net)


def _first_duplicate_pin(offsets: np.ndarray, pins: np.ndarray, n: int) -> tuple[int, int] | None:
    if pins.size < 2:
        return None
    net_of_pin = np.repeat(np.arange(offsets.size - 1, dtype=_INT), np.diff(offsets))
    key = net_of_pin * max(n, 1) + pins
    order = np.argsort(key, kind="stable")
    sk = key[order]
    dup = np.flatnonzero(sk[1:] == sk[:-1])
    if dup.size == 0:
        return None
    i = order[dup[0] + 1]
    return int(net_of_pin[i]), int(pins[i])


# --- objectives ---------------------------------------------------------------------------------------

def check_blocks(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> tuple[np.ndarray, int]:
    """``blocks`` as an int64 array of length ``num_vertices`` with values in ``[0, k)``, and ``k``."""
    arr = _int_array(blocks, "blocks")
    if arr.size != hg.num_vertices:
        raise ConfigError(f"blocks has {arr.size} entries for {hg.num_vertices} vertices")
    if k is None:
        k = int(arr.max()) + 1 if arr.size else 1
    if arr.size and (arr.min() < 0 or arr.max() >= k):
        raise ConfigError(f"block ids must lie in [0, {k}), got {int(arr.min())}..{int(arr.max())}")
    return arr, int(k)


def connectivity(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> np.ndarray:
    """λ(e): the number of distinct blocks each net touches (0 for an empty net)."""
    arr, k = check_blocks(hg, blocks, k)
    if hg.num_pins == 0:
        return np.zeros(hg.num_nets, dtype=_INT)
    net_of_pin = np.repeat(np.arange(hg.num_nets, dtype=_INT), hg.net_sizes)
    pairs = np.unique(net_of_pin * k + arr[hg.pins])
    return np.bincount(pairs // k, minlength=hg.num_nets).astype(_INT)


def km1(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> int:
    """Connectivity minus one: Σ_e ω(e)·(λ(e) − 1) over nets with at least one pin."""
    lam = connectivity(hg, blocks, k)
    return int(np.sum(hg.net_weights * np.maximum(lam - 1, 0)))


def cut(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> int:
    """Cut-net: the total weight of the nets that touch more than one block."""
    lam = connectivity(hg, blocks, k)
    return int(np.sum(hg.net_weights[lam > 1]))


def block_weights(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> np.ndarray:
    """c(V_b) for every block ``b < k``."""
    arr, k = check_blocks(hg, blocks, k)
    return np.bincount(arr, weights=hg.vertex_weights, minlength=k).astype(_INT)


def imbalance(hg: Hypergraph, blocks: Sequence[int] | np.ndarray, k: int | None = None) -> float:
    """KaHyPar's imbalance: max_b c(V_b) / ⌈c(V)/k⌉ − 1 (0 for a perfectly balanced partition)."""
    bw = block_weights(hg, blocks, k)
    perfect = -(-hg.total_weight // bw.size)
    if perfect == 0:
        return 0.0
    return float(bw.max()) / perfect - 1.0
